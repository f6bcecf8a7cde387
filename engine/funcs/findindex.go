package funcs

import (
	"slices"
	"sort"
	"strings"
	"unsafe"

	"github.com/expr-lang/expr/ast"

	"asa/engine/dom"
)

// A big embedded JSON (YouTube's ytInitialData: some 18,000 maps) is searched by several find
// and findAll calls of one run, each over most of the document and each for another key; each
// walks the whole subtree, map by map, to find a handful of matches. Finds answers those calls
// from the document's dom.JSONIndex instead, laid out in pre-order by the decoder as it decodes a
// script's JSON (else from the document's text, when the first search too big to walk comes): a
// key's matches below a node are then a binary search of the key's positions, put in the walk's
// order (map keys sorted) by comparing their paths.
//
// Only documents the engine registers are searched so: decoded sources, which nothing changes
// once decoded (a map the run builds, such as fields, grows while the run goes on).

// FindsVar is the environment name under which the engine passes a run's *Finds; '$' keeps a
// sitedef from naming it (the parser reads no identifier starting with it but $env).
const FindsVar = "$finds"

// Hidden names of find and findAll taking the run's *Finds as a third argument; FindsPatch
// produces the calls.
const (
	hiddenFindIn    = "$findIn"
	hiddenFindAllIn = "$findAllIn"
)

// probeNodes is how many nodes a search walks before it turns to an index: a small subtree (a
// list item's metadata, a video's chapters) is cheaper to walk than to index the document for,
// and walking it first costs a big search little.
const probeNodes = 2048

// laidOutProbeNodes is the probe once every document has its index (the decoder lays a script's
// JSON out as it decodes it): what the probe then saves is only locating the subtree, a scan of
// the document's nodes that costs about as much as walking a hundred or two.
const laidOutProbeNodes = 128

// Finds is one run's indexed documents. A run is one goroutine: Finds is not safe for concurrent
// use.
type Finds struct {
	docs []*findDoc
}

// findDoc is a registered document, indexed when a search first needs it.
type findDoc struct {
	v    any
	text []byte
	ix   *findIndex // nil until indexed, or when the text and v do not pair (see dom.IndexJSON)
	done bool       // indexing was tried
}

// NewFinds returns an empty set of documents, for one run.
func NewFinds() *Finds { return &Finds{} }

// Add registers v, decoded from the JSON text text, with its index when the decoder laid it out
// (dom.ScriptJSONText), else nil: it is then laid out from text when a search first needs it.
// None may change afterwards.
func (fs *Finds) Add(v any, text []byte, ix *dom.JSONIndex) {
	// A value takes a byte of text at least and a separator from the next: a text this short
	// holds no more values than a search may visit, so no search of it runs out of budget.
	if len(text) > 2*findBudget-1 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			return
		}
	case []any:
		if len(x) == 0 {
			return
		}
	default:
		return
	}
	d := &findDoc{v: v, text: text}
	if ix != nil {
		d.ix, d.done, d.text = newFindIndex(ix), true, nil
	}
	fs.docs = append(fs.docs, d)
}

// laidOut reports whether every document has been indexed (or found not to pair with its text).
func (fs *Finds) laidOut() bool {
	for _, d := range fs.docs {
		if !d.done {
			return false
		}
	}
	return true
}

// find is findKey(v, key, all), answered from an index when v is a big subtree of a registered
// document.
func (fs *Finds) find(v, key any, all bool) []any {
	k, ok := key.(string)
	if !ok {
		return nil
	}
	if fs == nil || len(fs.docs) == 0 {
		return findKey(v, k, all)
	}
	switch v.(type) {
	case map[string]any, []any:
	default:
		return findKey(v, k, all)
	}
	f := finder{key: k, budget: probeNodes}
	if fs.laidOut() {
		f.budget = laidOutProbeNodes
	}
	if all {
		if f.collect(v, 0) {
			return f.out
		}
	} else {
		f.first(v, 0)
		if f.budget >= 0 && !f.tooDeep {
			return f.out
		}
	}
	for _, d := range fs.docs {
		if !d.done {
			d.done = true
			if jx := dom.IndexJSON(d.text, d.v); jx != nil {
				d.ix = newFindIndex(jx)
			}
			d.text = nil
		}
		if d.ix == nil {
			continue
		}
		if at := d.ix.locate(v); at >= 0 {
			return d.ix.find(at, k, all)
		}
	}
	return findKey(v, k, all)
}

// findIndex is a registered document: its nodes, and the positions of the keys searched so far.
type findIndex struct {
	*dom.JSONIndex
	// byKey holds, per key searched so far, the positions of the members under it with a non-nil
	// value, in pre-order.
	byKey map[string][]int32
	// big holds the positions of the maps and lists spanning locateMinNodes nodes or more, once
	// locate first needs them.
	big []int32
}

// locateMinNodes is the fewest nodes a map or list spans for locate to find it. A search that
// outgrew the probe is of a big subtree nearly always, and looking among the few hundred such
// costs little, even for a value that is not the document's at all (a list a filter made); a
// subtree of fewer nodes (a list of scalars: they have no nodes) is walked, which answers the
// same.
const locateMinNodes = 64

func newFindIndex(ix *dom.JSONIndex) *findIndex {
	return &findIndex{JSONIndex: ix, byKey: map[string][]int32{}}
}

// identity tells a map or list of the document from any other value: a map's pointer, a list's
// first element (with its length, which locate compares too: two lists with the same first
// element and length hold the same items, whose searches answer the same).
func identity(v any) (p unsafe.Pointer, n int, list bool) {
	switch x := v.(type) {
	case map[string]any:
		return *(*unsafe.Pointer)(unsafe.Pointer(&x)), len(x), false
	case []any:
		return unsafe.Pointer(unsafe.SliceData(x)), len(x), true
	}
	return nil, 0, false
}

// locate returns v's position, or -1 when v is not a non-empty map or list of the document that
// spans locateMinNodes nodes or more.
func (ix *findIndex) locate(v any) int32 {
	p, n, list := identity(v)
	if p == nil || n == 0 {
		return -1
	}
	if ix.big == nil {
		ix.big = []int32{}
		for i := range ix.Nodes {
			if ix.Nodes[i].End-int32(i) >= locateMinNodes {
				ix.big = append(ix.big, int32(i))
			}
		}
	}
	for _, i := range ix.big {
		if q, m, l := identity(ix.Container(i)); q == p && m == n && l == list {
			return i
		}
	}
	return -1
}

// find answers findKey(Value(at), key, all).
func (ix *findIndex) find(at int32, key string, all bool) []any {
	pos, ok := ix.byKey[key]
	if !ok {
		pos = ix.Members(key)
		ix.byKey[key] = pos
	}
	end := ix.Nodes[at].End
	lo := sort.Search(len(pos), func(i int) bool { return pos[i] > at })
	hi := sort.Search(len(pos), func(i int) bool { return pos[i] >= end })
	if lo >= hi {
		return nil
	}
	hits := pos[lo:hi]
	if !all {
		best := hits[0]
		for _, h := range hits[1:] {
			if ix.before(h, best) {
				best = h
			}
		}
		return []any{ix.Value(best)}
	}
	if !slices.IsSortedFunc(hits, ix.cmp) {
		hits = slices.Clone(hits)
		slices.SortFunc(hits, ix.cmp)
	}
	out := make([]any, len(hits))
	for i, h := range hits {
		out[i] = ix.Value(h)
	}
	return out
}

func (ix *findIndex) cmp(a, b int32) int {
	switch {
	case a == b:
		return 0
	case ix.before(a, b):
		return -1
	}
	return 1
}

func (ix *findIndex) depth(a int32) int {
	d := 0
	for ; ix.Nodes[a].Parent >= 0; a = ix.Nodes[a].Parent {
		d++
	}
	return d
}

// before reports whether the walk meets node a before node b (a != b): a node before what is
// nested in it, list items in order, map entries in key order.
func (ix *findIndex) before(a, b int32) bool {
	if a < b && b < ix.Nodes[a].End {
		return true
	}
	if b < a && a < ix.Nodes[b].End {
		return false
	}
	// Neither is nested in the other: climb to the children of their deepest common ancestor.
	da, db := ix.depth(a), ix.depth(b)
	for ; da > db; da-- {
		a = ix.Nodes[a].Parent
	}
	for ; db > da; db-- {
		b = ix.Nodes[b].Parent
	}
	for ix.Nodes[a].Parent != ix.Nodes[b].Parent {
		a, b = ix.Nodes[a].Parent, ix.Nodes[b].Parent
	}
	if _, list := ix.Container(ix.Nodes[a].Parent).([]any); list {
		return a < b
	}
	return strings.Compare(ix.Key(a), ix.Key(b)) < 0
}

// FindsPatch rewrites the calls find(v, "key") (once findPatch made it $find) and findAll(v, key)
// into their versions that take the run's Finds. The engine applies it to the expressions of an
// environment that declares FindsVar.
type FindsPatch struct{}

func (FindsPatch) Visit(n *ast.Node) {
	withRunArg(n, FindsVar, func(name string) string {
		switch name {
		case hiddenFind:
			return hiddenFindIn
		case "findAll":
			return hiddenFindAllIn
		}
		return ""
	})
}

// withRunArg rewrites *n, when it is a two-argument call of a function hidden names (its hidden
// version, "" for none), into a call of that version with the run's state, the variable v, as a
// third argument: how FindsPatch and BasesPatch hand a run's own state to a pure function.
func withRunArg(n *ast.Node, v string, hidden func(name string) string) {
	c, ok := (*n).(*ast.CallNode)
	if !ok || len(c.Arguments) != 2 {
		return
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	if !ok {
		return
	}
	name := hidden(id.Value)
	if name == "" {
		return
	}
	callee := &ast.IdentifierNode{Value: name}
	callee.SetLocation(c.Location())
	state := &ast.IdentifierNode{Value: v}
	state.SetLocation(c.Location())
	ast.Patch(n, &ast.CallNode{Callee: callee, Arguments: []ast.Node{c.Arguments[0], c.Arguments[1], state}})
}
