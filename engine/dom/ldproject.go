package dom

import (
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A page's JSON-LD decoded as projected: bandcamp's album page holds 34 KB of MusicAlbum, half of it
// the list of its supporters, and the album endpoint reads a dozen members of it.
//
// JSONLDElements decodes every block whole, merges the nodes that share an @id (mergeByID), and
// FindJSONLD looks for a type among the top-level objects, then among the nested ones. A projected
// decode builds, of each top-level object, its @type and the members the projection names (an
// @graph is followed to the objects it holds, as flattenLD does), and steps over the rest. The top-
// level objects, their order and their types are then the full decode's, and so is what the sources
// read of the one found, on two conditions, which the decode checks from the @id and @type of
// every object of every block, built or stepped over (ldNotes):
//   - no two objects share an @id with types that agree: mergeByID then lends no key and drops no
//     object, whatever its bounds (otherwise JSONLDProjected answers nil and the caller decodes whole);
//   - when no top-level object has the type, no object at any depth has it exactly (otherwise Find
//     answers false, and the caller looks in the whole decode): FindJSONLD's nested search then
//     finds nothing either.
//
// A block the fast decoder does not take (lenient JSON, HTML-escaped quotes ...) is decoded as
// decodeLD does and kept whole; its objects are noted from the value.

// LDSet is the JSON-LD objects of a page, projected (see JSONLDProjected).
type LDSet struct {
	objs  []map[string]any
	types []string // every type of every object, at any depth
}

// JSONLDProjected is JSONLDElements(doc, elems) whose top-level objects are projected by p (what
// the json_ld sources read of the object they find), or nil when the page's objects may merge,
// which the caller then decodes whole.
func JSONLDProjected(doc *html.Node, elems []*html.Node, p *Projection) *LDSet {
	if doc == nil {
		return &LDSet{}
	}
	var notes ldNotes
	var out []map[string]any
	each := func(n *html.Node) {
		s := stripWrappers(scriptText(n))
		if s == "" {
			return
		}
		mark := notes.mark()
		if v, ok := decodeLDProjected(s, p, &notes); ok {
			flattenLD(v, &out)
			return
		}
		notes.reset(mark)
		for _, v := range decodeLDSlow(s) {
			notes.walk(v)
			flattenLD(v, &out)
		}
	}
	if elems != nil {
		for _, n := range elems {
			if n.DataAtom == atom.Script && n.Type == html.ElementNode && isLDScript(n) {
				each(n)
			}
		}
	} else {
		eachLDScript(doc, each)
	}
	if notes.mayMerge() {
		return nil
	}
	return &LDSet{objs: out, types: notes.types}
}

// eachLDScript calls fn on every JSON-LD script of doc in document order, as JSONLD walks.
func eachLDScript(doc *html.Node, fn func(*html.Node)) {
	n := doc
	for {
		if n.Type == html.ElementNode && n.DataAtom == atom.Script && isLDScript(n) {
			fn(n)
		} else if n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		for n.NextSibling == nil {
			n = n.Parent
			if n == nil || n == doc {
				return
			}
		}
		if n == doc {
			return
		}
		n = n.NextSibling
	}
}

// Find is FindJSONLD(objs, typ) of the whole decode, projected; ok is false when the set cannot
// say (the type is only nested), and the caller looks in the whole decode.
func (s *LDSet) Find(typ string) (m map[string]any, ok bool) {
	if typ == "" {
		return nil, true
	}
	for _, fold := range [...]bool{false, true} {
		for _, o := range s.objs {
			if hasType(o, typ, fold) {
				return o, true
			}
		}
	}
	for _, t := range s.types {
		if typeMatches(t, typ, false) {
			return nil, false
		}
	}
	return nil, true
}

// decodeLDProjected is the fast decode of a JSON-LD block (decodeLD's first try) with its top-level
// objects projected by p; ok exactly when decodeFastStringDepth(s) takes s.
func decodeLDProjected(s string, p *Projection, notes *ldNotes) (v any, ok bool) {
	d := fastDecoder{s: s, b: unsafe.Slice(unsafe.StringData(s), len(s)), maxDepth: MaxDepth, ld: notes}
	d.space()
	if v, ok = d.ldValue(p); !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.b)
}

// ldValue decodes a value whose objects are top-level JSON-LD objects (a block, an element of a
// top-level array, an @graph), projected by p.
func (d *fastDecoder) ldValue(p *Projection) (any, bool) {
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '{':
			return d.ldObject(p)
		case '[':
			return d.ldArray(p)
		}
	}
	return d.value()
}

// ldArray is an array whose elements are read by ldValue.
func (d *fastDecoder) ldArray(p *Projection) (any, bool) {
	return d.arrayOf(func() (any, bool) { return d.ldValue(p) })
}

// ldObject is a top-level object: its @type (FindJSONLD and flattenLD read it), its @graph (as
// ldValue) and the members p names; the rest is stepped over. As projObject, an object of which
// nothing is kept keeps its first key, with a nil value.
func (d *fastDecoder) ldObject(p *Projection) (any, bool) {
	if !d.enter() {
		return nil, false
	}
	d.i++ // {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return map[string]any{}, true
	}
	mark := len(d.members)
	first, skipped := "", false
	var id, typ any
	nk := 0
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		nk++
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		var x any
		c, keep := p.Keys[k]
		switch {
		case k == "@graph":
			x, ok = d.ldValue(p)
			keep = true
		case keep:
			x, ok = d.projValue(c)
		case k == "@type" || k == "@id":
			x, ok = d.value()
			keep = k == "@type"
		default:
			if !d.skip() {
				return nil, false
			}
			if !skipped {
				first, skipped = k, true
			}
			goto next
		}
		if !ok {
			return nil, false
		}
		switch k {
		case "@id":
			id = x
		case "@type":
			typ = x
		}
		if keep {
			d.members = append(d.members, member{k, x})
		} else if !skipped {
			first, skipped = k, true
		}
	next:
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			d.depth--
			ms := d.members[mark:]
			m := make(map[string]any, max(len(ms), 1))
			for _, e := range ms {
				m[e.k] = e.v // a repeated key: the last value, as encoding/json
			}
			clear(ms)
			d.members = d.members[:mark]
			if len(m) == 0 {
				m[first] = nil
			}
			d.ld.note(id, typ, nk, true)
			return m, true
		default:
			return nil, false
		}
	}
}

// skipObjectLD is skip of an object in a projected JSON-LD decode: it also notes the object's @id
// and @type, decoded (a key with escapes is decoded to be compared).
func (d *fastDecoder) skipObjectLD() bool {
	if !d.enter() {
		return false
	}
	d.i++ // {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return true
	}
	var id, typ any
	nk := 0
	for {
		nk++
		start := d.i
		if d.i >= len(d.b) || d.b[d.i] != '"' || !d.skipStr() {
			return false
		}
		k := d.s[start+1 : d.i-1]
		if strings.IndexByte(k, '\\') >= 0 {
			end := d.i
			d.i = start
			k, _ = d.str() // what skipStr takes, str decodes
			d.i = end
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return false
		}
		d.i++
		d.space()
		if k == "@id" || k == "@type" {
			x, ok := d.value()
			if !ok {
				return false
			}
			if k == "@id" {
				id = x
			} else {
				typ = x
			}
		} else if !d.skip() {
			return false
		}
		d.space()
		if d.i >= len(d.b) {
			return false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			d.depth--
			d.ld.note(id, typ, nk, false)
			return true
		default:
			return false
		}
	}
}

// ldNotes holds the @id and @type of every object of a projected JSON-LD decode: the types of all
// in one list, and the objects with an @id, each with its types (a range of the list).
type ldNotes struct {
	types []string
	ids   []ldIDNote
}

type ldIDNote struct {
	id       string
	from, to int  // the object's types: types[from:to]
	keys     int  // its members (at least as many as its keys: a repeated key counts twice)
	top      bool // it may be a top-level object
}

// note records an object whose "@id" and "@type" members are id and typ (nil when absent), read as
// ldID and ldTypes read them, with keys members; top when it may be a top-level object.
func (n *ldNotes) note(id, typ any, keys int, top bool) {
	from := len(n.types)
	switch t := typ.(type) {
	case string:
		n.types = append(n.types, t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				n.types = append(n.types, s)
			}
		}
	}
	if s, ok := id.(string); ok {
		if s = strings.TrimSpace(s); s != "" {
			n.ids = append(n.ids, ldIDNote{id: s, from: from, to: len(n.types), keys: keys, top: top})
		}
	}
}

// noteMap records a decoded object (top: it may be a top-level object).
func (n *ldNotes) noteMap(m map[string]any, top bool) { n.note(m["@id"], m["@type"], len(m), top) }

type ldMark struct{ types, ids int }

func (n *ldNotes) mark() ldMark { return ldMark{len(n.types), len(n.ids)} }

func (n *ldNotes) reset(m ldMark) {
	n.types, n.ids = n.types[:m.types], n.ids[:m.ids]
}

// walk notes every object of v, at any depth, each as one that may be top-level.
func (n *ldNotes) walk(v any) {
	stack := []any{v}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := x.(type) {
		case map[string]any:
			n.noteMap(x, true)
			for _, e := range x {
				if isContainer(e) {
					stack = append(stack, e)
				}
			}
		case []any:
			for _, e := range x {
				if isContainer(e) {
					stack = append(stack, e)
				}
			}
		}
	}
}

// maxSameID bounds the objects of one @id whose types are compared pairwise; more may merge.
const maxSameID = 16

// mayMerge reports whether mergeByID may lend a key: when an object that may be top-level shares
// its @id with another of two members or more whose types agree (typesAgree).
func (n *ldNotes) mayMerge() bool {
	if len(n.ids) < 2 {
		return false
	}
	ids := slices.Clone(n.ids)
	slices.SortFunc(ids, func(a, b ldIDNote) int { return strings.Compare(a.id, b.id) })
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j].id == ids[i].id {
			j++
		}
		if j-i > maxSameID {
			return true
		}
		for a := i; a < j; a++ {
			if !ids[a].top {
				continue
			}
			for b := i; b < j; b++ {
				if b != a && ids[b].keys >= 2 && typeListsAgree(n.types[ids[a].from:ids[a].to], n.types[ids[b].from:ids[b].to]) {
					return true
				}
			}
		}
		i = j
	}
	return false
}

// typeListsAgree is typesAgree of two objects' types.
func typeListsAgree(ta, tb []string) bool {
	if len(ta) == 0 || len(tb) == 0 {
		return true
	}
	for _, x := range ta {
		for _, y := range tb {
			if strings.EqualFold(lastSegment(x), lastSegment(y)) {
				return true
			}
		}
	}
	return false
}

// UnionProjection is a projection that keeps what a or b keeps: the reading of two sources that
// share one decode.
func UnionProjection(a, b *Projection) *Projection {
	if a == nil || b == nil || a.Whole || b.Whole {
		return &Projection{Whole: true}
	}
	out := &Projection{Keys: unionKeys(a.Keys, b.Keys), Desc: unionKeys(a.Desc, b.Desc), Elem: a.Elem}
	if b.Elem != nil {
		out.Elem = b.Elem
		if a.Elem != nil {
			out.Elem = UnionProjection(a.Elem, b.Elem)
		}
	}
	return out
}

func unionKeys(a, b map[string]*Projection) map[string]*Projection {
	if len(a) == 0 && len(b) == 0 {
		return nil
	}
	out := make(map[string]*Projection, len(a)+len(b))
	for k, p := range a {
		out[k] = p
	}
	for k, p := range b {
		if q, ok := out[k]; ok {
			p = UnionProjection(q, p)
		}
		out[k] = p
	}
	return out
}

// DecodeJSONStringProjected is DecodeJSONString(s) projected by p (nil: whole), for a JSON text
// such as an attribute's value (bandcamp's data-tralbum).
func DecodeJSONStringProjected(s string, p *Projection) (any, error) {
	if p == nil || p.Whole {
		return DecodeJSONString(s)
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	t := trimJSONPrefix(b)
	if v, ok := decodeFastStringProjected(s[len(b)-len(t):], p); ok {
		return v, nil
	}
	return DecodeJSONString(s)
}

// decodeFastStringProjected is decodeFastStringDepth(s) projected by p: it takes s exactly when
// that does.
func decodeFastStringProjected(s string, p *Projection) (any, bool) {
	if len(s) > maxSearchedText && searches(p) {
		return decodeFastStringDepth(s)
	}
	d := fastDecoder{s: s, b: unsafe.Slice(unsafe.StringData(s), len(s)), maxDepth: MaxDepth}
	d.space()
	v, ok := d.projValue(p)
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.b)
}
