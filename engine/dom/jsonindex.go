package dom

// JSONIndex is a decoded JSON value laid out in pre-order, as the decoder met it: the root, then
// each object member and each array element that is an object or an array, each before what is
// nested in it. It lets a search for a key at any depth (funcs' find and findAll) look the key up
// instead of walking tens of thousands of maps, which is what searching a big embedded JSON
// costs; recording it while decoding costs an append per node, where building it afterwards
// would cost a walk.
type JSONIndex struct {
	Nodes []JSONNode
	// Valid: Nodes is the whole value. It is not when the value was decoded by encoding/json (the
	// fast decoder refused the text) or an object repeats a key (its map holds only the last
	// value, Nodes all of them).
	Valid bool
	// Len is the length of the JSON text, which bounds the number of its values: one byte each at
	// least, and a separator between two.
	Len int
}

// JSONNode is one node of a JSONIndex.
type JSONNode struct {
	Key    string // an object member's key
	Val    any    // the node's value
	Parent int32  // the position of the object or array it is in; -1 for the root
	End    int32  // the position past what is nested in the node
	Member bool   // an object member (else the root or an array element)
}

// ScriptJSONIndexed is ScriptJSON that also lays the value out in ix (see JSONIndex), which it
// resets first.
func ScriptJSONIndexed(body []byte, marker Marker, ix *JSONIndex) (any, error) {
	ix.Nodes, ix.Valid = ix.Nodes[:0], false
	return scriptJSON(body, marker, ix)
}

// node appends a node at the start of its value and returns its position.
func (ix *JSONIndex) node(key string, member bool, parent int32) int32 {
	at := int32(len(ix.Nodes))
	ix.Nodes = append(ix.Nodes, JSONNode{Key: key, Parent: parent, Member: member})
	return at
}

// done records the node's value, complete.
func (ix *JSONIndex) done(at int32, v any) {
	n := &ix.Nodes[at]
	n.Val, n.End = v, int32(len(ix.Nodes))
}
