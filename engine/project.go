package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"asa/engine/dom"
	"asa/engine/funcs"
)

// Which parts of its script-JSON sources a plan reads, found from its compiled expressions, so
// that each source decodes only those (dom.Projection): walmart.product reads some forty paths of
// 55 KB of product, reviews and idml data.
//
// The analysis follows each value that may be a part of a source (src.product, fields.p where p is
// src.product, item in a list over fields.p?.variants, value in a transform, let variables and a
// predicate's #) through the expressions. A constant member (x.name, x?.name, x["name"]) or index
// (x[0]) reads one part; a nil test (x == nil, x ?? y) and the engine's emptiness tests need only
// that the part is there; an iteration (map, count, any ... over x) needs its elements. A list an
// expression builds is followed by what its elements may be: map's are what its body gives,
// filter's, concat's and find(list, predicate)'s are elements of their lists, flatten's are the
// elements and, for a list, theirs; findAll(x, "key") and find(x, "key") with a constant key are
// members named key at any depth under x (a search, which dom decodes keeping only what leads to
// them), and get(x, "a.b[-1].c") with a constant path reads its members. A step variable is
// followed from its selector to vars.name, and items (the objects a list made so far) as a list of
// fields objects: #.name of its elements is what field name may be. Any other use (an argument of a
// function or operator, an element of a literal list or map, an output, a field of a type the
// engine converts, the next page's cursor) needs the whole part. A name, node or place the
// analysis does not follow (items or fields or vars as a whole, a recursive list, an expression it
// finds in no context it knows) gives the plan no projection: every source whole, as before.

type pathElem struct {
	key  string
	elem bool // any element (x[0], #)
	desc bool // a member named key at any depth (findAll(x, "key"))
}

type srcPath struct {
	root  bool   // src itself: every source
	src   string // the source name, when not root
	elems []pathElem
	// flat: an element of flatten's answer, which is never a list (an element of it is not read).
	flat bool
	// k is the path written out (keyed): the fixpoint below compares paths by it many times over.
	k string
}

// keyed is p with its key written out once.
func (p srcPath) keyed() srcPath {
	p.k = ""
	p.k = p.key()
	return p
}

// absVal is what a value may be: parts of sources, the fields or vars object itself, or a list an
// expression builds (map, filter, concat, flatten, findAll) whose elements may be *list.
type absVal struct {
	paths  []srcPath
	fields bool
	vars   bool
	list   *absVal
}

// maxListDepth bounds the lists of lists followed, so the fixpoint below ends.
const maxListDepth = 8

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
	fieldVals map[string]absVal
	built     map[string]absVal
	// varVals is what each step variable may be, by name.
	varVals map[string]absVal
	// computed is what each expr source may be, by name: src.<name> reads what its expression read.
	computed map[string]absVal
	changed  bool
	trees    map[*vm.Program]ast.Node
	visits   map[*vm.Program]int
	// children holds each path made, by its parent's key and element (child).
	children map[childOf]srcPath
}

type childOf struct {
	parent string
	e      pathElem
}

// progUse is one place a program was compiled for.
type progUse struct {
	prog *vm.Program
	code string
}

// projectSources sets the projection of each script-JSON, xpath_json, body and json_ld source of p
// that the analysis bounds, and each step's projection of its JSON-LD (ldProjection).
func (e *Engine) projectSources(p *Plan, uses []progUse) {
	if e.noProject {
		return
	}
	decoded := false
	for _, s := range p.sources {
		decoded = decoded || s.scriptJSON != nil || s.xpathJSON != nil || s.jsonLD != "" || s.body
	}
	if !decoded {
		return
	}
	pj := &projector{plan: p, trie: map[string]*dom.Projection{}, fieldVals: map[string]absVal{}, varVals: map[string]absVal{}, computed: map[string]absVal{},
		built: map[string]absVal{}, trees: map[*vm.Program]ast.Node{}, visits: map[*vm.Program]int{}, children: map[childOf]srcPath{}}
	for _, s := range p.sources {
		if s.expr != nil {
			pj.computed[s.name] = absVal{} // src.<name> is what its expression reads, never a path of its own
		}
	}
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
		if i == 20 {
			pj.fail("no fixpoint in 20 passes")
		}
		if pj.giveUp {
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
		if s.scriptJSON == nil && s.xpathJSON == nil && s.jsonLD == "" && !s.body {
			continue
		}
		t := pj.trie[s.name]
		if t == nil {
			t = &dom.Projection{} // never read: present or not is all that is left
		}
		if !t.Whole {
			s.proj = e.internProjection(t)
		}
	}
	for _, st := range p.steps {
		st.ldProj = e.internProjection(ldProjection(st.sources))
		st.jsonBySource = st.parse == "json" && bodySourceProjected(st.sources)
	}
}

// bodySourceProjected reports whether the only body source among a step's sources is projected:
// a parse: json step's decoded body is read by nothing else, so that source decodes the part it
// reads, and the step's parse decodes nothing (a JSON API's answer of a megabyte, of which a
// search endpoint reads the results).
func bodySourceProjected(sources []*source) bool {
	var body *source
	for _, s := range sources {
		if s.body {
			if body != nil {
				return false
			}
			body = s
		}
	}
	return body != nil && body.proj != nil
}

// ldProjection is what the json_ld sources of a step read of the objects they find, together: the
// step decodes its page's JSON-LD once for all of them, and any top-level object may be the one a
// source finds (see dom.JSONLDProjected). It is nil (every object whole) when a source reads its
// object whole, by element or by a search, or reads "@graph", which the decode follows to find
// the top-level objects; or when the step has no json_ld source.
func ldProjection(sources []*source) *dom.Projection {
	var u *dom.Projection
	for _, s := range sources {
		if s.jsonLD == "" {
			continue
		}
		if s.proj == nil || s.proj.Elem != nil || len(s.proj.Desc) > 0 {
			return nil
		}
		if _, ok := s.proj.Keys["@graph"]; ok {
			return nil
		}
		if u == nil {
			u = &dom.Projection{}
		}
		u = dom.UnionProjection(u, s.proj)
	}
	return u
}

func (pj *projector) walkPlan() {
	top := evalCtx{itemOK: true, valueOK: true}
	// A parameter's normalize reads the parameter as value, before any source is decoded.
	for _, p := range pj.plan.params {
		pj.whole(pj.prog(p.normalize, &top))
	}
	for _, s := range pj.plan.sources {
		if s.expr != nil {
			pj.grow(pj.computed, s.name, pj.prog(s.expr, &top))
		}
	}
	for _, r := range pj.plan.rules {
		pj.walkRule(r, &top)
	}
	for _, r := range pj.plan.outRules {
		pj.walkRule(r, &top)
	}
	// A step's variables, read as vars.name after it; their other places (the step's templates)
	// are the programs walkPlan does not visit, which read what they are given whole.
	for _, st := range pj.plan.steps {
		for _, v := range st.vars {
			if v.sel != nil {
				pj.setVar(v.name, pj.sel(v.sel, &top, true))
			}
		}
	}
	pj.walkFields(pj.plan.fields, absVal{}, true)
	// paginate.next is a program walkPlan does not visit: its answer, the next page's page.cursor,
	// is read whole (a template sends it), so page is no part of a source.
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
		case f.kind == kList && f.elem == kAny && f.hidden:
			// Neither output nor converted: the list is v's elements (or v itself, which coerce
			// wraps), the empty ones left out, and a projection keeps emptiness.
			el := pj.member(v, pathElem{elem: true})
			if len(v.paths) > 0 {
				el = union(el, absVal{paths: v.paths})
			}
			pj.touch(el)
			pj.setField(f.name, absVal{list: &el})
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
	if v.fields || v.vars {
		pj.fail("a field is the fields or vars object")
	}
	pj.grow(pj.fieldVals, name, v)
}

func (pj *projector) setVar(name string, v absVal) {
	if v.fields || v.vars {
		pj.fail("a variable is the fields or vars object")
	}
	pj.grow(pj.varVals, name, v)
}

func (pj *projector) setBuilt(name string, v absVal) {
	pj.grow(pj.built, name, v)
}

// grow adds v to what m[name] may be, noting a change.
func (pj *projector) grow(m map[string]absVal, name string, v absVal) {
	old, had := m[name]
	n := union(old, v)
	if depth := n.listDepth(); depth > maxListDepth {
		pj.fail("lists nested too deep")
		return
	}
	if !had || grew(old, n) {
		pj.changed = true
	}
	m[name] = n
}

// grew reports whether n, which is union(old, something), may be more than old. union keeps
// old's paths and adds those it lacks once, so what grow stores, made by union from nothing, has
// each path once at every depth, and a larger set is a longer list.
func grew(old, n absVal) bool {
	if len(n.paths) != len(old.paths) || n.fields != old.fields || n.vars != old.vars || (n.list == nil) != (old.list == nil) {
		return true
	}
	return n.list != nil && grew(*old.list, *n.list)
}

func (v absVal) listDepth() int {
	if v.list == nil {
		return 0
	}
	return 1 + v.list.listDepth()
}

func (p srcPath) key() string {
	if p.k != "" {
		return p.k
	}
	k := p.src
	if p.root {
		k = "\x00root"
	}
	for _, e := range p.elems {
		k += e.part()
	}
	if p.flat {
		k += "\x00flat"
	}
	return k
}

// part is e's part of a path's key.
func (e pathElem) part() string {
	switch {
	case e.elem:
		return "\x00[]"
	case e.desc:
		return "\x00~" + e.key
	default:
		return "\x00." + e.key
	}
}

// child is the path of e under p, made once per analysis: every pass of the fixpoint makes the
// same paths again.
func (pj *projector) child(p srcPath, e pathElem) srcPath {
	k := childOf{p.key(), e}
	if c, ok := pj.children[k]; ok {
		return c
	}
	elems := make([]pathElem, len(p.elems), len(p.elems)+1)
	copy(elems, p.elems)
	c := srcPath{src: p.src, elems: append(elems, e)}
	if p.flat {
		c = c.keyed() // p's key ends in its flatness, which c lacks
	} else {
		c.k = p.key() + e.part()
	}
	pj.children[k] = c
	return c
}

// union is what a or b may be: a's paths, then those of b that a lacks, each once. a's own slice is
// never written: a copy is made when b adds a path.
func union(a, b absVal) absVal {
	switch {
	case a.list == nil && b.list != nil:
		l := union(absVal{}, *b.list) // each path once, at every depth
		a.list = &l
	case a.list != nil && b.list != nil:
		l := union(*a.list, *b.list)
		a.list = &l
	}
	a.fields, a.vars = a.fields || b.fields, a.vars || b.vars
	switch {
	case len(b.paths) == 0:
		return a
	case len(a.paths) == 0 && len(b.paths) == 1:
		a.paths = b.paths // nothing to compare (and no copy: union never writes a slice it was given)
		return a
	}
	// Few paths are compared in place; many through a set.
	var seen map[string]bool
	if len(a.paths)+len(b.paths) > 16 {
		seen = make(map[string]bool, len(a.paths)+len(b.paths))
		for _, p := range a.paths {
			seen[p.key()] = true
		}
	}
	paths := a.paths
	for _, p := range b.paths {
		k := p.key()
		if seen != nil {
			if seen[k] {
				continue
			}
			seen[k] = true
		} else if slices.ContainsFunc(paths, func(q srcPath) bool { return q.key() == k }) {
			continue
		}
		if len(paths) == len(a.paths) { // the first path added: a copy, room for all of b
			paths = append(make([]srcPath, 0, len(a.paths)+len(b.paths)), a.paths...)
		}
		paths = append(paths, p)
	}
	a.paths = paths
	return a
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
	if v.fields || v.vars {
		pj.fail("the fields or vars object read whole")
	}
	for _, p := range v.paths {
		pj.use(p, true)
	}
	if v.list != nil {
		pj.whole(*v.list)
	}
}

// touch records that the parts v may be are tested for presence or emptiness. A built list is
// empty as the parts it is built of are (flatten's answer by the lists it splices): its elements
// are touched too.
func (pj *projector) touch(v absVal) {
	for _, p := range v.paths {
		pj.use(p, false)
	}
	if v.list != nil {
		pj.touch(*v.list)
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
		if e.desc {
			if n.Desc == nil {
				n.Desc = map[string]*dom.Projection{}
			}
			c := n.Desc[e.key]
			if c == nil {
				c = &dom.Projection{}
				n.Desc[e.key] = c
			}
			n = c
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

// member is what x.key (or x[i], for elem; or a member named key at any depth, for desc) may be
// when x may be v.
func (pj *projector) member(v absVal, e pathElem) absVal {
	var out absVal
	if v.fields {
		if e.elem || e.desc {
			pj.fail("fields read by index or searched")
			return absVal{}
		}
		out = union(out, pj.fieldVals[e.key])
		if b, ok := pj.built[e.key]; ok {
			// A list or object of child fields, built of what its children are.
			pj.whole(b)
		}
	}
	if v.vars {
		if e.elem || e.desc {
			pj.fail("vars read by index or searched")
			return absVal{}
		}
		out = union(out, pj.varVals[e.key])
	}
	if v.list != nil {
		switch {
		case e.elem:
			out = union(out, *v.list)
		case e.desc:
			// A search of a list searches its elements.
			out = union(out, pj.member(*v.list, e))
		default:
			pj.whole(*v.list) // a list read by key: not a reading followed
		}
	}
	for _, p := range v.paths {
		if p.root {
			if e.elem || e.desc {
				pj.whole(absVal{paths: []srcPath{p}})
				continue
			}
			if c, ok := pj.computed[e.key]; ok {
				out = union(out, c)
			} else {
				out.paths = append(out.paths, srcPath{src: e.key}.keyed())
			}
			continue
		}
		if e.elem && p.flat {
			pj.fail("an element of flatten's answer indexed")
			continue
		}
		if len(p.elems) >= maxPathLen {
			pj.fail("a path too long")
			continue
		}
		out.paths = append(out.paths, pj.child(p, e))
	}
	return out
}

// flat is what the elements of flatten(l) may be when l's elements may be v: v, or when v is a
// list, its elements, at any depth. A list part of a source is kept by its elements' node (which
// keeps every element of an array, and a nested array whole, flatten's answer being the same for
// any projection of a value that keeps the arrays' elements).
func (pj *projector) flat(v absVal) absVal {
	if v.fields || v.vars {
		pj.fail("the fields or vars object flattened")
		return absVal{}
	}
	var out absVal
	for _, p := range v.paths {
		if p.root {
			pj.whole(absVal{paths: []srcPath{p}})
			continue
		}
		p.flat = true
		out.paths = append(out.paths, p.keyed())
		if len(p.elems) >= maxPathLen {
			pj.fail("a path too long")
			continue
		}
		elems := make([]pathElem, len(p.elems), len(p.elems)+1)
		copy(elems, p.elems)
		out.paths = append(out.paths, srcPath{src: p.src, elems: append(elems, pathElem{elem: true}), flat: true}.keyed())
	}
	if v.list != nil {
		out = union(out, pj.flat(*v.list))
	}
	return out
}

// getPath is what get(v, path) may be for a constant path, as funcs' get reads it: the member
// named path itself when it has a dot or bracket, else along its segments, a number being an
// index of a list or a key of an object (an object read by element is whole).
func (pj *projector) getPath(v absVal, path string) absVal {
	var out absVal
	if strings.ContainsAny(path, ".[") {
		out = pj.member(v, pathElem{key: path})
	}
	p := strings.NewReplacer("[", ".", "]", "").Replace(path)
	if p == "" {
		return union(out, v)
	}
	return union(out, pj.getSegments(v, strings.Split(p, ".")))
}

// getSegments is what get(v, segs) may be, segs being the path's segments.
func (pj *projector) getSegments(v absVal, segs []string) absVal {
	for _, seg := range segs {
		if seg == "*" {
			pj.whole(v) // a wildcard: not followed
			return absVal{}
		}
		if _, err := strconv.Atoi(seg); err == nil {
			v = pj.member(v, pathElem{elem: true})
		} else {
			v = pj.member(v, pathElem{key: seg})
		}
	}
	return v
}

// constSegments is the segments of a literal list of strings and integers (get(x, ["a", 0])).
func constSegments(n ast.Node) ([]string, bool) {
	a, ok := n.(*ast.ArrayNode)
	if !ok {
		return nil, false
	}
	segs := make([]string, len(a.Nodes))
	for i, x := range a.Nodes {
		switch x := x.(type) {
		case *ast.StringNode:
			segs[i] = x.Value
		case *ast.IntegerNode:
			segs[i] = strconv.Itoa(x.Value)
		default:
			return nil, false
		}
	}
	return segs, true
}

func isNilNode(n ast.Node) bool {
	_, ok := n.(*ast.NilNode)
	return ok
}

func isBoolNode(n ast.Node) bool {
	_, ok := n.(*ast.BoolNode)
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
			return absVal{paths: []srcPath{srcPath{root: true}.keyed()}}
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
		case "vars":
			return absVal{vars: true}
		case "items":
			// The objects made so far of the list being built (and, for the paginated list, of
			// the pages before): each an object of that list's child fields, as fields is there.
			// fields stands for the fields of every level by name, so it stands for them too.
			return absVal{list: &absVal{fields: true}}
		case "$env":
			pj.fail(n.Value + " is not followed")
		}
		// params, page (page.cursor is paginate.next's answer, read whole), domain ...: no part of
		// a source.
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
		id, ok := n.Callee.(*ast.IdentifierNode)
		if !ok {
			pj.whole(pj.eval(n.Callee, c))
		}
		if ok && len(n.Arguments) == 2 {
			if key, isStr := n.Arguments[1].(*ast.StringNode); isStr {
				switch id.Value {
				case "findAll":
					// Every match, in the search's order: a list of them.
					l := pj.member(pj.eval(n.Arguments[0], c), pathElem{key: key.Value, desc: true})
					return absVal{list: &l}
				case "get":
					return pj.getPath(pj.eval(n.Arguments[0], c), key.Value)
				}
			}
		}
		if ok && id.Value == "get" && len(n.Arguments) == 2 {
			if segs, isConst := constSegments(n.Arguments[1]); isConst {
				return pj.getSegments(pj.eval(n.Arguments[0], c), segs)
			}
		}
		if ok && id.Value == "flatten" && len(n.Arguments) == 1 {
			// A list (else nil) of the elements, the lists among them spliced.
			l := pj.flat(pj.member(pj.eval(n.Arguments[0], c), pathElem{elem: true}))
			return absVal{list: &l}
		}
		for _, a := range n.Arguments {
			pj.whole(pj.eval(a, c))
		}
		return absVal{}
	case *ast.BuiltinNode:
		if n.Name == "len" && len(n.Arguments) == 1 {
			if id, ok := n.Arguments[0].(*ast.IdentifierNode); ok && id.Value == "items" {
				return absVal{} // the number of items made so far: outputs, read whole
			}
		}
		if len(n.Arguments) == 1 {
			switch n.Name {
			case "first", "last":
				// x[0] or x[-1], nil where that fails: an element of x.
				return pj.member(pj.eval(n.Arguments[0], c), pathElem{elem: true})
			case "type":
				// The kind of x, which a projection keeps (an object stays an object, an array
				// an array, anything else is whole).
				pj.touch(pj.eval(n.Arguments[0], c))
				return absVal{}
			}
		}
		if n.Name == "concat" {
			var l absVal
			for _, a := range n.Arguments {
				l = union(l, pj.member(pj.eval(a, c), pathElem{elem: true}))
			}
			return absVal{list: &l}
		}
		if len(n.Arguments) == 2 {
			// find(x, "key") is the deep key search (see funcs' findPatch): a predicate that does
			// not read the element.
			if pr, ok := n.Arguments[1].(*ast.PredicateNode); ok && n.Name == "find" && !funcs.UsesPointer(pr.Node) && !isBoolNode(pr.Node) {
				if key, isStr := pr.Node.(*ast.StringNode); isStr {
					return pj.member(pj.eval(n.Arguments[0], c), pathElem{key: key.Value, desc: true})
				}
				pj.whole(pj.eval(n.Arguments[0], c))
				pj.whole(pj.eval(pr.Node, c))
				return absVal{}
			}
		}
		if len(n.Arguments) >= 2 {
			if pr, ok := n.Arguments[1].(*ast.PredicateNode); ok {
				coll := pj.eval(n.Arguments[0], c)
				el := pj.member(coll, pathElem{elem: true})
				flows := (n.Name == "find" || n.Name == "findLast" || n.Name == "filter") && len(n.Arguments) == 2
				if iterating[n.Name] || flows {
					pj.touch(el)
				} else {
					pj.whole(coll)
				}
				pc := *c
				pc.ptr, pc.ptrOK = el, true
				body := pj.eval(pr.Node, &pc)
				for _, a := range n.Arguments[2:] {
					pj.whole(pj.eval(a, c))
				}
				switch {
				case n.Name == "map" && len(n.Arguments) == 2:
					// A list of what the body gives.
					return absVal{list: &body}
				case flows:
					pj.whole(body)
					if n.Name == "filter" {
						return absVal{list: &el}
					}
					return el
				}
				pj.whole(body)
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

// internProjection returns the projection equal to p that an earlier plan interned, else p
// (interned with its parts): the sites of a family read the same parts of the same sources, and
// their projections, one tree of maps each, were a tenth of the catalogue's heap. A projection
// is read-only once its plan is compiled.
func (e *Engine) internProjection(p *dom.Projection) *dom.Projection {
	if p == nil {
		return nil
	}
	e.projMu.Lock()
	defer e.projMu.Unlock()
	if e.projs == nil {
		e.projs = map[string]*dom.Projection{}
	}
	q, _ := e.internLocked(p)
	return q
}

// internLocked interns p's parts, then p, by a key that names each part by its own key.
func (e *Engine) internLocked(p *dom.Projection) (*dom.Projection, string) {
	var b strings.Builder
	if p.Whole {
		b.WriteByte('W')
	}
	keyed := func(tag byte, m map[string]*dom.Projection) {
		if m == nil {
			return
		}
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		slices.Sort(names)
		b.WriteByte(tag)
		b.WriteByte('{')
		for _, k := range names {
			c, ck := e.internLocked(m[k])
			if c != m[k] {
				m[k] = c // never a write to an interned node: its parts are interned already
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			b.WriteString(ck)
			b.WriteByte(',')
		}
		b.WriteByte('}')
	}
	keyed('K', p.Keys)
	keyed('D', p.Desc)
	if p.Elem != nil {
		c, ck := e.internLocked(p.Elem)
		if c != p.Elem {
			p.Elem = c
		}
		b.WriteString("E(")
		b.WriteString(ck)
		b.WriteByte(')')
	}
	key := b.String()
	if q, ok := e.projs[key]; ok {
		return q, key
	}
	e.projs[key] = p
	return p, key
}
