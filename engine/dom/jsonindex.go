package dom

import "unsafe"

// JSONIndex is a decoded JSON value laid out in pre-order, in the order of its text: the root,
// then each object member and each array element that is an object or an array, each before what
// is nested in it. It lets a search for a key at any depth (funcs' find and findAll) look the key
// up instead of walking tens of thousands of maps, which is what searching a big embedded JSON
// costs.
type JSONIndex struct {
	Nodes []JSONNode
	// tags has, per node, keyTag of its key when it is a member whose value is not null, else 0:
	// Members scans these few bytes a node rather than the nodes, twelve times their size.
	tags []uint32
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
	if t == 0 || len(ix.tags) != len(ix.Nodes) {
		for i := range ix.Nodes {
			if n := &ix.Nodes[i]; n.Member && !n.Null && n.Key == key {
				out = append(out, int32(i))
			}
		}
		return out
	}
	for i, g := range ix.tags {
		if g == t && ix.Nodes[i].Key == key {
			out = append(out, int32(i))
		}
	}
	return out
}

// tag records node at's tag, once its value is known.
func (ix *JSONIndex) tag(at int32) {
	n := &ix.Nodes[at]
	if n.Member && !n.Null {
		ix.tags[at] = keyTag(n.Key)
	}
}

// JSONNode is one node of a JSONIndex.
type JSONNode struct {
	Key string // an object member's key
	// Val is the node's value, but nil for a member whose value is not an object or an array:
	// its object's map holds it (see Value), and looking every such value up while laying the
	// document out would cost a third of the work for the few a search returns.
	Val    any
	Parent int32 // the position of the object or array it is in; -1 for the root
	End    int32 // the position past what is nested in the node
	Member bool  // an object member (else the root or an array element)
	Null   bool  // a member whose value is null
}

// Value returns the value of node i.
func (ix *JSONIndex) Value(i int32) any {
	n := &ix.Nodes[i]
	if n.Val != nil || !n.Member || n.Null {
		return n.Val
	}
	m, _ := ix.Nodes[n.Parent].Val.(map[string]any)
	return m[n.Key]
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
	if len(text) == 0 {
		return nil
	}
	s := unsafe.String(&text[0], len(text)) // read only
	d := fastDecoder{s: s, b: text}
	ix := &JSONIndex{Nodes: make([]JSONNode, 0, len(text)/24), tags: make([]uint32, 0, len(text)/24)}
	d.space()
	if !d.pair(ix, v, "", false, -1, 0) {
		return nil
	}
	d.space()
	if d.i != len(d.b) {
		return nil
	}
	return ix
}

// pair reads the value at d.i as v, recording its node (and those nested in it) in ix.
func (d *fastDecoder) pair(ix *JSONIndex, v any, key string, member bool, parent int32, depth int) bool {
	if d.i >= len(d.b) || depth > MaxDepth {
		return false
	}
	at := int32(len(ix.Nodes))
	ix.Nodes = append(ix.Nodes, JSONNode{Key: key, Val: v, Parent: parent, Member: member})
	ix.tags = append(ix.tags, 0)
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
				k, ok := d.str()
				if !ok {
					return false
				}
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
					if !ok || !d.pair(ix, x, k, true, at, depth+1) {
						return false
					}
				} else {
					// A scalar: its value is m[k] (Value), the text being v's. A key the text
					// repeats makes the count below differ from len(m).
					ix.Nodes = append(ix.Nodes, JSONNode{Key: k, Parent: at, End: int32(len(ix.Nodes)) + 1, Member: true, Null: c == 'n'})
					ix.tags = append(ix.tags, 0)
					ix.tag(int32(len(ix.Nodes)) - 1)
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
					if !d.pair(ix, l[n], "", false, at, depth+1) {
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
	ix.Nodes[at].End = int32(len(ix.Nodes))
	ix.tag(at)
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
