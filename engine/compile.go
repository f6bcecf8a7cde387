package engine

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"

	"asa/engine/diag"
	"asa/engine/errcode"
	"asa/engine/funcs"
	"asa/engine/sitedef"
	"asa/engine/xpatheval"
)

// MaxPages is the hard ceiling of pages one paginated request may fetch.
const MaxPages = 10

// MaxRecursion bounds recursive list fields (nested comments).
const MaxRecursion = 64

var (
	// Hyphens are allowed because users type the site's own name (google-play).
	slugRe     = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9_-]*[a-z0-9_])?$`)
	nameRe     = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	semverRe   = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$`)
	localeRe   = regexp.MustCompile(`^[a-z]{2,3}_[A-Z]{2}$`)
	currencyRe = regexp.MustCompile(`^[A-Z]{3}$`)
)

type compiler struct {
	want *xpatheval.Want
	env  types.Map
	// envKey is env's canonical form, the expression cache's key; empty when env changed since.
	envKey string
	eng    *Engine
	file   string
	pos    sitedef.Positions
	cut    map[uintptr]string
	diags  *diag.List
	steps  map[string]int
	// via is what the file extends, when it was resolved from a base.
	via *sitedef.BaseRef
	// searches is set when an expression may call find or findAll (see Plan.indexJSON).
	searches *bool
	// progs, when not nil, receives every program compiled, once per place (see projectSources).
	progs *[]progUse
}

func (c *compiler) errAt(ptr any, format string, args ...any) {
	file, line, col, note := c.where(ptr)
	c.diags.Add(file, line, col, format+"%s", append(args, note)...)
}

func (c *compiler) warnAt(ptr any, format string, args ...any) {
	if c.pos.Of(ptr).File != "" {
		// A warning about a base's own value says the same for every site mounting it: the base's
		// own compile reports it once.
		return
	}
	file, line, col, note := c.where(ptr)
	c.diags.Warn(file, line, col, format+"%s", append(args, note)...)
}

// where places a diagnostic. A value inherited from a base is reported at the child's extends, the
// file being checked, with the base's own position in the message: the base compiled on its own, so
// the problem is the combination, and the author needs both places.
func (c *compiler) where(ptr any) (file string, line, col int, note string) {
	p := c.pos.Of(ptr)
	if p.File != "" && c.via != nil {
		return c.file, max(c.via.At.Line, 1), max(c.via.At.Col, 1),
			fmt.Sprintf(" (inherited from %s at %s:%d:%d)", c.via.Name, p.File, max(p.Line, 1), max(p.Col, 1))
	}
	if p.File != "" {
		return p.File, max(p.Line, 1), max(p.Col, 1), ""
	}
	return c.file, max(p.Line, 1), max(p.Col, 1), ""
}

// expr compiles an expression held at *ptr, reporting problems at its position.
func (c *compiler) expr(ptr *string, what string) *vm.Program {
	return c.exprAs(ptr, what, false)
}

// exprBool compiles an expression that must yield a boolean (when, require, match).
func (c *compiler) exprBool(ptr *string, what string) *vm.Program {
	return c.exprAs(ptr, what, true)
}

func (c *compiler) exprAs(ptr *string, what string, asBool bool) *vm.Program {
	if ptr == nil || strings.TrimSpace(*ptr) == "" {
		return nil
	}
	p, err := c.compileExpr(*ptr, asBool)
	if err != nil {
		if cm, ok := c.cut[reflectAddr(ptr)]; ok {
			// The precise version of exprErr's hint: the comment YAML removed is known.
			c.errAt(ptr, "%s: bad expression: %s; YAML read %q as a comment and cut the expression there: quote the whole value: %s",
				what, exprMsg(err), cm, "'"+strings.ReplaceAll(*ptr+" "+cm, "'", "''")+"'")
			return nil
		}
		c.errAt(ptr, "%s: %s", what, exprErr(err))
		return nil
	}
	return p
}

// exprMsg is expr's message without its source excerpt.
func exprMsg(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		return fmt.Sprintf("%s (expression line %d, column %d)", fe.Message, fe.Line, fe.Column+1)
	}
	return err.Error()
}

// direct is p's direct form (nil: p runs on the VM).
func (c *compiler) direct(p *vm.Program) direct {
	return c.eng.direct(p)
}

func (c *compiler) compileExpr(code string, asBool bool) (*vm.Program, error) {
	if c.searches != nil && strings.Contains(code, "find") {
		*c.searches = true
	}
	if c.envKey == "" {
		c.envKey = envKey(c.env)
	}
	p, err := c.eng.compileExpr(code, c.env, c.envKey, asBool)
	if err == nil && c.progs != nil {
		*c.progs = append(*c.progs, progUse{p, code})
	}
	return p, err
}

// setEnv replaces the expressions' environment (and forgets its cache key).
func (c *compiler) setEnv(env types.Map) {
	c.env = env
	c.envKey = ""
}

func exprErr(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		hint := ""
		if strings.Contains(fe.Message, "unexpected token EOF") {
			hint = "; if the YAML value holds ' #' unquoted, YAML cut it there as a comment: quote the value"
		}
		return fmt.Sprintf("bad expression: %s (expression line %d, column %d)%s", fe.Message, fe.Line, fe.Column+1, hint)
	}
	return "bad expression: " + err.Error()
}

func (c *compiler) template(ptr *string, what string) *template {
	if ptr == nil || *ptr == "" {
		return nil
	}
	t, err := parseTemplate(*ptr, func(code string) (*vm.Program, error) { return c.compileExpr(code, false) })
	if err != nil {
		c.errAt(ptr, "%s: %s", what, exprErr(err))
		return nil
	}
	return t.withDirect(c.direct, c.eng.verifyDirect)
}

func (c *compiler) regex(ptr *string, what string) *regexp.Regexp {
	if ptr == nil || *ptr == "" {
		return nil
	}
	re, err := c.eng.regexp(*ptr)
	if err != nil {
		c.errAt(ptr, "%s: bad regular expression: %v", what, err)
		return nil
	}
	return re
}

func (c *compiler) xpath(ptr *string, what string) *xpatheval.Expr {
	if ptr == nil || *ptr == "" {
		return nil
	}
	x, err := c.eng.xpaths.Compile(*ptr, c.want)
	if err != nil {
		c.errAt(ptr, "%s: bad XPath %q: %v", what, *ptr, err)
		return nil
	}
	return x
}

func (c *compiler) stepRef(ptr *string, what string) int {
	if *ptr == "" {
		return -1
	}
	i, ok := c.steps[*ptr]
	if !ok {
		c.errAt(ptr, "%s: no step %q in this endpoint", what, *ptr)
		return -1
	}
	return i
}

// CheckSite checks a site file on its own (resolved, when it extends a family).
func CheckSite(f *sitedef.File, dirName string) diag.List {
	return checkSite(f, dirName, false)
}

// CheckFamilySite checks a family's site.yaml (_families/<family>/site.yaml): the defaults its sites
// inherit. It names the family but is no site itself: name and version belong to each site.
func CheckFamilySite(f *sitedef.File, family string) diag.List {
	return checkSite(f, family, true)
}

func checkSite(f *sitedef.File, dirName string, family bool) diag.List {
	var diags diag.List
	s := f.Site
	c := &compiler{file: f.Path, pos: f.Pos, diags: &diags, via: f.Base}
	if s.Kind != "site" {
		c.errAt(&s.Kind, "kind must be site")
	}
	what := "site"
	if family {
		what = "family"
	}
	if !slugRe.MatchString(s.Site) {
		c.errAt(&s.Site, "%s %q: a slug is lower case letters, digits, underscores and hyphens", what, s.Site)
	} else if dirName != "" && s.Site != dirName {
		c.errAt(&s.Site, "%s %q must equal its directory name %q", what, s.Site, dirName)
	}
	if family {
		if s.Endpoints.Len() > 0 {
			c.errAt(&s.Endpoints, "a family's endpoints are files beside its site.yaml, not mounts")
		}
		if len(s.Remove) > 0 {
			c.errAt(&s.Remove, "remove: is for sites that extend a family")
		}
	}
	for i, a := range s.Aliases {
		switch {
		case family:
			c.errAt(&s.Aliases, "a family has no aliases: each site states its own")
		case !slugRe.MatchString(a):
			c.errAt(&s.Aliases[i], "alias %q: a slug is lower case letters, digits, underscores and hyphens", a)
		case a == s.Site || slices.Index(s.Aliases, a) != i:
			c.errAt(&s.Aliases[i], "alias %q is given twice (or is the site's own slug)", a)
		}
	}
	if s.Name == "" && !family {
		c.errAt(s, "missing name")
	}
	if s.Category == "" {
		c.errAt(s, "missing category")
	} else if !inEnum(s, "Category", s.Category) {
		c.errAt(&s.Category, "unknown category %q", s.Category)
	}
	if !semverRe.MatchString(s.Version) && !(family && s.Version == "") {
		c.errAt(&s.Version, "version %q is not a semantic version such as 1.2.0", s.Version)
	}
	s.Domains.Each(func(k string, d *sitedef.Domain) {
		if d.Host == "" || strings.ContainsAny(d.Host, "/: ") {
			c.errAt(d, "domain %q: host %q is not a host name", k, d.Host)
		}
		if !localeRe.MatchString(d.Locale) {
			c.errAt(&d.Locale, "domain %q: locale %q is not xx_YY", k, d.Locale)
		}
		if d.Currency != "" && !currencyRe.MatchString(d.Currency) {
			c.errAt(&d.Currency, "domain %q: currency %q is not an ISO 4217 code", k, d.Currency)
		}
	})
	if s.DefaultDomain != "" && s.Domains.Get(s.DefaultDomain) == nil {
		c.errAt(&s.DefaultDomain, "default_domain %q is not one of the domains", s.DefaultDomain)
	}
	if s.Domains.Len() > 0 && s.DefaultDomain == "" {
		c.errAt(s, "a site with domains needs default_domain")
	}
	if s.Retry.MaxAttempts < 0 || s.Retry.MaxAttempts > 10 {
		c.errAt(&s.Retry.MaxAttempts, "retry.max_attempts must be 1 to 10")
	}
	return diags
}

// Compile compiles one endpoint of a site. The site file must have passed CheckSite.
func (e *Engine) Compile(site, ep *sitedef.File) (*Plan, diag.List) {
	var diags diag.List
	s, d := site.Site, ep.Endpoint
	p := &Plan{
		verifyDirect: e.verifyDirect,
		ID:           s.Site + "." + d.Resource,
		Site:         s,
		Endpoint:     d,
		Version:      s.Site + "@" + s.Version,
		paramIdx:     map[string]*param{},
		maxAttempts:  3,
		timeout:      s.Request.Timeout,
		domains:      map[string]map[string]any{},
		hostDomain:   map[string]string{},
		defDomain:    s.DefaultDomain,
	}
	if s.Retry.MaxAttempts > 0 {
		p.maxAttempts = s.Retry.MaxAttempts
	}
	s.Domains.Each(func(k string, dm *sitedef.Domain) {
		p.domains[k] = map[string]any{"name": k, "host": dm.Host, "locale": dm.Locale, "currency": dm.Currency}
		p.hostDomain[strings.ToLower(dm.Host)] = k
		p.hostDomain[strings.TrimPrefix(strings.ToLower(dm.Host), "www.")] = k
	})
	p.regDomain = registrableDomains(s)

	env := planEnv(d)
	// Site-level parts are reported against site.yaml.
	siteEnv := types.Map{}
	for k, v := range env {
		siteEnv[k] = v
	}
	// Site-wide headers and rules serve endpoints with different parameters, sources and fields.
	siteEnv["params"] = types.Map{types.Extra: types.Any}
	siteEnv["src"] = types.Map{types.Extra: types.Any}
	siteEnv["fields"] = types.Map{types.Extra: types.Any}
	p.want = xpatheval.NewWant()
	var progs []progUse
	sc := &compiler{want: p.want, env: siteEnv, eng: e, file: site.Path, pos: site.Pos, cut: site.Cut, diags: &diags, steps: map[string]int{}, via: site.Base, searches: &p.indexJSON, progs: &progs}
	s.Request.Headers.Each(func(k string, v *string) {
		p.siteHeaders = append(p.siteHeaders, kvTemplate{key: k, val: sc.template(v, "header "+k)})
	})

	c := &compiler{want: p.want, env: env, eng: e, file: ep.Path, pos: ep.Pos, cut: ep.Cut, diags: &diags, steps: map[string]int{}, via: ep.Base, searches: &p.indexJSON, progs: &progs}
	if d.Kind != "endpoint" {
		c.errAt(&d.Kind, "kind must be endpoint")
	}
	if !nameRe.MatchString(d.Resource) {
		c.errAt(&d.Resource, "resource %q: a resource is lower case letters, digits and underscores", d.Resource)
	}
	if d.Summary == "" {
		c.errAt(d, "missing summary")
	}
	c.compileParams(p, d)
	for i := range d.Steps {
		st := &d.Steps[i]
		if st.ID == "" || !nameRe.MatchString(st.ID) {
			c.errAt(st, "step id %q: lower case letters, digits and underscores", st.ID)
		}
		if _, dup := c.steps[st.ID]; dup {
			c.errAt(&st.ID, "duplicate step id %q", st.ID)
		}
		c.steps[st.ID] = i
		sc.steps[st.ID] = i
	}
	if len(d.Steps) == 0 {
		c.errAt(d, "an endpoint needs at least one step")
	}
	// Sources are compiled before steps so each step knows which to decode.
	d.Sources.Each(func(name string, src *sitedef.Source) {
		p.sources = append(p.sources, c.compileSource(name, src, len(d.Steps), p.sources))
	})
	for i := range d.Steps {
		p.steps = append(p.steps, c.compileStep(&d.Steps[i], i, p.sources))
	}
	for i := range s.Rules {
		if r := sc.compileRule(&s.Rules[i], true); r != nil {
			p.rules = append(p.rules, r)
		}
	}
	for i := range d.Rules {
		r := c.compileRule(&d.Rules[i], false)
		if r == nil {
			continue
		}
		if r.when != nil {
			p.outRules = append(p.outRules, r)
		} else {
			p.rules = append(p.rules, r)
		}
	}
	if d.Fields.Len() == 0 {
		c.errAt(d, "an endpoint needs fields")
	}
	p.fields, p.order = c.compileFields(&d.Fields, nil, 0)
	setPaths(p.fields, "")
	if d.Paginate != nil {
		c.compilePaginate(p, d.Paginate)
	}
	if !c.eng.eager {
		p.planLazyTree()
	}
	for _, x := range []string{"api_key", "render_js", "screenshot", "full_page", "wait_for"} {
		if p.paramIdx[x] != nil {
			c.errAt(d.Params.Vals[x], "parameter %q is reserved by the API", x)
		}
	}
	if !diags.HasErrors() {
		e.projectSources(p, progs)
	}
	return p, diags
}

// paramWant is a parameter's description and example as one phrase ("ASIN or ISBN-10 ..., for
// example B01GOH7PKA"), or "" when it has no description.
func paramWant(sp *sitedef.Param) string {
	want := strings.TrimRight(strings.TrimSpace(sp.Description), ".")
	if want == "" {
		return ""
	}
	// "The album's URL" reads as "give the album's URL"; "ASIN or ..." keeps its capitals.
	if r := []rune(want); len(r) > 1 && unicode.IsUpper(r[0]) && unicode.IsLower(r[1]) {
		r[0] = unicode.ToLower(r[0])
		want = string(r)
	}
	if sp.Example != nil {
		want += ", for example " + stringify(sp.Example)
	}
	return want
}

func (c *compiler) compileParams(p *Plan, d *sitedef.Endpoint) {
	d.Params.Each(func(name string, sp *sitedef.Param) {
		if !nameRe.MatchString(name) {
			c.errAt(sp, "parameter %q: lower case letters, digits and underscores", name)
		}
		pr := &param{name: name, typ: sp.Type, required: sp.Required, def: sp.Default, min: sp.Min, max: sp.Max}
		switch sp.Type {
		case "string", "int", "bool", "url":
		case "enum":
			pr.values = sp.Values
			if sp.ValuesFrom == "domains" {
				pr.values = p.Site.Domains.Keys
				if pr.def == nil && p.defDomain != "" {
					pr.def = p.defDomain
				}
				if p.domainParam != "" {
					c.errAt(sp, "only one parameter may take its values from domains")
				}
				p.domainParam = name
			} else if sp.ValuesFrom != "" {
				c.errAt(&sp.ValuesFrom, "values_from must be domains")
			}
			if len(pr.values) == 0 {
				c.errAt(sp, "enum parameter %q needs values or values_from", name)
			}
		case "":
			c.errAt(sp, "parameter %q needs a type", name)
		default:
			c.errAt(&sp.Type, "parameter %q: unknown type %q (string, int, bool, enum, url)", name, sp.Type)
		}
		if sp.Type != "enum" && (len(sp.Values) > 0 || sp.ValuesFrom != "") {
			c.errAt(sp, "values and values_from are for enum parameters")
		}
		if sp.Pattern != "" {
			pat := sp.Pattern
			re, err := c.eng.regexp(`^(?:` + pat + `)$`)
			if err != nil {
				c.errAt(&sp.Pattern, "bad pattern: %v", err)
			}
			pr.pattern = re
		}
		pr.urlPattern = c.regex(&sp.URLPattern, "url_pattern")
		if pr.urlPattern != nil {
			for _, g := range pr.urlPattern.SubexpNames()[1:] {
				if g != "" && g != "host" && d.Params.Get(g) == nil {
					c.errAt(&sp.URLPattern, "url_pattern group %q names no parameter", g)
				}
			}
		}
		// normalize runs before the request exists, on the raw value alone (engine/params.go).
		outer := c.env
		c.setEnv(types.Map{"value": types.Any})
		pr.normalize = c.expr(&sp.Normalize, "normalize")
		pr.normalizeD = c.direct(pr.normalize)
		c.setEnv(outer)
		if pr.required && pr.def != nil {
			c.errAt(sp, "parameter %q is required and has a default: pick one", name)
		}
		if pr.def != nil {
			if _, err := pr.check(stringify(pr.def)); err != nil {
				c.errAt(&sp.Default, "default %v: %v", sp.Default, err)
			}
		}
		if sp.Example != nil {
			if _, err := pr.check(stringify(sp.Example)); err != nil && pr.urlPattern == nil {
				c.errAt(&sp.Example, "example %v: %v", sp.Example, err)
			}
		}
		// Set after the checks above, whose errors are for the author and show the pattern.
		pr.want = paramWant(sp)
		p.params = append(p.params, pr)
		p.paramIdx[name] = pr
	})
	for i := range d.Constraints {
		cs := &d.Constraints[i]
		k := &constraint{oneOf: cs.OneOf, message: cs.Message}
		for _, n := range cs.OneOf {
			if d.Params.Get(n) == nil {
				c.errAt(&cs.OneOf, "one_of names %q, which is not a parameter", n)
			}
		}
		// A constraint sees the validated parameters only (engine/params.go).
		outer := c.env
		c.setEnv(types.Map{"params": c.env["params"]})
		k.require = c.exprBool(&cs.Require, "require")
		k.requireD = c.direct(k.require)
		c.setEnv(outer)
		if (k.require == nil) == (len(cs.OneOf) == 0) && cs.Require == "" {
			c.errAt(cs, "a constraint has require or one_of")
		}
		if cs.Require != "" && cs.Message == "" {
			c.errAt(cs, "a require constraint needs a message")
		}
		p.constraints = append(p.constraints, k)
	}
}

func (c *compiler) compileSource(name string, s *sitedef.Source, nSteps int, above []*source) *source {
	src := &source{name: name, jsonLD: s.JSONLD, body: s.Body, mainText: s.MainText, required: s.Required, from: nSteps - 1}
	if s.From != "" {
		src.from = c.stepRef(&s.From, "source "+name)
	}
	if src.when = c.exprBool(&s.When, "source "+name+" when"); src.when != nil {
		// The source as written: the compiled tree's member reads are rewritten for speed.
		if tree, err := parser.ParseWithConfig(s.When, c.eng.exprConf); err == nil {
			c.checkSourceReads(&s.When, name+" when", src.from, tree.Node, above)
		}
	}
	n := 0
	if s.Expr != "" {
		n++
		if src.expr = c.expr(&s.Expr, "source "+name+" expr"); src.expr != nil {
			if tree, err := parser.ParseWithConfig(s.Expr, c.eng.exprConf); err == nil {
				c.checkSourceReads(&s.Expr, name+" expr", src.from, tree.Node, above)
			}
		}
	}
	if s.JSONLD != "" {
		n++
	}
	if s.ScriptJSON != "" {
		n++
		src.scriptJSON = xpatheval.NewBodyRegexp(c.regex(&s.ScriptJSON, "source "+name+" script_json"))
	}
	if s.XPathJSON != "" {
		n++
		src.xpathJSON = c.xpath(&s.XPathJSON, "source "+name+" xpath_json")
	}
	if s.Body {
		n++
	}
	if s.MainText {
		n++
	}
	if n != 1 {
		c.errAt(s, "source %q needs exactly one of json_ld, script_json, xpath_json, body, main_text, expr", name)
	}
	if !nameRe.MatchString(name) {
		c.errAt(s, "source name %q: lower case letters, digits and underscores", name)
	}
	return src
}

// checkSourceReads refuses a source's when or expr that reads what is not there when the source is
// read: the fields (extracted after every source), and a source not decoded before this one (declared
// below it, or read from a later step), which would be nil there and make the condition lie. what
// is the source's name and the key ("offer when").
func (c *compiler) checkSourceReads(ptr *string, what string, from int, n ast.Node, above []*source) {
	v := srcReads{}
	ast.Walk(&n, &v)
	name := strings.Fields(what)[0]
	if v.bare > len(v.names) {
		c.errAt(ptr, "source %s: src is read only by name (src.other), so that the sources it needs are known", what)
	}
	if v.other != "" {
		c.errAt(ptr, "source %s: %s is not known while the sources are read (the fields come after them)", what, v.other)
	}
	for _, read := range v.names {
		ok := false
		for _, a := range above {
			ok = ok || (a.name == read && a.from <= from)
		}
		if !ok {
			c.errAt(ptr, "source %s: src.%s is not read before %s (a source's when and expr read the sources declared above it, of the same or an earlier step)", what, read, name)
		}
	}
}

// srcReads collects what an expression reads of src (the names of src.name) and of the names a
// source's when cannot read.
type srcReads struct {
	names []string
	bare  int // every use of the identifier src, named or not
	other string
}

func (v *srcReads) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.IdentifierNode:
		switch x.Value {
		case "src":
			v.bare++
		case "fields", "item", "items", "value", "index":
			v.other = x.Value
		}
	case *ast.MemberNode:
		if id, ok := x.Node.(*ast.IdentifierNode); ok && id.Value == "src" {
			if p, ok := x.Property.(*ast.StringNode); ok && !x.Method {
				v.names = append(v.names, p.Value)
			}
		}
	}
}

func (c *compiler) compileStep(s *sitedef.Step, idx int, sources []*source) *step {
	st := &step{id: s.ID, index: idx, parse: s.Parse, expect: s.ExpectStatus, optional: s.Optional}
	if s.Optional && idx == 0 {
		c.errAt(&s.Optional, "step %s: the first step cannot be optional: it is the page the endpoint answers from", s.ID)
	}
	switch s.Parse {
	case "":
		st.parse = "html"
	case "html", "json", "xml", "text":
	default:
		c.errAt(&s.Parse, "parse %q: html, json, xml or text", s.Parse)
	}
	st.when = c.exprBool(&s.When, "when")
	switch strings.ToUpper(s.Request.Method) {
	case "", "GET":
		st.method = "GET"
	case "POST":
		st.method = "POST"
	default:
		c.errAt(&s.Request.Method, "method %q: GET or POST", s.Request.Method)
	}
	if s.Request.URL == "" {
		c.errAt(&s.Request, "step %q: request.url is required", s.ID)
	}
	st.url = c.template(&s.Request.URL, "url")
	if st.url != nil && !st.url.single() && len(st.url.parts) > 0 && st.url.parts[0].prog == nil &&
		!strings.HasPrefix(st.url.parts[0].lit, "https://") && !strings.HasPrefix(st.url.parts[0].lit, "http://") {
		c.errAt(&s.Request.URL, "url must start with https:// or http://")
	}
	s.Request.Query.Each(func(k string, v *string) {
		st.query = append(st.query, kvTemplate{key: k, val: c.template(v, "query "+k)})
	})
	s.Request.Headers.Each(func(k string, v *string) {
		st.headers = append(st.headers, kvTemplate{key: k, val: c.template(v, "header "+k)})
	})
	if s.Request.JSON != nil {
		st.json = c.jsonTemplate(&s.Request.JSON, s.Request.JSON)
		if st.method != "POST" {
			c.errAt(&s.Request.JSON, "a JSON body needs method: POST")
		}
	}
	st.body = c.template(&s.Request.Body, "body")
	st.render, st.waitFor = s.Render, strings.TrimSpace(s.WaitFor)
	if s.Render && (st.method != "GET" || st.parse != "html") {
		c.errAt(&s.Render, "render: true needs a GET step parsed as html (the browser navigates to the page)")
	}
	if st.waitFor != "" && !s.Render {
		c.errAt(&s.WaitFor, "wait_for is for a step with render: true")
	}
	if len(st.waitFor) > MaxWaitFor {
		c.errAt(&s.WaitFor, "wait_for is longer than %d bytes", MaxWaitFor)
	}
	for _, code := range s.ExpectStatus {
		if code < 100 || code > 599 {
			c.errAt(&s.ExpectStatus, "expect_status %d is not an HTTP status", code)
		}
	}
	s.Vars.Each(func(name string, sel *sitedef.Selector) {
		st.vars = append(st.vars, &namedSel{name: name, sel: c.compileSelector(sel, "var "+name, false)})
	})
	for _, src := range sources {
		if src.from == idx {
			st.sources = append(st.sources, src)
		}
	}
	return st
}

func (c *compiler) jsonTemplate(ptr any, v any) any {
	switch x := v.(type) {
	case string:
		t, err := parseTemplate(x, func(code string) (*vm.Program, error) { return c.compileExpr(code, false) })
		if err != nil {
			c.errAt(ptr, "json: %s", exprErr(err))
			return x
		}
		return t.withDirect(c.direct, c.eng.verifyDirect)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, vv := range x {
			out[k] = c.jsonTemplate(ptr, vv)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, vv := range x {
			out[i] = c.jsonTemplate(ptr, vv)
		}
		return out
	}
	return v
}

func (c *compiler) compileRule(r *sitedef.Rule, site bool) *rule {
	out := &rule{id: r.ID, step: -1, detail: r.Detail}
	if r.ID == "" {
		c.errAt(r, "a rule needs an id")
	}
	code := errcode.Code(r.Error)
	if info, ok := errcode.Lookup(code); !ok || !info.Sitedef {
		c.errAt(&r.Error, "rule %q: unknown error code %q (blocked, product_not_found, target_unreachable, extraction_failed, id_mismatch, generic_gallery_page)", r.ID, r.Error)
	}
	out.code = code
	if r.Step != "" {
		if site {
			c.errAt(&r.Step, "site rules apply to every step: step is not allowed here")
		} else {
			out.step = c.stepRef(&r.Step, "rule "+r.ID)
		}
	}
	switch {
	case r.Match != nil && r.When != "":
		c.errAt(r, "rule %q: match and when are exclusive (match checks a response, when checks the output)", r.ID)
	case r.Match != nil:
		out.match = c.compileMatch(r.Match)
	case r.When != "":
		if site {
			c.errAt(&r.When, "site rules use match; when is for endpoint output rules")
		}
		out.when = c.exprBool(&r.When, "when")
	default:
		c.errAt(r, "rule %q needs match or when", r.ID)
	}
	out.message = c.template(&r.Message, "message")
	if out.match == nil && out.when == nil {
		return nil
	}
	return out
}

func (c *compiler) compileMatch(m *sitedef.Match) *matcher {
	out := &matcher{status: m.Status}
	n := 0
	for i := range m.Any {
		out.any = append(out.any, c.compileMatch(&m.Any[i]))
	}
	for i := range m.All {
		out.all = append(out.all, c.compileMatch(&m.All[i]))
	}
	if m.Not != nil {
		out.not = c.compileMatch(m.Not)
	}
	if m.Header != nil {
		out.headerName = m.Header.Name
		out.headerRe = c.regex(&m.Header.Matches, "header")
		n++
	}
	out.xpath = c.xpath(&m.XPath, "match")
	out.bodyContains = m.BodyContains
	out.bodyRe = xpatheval.NewBodyRegexp(c.regex(&m.BodyMatches, "body_matches"))
	out.finalURL = c.regex(&m.FinalURL, "final_url")
	out.expr = c.exprBool(&m.Expr, "match expr")
	out.exprBody = out.expr != nil && mayReadBody(out.expr.Node())
	for _, x := range []bool{len(m.Any) > 0, len(m.All) > 0, m.Not != nil, len(m.Status) > 0, m.XPath != "", m.BodyContains != "", m.BodyMatches != "", m.FinalURL != "", m.Expr != ""} {
		if x {
			n++
		}
	}
	if n == 0 {
		c.errAt(m, "an empty matcher matches nothing: give status, header, xpath, body_contains, body_matches, final_url, expr, any, all or not")
	}
	// The parts that search the body go last, in the order written: see matches.
	for _, l := range [][]*matcher{out.all, out.any} {
		slices.SortStableFunc(l, func(a, b *matcher) int {
			return cmp.Compare(b2i(a.searchesBody()), b2i(b.searchesBody()))
		})
	}
	return out
}

// mayReadBody reports whether an expression may read a step's body: it names "body" (as the
// member steps.page.body, an identifier or a string that may be a key). Over-reporting only moves
// a part later.
func mayReadBody(n ast.Node) bool {
	v := bodyVisitor{}
	ast.Walk(&n, &v)
	return v.found
}

type bodyVisitor struct{ found bool }

func (v *bodyVisitor) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.StringNode:
		v.found = v.found || x.Value == "body"
	case *ast.IdentifierNode:
		v.found = v.found || x.Value == "body"
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (c *compiler) compileSelector(s *sitedef.Selector, what string, inList bool) *selector {
	out := &selector{all: s.All, block: s.Text == "block", from: -1}
	switch {
	case s.Text != "" && s.Text != "flat" && s.Text != "block":
		c.errAt(&s.Text, "%s: text %q: flat or block", what, s.Text)
	case s.Text != "" && s.XPath == "":
		c.errAt(&s.Text, "%s: text is how xpath reads an element's text; this selector has no xpath", what)
	}
	n := 0
	if s.XPath != "" {
		n++
		out.kind = selXPath
		out.xpath = c.xpath(&s.XPath, what)
		if inList && strings.HasPrefix(strings.TrimSpace(s.XPath), "/") && s.From == "" {
			c.warnAt(&s.XPath, "%s: an absolute XPath inside a list item reads the whole page; use ./ or .// for the item", what)
		}
	}
	if s.Expr != "" {
		n++
		out.kind = selExpr
		out.prog = c.expr(&s.Expr, what)
	}
	if s.Regex != "" {
		n++
		out.kind = selRegex
		re := c.regex(&s.Regex, what)
		out.re = xpatheval.NewBodyRegexp(re)
		if re != nil && re.NumSubexp() > 1 {
			c.warnAt(&s.Regex, "%s: only the first capture group is used", what)
		}
	}
	if _, given := c.pos[reflectAddr(&s.Const)]; given || s.Const != nil {
		n++
		out.kind = selConst
		out.konst = s.Const
	}
	if n > 1 {
		c.errAt(s, "%s: give one of xpath, expr, regex, const", what)
	}
	if s.From != "" {
		out.from = c.stepRef(&s.From, what)
	}
	out.transform = c.expr(&s.Transform, what+" transform")
	out.progD, out.transformD = c.direct(out.prog), c.direct(out.transform)
	if n == 0 {
		return nil
	}
	return out
}

var kinds = map[string]fieldKind{"string": kString, "int": kInt, "float": kFloat, "bool": kBool, "url": kURL, "object": kObject, "any": kAny}

func (c *compiler) compileFields(m *sitedef.Map[sitedef.Field], listParent *field, depth int) (fields, order []*field) {
	var out []*field
	// fields.<name> reads the object being built, so each level declares its own names.
	outer := c.env["fields"]
	c.env["fields"] = declare(m.Keys)
	c.envKey = ""
	defer func() { c.env["fields"] = outer; c.envKey = "" }()
	m.Each(func(name string, f *sitedef.Field) {
		out = append(out, c.compileField(name, f, listParent, depth))
	})
	order, cycle := evalOrder(out)
	if cycle != nil {
		names := make([]string, len(cycle))
		for i, f := range cycle {
			names[i] = f.name
		}
		c.errAt(m, "fields %s read each other (fields.<name>): one of them must not", strings.Join(names, ", "))
	}
	return out, order
}

func (c *compiler) compileField(name string, f *sitedef.Field, listParent *field, depth int) *field {
	what := "field " + name
	if !nameRe.MatchString(name) {
		c.errAt(f, "%s: field names are lower case letters, digits and underscores", what)
	}
	out := &field{name: name, def: f.Default, required: f.Required, hidden: f.Hidden}
	t := f.Type
	if t == "" {
		t = "string"
		if f.Fields.Len() > 0 {
			t = "object"
		}
	}
	if strings.HasPrefix(t, "list<") && strings.HasSuffix(t, ">") {
		out.kind = kList
		out.elem = kinds[t[5:len(t)-1]]
		if out.elem == 0 || out.elem == kList {
			c.errAt(&f.Type, "%s: unknown list type %q", what, t)
		}
	} else if k, ok := kinds[t]; ok {
		out.kind = k
	} else {
		c.errAt(&f.Type, "%s: unknown type %q (string, int, float, bool, url, object, any, list<...>)", what, t)
	}
	inList := listParent != nil
	if len(f.Select) == 0 || f.Selector.XPath != "" || f.Selector.Expr != "" || f.Selector.Regex != "" || f.Selector.Const != nil {
		if sel := c.compileSelector(&f.Selector, what, inList); sel != nil {
			out.sels = append(out.sels, sel)
		}
	}
	if len(f.Select) > 0 && len(out.sels) > 0 {
		c.errAt(f, "%s: give an inline selector or select:, not both", what)
	}
	// A field-level from with select: is the step of every selector that names none (as a
	// field-level transform applies to each), rather than ignored.
	fieldFrom := -1
	if len(f.Select) > 0 && f.Selector.From != "" {
		fieldFrom = c.stepRef(&f.Selector.From, what)
	}
	for i := range f.Select {
		if sel := c.compileSelector(&f.Select[i], fmt.Sprintf("%s select[%d]", what, i), inList); sel != nil {
			if f.Select[i].From == "" {
				sel.from = max(sel.from, fieldFrom)
			}
			out.sels = append(out.sels, sel)
		} else {
			c.errAt(&f.Select[i], "%s select[%d]: give one of xpath, expr, regex, const", what, i)
		}
	}
	if f.Selector.Transform != "" && len(f.Select) > 0 {
		// A field-level transform with select: applies to every selector's value, after the selector's own.
		if ft := c.expr(&f.Selector.Transform, what+" transform"); ft != nil {
			ftD := c.direct(ft)
			for _, sel := range out.sels {
				sel.fieldTransform, sel.fieldTransformD = ft, ftD
			}
		}
	}
	out.post = c.expr(&f.Post, what+" post")
	out.postD = c.direct(out.post)
	out.when = c.exprBool(&f.When, what+" when")
	out.limit = c.expr(&f.Limit, what+" limit")
	switch f.Page {
	case "", "first":
	case "last":
		out.lastPage = true
		if depth > 0 {
			c.errAt(&f.Page, "%s: page is for top-level fields of a paginated endpoint", what)
		}
	default:
		c.errAt(&f.Page, "%s: page %q: first or last", what, f.Page)
	}
	isObjList := out.kind == kList && out.elem == kObject
	if f.Extends != "" || len(f.Remove) > 0 {
		// The registry resolves a field's extends before compiling; one left here was not loaded through it.
		c.errAt(&f.Extends, "%s: extends on a field is resolved when the sitedefs load (asa sitedef check)", what)
	}
	if f.Recurse {
		if !isObjList || listParent == nil {
			c.errAt(&f.Recurse, "%s: recurse is for a list<object> field inside a list<object>", what)
		} else {
			out.recurse = listParent
			if f.Fields.Len() > 0 {
				c.errAt(&f.Fields, "%s: a recursive field reuses its parent's fields; it has none of its own", what)
			}
		}
		if len(out.sels) == 0 {
			c.errAt(f, "%s: a recursive field needs a selector for its items", what)
		}
		return out
	}
	if f.Fields.Len() > 0 {
		if out.kind != kObject && !isObjList {
			c.errAt(&f.Fields, "%s: fields are for object and list<object>", what)
		}
		if depth > 8 {
			c.errAt(&f.Fields, "%s: fields nest too deep", what)
			return out
		}
		parent := listParent
		if isObjList {
			parent = out
		}
		out.children, out.order = c.compileFields(&f.Fields, parent, depth+1)
	}
	if len(out.sels) == 0 && f.Default == nil && out.kind != kObject {
		c.errAt(f, "%s: needs a selector (xpath, expr, regex, const or select)", what)
	}
	if f.Required && f.Default != nil {
		c.errAt(f, "%s: required and default: pick one", what)
	}
	return out
}

func (c *compiler) compilePaginate(p *Plan, pg *sitedef.Paginate) {
	out := &paginate{}
	for _, f := range p.fields {
		if f.name == pg.Items {
			out.items = f
		}
	}
	if out.items == nil || out.items.kind != kList {
		c.errAt(&pg.Items, "paginate.items %q must name a top-level list field", pg.Items)
	}
	if out.items != nil && out.items.lastPage {
		c.errAt(&pg.Items, "paginate.items %q is gathered from every page; page: last does not apply", pg.Items)
	}
	out.next = c.expr(&pg.Next, "paginate.next")
	out.start = c.expr(&pg.Start, "paginate.start")
	out.pages = c.expr(&pg.Pages, "paginate.pages")
	out.startD, out.pagesD = c.direct(out.start), c.direct(out.pages)
	if out.start == nil {
		if sp := p.paramIdx["start_page"]; sp == nil || sp.typ != "int" {
			c.errAt(pg, "a paginated endpoint needs an int start_page parameter (or paginate.start)")
		}
	}
	if out.pages == nil {
		if pp := p.paramIdx["pages"]; pp == nil || pp.typ != "int" || pp.max == nil || *pp.max > MaxPages {
			c.errAt(pg, "a paginated endpoint needs an int pages parameter with max at most %d (or paginate.pages)", MaxPages)
		}
	}
	p.paginate = out
}

func reflectAddr(p any) uintptr { return reflect.ValueOf(p).Pointer() }

// planEnv declares the names an endpoint's expressions may use; JSON-shaped values are typed any.
//
// params, src and fields are declared by name, so a misspelt params.x, src.x or fields.x is a load-time
// error rather than a silent nil. docs/sitedef-format.md lists every name; a test keeps the two in step.
func planEnv(d *sitedef.Endpoint) types.Map {
	open := types.Map{types.Extra: types.Any}
	return types.Map{
		"params": declare(d.Params.Keys),
		"domain": types.Map{"name": types.String, "host": types.String, "locale": types.String, "currency": types.String},
		"vars":   open,
		"steps":  types.Map{types.Extra: types.Map{"status": types.Int, "url": types.String, "body": types.String}},
		"src":    declare(d.Sources.Keys),
		"fields": declare(d.Fields.Keys),
		"value":  types.Any,
		"item":   types.Any,
		"index":  types.Int,
		"items":  types.Array(types.Any),
		"page":   types.Map{"number": types.Int, "cursor": types.Any},
		"base":   types.String,
		// The run's indexes for find and findAll, which FindsPatch passes them: no sitedef can
		// name it.
		funcs.FindsVar: types.Any,
		// The run's parsed base URLs for absURL, which BasesPatch passes it.
		funcs.BasesVar: types.Any,
		// The run's scratch for direct evaluation (see frame): no expression names it.
		directVar: types.Any,
	}
}

// declare types an object whose only keys are names, each of any type.
func declare(names []string) types.Map {
	m := make(types.Map, len(names))
	for _, n := range names {
		m[n] = types.Any
	}
	return m
}
