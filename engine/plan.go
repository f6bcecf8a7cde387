package engine

import (
	"net/url"
	"regexp"
	"time"

	"github.com/expr-lang/expr/vm"

	"asa/engine/dom"
	"asa/engine/errcode"
	"asa/engine/sitedef"
	"asa/engine/xpatheval"
)

// Plan is one compiled endpoint. It is immutable after Compile and safe to run from many goroutines.
type Plan struct {
	// verifyDirect runs every expression with a direct form on the VM too (tests).
	verifyDirect bool

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
	order       []*field // fields in evaluation order (see evalOrder)
	paginate    *paginate
	maxAttempts int
	timeout     time.Duration
	siteHeaders []kvTemplate
	domains     map[string]map[string]any
	hostDomain  map[string]string
	regDomain   map[string]string // by registrable domain (see registrableDomains)
	defDomain   string
	domainParam string
	want        *xpatheval.Want // what the indexed XPaths need from each document
	// indexJSON: an expression may call find or findAll (its text names one), so script JSON
	// sources are registered, with their text, for an index that answers those searches (see
	// funcs.Finds).
	indexJSON bool
	// lazyTree: nothing but rules and top-level fallbacks reads an HTML step's tree, so it is
	// parsed only when a rule's XPath or a fallback needs it (see lazytree.go); scanTags are the
	// element names of the rule XPaths a scan of the body may answer instead (matcher.scan), and
	// scanFilter what the elements those XPaths select carry (nil: not known for all of them).
	lazyTree   bool
	scanTags   []string
	scanFilter *dom.ScanFilter
	// projWhy says why no source is projected (tests).
	projWhy string
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
	normalizeD direct
	urlPattern *regexp.Regexp
	// want is what the parameter takes, in the author's words (its description and example), for
	// the message refusing a value that matches neither pattern: a client reads prose, not a regexp.
	want string
}

type constraint struct {
	require  *vm.Program
	requireD direct
	oneOf    []string
	message  string
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
	// optional: a failure of the step is a warning, and the run goes on without it.
	optional bool
	vars     []*namedSel
	sources  []*source // decoded from this step
	// ldProj, when not nil, is the part of the page's JSON-LD objects the step's json_ld sources
	// read (see ldProjection).
	ldProj *dom.Projection
	// jsonBySource: a parse: json step whose body only its one projected body source reads; the
	// source decodes it, projected, in place of the parse's whole decode (see projectSources).
	jsonBySource bool
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
	scriptJSON *xpatheval.BodyRegexp
	xpathJSON  *xpatheval.Expr
	body       bool
	mainText   bool
	// expr, when not nil, is a source computed from the sources above it (sitedef.Source.Expr).
	expr     *vm.Program
	required bool
	// when, when not nil, says whether the source is looked for at all (sitedef.Source.When).
	when *vm.Program
	// proj, when not nil, is the part of a script-JSON, xpath_json or body source the plan's
	// expressions read (see projectSources); for a json_ld source, the part of the object it finds,
	// which the step's ldProj joins with its other json_ld sources'.
	proj *dom.Projection
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
	any, all   []*matcher
	not        *matcher
	status     []int
	headerName string
	headerRe   *regexp.Regexp
	xpath      *xpatheval.Expr
	// bodyContains: "" for none; searched by regexfast.IndexBytes, whose byte is chosen again by
	// the page's own counts (yandex's BEM classes are full of the '_' HTML at large ranks as the
	// rarest of window._cf_chl_opt).
	bodyContains string
	bodyRe       *xpatheval.BodyRegexp
	finalURL     *regexp.Regexp
	expr         *vm.Program
	// exprBody: expr may read a step's body (steps.page.body contains "..."), a scan of the
	// whole page like body_contains, so it is ordered with the body searches.
	exprBody bool
	// scan: xpath selects nothing when a scan of the body finds no element it could select
	// (xpatheval.Expr.TagTests, dom.ScanElementsView), so the tree may stay unbuilt.
	scan bool
	// scanRuns: when the body holds none of these as it is, the scan's answer is known without
	// it (see scanLiteralRuns); nil when the XPath has none.
	scanRuns []scanLit
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
	xpath     *xpatheval.Expr
	prog      *vm.Program
	re        *xpatheval.BodyRegexp
	konst     any
	all       bool
	block     bool // text: block (dom.BlockText)
	from      int  // step index, -1: the last step run
	transform *vm.Program
	// fieldTransform is a field-level transform shared by every selector of a select: list.
	fieldTransform *vm.Program
	// The direct forms of prog, transform and fieldTransform (see direct).
	progD, transformD, fieldTransformD direct
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
	path     string // products[].price: the name Trace.Field reports
	kind     fieldKind
	elem     fieldKind // for lists
	sels     []*selector
	post     *vm.Program
	postD    direct
	def      any
	required bool
	when     *vm.Program
	hidden   bool
	children []*field
	order    []*field // children in evaluation order (see evalOrder)
	recurse  *field   // list definition reused by a recursive child
	limit    *vm.Program
	lastPage bool // paginated endpoints: taken from the last page fetched
}

type paginate struct {
	items  *field
	next   *vm.Program
	start  *vm.Program
	startD direct
	pages  *vm.Program
	pagesD direct
}

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

// XPaths lists the source of every XPath the plan evaluates (rules, fields, step variables), for
// the evaluator's equivalence tests and the parsel comparison.
func (p *Plan) XPaths() []string {
	var out []string
	add := func(x *xpatheval.Expr) {
		if x != nil {
			out = append(out, x.String())
		}
	}
	p.eachMatcher(func(m *matcher) { add(m.xpath) })
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

// eachMatcher calls fn with every matcher of p's rules, the nested any/all/not ones included.
func (p *Plan) eachMatcher(fn func(m *matcher)) {
	var walk func(m *matcher)
	walk = func(m *matcher) {
		if m == nil {
			return
		}
		fn(m)
		for _, a := range m.any {
			walk(a)
		}
		for _, a := range m.all {
			walk(a)
		}
		walk(m.not)
	}
	for _, r := range p.rules {
		walk(r.match)
	}
}
