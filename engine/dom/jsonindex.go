package dom

import (
	"math"
	"unsafe"
)

// JSONIndex is a decoded JSON value laid out in pre-order, in the order of its text: the root,
// then each object member and each array element that is an object or an array, each before what
// is nested in it. It lets a search for a key at any depth (funcs' find and findAll) look the key
// up instead of walking tens of thousands of maps, which is what searching a big embedded JSON
// costs.
//
// The nodes hold no pointers (a key is a range of the text, a value an index into vals): the
// collector neither scans them nor guards their writes, and a document has tens of thousands.
type JSONIndex struct {
	Nodes []JSONNode
	text  string   // the JSON text, whose ranges the keys without escapes are
	keys  []string // the keys with escapes, decoded
	vals  []any    // the objects and arrays of the value (and the root), in pre-order
	// tags has, per node, keyTag of its key when it is a member whose value is not null, else 0:
	// Members scans these few bytes a node rather than the nodes.
	tags []uint32
}

// JSONNode is one node of a JSONIndex.
type JSONNode struct {
	Parent int32 // the position of the object or array it is in; -1 for the root
	End    int32 // the position past what is nested in the node
	// key is where an object member's key is in the text, keyLen its length; a key with escapes,
	// or longer than keyLen counts, is keys[-1-key] instead.
	key int32
	// val is the position in vals of the node's value when it is an object, an array or the root,
	// else -1: a member's scalar is in its object's map (see Value), and looking every such value
	// up while laying the document out would cost a third of the work for the few a search
	// returns.
	val    int32
	keyLen uint16 // with the two flags, the node is 20 bytes rather than 24: a page has 20,000
	Member bool   // an object member (else the root or an array element)
	Null   bool   // a member whose value is null
}

// add appends a node, whose key (a member's) is text[keyAt:keyAt+len(key)] when keyAt >= 0, and
// returns its position; set completes it.
func (ix *JSONIndex) add(key string, keyAt int, member bool, parent int32) int32 {
	at := int32(len(ix.Nodes))
	// The slot past the length is still zero (make and append clear it): setting the fields
	// there costs less than appending a whole node.
	if len(ix.Nodes) < cap(ix.Nodes) {
		ix.Nodes = ix.Nodes[:at+1]
	} else {
		ix.Nodes = append(ix.Nodes, JSONNode{})
	}
	n := &ix.Nodes[at]
	n.Parent, n.Member, n.val = parent, member, -1
	if keyAt >= 0 && len(key) <= math.MaxUint16 {
		n.key, n.keyLen = int32(keyAt), uint16(len(key))
	} else {
		ix.keys = append(ix.keys, key)
		n.key = -int32(len(ix.keys))
	}
	var tag uint32
	if member {
		tag = keyTag(key) // undone by set when the value is null
	}
	ix.tags = append(ix.tags, tag)
	return at
}

// set completes node at: its value v (kept when an object, an array or the root), whether it is
// a member that is null, and the end of what is nested in it.
func (ix *JSONIndex) set(at int32, v any, null bool) {
	n := &ix.Nodes[at]
	keep := !n.Member // the root, or an array's element (which is an object or an array)
	switch v.(type) {
	case map[string]any, []any:
		keep = true
	}
	if keep {
		n.val = int32(len(ix.vals))
		ix.vals = append(ix.vals, v)
	}
	n.End, n.Null = int32(len(ix.Nodes)), null
	if null {
		ix.tags[at] = 0
	}
}

// Key returns the key of node i, a member ("" for another node).
func (ix *JSONIndex) Key(i int32) string {
	n := &ix.Nodes[i]
	if n.key < 0 {
		return ix.keys[-1-n.key]
	}
	return ix.text[n.key : n.key+int32(n.keyLen)]
}

// Container returns the value of node i when it is an object, an array or the root, else nil
// (without looking a member's scalar up, as Value does).
func (ix *JSONIndex) Container(i int32) any {
	if n := &ix.Nodes[i]; n.val >= 0 {
		return ix.vals[n.val]
	}
	return nil
}

// Value returns the value of node i.
func (ix *JSONIndex) Value(i int32) any {
	n := &ix.Nodes[i]
	if n.val >= 0 {
		return ix.vals[n.val]
	}
	if !n.Member || n.Null {
		return nil
	}
	m, _ := ix.Container(n.Parent).(map[string]any)
	return m[ix.Key(i)]
}

// keyTag is a digest of a member's key, never 0 but for "": its length and three of its bytes.
func keyTag(k string) uint32 {
	if k == "" {
		return 0
	}
	return uint32(min(len(k), 255)) | uint32(k[0])<<8 | uint32(k[len(k)/2])<<16 | uint32(k[len(k)-1])<<24
}

// Members returns the positions, in pre-order, of the members under key whose value is not null.
func (ix *JSONIndex) Members(key string) []int32 {
	var out []int32
	t := keyTag(key)
	if t == 0 {
		for i := range ix.Nodes {
			if n := &ix.Nodes[i]; n.Member && !n.Null && ix.Key(int32(i)) == key {
				out = append(out, int32(i))
			}
		}
		return out
	}
	for i, g := range ix.tags {
		if g == t && ix.Key(int32(i)) == key {
			out = append(out, int32(i))
		}
	}
	return out
}

// newJSONIndex returns an empty index for text, sized for the corpus' node every 30 bytes.
func newJSONIndex(text string) *JSONIndex {
	n := len(text) / 24
	return &JSONIndex{Nodes: make([]JSONNode, 0, n), text: text, vals: make([]any, 0, n/2), tags: make([]uint32, 0, n)}
}

// rawKey returns where the key d.str just read, which started at the quote at start, is in the
// text: -1 when it had escapes (its decoded form is then shorter than its text).
func (d *fastDecoder) rawKey(k string, start int) int {
	if len(k) == d.i-start-2 {
		return start + 1
	}
	return -1
}

// ScriptJSONText is ScriptJSON that also returns the JSON text of the value, for IndexJSON: a
// sub-slice of body, or the unescaped content of a string literal; and the value's index when
// the decoder laid it out as it decoded (what IndexJSON(text, v) answers), else nil.
func ScriptJSONText(body []byte, marker Marker) (v any, text []byte, ix *JSONIndex, err error) {
	t := jsonText{index: true}
	v, err = scriptJSON(body, marker, &t)
	return v, t.text, t.ix, err
}

// IndexJSON lays out v, the value decoded from text, by reading text again alongside v: each
// member's value is looked up in its object's map, each element's in its array, so that the nodes
// hold the very maps and lists of v. Reading the text costs a fraction of walking v's maps, which
// have no order to read them in but a hash iteration's. It answers nil when the two do not pair
// exactly: an object that repeats a key (its map holds only the last value), text that is not
// v's, or text not valid JSON.
func IndexJSON(text []byte, v any) *JSONIndex {
	if len(text) == 0 || len(text) > math.MaxInt32 {
		return nil // positions are int32
	}
	s := unsafe.String(&text[0], len(text)) // read only
	d := fastDecoder{s: s, b: text}
	ix := newJSONIndex(s)
	d.space()
	if !d.pair(ix, v, "", 0, false, -1, 0) {
		return nil
	}
	d.space()
	if d.i != len(d.b) {
		return nil
	}
	return ix
}

// pair reads the value at d.i as v, recording its node (and those nested in it) in ix.
func (d *fastDecoder) pair(ix *JSONIndex, v any, key string, keyAt int, member bool, parent int32, depth int) bool {
	if d.i >= len(d.b) || depth > MaxDepth {
		return false
	}
	at := ix.add(key, keyAt, member, parent)
	switch d.b[d.i] {
	case '{':
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		d.i++
		d.space()
		n := 0
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
		} else {
			for {
				if d.i >= len(d.b) || d.b[d.i] != '"' {
					return false
				}
				start := d.i
				k, ok := d.str()
				if !ok {
					return false
				}
				keyAt := d.rawKey(k, start)
				d.space()
				if d.i >= len(d.b) || d.b[d.i] != ':' {
					return false
				}
				d.i++
				d.space()
				if d.i >= len(d.b) {
					return false
				}
				if c := d.b[d.i]; c == '{' || c == '[' {
					x, ok := m[k]
					if !ok || !d.pair(ix, x, k, keyAt, true, at, depth+1) {
						return false
					}
				} else {
					// A scalar: its value is m[k] (Value), the text being v's. A key the text
					// repeats makes the count below differ from len(m).
					ix.set(ix.add(k, keyAt, true, at), nil, c == 'n')
					if !d.skipScalar() {
						return false
					}
				}
				n++
				if !d.next('}') {
					if d.i > len(d.b) {
						return false
					}
					continue
				}
				break
			}
		}
		if n != len(m) {
			return false // a repeated key
		}
	case '[':
		l, ok := v.([]any)
		if !ok {
			return false
		}
		d.i++
		d.space()
		n := 0
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
		} else {
			for {
				if n >= len(l) || d.i >= len(d.b) {
					return false
				}
				if c := d.b[d.i]; c == '{' || c == '[' {
					if !d.pair(ix, l[n], "", 0, false, at, depth+1) {
						return false
					}
				} else if !d.skipScalar() {
					return false
				}
				n++
				if !d.next(']') {
					if d.i > len(d.b) {
						return false
					}
					continue
				}
				break
			}
		}
		if n != len(l) {
			return false
		}
	default:
		if !d.skipScalar() {
			return false
		}
	}
	ix.set(at, v, false)
	return true
}

// next reads what follows a member or an element: a ',' (false, with d.i past it and the space
// after it), or closing (true, with d.i past it). Anything else sets d.i past the text (false).
func (d *fastDecoder) next(closing byte) bool {
	d.space()
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
			return false
		case closing:
			d.i++
			return true
		}
	}
	d.i = len(d.b) + 1
	return false
}

// skipScalar moves d.i past a string, number, true, false or null; the pairing checks nothing of
// it but its extent, v holding its value.
func (d *fastDecoder) skipScalar() bool {
	if d.b[d.i] == '"' {
		e := stringEnd(d.b, d.i+1)
		if e < 0 {
			return false
		}
		d.i = e + 1
		return true
	}
	start := d.i
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ',', ']', '}', ' ', '\t', '\n', '\r':
			return d.i > start
		case '{', '[', '"', ':':
			return false
		}
		d.i++
	}
	return d.i > start
}
