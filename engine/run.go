package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/antchfx/xpath"
	"github.com/expr-lang/expr/vm"
	"golang.org/x/net/html"

	"asa/engine/dom"
	"asa/engine/errcode"
	"asa/engine/funcs"
	"asa/engine/universal"
	"asa/engine/xpatheval"
)

// Result is a successful run.
type Result struct {
	plan *Plan
	// Data is the output object; encode it with MarshalJSON to keep the sitedef's key order.
	Data map[string]any
	// Units is the number of billable requests: pages fetched for a paginated endpoint, else 1.
	Units int
	// Attempts counts every attempt of every step.
	Attempts int
	// SourceStatus and ResolvedURL describe the first step's final response.
	SourceStatus int
	ResolvedURL  string
	// Warnings lists optional values that could not be extracted.
	Warnings []string
}

// MarshalJSON encodes Data with keys in sitedef order.
func (r *Result) MarshalJSON() ([]byte, error) {
	return r.plan.appendObject(make([]byte, 0, 4<<10), r.Data, r.plan.fields)
}

// RunError is a failed run: the client's error plus what the fetch saw, for the Asa-* headers.
type RunError struct {
	Err          *errcode.Error
	Attempts     int
	SourceStatus int
	ResolvedURL  string
	Rule         string
}

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// stepResult is one step's parsed response.
type stepResult struct {
	st     *step
	status int
	url    string
	header http.Header
	body   []byte
	doc    xpath.NodeNavigator // html or xml documents
	html   *html.Node
	// elems is html's elements in document order as the parser listed them (nil: only a walk
	// knows their order), which the JSON-LD sources read rather than walk the tree.
	elems  []*html.Node
	json   any
	jsonOK bool
	// notLooked holds the sources whose when did not hold: not missing, so not an error when required.
	notLooked map[string]bool
	parseErr  error
	// lazy: an HTML body whose tree is built on first use (Plan.lazyTree, buildHTML), which then
	// gives xp the parser's list of its elements.
	lazy bool
	xp   *xpatheval.Evaluator
	// scanDoc and scanSure are the scan of the body that answers the plan's scan XPaths, once
	// scanDone; scanOK is false when the scan could not tell (see scanXPath).
	scanDoc          *html.Node
	scanSure         []*html.Node
	scanDone, scanOK bool
	// searched keeps the body searches of the rules' matchers once settle has made them (nil
	// before: matches alone makes each search once), so that matches does not repeat them.
	searched map[searchKey]bool
	// refsAlnum: whether a character reference of the body may stand for a letter or digit
	// (dom.RefsMayYieldAlnum), once asked: 0 not yet, 1 no, 2 yes.
	refsAlnum int8
	// tr is the run's tracer (nil without a Trace), which a lazily built tree reports its parse to.
	tr *tracer
}

func (s *stepResult) nav() xpath.NodeNavigator {
	if s == nil {
		return nil
	}
	if s.lazy {
		s.buildHTML()
	}
	if s.doc == nil {
		return nil
	}
	return s.doc.Copy()
}

func (s *stepResult) bodyString() string {
	if s == nil || len(s.body) == 0 {
		return ""
	}
	// The body is never written after parsing, so a string view of it is safe and saves copying a
	// megabyte per run.
	return unsafe.String(&s.body[0], len(s.body))
}

// run is the state of one page of one run.
type run struct {
	plan      *Plan
	ctx       context.Context
	fetcher   Fetcher
	params    Params
	env       map[string]any
	vars      map[string]any
	src       map[string]any
	stepsEnv  map[string]any
	results   []*stepResult
	last      *stepResult
	lastDoc   *stepResult // the last step with an HTML or XML document: the default context of XPath
	pageIdx   int
	attempts  int
	first     *stepResult
	warnings  []string
	prevItems []any
	xp        *xpatheval.Evaluator
	// finds indexes the run's decoded sources for find and findAll (env[funcs.FindsVar]).
	finds *funcs.Finds
	// baseURL is env["base"] (baseSrc) parsed, once baseDone: see base.
	baseSrc  string
	baseURL  *url.URL
	baseDone bool
	tr       *tracer // nil unless the context carries a Trace
	// machine runs every expression of the run: one VM reused (a run is one goroutine, and no
	// expression calls back into the engine) instead of a new one, with its stack, per field of
	// every item.
	machine vm.VM
}

// Run executes the plan. Errors are *RunError carrying an *errcode.Error.
func (p *Plan) Run(ctx context.Context, params Params, f Fetcher) (*Result, error) {
	res := &Result{plan: p}
	if p.paginate == nil {
		r := p.newRun(ctx, params, f, 1, map[string]any{"number": 1, "cursor": nil})
		data, err := r.page()
		res.Attempts = r.attempts
		if r.first != nil {
			res.SourceStatus, res.ResolvedURL = r.first.status, r.first.url
		}
		if err != nil {
			return nil, r.fail(err)
		}
		res.Data, res.Units, res.Warnings = data, 1, r.warnings
		return res, nil
	}
	base := map[string]any{"params": map[string]any(params)}
	start, pages := 1, 1
	if v, ok := params["start_page"].(int); ok {
		start = v
	}
	if v, ok := params["pages"].(int); ok {
		pages = v
	}
	if p.paginate.start != nil {
		if v, err := evalDirect(nil, p.paginate.start, p.paginate.startD, base, p.verifyDirect); err == nil {
			if n, ok := toInt(v); ok {
				start = n
			}
		}
	}
	if p.paginate.pages != nil {
		if v, err := evalDirect(nil, p.paginate.pages, p.paginate.pagesD, base, p.verifyDirect); err == nil {
			if n, ok := toInt(v); ok {
				pages = n
			}
		}
	}
	pages = min(max(pages, 1), MaxPages)
	var cursor any
	var items []any
	var last map[string]any
	for i := 0; i < pages; i++ {
		r := p.newRun(ctx, params, f, i+1, map[string]any{"number": start + i, "cursor": cursor})
		r.prevItems = items
		data, err := r.page()
		res.Attempts += r.attempts
		res.Warnings = append(res.Warnings, r.warnings...)
		if i == 0 && r.first != nil {
			res.SourceStatus, res.ResolvedURL = r.first.status, r.first.url
		}
		if err != nil {
			if i == 0 {
				return nil, r.fail(err)
			}
			// A later page failing ends the run with what was gathered; it is not billed.
			res.Warnings = append(res.Warnings, fmt.Sprintf("page %d: %v", start+i, err))
			break
		}
		got, _ := data[p.paginate.items.name].([]any)
		// A page past the end (no items) stops the run; only pages with items, and always the first, bill.
		if i == 0 || len(got) > 0 {
			res.Units++
		}
		if i == 0 {
			res.Data = data
		}
		last = data
		items = append(items, got...)
		if len(got) == 0 {
			break
		}
		// The cursor is only ever the next page's: after the last page there is none to ask for
		// (on youtube's pages next searches hundreds of kilobytes of JSON for a token).
		if p.paginate.next != nil && i+1 < pages {
			cursor, err = vm.Run(p.paginate.next, r.env)
			if err != nil || isEmpty(cursor) {
				break
			}
		}
	}
	if items == nil {
		items = []any{}
	}
	res.Data[p.paginate.items.name] = items
	for _, f := range p.fields {
		if f.lastPage && last != nil {
			if v, ok := last[f.name]; ok {
				res.Data[f.name] = v
			} else {
				delete(res.Data, f.name)
			}
		}
	}
	return res, nil
}

func (p *Plan) newRun(ctx context.Context, params Params, f Fetcher, pageIdx int, page map[string]any) *run {
	r := &run{plan: p, ctx: ctx, fetcher: f, params: params, pageIdx: pageIdx,
		vars: map[string]any{}, src: map[string]any{}, stepsEnv: map[string]any{},
		results: make([]*stepResult, len(p.steps)), xp: xpatheval.NewEvaluator(p.want), finds: funcs.NewFinds(),
		tr: newTracer(ctx)}
	dom := p.domains[p.defDomain]
	if p.domainParam != "" {
		if d, ok := params[p.domainParam].(string); ok {
			dom = p.domains[d]
		}
	}
	if dom == nil {
		dom = map[string]any{}
	}
	r.env = map[string]any{
		"params": map[string]any(params),
		"domain": dom,
		"vars":   r.vars,
		"steps":  r.stepsEnv,
		"src":    r.src,
		"fields": map[string]any{},
		"value":  nil,
		"item":   nil,
		"index":  0,
		"items":  []any{},
		"page":   page,
		"base":   "",
		// Hidden: find and findAll calls pass it (funcs.FindsPatch).
		funcs.FindsVar: r.finds,
		// Hidden: absURL calls pass it (funcs.BasesPatch).
		funcs.BasesVar: funcs.NewBases(),
		// Hidden: the direct evaluator's argument buffer (see frame).
		directVar: newFrame(),
	}
	return r
}

func (r *run) fail(err error) error {
	re := &RunError{Attempts: r.attempts}
	if r.first != nil {
		re.SourceStatus, re.ResolvedURL = r.first.status, r.first.url
	}
	var rr *ruleError
	if errors.As(err, &rr) {
		re.Rule = rr.rule
		err = rr.err
	}
	if e := errcode.As(err); e != nil {
		re.Err = e
	} else if errors.Is(err, context.DeadlineExceeded) {
		re.Err = &errcode.Error{Code: errcode.TargetUnreachable, Message: "the target did not answer in time", Detail: "timeout", Cause: err}
	} else {
		re.Err = &errcode.Error{Code: errcode.InternalError, Message: "internal error", Cause: err}
	}
	return re
}

// saveStep records what a step changes in the run, and returns what puts it back: an optional
// step that fails leaves the run as if it had been skipped, its sources and vars nil.
func (r *run) saveStep() func(*step) {
	first, last, lastDoc, base := r.first, r.last, r.lastDoc, r.env["base"]
	return func(st *step) {
		r.first, r.last, r.lastDoc, r.env["base"] = first, last, lastDoc, base
		r.results[st.index] = nil
		delete(r.stepsEnv, st.id)
		for _, src := range st.sources {
			r.src[src.name] = nil
		}
		for _, v := range st.vars {
			r.vars[v.name] = nil
		}
	}
}

type ruleError struct {
	rule string
	err  *errcode.Error
}

func (e *ruleError) Error() string { return e.rule + ": " + e.err.Error() }

// page runs every step once and extracts the fields.
func (r *run) page() (map[string]any, error) {
	p := r.plan
	for _, st := range p.steps {
		if st.when != nil {
			ok, err := r.machine.Run(st.when, r.env)
			if err != nil {
				return nil, errcode.New(errcode.ExtractionFailed, "step %s: evaluating when: %v", st.id, err)
			}
			if b, _ := ok.(bool); !b {
				continue
			}
		}
		if !st.optional {
			if err := r.step(st); err != nil {
				return nil, err
			}
			continue
		}
		undo := r.saveStep()
		if err := r.step(st); err != nil {
			if r.ctx.Err() != nil {
				return nil, err // the run's deadline is the request's, not the step's
			}
			undo(st)
			r.warnings = append(r.warnings, fmt.Sprintf("step %s (optional) left out: %v", st.id, err))
		}
	}
	if r.last == nil {
		return nil, errcode.New(errcode.ExtractionFailed, "no step ran")
	}
	obj := map[string]any{}
	env := r.childEnv(obj, nil, 0, nil)
	// Only XPath selectors read the context node: in a plan whose only XPath selectors are
	// top-level fallbacks or under a top-level when (lazyTree) the tree is built when one of them
	// runs (xpathBase).
	var ctx xpath.NodeNavigator
	if !p.lazyTree {
		ctx = r.lastDoc.nav()
	}
	m := r.tr.start()
	err := r.fields(p.order, obj, env, ctx, 0, true)
	r.tr.phase("fields", m)
	if err != nil {
		return nil, err
	}
	// A tree built for a field and refused by the parser fails the run as it would have failed
	// the step, had the step built it.
	for _, sr := range r.results {
		if sr != nil && sr.parseErr != nil {
			return nil, &errcode.Error{Code: errcode.ExtractionFailed, Message: fmt.Sprintf("step %s: %v", sr.st.id, sr.parseErr)}
		}
	}
	env["fields"] = obj
	if len(p.outRules) > 0 {
		defer r.tr.phase("output_rules", r.tr.start())
	}
	for _, rl := range p.outRules {
		ok, err := r.machine.Run(rl.when, env)
		if err != nil {
			r.warnings = append(r.warnings, fmt.Sprintf("rule %s: %v", rl.id, err))
			continue
		}
		if b, _ := ok.(bool); b {
			return nil, &ruleError{rule: rl.id, err: r.ruleErr(rl, env)}
		}
	}
	return obj, nil
}

func (r *run) ruleErr(rl *rule, env map[string]any) *errcode.Error {
	e := &errcode.Error{Code: rl.code, Detail: rl.detail}
	if rl.message != nil {
		if m, err := rl.message.eval(&r.machine, env, nil); err == nil {
			e.Message = m
		}
	}
	if e.Message == "" {
		if info, ok := errcode.Lookup(rl.code); ok {
			e.Message = info.Summary
		}
	}
	return e
}

// step fetches one step, retrying while a rule says the response is blocked.
func (r *run) step(st *step) error {
	req, err := r.request(st)
	if err != nil {
		return err
	}
	var lastBlock *errcode.Error
	lastRule := ""
	// The budget counts the fetcher's own attempts too: a 503 the fetcher already retried three
	// times and a rule then calls blocked is not fetched three times more.
	for used := 0; used < r.plan.maxAttempts; {
		if err := r.ctx.Err(); err != nil {
			return &errcode.Error{Code: errcode.TargetUnreachable, Message: "the request deadline passed", Detail: "timeout", Cause: err}
		}
		m := r.tr.start()
		resp, err := r.fetcher.Fetch(r.ctx, req)
		r.tr.phase("fetch", m)
		n := 1
		if resp != nil && resp.Attempts > 0 {
			n = resp.Attempts
		}
		r.attempts += n
		used += n
		if err != nil {
			if e := errcode.As(err); e != nil {
				return e
			}
			detail := "connection"
			if errors.Is(err, context.DeadlineExceeded) {
				detail = "timeout"
			}
			return &errcode.Error{Code: errcode.TargetUnreachable, Message: "the target could not be reached", Detail: detail, Cause: err}
		}
		sr := r.parse(st, resp)
		if r.first == nil || st.index == 0 {
			r.first = sr
		}
		r.results[st.index] = sr
		r.last = sr
		if sr.doc != nil || sr.lazy {
			r.lastDoc = sr
		}
		r.stepsEnv[st.id] = map[string]any{"status": sr.status, "url": sr.url, "body": sr.bodyString()}
		r.env["base"] = sr.url
		m = r.tr.start()
		err = r.decodeSources(st, sr)
		r.tr.phase("sources", m)
		if err != nil {
			return err
		}
		// On a 404 or 410 the step did not expect, only rules written for that status have a say: a
		// rule about the page's content (not a results page, no player, HTML where JSON was asked)
		// matches a not-found page only because that page lacks the content, and the status is the
		// answer.
		gone := targetSaysGone(st, sr.status)
		m = r.tr.start()
		rl, err := r.checkRules(st, sr, gone)
		r.tr.phase("rules", m)
		if err != nil {
			return err
		}
		if rl != nil {
			e := r.ruleErr(rl, r.env)
			if rl.code == errcode.Blocked {
				lastBlock, lastRule = e, rl.id
				continue
			}
			return &ruleError{rule: rl.id, err: e}
		}
		if gone {
			return &errcode.Error{Code: errcode.ProductNotFound, Message: fmt.Sprintf("the target answered %d: it has no such item", sr.status)}
		}
		if !statusOK(st, sr.status) {
			return &errcode.Error{Code: errcode.TargetUnreachable, Message: fmt.Sprintf("the target answered %d", sr.status), Detail: "status"}
		}
		if sr.parseErr != nil {
			return &errcode.Error{Code: errcode.ExtractionFailed, Message: fmt.Sprintf("step %s: %v", st.id, sr.parseErr)}
		}
		for _, src := range st.sources {
			if src.required && r.src[src.name] == nil && !sr.notLooked[src.name] {
				return errcode.New(errcode.ExtractionFailed, "source %s not found in the page", src.name)
			}
		}
		for _, v := range st.vars {
			// Only an XPath reads the tree: a lazy one is not built for an expression.
			var nav xpath.NodeNavigator
			if v.sel.kind == selXPath {
				nav = sr.nav()
			}
			val, err := r.selectOne(v.sel, nav, r.env, kAny)
			if err != nil {
				return errcode.New(errcode.ExtractionFailed, "step %s var %s: %v", st.id, v.name, err)
			}
			r.vars[v.name] = val
		}
		return nil
	}
	msg := "every attempt was blocked"
	if lastBlock != nil && lastBlock.Detail != "" {
		msg += " (" + lastBlock.Detail + ")"
	}
	return &ruleError{rule: lastRule, err: &errcode.Error{Code: errcode.TargetUnreachable, Message: msg, Detail: "blocked"}}
}

// targetSaysGone is true when the target answered 404 or 410 and the step does not expect it: the
// target says the item does not exist, whatever the endpoint (spec 7, product_not_found). A step
// that lists 404 in expect_status reads the page itself (Amazon's not-found page is a 404 with a
// body worth checking) and its rules decide.
func targetSaysGone(st *step, status int) bool {
	return (status == http.StatusNotFound || status == http.StatusGone) && !statusOK(st, status)
}

// namesStatus is true when the matcher, or one of its all/any parts, tests for status: such a rule
// was written for that status and keeps its say.
func (m *matcher) namesStatus(status int) bool {
	if m == nil {
		return false
	}
	if slices.Contains(m.status, status) {
		return true
	}
	for _, sub := range append(slices.Clip(m.all), m.any...) {
		if sub.namesStatus(status) {
			return true
		}
	}
	return false
}

func statusOK(st *step, status int) bool {
	if len(st.expect) > 0 {
		return slices.Contains(st.expect, status)
	}
	return status >= 200 && status < 300
}

func (r *run) request(st *step) (*Request, error) {
	u, err := st.url.evalURL(&r.machine, r.env)
	if err != nil {
		return nil, errcode.New(errcode.ExtractionFailed, "step %s: building the URL: %v", st.id, err)
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return nil, errcode.New(errcode.ExtractionFailed, "step %s: %q is not an http(s) URL", st.id, u)
	}
	if len(st.query) > 0 {
		q := pu.Query()
		for _, kv := range st.query {
			v, err := kv.val.eval(&r.machine, r.env, nil)
			if err != nil {
				return nil, errcode.New(errcode.ExtractionFailed, "step %s: query %s: %v", st.id, kv.key, err)
			}
			if v != "" {
				q.Set(kv.key, v)
			}
		}
		pu.RawQuery = q.Encode()
	}
	req := &Request{Step: st.id, Page: r.pageIdx, Method: st.method, URL: pu.String(), Header: http.Header{}, Timeout: r.plan.timeout,
		Parse: st.parse, Render: st.render, WaitFor: st.waitFor}
	for _, kvs := range [][]kvTemplate{r.plan.siteHeaders, st.headers} {
		for _, kv := range kvs {
			if kv.val == nil {
				continue
			}
			v, err := kv.val.eval(&r.machine, r.env, nil)
			if err != nil {
				return nil, errcode.New(errcode.ExtractionFailed, "step %s: header %s: %v", st.id, kv.key, err)
			}
			if v != "" {
				req.Header.Set(kv.key, v)
			}
		}
	}
	if st.json != nil {
		v, err := renderJSON(&r.machine, st.json, r.env)
		if err != nil {
			return nil, errcode.New(errcode.ExtractionFailed, "step %s: JSON body: %v", st.id, err)
		}
		req.Body, _ = json.Marshal(v)
		req.Header.Set("Content-Type", "application/json")
	} else if st.body != nil {
		b, err := st.body.eval(&r.machine, r.env, nil)
		if err != nil {
			return nil, errcode.New(errcode.ExtractionFailed, "step %s: body: %v", st.id, err)
		}
		req.Body = []byte(b)
	}
	return req, nil
}

func renderJSON(m *vm.VM, v any, env map[string]any) (any, error) {
	switch x := v.(type) {
	case *template:
		return x.value(m, env)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, vv := range x {
			rv, err := renderJSON(m, vv, env)
			if err != nil {
				return nil, err
			}
			out[k] = rv
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, vv := range x {
			rv, err := renderJSON(m, vv, env)
			if err != nil {
				return nil, err
			}
			out[i] = rv
		}
		return out, nil
	}
	return v, nil
}

// parse converts the body to UTF-8 and parses it once, as the step declares.
func (r *run) parse(st *step, resp *Response) *stepResult {
	sr := &stepResult{st: st, status: resp.Status, url: resp.URL, header: resp.Header, tr: r.tr}
	if sr.header == nil {
		sr.header = http.Header{}
	}
	m := r.tr.start()
	body, err := dom.ToUTF8(resp.Body, sr.header.Get("Content-Type"))
	r.tr.phase("decode", m)
	if err != nil {
		body = resp.Body
	}
	sr.body = body
	// An HTML tree reports its own parse time (buildHTML), whether built here or lazily.
	if st.parse == "xml" || st.parse == "json" {
		defer r.tr.phase("parse", r.tr.start())
	}
	switch st.parse {
	case "html":
		if r.plan.lazyTree {
			sr.lazy, sr.xp = true, r.xp
			return sr
		}
		// The XPath index is built from the parser's list of elements rather than a walk.
		if elems := sr.buildHTML(); sr.html != nil {
			r.xp.SetElements(sr.html, elems)
		}
	case "xml":
		n, err := dom.ParseXML(body)
		if err != nil {
			sr.parseErr = fmt.Errorf("the response is not XML: %w", err)
			return sr
		}
		sr.doc = dom.Navigator(n)
	case "json":
		if st.jsonBySource {
			break // decoded by its body source, projected (decodeSources)
		}
		v, err := dom.DecodeJSON(body)
		if err != nil {
			sr.parseErr = fmt.Errorf("the response is not JSON: %w", err)
			return sr
		}
		sr.json, sr.jsonOK = v, true
	}
	return sr
}

func (r *run) decodeSources(st *step, sr *stepResult) error {
	// The page's JSON-LD is decoded once for all its json_ld sources (the article family has
	// eleven, one per schema.org type): sources are read, never changed, so sharing objects is safe.
	// With the step's ldProj, it is decoded projected (ldSet), and whole only where that cannot say.
	var ld []map[string]any
	var ldSet *dom.LDSet
	ldDone, ldWhole := false, false
	// The script-JSON sources' markers are found first, so that one copy of a script's text serves
	// every source in it (walmart's three are in one __NEXT_DATA__ of hundreds of kilobytes).
	// A source with a when is looked for only when it holds, then (unknownStart until then).
	var startsBuf [8]int
	starts := startsBuf[:0]
	for _, src := range st.sources {
		if src.scriptJSON != nil {
			if src.when != nil {
				starts = append(starts, unknownStart)
			} else {
				starts = append(starts, src.scriptJSON.Start(sr.body))
			}
		}
	}
	var shared *dom.ScriptText
	nextStart := 0
	for _, src := range st.sources {
		var v any
		if src.when != nil {
			ok, err := r.machine.Run(src.when, r.env)
			if err != nil {
				return errcode.New(errcode.ExtractionFailed, "source %s: evaluating when: %v", src.name, err)
			}
			if b, _ := ok.(bool); !b {
				if src.scriptJSON != nil {
					nextStart++
				}
				r.src[src.name] = nil
				if sr.notLooked == nil {
					sr.notLooked = map[string]bool{}
				}
				sr.notLooked[src.name] = true
				continue
			}
		}
		switch {
		case src.expr != nil:
			x, err := r.machine.Run(src.expr, r.env)
			if err != nil {
				return errcode.New(errcode.ExtractionFailed, "source %s: %v", src.name, err)
			}
			v = x
		case src.body:
			switch {
			case sr.jsonOK:
				v = sr.json
			case st.jsonBySource:
				// The step's parse, done here: an answer that is not JSON fails the step as the
				// parse would have (after the rules, see step).
				m := r.tr.start()
				x, err := dom.DecodeJSONStringProjected(sr.bodyString(), src.proj)
				r.tr.phase("parse", m)
				if err != nil {
					sr.parseErr = fmt.Errorf("the response is not JSON: %w", err)
				} else {
					v = x
				}
			case dom.MaybeJSON(sr.body):
				// Not an HTML page, which DecodeJSON would scan whole before failing at its '<'.
				if x, err := dom.DecodeJSONStringProjected(sr.bodyString(), src.proj); err == nil {
					v = x
				}
			}
		case src.jsonLD != "":
			if n := sr.html; n != nil {
				if !ldDone && st.ldProj != nil {
					ldSet = dom.JSONLDProjected(n, sr.elems, st.ldProj)
				}
				ldDone = true
				var m map[string]any
				found := false
				if ldSet != nil {
					m, found = ldSet.Find(src.jsonLD)
				}
				if !found {
					if !ldWhole {
						ld, ldWhole = dom.JSONLDElements(n, sr.elems), true
					}
					m = dom.FindJSONLD(ld, src.jsonLD)
				}
				if m != nil {
					v = m
				}
			}
		case src.scriptJSON != nil:
			i := starts[nextStart]
			if i == unknownStart {
				i = src.scriptJSON.Start(sr.body)
				starts[nextStart] = i
			}
			nextStart++
			if i >= 0 {
				if shared == nil {
					// A view of the body, which is never written after parsing (see bodyString):
					// the values' strings are the body's bytes, not a copy of the script's.
					shared = dom.NewScriptTextView(sr.body, starts)
				}
				x, text, ix, err := dom.ScriptJSONShared(sr.body, i, src.scriptJSON.Fast(), shared, r.plan.indexJSON, src.proj)
				if err == nil {
					v = x
					// A projected value is never searched: a find over a part of it makes that
					// part whole, and a part not registered is walked.
					if r.plan.indexJSON && src.proj == nil {
						// Decoded here and never changed (sources are read only): a search may
						// index it.
						r.finds.Add(x, text, ix)
					}
				}
			}
		case src.mainText:
			if sr.html != nil {
				v = mainText(sr.html, sr.url)
			}
		case src.xpathJSON != nil:
			if nav := sr.nav(); nav != nil {
				s := r.xp.Value(src.xpathJSON, nav, false, true)
				if str, ok := s.(string); ok && str != "" {
					if x, err := dom.DecodeJSONStringProjected(str, src.proj); err == nil {
						v = x
					}
				}
			}
		}
		r.src[src.name] = v
	}
	return nil
}

// unknownStart stands for the start of a source's marker not looked for yet (see decodeSources).
const unknownStart = -2

// mainText is the main_text source of a parsed HTML page: the universal extractor's main content,
// or nil when the page has none (or the extractor failed on it, which is the same to a sitedef). The
// extractor reads a copy of doc, which the fields still read.
func mainText(doc *html.Node, pageURL string) any {
	mt, err := universal.ExtractMainTextFrom(doc, pageURL)
	if err != nil || mt.Text == "" {
		return nil
	}
	return map[string]any{
		"text": mt.Text, "word_count": mt.WordCount, "title": nilIfEmpty(mt.Title), "byline": nilIfEmpty(mt.Byline),
		"excerpt": nilIfEmpty(mt.Excerpt), "published": nilIfEmpty(mt.Published), "site_name": nilIfEmpty(mt.SiteName),
		"lang": nilIfEmpty(mt.Lang),
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// checkRules returns the first rule matching a response; with statusOnly, the first of those whose
// matcher tests for the response's status.
func (r *run) checkRules(st *step, sr *stepResult, statusOnly bool) (*rule, error) {
	for _, rl := range r.plan.rules {
		if rl.step >= 0 && rl.step != st.index {
			continue
		}
		if statusOnly && !rl.match.namesStatus(sr.status) {
			continue
		}
		if sr.lazy && !sr.scanDone {
			switch r.settle(rl.match, sr) {
			case verdictNo:
				continue
			case verdictYes:
				return rl, nil
			}
		}
		if r.matches(rl.match, sr) {
			return rl, nil
		}
	}
	return nil, nil
}

// matches reports whether every part of m holds for sr. The parts are pure, so their order only
// decides the work: the body searches, which read the whole body on the pages they do not match
// (most pages, a few hundred microseconds a megabyte each), and an expr that may read a body
// (steps.page.body contains "..."), come after the checks that can settle the rule without them
// (compileMatch orders all and any the same way).
func (r *run) matches(m *matcher, sr *stepResult) bool {
	return r.verdict(m, sr, true) == verdictYes
}

// verdict is what m says of sr (see matches). Without tree, an XPath part is not evaluated, as
// the tree or the scan of a lazily built tree would be needed (settle): it only says no when none
// of its literals is in the body, else the verdict is unknown unless another part says no.
func (r *run) verdict(m *matcher, sr *stepResult, tree bool) verdict {
	if m == nil {
		return verdictNo
	}
	if len(m.status) > 0 && !slices.Contains(m.status, sr.status) ||
		m.headerRe != nil && !m.headerRe.MatchString(sr.header.Get(m.headerName)) ||
		m.finalURL != nil && !m.finalURL.MatchString(sr.url) {
		return verdictNo
	}
	out := verdictYes
	if m.xpath != nil {
		switch v := r.xpathVerdict(m, sr, tree); v {
		case verdictNo:
			return verdictNo
		case verdictUnknown:
			out = verdictUnknown
		}
	}
	if m.expr != nil && !m.exprBody && !r.matchExpr(m) {
		return verdictNo
	}
	if m.not != nil {
		switch r.verdict(m.not, sr, tree) {
		case verdictYes:
			return verdictNo
		case verdictUnknown:
			out = verdictUnknown
		}
	}
	for _, a := range m.all {
		switch r.verdict(a, sr, tree) {
		case verdictNo:
			return verdictNo
		case verdictUnknown:
			out = verdictUnknown
		}
	}
	if len(m.any) > 0 {
		v := verdictNo
	anyLoop:
		for _, a := range m.any {
			switch r.verdict(a, sr, tree) {
			case verdictYes:
				v = verdictYes
				break anyLoop
			case verdictUnknown:
				v = verdictUnknown
			}
		}
		switch v {
		case verdictNo:
			return verdictNo
		case verdictUnknown:
			out = verdictUnknown
		}
	}
	if m.expr != nil && m.exprBody && !r.matchExpr(m) ||
		m.bodyContains != "" && !sr.bodyHas(m) ||
		m.bodyRe != nil && !sr.bodyMatches(m) {
		return verdictNo
	}
	return out
}

// xpathVerdict is what m's XPath says of sr: whether it selects a node (not false, not empty),
// from the scan where it answers (scanXPath); without tree, no only where none of its literals is
// in the body, else unknown.
func (r *run) xpathVerdict(m *matcher, sr *stepResult, tree bool) verdict {
	if !tree {
		if m.scan && sr.literalsAbsent(m) {
			return verdictNo
		}
		return verdictUnknown
	}
	v := scanUnknown
	if m.scan && sr.lazy {
		v = r.scanXPath(m, sr)
	}
	switch v {
	case scanAbsent:
		return verdictNo
	case scanPresent:
		return verdictYes
	}
	nav := sr.nav()
	if nav == nil {
		return verdictNo
	}
	if x := r.xp.Value(m.xpath, nav, false, false); isEmpty(x) || x == false {
		return verdictNo
	}
	return verdictYes
}

// matchExpr reports whether m's expr holds.
func (r *run) matchExpr(m *matcher) bool {
	v, err := r.machine.Run(m.expr, r.env)
	b, _ := v.(bool)
	return err == nil && b
}

// searchesBody reports whether checking m may search the response body.
func (m *matcher) searchesBody() bool {
	if m == nil {
		return false
	}
	if m.bodyContains != "" || m.bodyRe != nil || m.exprBody || m.not.searchesBody() {
		return true
	}
	return slices.ContainsFunc(m.all, (*matcher).searchesBody) || slices.ContainsFunc(m.any, (*matcher).searchesBody)
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		// most values start with a visible ASCII byte, and are not empty without a trim
		if x != "" && x[0] > ' ' && x[0] < utf8.RuneSelf {
			return false
		}
		return strings.TrimSpace(x) == ""
	case []any:
		return len(x) == 0
	case []string:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}
