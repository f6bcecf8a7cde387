// Package xpatheval evaluates the XPaths of compiled sitedefs on parsed pages: a per-document index
// for XPaths that start with a keyed descendant step (index.go), direct evaluation on the node tree
// for the common subset (native.go), antchfx/xpath for everything else, and one answer whichever
// way runs (a union in document order, (X)[N] picked in document order). It also holds the
// rare-byte literal search (literal.go) that rules and regex selectors use on whole bodies, and that
// the native contains() uses on attribute values.
//
// The interpreter (package engine) compiles each XPath once with Compile, recording what the index
// needs in the plan's Want, and evaluates through an Evaluator per run.
package xpatheval

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"asa/engine/dom"
)

// Expr is a compiled XPath: what its source compiles to, which every plan with the same XPath can
// share (see Cache), and its index plans, also shared, whose keys Compile records in the calling
// plan's Want (nil without a Want: no index). An Expr is safe for concurrent use.
type Expr struct {
	*compiled
	fast *fastXPath // the index plan, when the XPath has an indexable shape

	// groupFast is the index plan of X in a native (X)[N]rest, when X has one: X's nodes from the
	// index, not from walks of the page (a union of three breadcrumb shapes walked it three times).
	groupFast *fastXPath
}

// groupIndexPlan returns the index plan of the group of c's native path, or nil.
func groupIndexPlan(c *compiled) *fastXPath {
	nx, o := c.native, c.ordered
	if nx == nil || nx.wrapper != "" || len(nx.branches) != 1 || nx.branches[0].group == nil || o == nil || o.wrapper != "" || o.group == nil {
		return nil
	}
	if fx := planXPath(o.group.src); fx != nil && fx.wrapper == "" {
		return fx
	}
	return nil
}

// indexPlans are c's index plans (see Expr.fast and Expr.groupFast), made on first use and shared
// by every plan that compiles the same source.
func (c *compiled) indexPlans() (fast, group *fastXPath) {
	c.plansOnce.Do(func() {
		c.planFast = planXPath(c.src)
		c.planGroup = groupIndexPlan(c)
	})
	return c.planFast, c.planGroup
}

// compiled is the part of an Expr that depends on its source alone. antchfx/xpath's Evaluate runs
// the shared query tree, whose nodes keep iteration state, so one *xpath.Expr must not be evaluated
// by two goroutines at once: each goroutine borrows its own copy from a pool.
type compiled struct {
	// src is what the evaluators parse: the XPath as written, without the spaces tightSpace drops
	// (the same nodes). written is the XPath as the sitedef has it, for messages.
	src     string
	written string
	pool    sync.Pool
	// spare is one compiled copy kept out of the pool: a collection empties every sync.Pool, and
	// recompiling each XPath antchfx evaluates after every GC cost a tenth of some pages' work. It is
	// the first copy put back, not the copy compiled to check the source: most XPaths are evaluated
	// natively and never borrow one, and a copy for each was a tenth of the catalogue's heap.
	spare  atomic.Pointer[xpath.Expr]
	native *nativeXPath // the direct evaluation, when the XPath is of the native subset

	// The index plans, which depend on the source alone (see indexPlans).
	plansOnce           sync.Once
	planFast, planGroup *fastXPath

	// ordered, when not nil, is how the engine evaluates a union or a group's position when
	// neither the index nor the native path can: antchfx puts a union's left branch first and
	// answers nothing for (.//x)[last()].
	ordered *orderedXPath
}

// xpathSel is the name the evaluator's files use for Expr.
type xpathSel = Expr

// Want is what a plan's indexed XPaths need from each document (see index.go); one per plan,
// filled by Compile, read-only once the plan is compiled.
type Want = indexWant

// NewWant returns an empty Want.
func NewWant() *Want { return newIndexWant() }

// Compile compiles src. With want not nil, an XPath of the indexable shape gets an index plan and
// records its keys in want.
func Compile(src string, want *Want) (*Expr, error) {
	tight := tightSpace(src)
	if tight != src {
		// an error names the XPath as written
		if _, err := xpath.Compile(src); err != nil {
			return nil, err
		}
	}
	x, err := newXPathSel(tight)
	if err != nil {
		return nil, err
	}
	if call := movedContext(tight); call != "" {
		return nil, fmt.Errorf("%s: the XPath library reads the arguments after one with a [predicate] from the last node that predicate tested, not from the context node (antchfx/xpath); select each part in a field of its own and join them in expr", call)
	}
	x.written = src
	x.native = compileNative(tight)
	if want != nil {
		x.fast, x.groupFast = x.compiled.indexPlans()
		x.fast.register(want)
		x.groupFast.register(want)
	}
	return x, nil
}

// Cache compiles each distinct source once: the sites of a family repeat their base's XPaths (the
// embedded catalogue compiles about 7,900 XPaths of which 1,300 differ), and parsing an XPath three
// ways (antchfx, native, ordered) was a third of loading the catalogue. Only the index plan, which
// records keys in the calling plan's Want, is made per call. The zero Cache is ready to use and safe
// for concurrent use.
type Cache struct {
	mu sync.Mutex
	m  map[string]*compiled
}

// Compile is the package's Compile, sharing what src compiles to with earlier calls on c. A source
// that fails is not kept: it fails the same way again.
func (c *Cache) Compile(src string, want *Want) (*Expr, error) {
	c.mu.Lock()
	shared, ok := c.m[src]
	c.mu.Unlock()
	if !ok {
		x, err := Compile(src, nil)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		if prev, raced := c.m[src]; raced {
			shared = prev
		} else {
			if c.m == nil {
				c.m = map[string]*compiled{}
			}
			c.m[src], shared = x.compiled, x.compiled
		}
		c.mu.Unlock()
	}
	x := &Expr{compiled: shared}
	if want != nil {
		x.fast, x.groupFast = shared.indexPlans()
		x.fast.register(want)
		x.groupFast.register(want)
	}
	return x, nil
}

// String returns the XPath's source.
func (s *Expr) String() string { return s.written }

// orderedXPath is a union (in document order, each node once) or (X)[N]/(X)[last()] followed by
// an optional path, possibly inside string(), normalize-space(), count() or boolean().
type orderedXPath struct {
	wrapper string
	union   []*xpathSel
	group   *xpathSel
	pos     int
	last    bool
	rest    *xpathSel // ".rest" from the picked node, or nil
}

func newXPathSel(src string) (*xpathSel, error) {
	if _, err := xpath.Compile(src); err != nil {
		return nil, err
	}
	// antchfx evaluates the form it counts positions right in (see groupsAsSteps), compares a path
	// with a string or number right in (see scalarFirst) and takes not() of a string or number right
	// (see notScalar); the native and index evaluators read src itself.
	ant := notScalar(scalarFirst(groupsAsSteps(src)))
	if _, err := xpath.Compile(ant); err != nil {
		ant = src
	}
	s := &xpathSel{compiled: &compiled{src: src, written: src}}
	s.pool.New = func() any {
		// Compiles of a source that compiled once cannot fail.
		x, _ := xpath.Compile(ant)
		return x
	}
	s.ordered = compileOrdered(src)
	return s, nil
}

// compileOrdered returns the ordered plan of src, or nil when antchfx's answer is the engine's.
func compileOrdered(src string) *orderedXPath {
	s := strings.TrimSpace(src)
	o := &orderedXPath{}
	if m := wrapperRe.FindStringSubmatch(s); m != nil && matching(s, len(m[0])-1) == len(s)-1 {
		o.wrapper, s = m[1], strings.TrimSpace(s[len(m[0]):len(s)-1])
	}
	if branches := splitTop(s, '|'); len(branches) > 1 {
		for _, b := range branches {
			x, err := newXPathSel(strings.TrimSpace(b))
			if err != nil {
				return nil
			}
			x.native = compileNative(x.src)
			o.union = append(o.union, x)
		}
		return o
	}
	group, pos, last, rest, ok := splitGroup(s)
	if !ok {
		return nil
	}
	g, err := newXPathSel(group)
	if err != nil {
		return nil
	}
	g.native = compileNative(g.src)
	o.group, o.pos, o.last = g, pos, last
	if rest != "" {
		if o.rest, err = newXPathSel("." + rest); err != nil {
			return nil
		}
		o.rest.native = compileNative(o.rest.src)
	}
	return o
}

func (s *xpathSel) get() *xpath.Expr {
	if e := s.spare.Swap(nil); e != nil {
		return e
	}
	return s.pool.Get().(*xpath.Expr)
}

func (s *xpathSel) put(e *xpath.Expr) {
	if !s.spare.CompareAndSwap(nil, e) {
		s.pool.Put(e)
	}
}

// Evaluator is the evaluation state of one run: the index of each HTML document it has looked
// up, and the list item whose fields are being evaluated. It is used by one goroutine at a time;
// its zero value is not ready: use NewEvaluator.
type Evaluator struct {
	want    *Want
	indexes map[*html.Node]*docIndex
	item    subtree // the elements of the list item whose fields are being evaluated

	// listed is the elements of the document whose root is listedRoot in document order, as its
	// parser listed them (see SetElements).
	listedRoot *html.Node
	listed     []*html.Node
}

// SetElements gives the evaluator the elements under root (a document the engine parsed and never
// changes) in document order, as dom.ParseHTMLViewElements listed them: the document's index is
// then built from the list rather than by a walk of the tree. nil elems: the index walks.
func (ev *Evaluator) SetElements(root *html.Node, elems []*html.Node) {
	ev.listedRoot, ev.listed = root, elems
}

// NewEvaluator returns an evaluator for the XPaths compiled with want (nil: no index path).
func NewEvaluator(want *Want) *Evaluator { return &Evaluator{want: want} }

// indexFor returns the document index of the HTML document whose root is root, building it once.
func (ev *Evaluator) indexFor(root *html.Node) *docIndex {
	if idx := ev.indexes[root]; idx != nil {
		return idx
	}
	if ev.indexes == nil {
		ev.indexes = map[*html.Node]*docIndex{}
	}
	w := ev.want
	if w == nil {
		w = newIndexWant()
	}
	var elems []*html.Node
	if root == ev.listedRoot {
		elems = ev.listed
	}
	idx := buildIndex(root, w, elems)
	ev.indexes[root] = idx
	return idx
}

// BeginItem marks nav (a list item's node; nil for an item that is not a node) as the context whose
// descendant steps scan a list of its elements built once: an item's fields each start with a
// descendant step from the item. Pass what it returns to EndItem after the item's fields.
func (ev *Evaluator) BeginItem(nav xpath.NodeNavigator) (mark *html.Node) {
	mark = ev.item.node
	if h, ok := nav.(*dom.HTMLNavigator); ok && h.Attr() < 0 {
		// The document's index, when the rules or the list built it: the item's elements are a
		// range of its own.
		ev.item.reset(h.Current(), ev.indexes[h.Root()])
	}
	return mark
}

// BeginObject is BeginItem for an object field's node (nav), whose fields mostly start with a
// descendant step from it too (a microdata item's .//*[contains(concat(' ', @itemprop, ' '), ' name ')]
// a dozen times over), when no list item is being evaluated: inside one, the item's elements are
// kept for its other fields rather than replaced. Pass what it returns to EndItem.
func (ev *Evaluator) BeginObject(nav xpath.NodeNavigator) (mark *html.Node) {
	if ev.item.node != nil {
		return ev.item.node
	}
	return ev.BeginItem(nav)
}

// EndItem ends the item BeginItem began. A nested list replaced the item; its slice's storage is
// kept for the next item.
func (ev *Evaluator) EndItem(mark *html.Node) {
	if ev.item.node != mark {
		ev.item.reset(nil, nil)
	}
}

// groupByIndex returns the native path of x, a group with an index plan, and the node its group
// picks (nil: none), X's nodes found through the index; ok is false when the index cannot answer.
func (ev *Evaluator) groupByIndex(x *Expr, root *html.Node) (p *nativePath, picked *html.Node, ok bool) {
	if x.groupFast == nil || ev.want == nil {
		return nil, nil, false
	}
	res, ok := x.groupFast.eval(ev.indexFor(root))
	if !ok {
		return nil, nil, false
	}
	ns, _ := res.([]xpath.NodeNavigator)
	p = x.native.branches[0]
	return p, p.pick(ns), true
}

// Nodes returns the nodes x selects from ctx, by the cheapest way that gives the engine's answer
// (see orderedXPath).
func (ev *Evaluator) Nodes(x *Expr, ctx xpath.NodeNavigator) []xpath.NodeNavigator {
	if h, isHTML := ctx.(*dom.HTMLNavigator); isHTML {
		if fx := x.fast; fx != nil && (fx.wrapper == "" || fx.wrapper == "first") && ev.want != nil {
			if res, ok := fx.eval(ev.indexFor(h.Root())); ok {
				navs, _ := res.([]xpath.NodeNavigator)
				return navs
			}
		}
		if nx := x.native; nx != nil && nx.wrapper == "" && h.Attr() < 0 {
			if p, picked, ok := ev.groupByIndex(x, h.Root()); ok {
				if picked == nil {
					return nil
				}
				return p.afterGroup.eval(h.Root(), picked, nil)
			}
			navs, _ := nx.eval(h.Root(), h.Current(), &ev.item).([]xpath.NodeNavigator)
			return navs
		}
	}
	if o := x.ordered; o != nil && o.wrapper == "" {
		return ev.orderedNodes(o, ctx)
	}
	e := x.get()
	defer x.put(e)
	res := e.Evaluate(ctx.Copy())
	it, ok := res.(*xpath.NodeIterator)
	if !ok {
		return nil
	}
	var out []xpath.NodeNavigator
	for it.MoveNext() {
		out = append(out, it.Current().Copy())
	}
	return sortUnique(out)
}

// Value evaluates x from nav and shapes the result of the four kinds of an XPath: a node set gives
// its first node's text (with all, every node's text that is not empty, as a []any; without text,
// true for a node), a string that is not empty, a number that is not NaN, a boolean. Nothing
// is nil.
func (ev *Evaluator) Value(x *Expr, nav xpath.NodeNavigator, all bool, text bool) any {
	if h, isHTML := nav.(*dom.HTMLNavigator); isHTML {
		if x.fast != nil && ev.want != nil {
			if !all && !text && (x.fast.wrapper == "" || x.fast.wrapper == "first") {
				if found, ok := x.fast.exists(ev.indexFor(h.Root())); ok {
					if found {
						return true
					}
					return nil
				}
			}
			if res, ok := x.fast.evalFirst(ev.indexFor(h.Root()), !all); ok {
				return nodeResult(res, all, text)
			}
		}
		if x.native != nil && h.Attr() < 0 {
			if p, picked, ok := ev.groupByIndex(x, h.Root()); ok {
				// as the native path below answers, from the node the group picks
				switch {
				case picked == nil && !all:
					return nil
				case picked == nil:
					return nodeResult([]xpath.NodeNavigator(nil), all, text)
				case !all:
					return firstResult(p.afterGroup, h.Root(), picked, nil, text)
				}
				return nodeResult(p.afterGroup.eval(h.Root(), picked, nil), all, text)
			}
			if !all && x.native.wrapper == "" && len(x.native.branches) == 1 {
				return firstResult(x.native.branches[0], h.Root(), h.Current(), &ev.item, text)
			}
			if !all && text && x.native.wrapper == "" {
				n, at := x.native.earliest(h.Root(), h.Current(), &ev.item)
				return resultOf(h.Root(), n, at, text)
			}
			if !all && !text && x.native.wrapper == "" {
				// A union's existence: any branch's first node, none of them ordered.
				for _, b := range x.native.branches {
					if n, _ := b.first(h.Root(), h.Current(), &ev.item); n != nil {
						return true
					}
				}
				return nil
			}
			return nodeResult(x.native.evalAll(h.Root(), h.Current(), &ev.item, all), all, text)
		}
	}
	if o := x.ordered; o != nil {
		ns := ev.orderedNodes(o, nav)
		var res any = ns
		switch o.wrapper {
		case "count":
			res = float64(len(ns))
		case "boolean":
			res = len(ns) > 0
		case "string", "normalize-space":
			v := ""
			if len(ns) > 0 {
				v = ns[0].Value()
			}
			if o.wrapper == "normalize-space" {
				v = strings.Join(strings.Fields(v), " ")
			}
			res = v
		}
		return nodeResult(res, all, text)
	}
	e := x.get()
	defer x.put(e)
	// Evaluate moves the navigator it is given; the caller's context must stay where it is.
	switch v := e.Evaluate(nav.Copy()).(type) {
	case *xpath.NodeIterator:
		if !all && !text {
			if v.MoveNext() {
				return true
			}
			return nil
		}
		// antchfx yields a step whose predicate it takes for a positional one (count(), a number)
		// parent by parent: //*[@class='p'][not(count(.//a) = 1)] gives one parent's matching
		// children, then the next parent's, so the first it yields need not be the first on the
		// page. A list, and the first node's text, are read in document order.
		var ns []xpath.NodeNavigator
		for v.MoveNext() {
			ns = append(ns, v.Current().Copy())
		}
		if !all {
			if ns = firstInOrder(ns); len(ns) == 0 {
				return nil
			}
			return dom.Text(ns[0])
		}
		var out []any
		for _, n := range sortUnique(ns) {
			if t := dom.Text(n); t != "" {
				out = append(out, t)
			}
		}
		return out
	case string:
		if v == "" {
			return nil
		}
		return v
	case float64:
		if math.IsNaN(v) {
			return nil
		}
		return v
	case bool:
		return v
	}
	return nil
}

// orderedNodes evaluates a union in document order, or picks a group's Nth node in document order
// and runs the rest of the path from it.
func (ev *Evaluator) orderedNodes(o *orderedXPath, ctx xpath.NodeNavigator) []xpath.NodeNavigator {
	if o.union != nil {
		var all []xpath.NodeNavigator
		for _, b := range o.union {
			all = append(all, ev.Nodes(b, ctx)...)
		}
		return sortUnique(all)
	}
	ns := sortUnique(ev.Nodes(o.group, ctx))
	var pick xpath.NodeNavigator
	switch {
	case o.last && len(ns) > 0:
		pick = ns[len(ns)-1]
	case !o.last && o.pos <= len(ns):
		pick = ns[o.pos-1]
	}
	if pick == nil {
		return nil
	}
	if o.rest == nil {
		return []xpath.NodeNavigator{pick}
	}
	return ev.Nodes(o.rest, pick)
}

// firstResult is nodeResult(evalAll(..., false), false, text) for a single native path, without
// the node set: a field's one value is most of what a page's XPaths answer, and the set's slice and
// navigator were most of their allocations.
func firstResult(p *nativePath, root, ctx *html.Node, sub *subtree, text bool) any {
	n, at := p.first(root, ctx, sub)
	return resultOf(root, n, at, text)
}

// resultOf is a field's one value from the node (and attribute index, or -1) a path selected
// first, nil for none.
func resultOf(root, n *html.Node, at int, text bool) any {
	switch {
	case n == nil:
		return nil
	case !text:
		return true
	case at >= 0:
		return dom.AttrText(n, at)
	case n.Type == html.ElementNode:
		return dom.ElementText(n)
	}
	return dom.Text(dom.NavigatorAt(root, n))
}

// nodeResult shapes a fast XPath result like Value shapes an iterator or a scalar.
func nodeResult(res any, all, text bool) any {
	navs, isNodes := res.([]xpath.NodeNavigator)
	if !isNodes {
		switch v := res.(type) {
		case string:
			if v == "" {
				return nil
			}
		case float64:
			if math.IsNaN(v) {
				return nil
			}
		}
		return res
	}
	if !all && !text {
		if len(navs) == 0 {
			return nil
		}
		return true
	}
	return Texts(navs, all, dom.Text)
}

// Texts is what Value gives for the nodes navs (in document order) with text reading each node's
// text: the first node's, or with all each node's that has any; nil for no node.
func Texts(navs []xpath.NodeNavigator, all bool, text func(xpath.NodeNavigator) string) any {
	if !all {
		if len(navs) == 0 {
			return nil
		}
		return text(navs[0])
	}
	var out []any
	for _, n := range navs {
		if t := text(n); t != "" {
			out = append(out, t)
		}
	}
	return out
}
