package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fetch"
	"asa/engine/fixture"
	"asa/engine/universal"
	"asa/fixtures"
)

// UniversalExtractorVersion is the Asa-Extractor-Version of the universal endpoint.
const UniversalExtractorVersion = "universal@" + universal.Version

// maxUniversalURL bounds the url parameter.
const maxUniversalURL = 8192

// universalParams are the parameters of GET /api/v1/universal/get besides api_key and the reserved ones.
var universalParams = []string{"url", "parse", "country", ParamExtractRules}

// universalRequest is a validated universal request.
type universalRequest struct {
	URL     string
	Mode    universal.Mode
	Country string
	// SandboxCase names the fixture case that answers a sandbox key ("": the one matching URL).
	SandboxCase string
	// Rules are the request's extract_rules, compiled (nil: none).
	Rules *engine.RuleSet
	// Browser are the browser parameters (render_js, screenshot, ...); PNG is parse=screenshot:
	// the answer is the screenshot itself.
	Browser browserOpts
	PNG     bool
}

// universalOutcome is a universal request's answer: the JSON body and what the fetch reported.
type universalOutcome struct {
	Body         []byte
	Attempts     int
	SourceStatus int
	ResolvedURL  string
	// Case is the sandbox case that answered, for Asa-Sandbox-Case.
	Case string
	// AddOn is the add-on credits of the browser; Screenshot the PNG taken.
	AddOn      int
	Screenshot []byte
}

// urlChecker is the parse-time URL guard of the live fetcher (fetch.Client.CheckURL).
type urlChecker interface {
	CheckURL(raw string) (string, error)
}

// countryLister is implemented by fetchers with egress countries (fetch.Client).
type countryLister interface {
	Countries() []string
}

// universalHandler serves GET /api/v1/universal/get (spec 4.4): any public URL as auto-extracted
// JSON, HTML, text or Markdown, 5 credits on success.
func (s *Server) universalHandler(c echo.Context) error {
	const id = universal.Endpoint
	start := s.now()
	status, code, cost := http.StatusOK, "", 0
	var p Principal
	authed := false
	var runStart time.Time
	defer func() {
		s.metrics.observe(id, strconv.Itoa(status), s.now().Sub(start))
		s.logRequestLine(c, p, id, status, code, status >= 400 && runStart.IsZero(), "cost", cost,
			"duration_ms", s.now().Sub(start).Milliseconds())
	}()
	fail := func(e *errcode.Error) error {
		status, code = failureStatus(e)
		if authed {
			s.logRequest(c, p, id, status, code, 0, start)
		}
		return s.writeError(c, e)
	}
	c.Response().Header().Set(HeaderExtractorVersion, UniversalExtractorVersion)
	c.Response().Header().Set(HeaderCost, "0")

	p, aerr := s.authenticate(c)
	if aerr != nil {
		return fail(aerr)
	}
	authed = true
	release, lerr := s.admit(c, p)
	if lerr != nil {
		return fail(lerr)
	}
	defer release()

	q, qerr := endpointQuery(c)
	if qerr != nil {
		return fail(qerr)
	}
	browser, berr := s.takeBrowserParams(q)
	if berr != nil {
		return fail(berr)
	}
	png, perr := s.takeScreenshotMode(q, p.Test)
	if perr != nil {
		return fail(perr)
	}
	if png {
		browser.Screenshot = true
	}
	caseName, serr := takeSandboxCase(q, p.Test)
	if serr != nil {
		return fail(serr)
	}
	cr, merr := takeMaxAge(q)
	if merr != nil {
		return fail(merr)
	}
	req, perr := s.checkUniversal(q)
	if perr != nil {
		return fail(perr)
	}
	req.SandboxCase, req.Browser, req.PNG = caseName, browser, png
	if browser.Screenshot || png {
		// A screenshot is of its moment and is not stored: max_age does not apply.
		cr.on = false
	}
	if cr.on {
		var err error
		if cr.key, err = cacheKey(id, UniversalExtractorVersion, p.Test, caseName, req.cacheParams()); err != nil {
			return fail(&errcode.Error{Code: errcode.InternalError, Cause: err})
		}
		hit, herr := s.cacheLookup(c, p, id, cr, start, &cost)
		if herr != nil {
			return fail(herr)
		}
		if hit != nil {
			return c.JSONBlob(http.StatusOK, hit)
		}
	}
	if cerr := s.checkCredits(c.Request().Context(), p); cerr != nil {
		return fail(cerr)
	}
	ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.RequestTimeout)
	defer cancel()
	runStart = s.now()
	out, rerr := s.runUniversal(ctx, req, p.Test)
	runTime := s.now().Sub(runStart)
	if s.deps.Timing != nil {
		defer func() { s.deps.Timing(id, s.now().Sub(start), runTime) }()
	}
	setFetchHeaders(c, out.Attempts, out.SourceStatus, out.ResolvedURL)
	if out.Case != "" {
		c.Response().Header().Set(HeaderSandboxCase, out.Case)
	}
	if rerr != nil {
		if rerr.Code == errcode.InternalError {
			s.log.ErrorContext(ctx, "universal failed", "request_id", requestID(c), "err", rerr.Cause)
		}
		return fail(rerr)
	}
	if !p.Test {
		cost = CostPerRequest + out.AddOn
		if cerr := s.chargeSuccess(ctx, c, p, id, cost, out.AddOn, start); cerr != nil {
			cost = 0
			return fail(cerr)
		}
	} else {
		s.logRequest(c, p, id, http.StatusOK, "", 0, start)
	}
	if cr.on {
		s.cacheStore(c, p, id, cr, runStart, cacheMeta{Version: UniversalExtractorVersion, SourceStatus: out.SourceStatus, ResolvedURL: out.ResolvedURL, Case: out.Case}, out.Body)
	}
	c.Response().Header().Set(HeaderCost, strconv.Itoa(cost))
	if req.PNG {
		return c.Blob(http.StatusOK, "image/png", out.Screenshot)
	}
	return c.JSONBlob(http.StatusOK, withScreenshot(out.Body, out.Screenshot))
}

// takeScreenshotMode takes parse=screenshot out of q (the answer is the PNG itself): it needs the
// browser (501 naming parse without one) and a live key (the sandbox renders nothing).
func (s *Server) takeScreenshotMode(q url.Values, test bool) (bool, *errcode.Error) {
	if len(q["parse"]) != 1 || strings.ToLower(strings.TrimSpace(q.Get("parse"))) != "screenshot" {
		return false, nil
	}
	if s.deps.Renderer == nil {
		return false, &errcode.Error{Code: errcode.NotImplemented, Params: []string{"parse"},
			Message: "parse=screenshot needs a browser, and this server has none (the operator starts asa serve with --browser)"}
	}
	if test {
		return false, &errcode.Error{Code: errcode.InvalidParams, Params: []string{"parse"},
			Message: "parse=screenshot takes a live key: the sandbox answers from saved pages and renders nothing"}
	}
	q.Set("parse", string(universal.HTML))
	return true, nil
}

// cacheParams are the parameters that decide a universal answer, for the cache key: the URL as
// checked, the mode, the country, the hash of the rules, and whether the page was rendered (and
// what it waited for).
func (r universalRequest) cacheParams() any {
	rules := ""
	if r.Rules != nil {
		rules = r.Rules.Hash
	}
	return [6]string{r.URL, string(r.Mode), r.Country, rules, strconv.FormatBool(r.Browser.RenderJS), r.Browser.WaitFor}
}

// checkUniversal validates the parameters of a universal request (api_key and the reserved ones
// removed): url a full http(s) URL that passes the fetcher's parse-time guard, parse a mode,
// country one of the fetcher's egress countries (design decision 13). Errors are invalid_params
// naming the parameter. Batches call it to check items before accepting them.
func (s *Server) checkUniversal(q url.Values) (universalRequest, *errcode.Error) {
	bad := func(param, format string, args ...any) *errcode.Error {
		return &errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf(format, args...), Params: []string{param}}
	}
	var unknown []string
	for k, v := range q {
		if !contains(universalParams, k) {
			unknown = append(unknown, k)
		} else if len(v) > 1 {
			return universalRequest{}, bad(k, "%s given more than once", k)
		}
	}
	if len(unknown) > 0 {
		shown, text := errcode.Listed(unknown)
		return universalRequest{}, &errcode.Error{Code: errcode.InvalidParams, Params: shown,
			Message: fmt.Sprintf("unknown parameter %s: universal/get takes url, parse, country, extract_rules and max_age", text)}
	}
	var req universalRequest
	raw := strings.TrimSpace(q.Get("url"))
	switch {
	case raw == "":
		return req, bad("url", "url is required: the full http(s) URL of the page, URL-encoded")
	case len(raw) > maxUniversalURL:
		return req, bad("url", "url is longer than %d bytes", maxUniversalURL)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return req, bad("url", "url must be a full http(s) URL such as https://example.com/page, URL-encoded when it contains &, ? or spaces")
	}
	if sch := strings.ToLower(u.Scheme); sch != "http" && sch != "https" {
		return req, bad("url", "url must use http or https, not %s", u.Scheme)
	}
	if u.User != nil {
		return req, bad("url", "url must not carry credentials (user:password@)")
	}
	req.URL = u.String()
	if ck, ok := s.deps.Live.(urlChecker); ok {
		canon, err := ck.CheckURL(req.URL)
		if err != nil {
			if e := errcode.As(err); e != nil {
				return req, e
			}
			return req, bad("url", "url: %v", err)
		}
		req.URL = canon
	}
	mode, err := universal.ParseMode(q.Get("parse"))
	if err != nil {
		return req, errcode.As(err)
	}
	req.Mode = mode
	if cc := strings.ToLower(strings.TrimSpace(q.Get("country"))); cc != "" {
		var countries []string
		if cl, ok := s.deps.Live.(countryLister); ok {
			countries = cl.Countries()
		}
		if !contains(countries, cc) {
			if len(countries) == 0 {
				return req, bad("country", "country %q is not available: no egress countries are configured", cc)
			}
			return req, bad("country", "country %q is not available; available: %s", cc, strings.Join(countries, ", "))
		}
		req.Country = cc
	}
	if raw, ok := q[ParamExtractRules]; ok {
		rs, e := s.rules.get(raw[0])
		if e != nil {
			return req, e
		}
		req.Rules = rs
	}
	return req, nil
}

// runUniversal fetches req's page (the live fetcher, or for a sandbox key the universal fixtures)
// and extracts it. The outcome carries the fetch's attempts, status and final URL even on error.
func (s *Server) runUniversal(ctx context.Context, req universalRequest, test bool) (universalOutcome, *errcode.Error) {
	var out universalOutcome
	fetcher := s.deps.Live
	target := req.URL
	if test {
		sb, err := universalSandbox()
		if err != nil {
			return out, &errcode.Error{Code: errcode.InternalError, Cause: err}
		}
		uc, e := sb.resolve(req.URL, req.SandboxCase)
		if e != nil {
			return out, e
		}
		fetcher, target, out.Case = uc.replay, uc.url, uc.name
		req.URL = uc.url // the answer is the fixture's, as for sitedef endpoints
	} else {
		if req.SandboxCase != "" {
			return out, sandboxCaseForLiveKey()
		}
		ctx = fetch.WithUserURL(ctx)
		if req.Country != "" {
			ctx = fetch.WithCountry(ctx, req.Country)
		}
	}
	if fetcher == nil {
		return out, errcode.New(errcode.TargetUnreachable, "no fetcher is configured for live keys")
	}
	var rf *renderingFetcher
	if !test && s.deps.Renderer != nil && req.Browser.any() {
		rf = &renderingFetcher{live: fetcher, renderer: s.deps.Renderer, opts: req.Browser}
		fetcher = rf
	}
	resp, err := fetcher.Fetch(ctx, &engine.Request{Step: "page", Page: 1, Method: http.MethodGet, URL: target, Parse: "html"})
	if resp != nil {
		out.Attempts = resp.Attempts
	}
	if err != nil {
		if e := errcode.As(err); e != nil {
			return out, e
		}
		detail := "connection"
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			detail = "timeout"
		}
		return out, &errcode.Error{Code: errcode.TargetUnreachable, Message: "the target could not be fetched", Detail: detail, Cause: err}
	}
	out.SourceStatus, out.ResolvedURL = resp.Status, resp.URL
	if out.ResolvedURL == "" {
		out.ResolvedURL = target
	}
	if out.Attempts == 0 {
		out.Attempts = 1
	}
	// parse=html returns any page with its status; the extracting modes need a page that is one.
	if req.Mode != universal.HTML && (resp.Status == http.StatusNotFound || resp.Status == http.StatusGone) {
		// As on every endpoint: the target says there is no such page.
		return out, errcode.New(errcode.ProductNotFound, "the target answered HTTP %d: there is no such page (parse=html returns any page with its status)", resp.Status)
	}
	if req.Mode != universal.HTML && (resp.Status >= 400 || resp.Status < 200) {
		return out, &errcode.Error{Code: errcode.TargetUnreachable, Detail: "status",
			Message: fmt.Sprintf("the target answered HTTP %d (parse=html returns any page with its status)", resp.Status)}
	}
	res, err := universal.Extract(resp.Body, headerValue(resp.Header, "Content-Type"), out.ResolvedURL, req.Mode)
	if err != nil {
		e := errcode.As(err)
		if e == nil {
			e = &errcode.Error{Code: errcode.InternalError, Cause: err}
		}
		if e.Code == errcode.ExtractionFailed {
			s.metrics.extractionFailed(universal.Endpoint)
		}
		return out, e
	}
	res.URL, res.Status = req.URL, resp.Status
	if req.Rules != nil {
		page := *resp
		page.URL = out.ResolvedURL
		ext, err := req.Rules.Run(ctx, &page)
		if err != nil {
			e := asErrcode(err)
			if e.Code == errcode.ExtractionFailed {
				s.metrics.extractionFailed(universal.Endpoint)
			}
			return out, e
		}
		res.Extracted = ext
	}
	body, err := res.MarshalJSON()
	if err != nil {
		return out, &errcode.Error{Code: errcode.InternalError, Cause: err}
	}
	out.Body = body
	out.AddOn, out.Screenshot = rf.addOns()
	return out, nil
}

func headerValue(h http.Header, k string) string {
	if h == nil {
		return ""
	}
	return h.Get(k)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// uSandbox answers sandbox keys on the universal endpoint from the fixture cases under
// fixtures/universal/get/ (embedded in the binary): the case whose url parameter is the requested
// URL, else the first case by name. Never the network.
type uSandbox struct {
	cases []uCase
}

type uCase struct {
	name, url string
	replay    *fixture.Replay
}

var (
	uSandboxOnce sync.Once
	uSandboxVal  *uSandbox
	uSandboxErr  error
)

// universalSandbox loads the universal fixture cases once.
func universalSandbox() (*uSandbox, error) {
	uSandboxOnce.Do(func() {
		cases, err := fixture.LoadCasesFS(fixtures.FS)
		if err != nil {
			uSandboxErr = fmt.Errorf("loading universal sandbox fixtures: %w", err)
			return
		}
		sb := &uSandbox{}
		for _, c := range cases {
			if c.Endpoint != universal.Endpoint || c.Expect.Output == "" {
				continue
			}
			u, _ := c.Params["url"].(string)
			rp, err := c.Replay()
			if err != nil || u == "" {
				uSandboxErr = fmt.Errorf("universal sandbox case %s: url param and a page response are required (%v)", c.ID(), err)
				return
			}
			sb.cases = append(sb.cases, uCase{name: c.Name, url: u, replay: rp})
		}
		uSandboxVal = sb
	})
	return uSandboxVal, uSandboxErr
}

// resolve returns the case named caseName, else the one whose url is rawURL, else the first by name.
func (sb *uSandbox) resolve(rawURL, caseName string) (uCase, *errcode.Error) {
	if len(sb.cases) == 0 {
		return uCase{}, errcode.New(errcode.TargetUnreachable, "the sandbox has no page for universal.get")
	}
	if caseName != "" {
		names := make([]string, len(sb.cases))
		for i, c := range sb.cases {
			if c.name == caseName {
				return c, nil
			}
			names[i] = c.name
		}
		return uCase{}, &errcode.Error{Code: errcode.InvalidParams, Params: []string{fixture.CaseParam},
			Message: fmt.Sprintf("%s: no sandbox case %q for universal.get; the cases are %s", fixture.CaseParam, caseName, strings.Join(names, ", "))}
	}
	for _, c := range sb.cases {
		if c.url == rawURL {
			return c, nil
		}
	}
	return sb.cases[0], nil
}
