package engine

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/antchfx/xpath"
	"github.com/expr-lang/expr/vm"

	"asa/engine/errcode"
	"asa/engine/sitedef"
)

// Plan is one compiled endpoint. It is immutable after Compile and safe to run from many goroutines.
type Plan struct {
	ID       string // site.resource
	Site     *sitedef.Site
	Endpoint *sitedef.Endpoint
	// Version is "<site>@<semver>" for the Asa-Extractor-Version header.
	Version string

	params      []*param
	paramIdx    map[string]*param
	constraints []*constraint
	steps       []*step
	sources     []*source
	rules       []*rule // response phase, site rules first
	outRules    []*rule // output phase
	fields      []*field
	paginate    *paginate
	maxAttempts int
	timeout     time.Duration
	siteHeaders []kvTemplate
	domains     map[string]map[string]any
	hostDomain  map[string]string
	defDomain   string
	domainParam string
	want        *indexWant // what the fast XPaths need indexed per document
}

type param struct {
	name       string
	typ        string
	required   bool
	def        any
	pattern    *regexp.Regexp
	min, max   *int
	values     []string
	normalize  *vm.Program
	urlPattern *regexp.Regexp
}

type constraint struct {
	require *vm.Program
	oneOf   []string
	message string
}

type step struct {
	id      string
	index   int
	when    *vm.Program
	method  string
	url     *template
	query   []kvTemplate
	headers []kvTemplate
	json    any // with *template leaves
	body    *template
	parse   string
	render  bool   // the site needs the page rendered (sitedef render: true)
	waitFor string // CSS selector ending a rendered step's wait
	expect  []int
	vars    []*namedSel
	sources []*source // decoded from this step
}

type kvTemplate struct {
	key string
	val *template
}

type namedSel struct {
	name string
	sel  *selector
}

type source struct {
	name       string
	from       int
	jsonLD     string
	scriptJSON *bodyRegexp
	xpathJSON  *xpathSel
	body       bool
	mainText   bool
	required   bool
}

type rule struct {
	id      string
	step    int // -1: any step
	match   *matcher
	when    *vm.Program
	code    errcode.Code
	detail  string
	message *template
}

type matcher struct {
	any, all     []*matcher
	not          *matcher
	status       []int
	headerName   string
	headerRe     *regexp.Regexp
	xpath        *xpathSel
	bodyContains *literal
	bodyRe       *bodyRegexp
	finalURL     *regexp.Regexp
	expr         *vm.Program
}

type selKind int

const (
	selXPath selKind = iota + 1
	selExpr
	selRegex
	selConst
)

type selector struct {
	kind      selKind
	xpath     *xpathSel
	prog      *vm.Program
	re        *bodyRegexp
	konst     any
	all       bool
	from      int // step index, -1: the last step run
	transform *vm.Program
	// fieldTransform is a field-level transform shared by every selector of a select: list.
	fieldTransform *vm.Program
}

type fieldKind int

const (
	kString fieldKind = iota + 1
	kInt
	kFloat
	kBool
	kURL
	kObject
	kAny
	kList
)

type field struct {
	name     string
	kind     fieldKind
	elem     fieldKind // for lists
	sels     []*selector
	post     *vm.Program
	def      any
	required bool
	when     *vm.Program
	hidden   bool
	children []*field
	recurse  *field // list definition reused by a recursive child
	limit    *vm.Program
	lastPage bool // paginated endpoints: taken from the last page fetched
}

type paginate struct {
	items *field
	next  *vm.Program
	start *vm.Program
	pages *vm.Program
}

// xpathSel is a compiled XPath. antchfx/xpath's Evaluate runs the shared query tree, whose nodes keep
// iteration state, so one *xpath.Expr must not be evaluated by two goroutines at once: each goroutine
// borrows its own copy from a pool.
type xpathSel struct {
	src    string
	pool   sync.Pool
	fast   *fastXPath   // the index plan, when the XPath has an indexable shape
	native *nativeXPath // the direct evaluation, when the XPath is of the native subset

	// ordered, when not nil, is how the engine evaluates a union or a group's position when
	// neither the index nor the native path can: antchfx puts a union's left branch first and
	// answers nothing for (.//x)[last()].
	ordered *orderedXPath
}

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
	e, err := xpath.Compile(src)
	if err != nil {
		return nil, err
	}
	s := &xpathSel{src: src}
	s.pool.New = func() any {
		// Compiles of a source that compiled once cannot fail.
		x, _ := xpath.Compile(src)
		return x
	}
	s.pool.Put(e)
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

func (s *xpathSel) get() *xpath.Expr  { return s.pool.Get().(*xpath.Expr) }
func (s *xpathSel) put(e *xpath.Expr) { s.pool.Put(e) }

// RuleCodes lists the distinct error codes the plan's rules (site and endpoint) can produce.
func (p *Plan) RuleCodes() []errcode.Code {
	seen := map[errcode.Code]bool{}
	var out []errcode.Code
	for _, rs := range [][]*rule{p.rules, p.outRules} {
		for _, r := range rs {
			if !seen[r.code] {
				seen[r.code] = true
				out = append(out, r.code)
			}
		}
	}
	return out
}

// RuleIDs lists the plan's rule ids: the site's (shared by every endpoint of the site) and the
// endpoint's own, for fixture coverage.
func (p *Plan) RuleIDs() (site, own []string) {
	for _, r := range p.Site.Rules {
		site = append(site, r.ID)
	}
	for _, r := range p.Endpoint.Rules {
		own = append(own, r.ID)
	}
	return site, own
}

// ExampleParams returns parameters built from the declared examples, for docs and the negative checks.
func (p *Plan) ExampleParams() url.Values {
	v := url.Values{}
	p.Endpoint.Params.Each(func(name string, sp *sitedef.Param) {
		if sp.Example != nil {
			v.Set(name, stringify(sp.Example))
		}
	})
	return v
}

// StepIDs lists the step ids in order.
func (p *Plan) StepIDs() []string {
	out := make([]string, len(p.steps))
	for i, s := range p.steps {
		out[i] = s.id
	}
	return out
}

// HasStep reports whether the plan has a step of that id.
func (p *Plan) HasStep(id string) bool {
	for _, s := range p.steps {
		if s.id == id {
			return true
		}
	}
	return false
}

// xpathSelectors lists every compiled XPath of the plan (for tests).
func (p *Plan) xpathSelectors() []*xpathSel {
	var out []*xpathSel
	add := func(x *xpathSel) {
		if x != nil {
			out = append(out, x)
		}
	}
	var walkM func(m *matcher)
	walkM = func(m *matcher) {
		if m == nil {
			return
		}
		add(m.xpath)
		for _, a := range m.any {
			walkM(a)
		}
		for _, a := range m.all {
			walkM(a)
		}
		walkM(m.not)
	}
	for _, r := range p.rules {
		walkM(r.match)
	}
	var walkF func(fs []*field)
	walkF = func(fs []*field) {
		for _, f := range fs {
			for _, s := range f.sels {
				add(s.xpath)
			}
			walkF(f.children)
		}
	}
	walkF(p.fields)
	for _, s := range p.steps {
		for _, v := range s.vars {
			if v.sel != nil {
				add(v.sel.xpath)
			}
		}
	}
	return out
}
