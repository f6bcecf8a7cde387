package engine

import (
	"fmt"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"asa/engine/dom"
)

// Which parts of its script-JSON sources a plan reads, found from its compiled expressions, so
// that each source decodes only those (dom.Projection): walmart.product reads some forty paths of
// 55 KB of product, reviews and idml data.
//
// The analysis follows each value that may be a part of a source (src.product, fields.p where p is
// src.product, item in a list over fields.p?.variants, value in a transform, let variables and a
// predicate's #) through the expressions. A constant member (x.name, x?.name, x["name"]) or index
// (x[0]) reads one part; a nil test (x == nil, x ?? y) and the engine's emptiness tests need only
// that the part is there; an iteration (map, count, any ... over x) needs its elements. Any other
// use (an argument of a function or operator, an element of a built list or map, an output, a
// field of a type the engine converts) needs the whole part. A name, node or place the analysis
// does not follow (items, page, vars, a recursive list, pagination, fields as a whole, an
// expression it finds in no context it knows) gives the plan no projection: every source whole,
// as before.

type pathElem struct {
	key  string
	elem bool // any element (x[0], #)
}

type srcPath struct {
	root  bool   // src itself: every source
	src   string // the source name, when not root
	elems []pathElem
}

// absVal is what a value may be: parts of sources, or the fields object itself.
type absVal struct {
	paths  []srcPath
	fields bool
}

// maxPathLen bounds the paths followed (a path is as long as an expression's member chain, and
// field references only join them), so the fixpoint below ends.
const maxPathLen = 32

type letScope struct {
	name   string
	v      absVal
	parent *letScope
}

type evalCtx struct {
	item, value     absVal
	itemOK, valueOK bool // item and value are known here (else a use gives up)
	ptr             absVal
	ptrOK           bool
	lets            *letScope
}

type projector struct {
	plan   *Plan
	giveUp bool
	why    string
	record bool // the last pass: uses are recorded, expressions counted
	// trie holds the uses of each source; allWhole is set by a whole use of src itself.
	trie     map[string]*dom.Projection
	allWhole bool
	// fieldVals is what each field may be, by name (the fields of every level of that name
	// together); built holds, for a list or object of child fields, what its children may be.
	fieldVals map[string]map[string]srcPath
	built     map[string]absVal
	changed   bool
	trees     map[*vm.Program]ast.Node
	visits    map[*vm.Program]int
}

// progUse is one place a program was compiled for.
type progUse struct {
	prog *vm.Program
	code string
}

// projectSources sets the projection of each script-JSON source of p that the analysis bounds.
func (e *Engine) projectSources(p *Plan, uses []progUse) {
	if e.noProject || p.paginate != nil {
		return
	}
	hasScript := false
	for _, s := range p.sources {
		hasScript = hasScript || s.scriptJSON != nil
	}
	if !hasScript {
		return
	}
	pj := &projector{plan: p, trie: map[string]*dom.Projection{}, fieldVals: map[string]map[string]srcPath{},
		built: map[string]absVal{}, trees: map[*vm.Program]ast.Node{}, visits: map[*vm.Program]int{}}
	for _, u := range uses {
		if _, ok := pj.trees[u.prog]; ok || u.prog == nil {
			continue
		}
		tree, err := parser.ParseWithConfig(u.code, e.exprConf)
		if err != nil {
			p.projWhy = "parse " + u.code + ": " + err.Error()
			return
		}
		pj.trees[u.prog] = tree.Node
	}
	for i := 0; ; i++ {
		if i == 20 || pj.giveUp {
			p.projWhy = pj.why
			return
		}
		pj.changed = false
		pj.walkPlan()
		if !pj.changed {
			break
		}
	}
	pj.record = true
	pj.walkPlan()
	// The programs compiled in places walkPlan does not visit (templates, step parts, params): in
	// no known context, so item, value and # give up there.
	seen := map[*vm.Program]int{}
	for _, u := range uses {
		if u.prog == nil {
			continue
		}
		seen[u.prog]++
		if seen[u.prog] > pj.visits[u.prog] {
			pj.whole(pj.eval(pj.trees[u.prog], &evalCtx{}))
		}
	}
	if pj.giveUp || pj.allWhole {
		p.projWhy = pj.why
		if pj.allWhole {
			p.projWhy = "src read whole"
		}
		return
	}
	for _, s := range p.sources {
		if s.scriptJSON == nil {
			continue
		}
		t := pj.trie[s.name]
		if t == nil {
			t = &dom.Projection{} // never read: present or not is all that is left
		}
		if !t.Whole {
			s.proj = t
		}
	}
}

func (pj *projector) walkPlan() {
	top := evalCtx{itemOK: true, valueOK: true}
	// A parameter's normalize reads the parameter as value, before any source is decoded.
	for _, p := range pj.plan.params {
		pj.whole(pj.prog(p.normalize, &top))
	}
	for _, r := range pj.plan.rules {
		pj.walkRule(r, &top)
	}
	for _, r := range pj.plan.outRules {
		pj.walkRule(r, &top)
	}
	pj.walkFields(pj.plan.fields, absVal{}, true)
}

func (pj *projector) walkRule(r *rule, c *evalCtx) {
	if r.when != nil {
		pj.whole(pj.prog(r.when, c))
	}
	var walk func(m *matcher)
	walk = func(m *matcher) {
		if m == nil {
			return
		}
		if m.expr != nil {
			pj.whole(pj.prog(m.expr, c))
		}
		walk(m.not)
		for _, a := range m.all {
			walk(a)
		}
		for _, a := range m.any {
			walk(a)
		}
	}
	walk(r.match)
}

// walkFields follows fs, evaluated where item may be item (itemOK: item is known).
func (pj *projector) walkFields(fs []*field, item absVal, itemOK bool) absVal {
	var all absVal
	for _, f := range fs {
		c := evalCtx{item: item, itemOK: itemOK, valueOK: true}
		if f.when != nil {
			pj.whole(pj.prog(f.when, &c))
		}
		if f.limit != nil {
			pj.whole(pj.prog(f.limit, &c))
		}
		if f.recurse != nil {
			pj.fail("a recursive list")
			return absVal{}
		}
		var v absVal
		for i, s := range f.sels {
			// A field's transform is one program for all its selectors: one place.
			v = union(v, pj.sel(s, &c, i == 0))
		}
		if f.post != nil {
			// Run on a value that is not empty, and the field's value is then its answer (an
			// empty value is the same whole or projected: projections keep emptiness).
			pc := c
			pc.value = v
			v = pj.prog(f.post, &pc)
			pj.touch(v)
		}
		switch {
		case f.kind == kList && f.elem == kObject && len(f.children) > 0:
			el := pj.member(v, pathElem{elem: true})
			pj.touch(el)
			pj.setBuilt(f.name, pj.walkFields(f.children, el, true))
		case f.kind == kObject && len(f.children) > 0:
			// object takes the item it was given when no expression selects one.
			pj.setBuilt(f.name, pj.walkFields(f.children, union(v, item), itemOK))
		case (f.kind == kAny || f.kind == kObject) && f.hidden:
			pj.setField(f.name, v)
		default:
			// Output, or converted to its type (whose errors show the value).
			pj.whole(v)
			pj.setField(f.name, v)
		}
		all = union(all, v)
		all = union(all, pj.built[f.name])
	}
	return all
}

func (pj *projector) sel(s *selector, c *evalCtx, first bool) absVal {
	var v absVal
	if s.kind == selExpr {
		v = pj.prog(s.prog, c)
	}
	for i, t := range [...]*vm.Program{s.transform, s.fieldTransform} {
		if t == nil {
			continue
		}
		pj.touch(v)
		tc := *c
		tc.value, tc.valueOK = v, true
		if i == 1 && !first && pj.record {
			pj.visits[t]-- // counted once for the field
		}
		v = pj.prog(t, &tc) // as post
		pj.touch(v)
	}
	pj.touch(v)
	return v
}

func (pj *projector) setField(name string, v absVal) {
	if v.fields {
		pj.fail("a field is the fields object")
	}
	m := pj.fieldVals[name]
	if m == nil {
		m = map[string]srcPath{}
		pj.fieldVals[name] = m
	}
	for _, p := range v.paths {
		k := p.key()
		if _, ok := m[k]; !ok {
			m[k] = p
			pj.changed = true
		}
	}
}

func (pj *projector) setBuilt(name string, v absVal) {
	old := pj.built[name]
	n := union(old, v)
	if len(n.paths) != len(old.paths) {
		pj.changed = true
	}
	pj.built[name] = n
}

func (p srcPath) key() string {
	k := p.src
	if p.root {
		k = "\x00root"
	}
	for _, e := range p.elems {
		if e.elem {
			k += "\x00[]"
		} else {
			k += "\x00." + e.key
		}
	}
	return k
}

func union(a, b absVal) absVal {
	if len(b.paths) == 0 {
		a.fields = a.fields || b.fields
		return a
	}
	if len(a.paths) == 0 {
		b.fields = a.fields || b.fields
		return b
	}
	out := absVal{fields: a.fields || b.fields, paths: make([]srcPath, 0, len(a.paths)+len(b.paths))}
	seen := map[string]bool{}
	for _, l := range [2][]srcPath{a.paths, b.paths} {
		for _, p := range l {
			if k := p.key(); !seen[k] {
				seen[k] = true
				out.paths = append(out.paths, p)
			}
		}
	}
	return out
}

// prog evaluates a program of the plan in c.
func (pj *projector) prog(p *vm.Program, c *evalCtx) absVal {
	if p == nil {
		return absVal{}
	}
	if pj.record {
		pj.visits[p]++
	}
	n, ok := pj.trees[p]
	if !ok {
		pj.fail("a program compiled nowhere")
		return absVal{}
	}
	return pj.eval(n, c)
}

// whole records that every part v may be is read whole.
func (pj *projector) whole(v absVal) {
	if v.fields {
		pj.fail("the fields object read whole")
	}
	for _, p := range v.paths {
		pj.use(p, true)
	}
}

// touch records that the parts v may be are tested for presence or emptiness.
func (pj *projector) touch(v absVal) {
	for _, p := range v.paths {
		pj.use(p, false)
	}
}

func (pj *projector) use(p srcPath, whole bool) {
	if !pj.record {
		return
	}
	if p.root {
		pj.allWhole = pj.allWhole || whole
		return
	}
	n := pj.trie[p.src]
	if n == nil {
		n = &dom.Projection{}
		pj.trie[p.src] = n
	}
	for _, e := range p.elems {
		if e.elem {
			if n.Elem == nil {
				n.Elem = &dom.Projection{}
			}
			n = n.Elem
			continue
		}
		if n.Keys == nil {
			n.Keys = map[string]*dom.Projection{}
		}
		c := n.Keys[e.key]
		if c == nil {
			c = &dom.Projection{}
			n.Keys[e.key] = c
		}
		n = c
	}
	if whole {
		n.Whole = true
	}
}

// member is what x.key (or x[i], for elem) may be when x may be v.
func (pj *projector) member(v absVal, e pathElem) absVal {
	var out absVal
	if v.fields {
		if e.elem {
			pj.fail("fields read by index")
			return absVal{}
		}
		for _, p := range pj.fieldVals[e.key] {
			out.paths = append(out.paths, p)
		}
		if b, ok := pj.built[e.key]; ok {
			// A list or object of child fields, built of what its children are.
			pj.whole(b)
		}
	}
	for _, p := range v.paths {
		if p.root {
			if e.elem {
				pj.fail("src read by index")
				continue
			}
			out.paths = append(out.paths, srcPath{src: e.key})
			continue
		}
		if len(p.elems) >= maxPathLen {
			pj.fail("a path too long")
			continue
		}
		elems := make([]pathElem, len(p.elems), len(p.elems)+1)
		copy(elems, p.elems)
		out.paths = append(out.paths, srcPath{src: p.src, elems: append(elems, e)})
	}
	return out
}

func isNilNode(n ast.Node) bool {
	_, ok := n.(*ast.NilNode)
	return ok
}

// iterating are the builtins whose predicate reads each element and whose answer holds no
// element: the elements need be there, not whole.
var iterating = map[string]bool{"map": true, "all": true, "any": true, "none": true, "one": true,
	"count": true, "findIndex": true, "findLastIndex": true}

// eval is what the value of n may be, recording the uses n makes.
func (pj *projector) eval(n ast.Node, c *evalCtx) absVal {
	switch n := n.(type) {
	case *ast.NilNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.StringNode, *ast.BytesNode, *ast.ConstantNode:
		return absVal{}
	case *ast.IdentifierNode:
		for s := c.lets; s != nil; s = s.parent {
			if s.name == n.Value {
				return s.v
			}
		}
		switch n.Value {
		case "src":
			return absVal{paths: []srcPath{{root: true}}}
		case "fields":
			return absVal{fields: true}
		case "item":
			if !c.itemOK {
				pj.fail("item where it is not known")
			}
			return c.item
		case "value":
			if !c.valueOK {
				pj.fail("value where it is not known")
			}
			return c.value
		case "items", "page", "vars", "$env":
			pj.fail(n.Value + " is not followed")
		}
		return absVal{}
	case *ast.ChainNode:
		return pj.eval(n.Node, c)
	case *ast.MemberNode:
		base := pj.eval(n.Node, c)
		if !n.Method {
			switch p := n.Property.(type) {
			case *ast.StringNode:
				return pj.member(base, pathElem{key: p.Value})
			case *ast.IntegerNode:
				return pj.member(base, pathElem{elem: true})
			}
		}
		pj.whole(base)
		pj.whole(pj.eval(n.Property, c))
		return absVal{}
	case *ast.BinaryNode:
		switch n.Operator {
		case "??":
			l := pj.eval(n.Left, c)
			pj.touch(l)
			return union(l, pj.eval(n.Right, c))
		case "==", "!=":
			if isNilNode(n.Left) {
				pj.touch(pj.eval(n.Right, c))
				return absVal{}
			}
			if isNilNode(n.Right) {
				pj.touch(pj.eval(n.Left, c))
				return absVal{}
			}
		}
		pj.whole(pj.eval(n.Left, c))
		pj.whole(pj.eval(n.Right, c))
		return absVal{}
	case *ast.UnaryNode:
		pj.whole(pj.eval(n.Node, c))
		return absVal{}
	case *ast.ConditionalNode:
		pj.whole(pj.eval(n.Cond, c))
		return union(pj.eval(n.Exp1, c), pj.eval(n.Exp2, c))
	case *ast.VariableDeclaratorNode:
		v := pj.eval(n.Value, c)
		lc := *c
		lc.lets = &letScope{name: n.Name, v: v, parent: c.lets}
		return pj.eval(n.Expr, &lc)
	case *ast.SequenceNode:
		var v absVal
		for _, x := range n.Nodes {
			v = pj.eval(x, c)
		}
		return v
	case *ast.ArrayNode:
		for _, x := range n.Nodes {
			pj.whole(pj.eval(x, c))
		}
		return absVal{}
	case *ast.MapNode:
		for _, x := range n.Pairs {
			pair, ok := x.(*ast.PairNode)
			if !ok {
				pj.fail("a map without pairs")
				return absVal{}
			}
			pj.whole(pj.eval(pair.Key, c))
			pj.whole(pj.eval(pair.Value, c))
		}
		return absVal{}
	case *ast.SliceNode:
		pj.whole(pj.eval(n.Node, c))
		if n.From != nil {
			pj.whole(pj.eval(n.From, c))
		}
		if n.To != nil {
			pj.whole(pj.eval(n.To, c))
		}
		return absVal{}
	case *ast.CallNode:
		if _, ok := n.Callee.(*ast.IdentifierNode); !ok {
			pj.whole(pj.eval(n.Callee, c))
		}
		for _, a := range n.Arguments {
			pj.whole(pj.eval(a, c))
		}
		return absVal{}
	case *ast.BuiltinNode:
		if len(n.Arguments) >= 2 {
			if pr, ok := n.Arguments[1].(*ast.PredicateNode); ok {
				coll := pj.eval(n.Arguments[0], c)
				el := pj.member(coll, pathElem{elem: true})
				if iterating[n.Name] {
					pj.touch(el)
				} else {
					pj.whole(coll)
				}
				pc := *c
				pc.ptr, pc.ptrOK = el, true
				pj.whole(pj.eval(pr.Node, &pc))
				for _, a := range n.Arguments[2:] {
					pj.whole(pj.eval(a, c))
				}
				return absVal{}
			}
		}
		for _, a := range n.Arguments {
			pj.whole(pj.eval(a, c))
		}
		return absVal{}
	case *ast.PointerNode:
		if n.Name != "" {
			return absVal{} // #index, #acc: of elements read whole (reduce is not iterating)
		}
		if !c.ptrOK {
			pj.fail("# outside a predicate")
		}
		return c.ptr
	}
	pj.fail(fmt.Sprintf("a node not followed (%T)", n))
	return absVal{}
}

// fail gives the plan no projection; why is kept for tests.
func (pj *projector) fail(why string) {
	if !pj.giveUp {
		pj.giveUp, pj.why = true, why
	}
}
