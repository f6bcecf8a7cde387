package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"asa/api/apikey"
	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fixture"
)

// ReservedParams are not active in batches: passing one in a batch item gives 501 not_implemented
// (synchronous requests take them when the server has a browser: render.go).
var ReservedParams = []string{"render_js", "screenshot"}

// authenticate finds the key in the api_key parameter, the X-API-Key header or an
// Authorization: Bearer header (design Decision 3). Where it is given more than once, every copy
// must be the same key.
func (s *Server) authenticate(c echo.Context) (Principal, *errcode.Error) {
	raw, kerr := keyOf(c.QueryParams()["api_key"], c.Request().Header)
	if kerr != nil {
		return Principal{}, kerr
	}
	if raw == "" {
		return Principal{}, errcode.New(errcode.Unauthorized, "missing API key: pass api_key=..., the X-API-Key header or Authorization: Bearer <key>")
	}
	key, err := apikey.Parse(raw)
	if err != nil {
		return Principal{}, errcode.New(errcode.Unauthorized, "malformed API key")
	}
	p, err := s.deps.Auth.Authenticate(c.Request().Context(), key)
	switch {
	case errors.Is(err, ErrRevokedKey):
		return Principal{}, errcode.New(errcode.Revoked, "this API key was revoked")
	case errors.Is(err, ErrUnknownKey):
		return Principal{}, errcode.New(errcode.Unauthorized, "unknown API key")
	case err != nil:
		return Principal{}, storeError(err)
	}
	return p, nil
}

// admit applies the key's limits; the returned release must run on every exit path.
func (s *Server) admit(c echo.Context, p Principal) (func(), *errcode.Error) {
	d, err := s.limits.Acquire(c.Request().Context(), p.KeyID, p.Limits)
	if err != nil {
		// Fail closed (RedisLimiter's --redis-fail closed): the limits cannot be checked, so the
		// request is not served; nothing was charged.
		return nil, &errcode.Error{Code: errcode.ServiceUnavailable, Message: "the service cannot check this key's rate limits right now; nothing was charged", Cause: err}
	}
	if d.OK && s.deps.OnAdmit != nil {
		s.deps.OnAdmit(p.KeyID, d.At)
	}
	h := c.Response().Header()
	setRateLimitHeaders(h, p.Limits, d)
	if !d.OK {
		h.Set("Retry-After", strconv.Itoa(retryAfterSeconds(d.RetryAfter)))
		msg := fmt.Sprintf("rate limit: at most %s requests per second and %d per %v for this key", formatRPS(p.Limits.RPS), WindowCeiling(p.Limits), BurstWindow)
		if d.Reason == limitConcurrency {
			msg = fmt.Sprintf("concurrency limit: at most %d requests in flight for this key", p.Limits.Concurrency)
		}
		return nil, errcode.New(errcode.RateLimited, "%s", msg)
	}
	h.Set(HeaderConcurrency, fmt.Sprintf("%d/%d", d.InFlight, p.Limits.Concurrency))
	h.Set(HeaderRPS, fmt.Sprintf("%d/%s", d.Recent, formatRPS(p.Limits.RPS)))
	s.metrics.inFlight.Add(1)
	return func() {
		s.limits.Release(p.KeyID, d.Lease)
		s.metrics.inFlight.Add(-1)
	}, nil
}

// scrapeHandler serves GET /api/v1/{site}/{resource} for one plan.
func (s *Server) scrapeHandler(plan *engine.Plan) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := s.now()
		status, code, cost := http.StatusOK, "", 0
		var p Principal
		authed := false
		// Where the time went: before the run (auth, limits, credit check), the run (fetch and
		// extraction), and after it (charge, response) is what is left of duration_ms.
		var runStart time.Time
		var runTime time.Duration
		var fetching timedFetcher
		defer func() {
			total := s.now().Sub(start)
			s.metrics.observe(plan.ID, strconv.Itoa(status), total)
			pre := total
			if !runStart.IsZero() {
				pre = runStart.Sub(start)
			}
			s.logRequestLine(c, p, plan.ID, status, code, status >= 400 && runStart.IsZero(), "cost", cost,
				"duration_ms", total.Milliseconds(), "pre_run_ms", pre.Milliseconds(), "run_ms", runTime.Milliseconds(),
				"fetch_ms", fetching.spent.Milliseconds())
		}()
		fail := func(e *errcode.Error) error {
			status, code = failureStatus(e)
			if authed {
				s.logRequest(c, p, plan.ID, status, code, 0, start)
			}
			return s.writeError(c, e)
		}
		c.Response().Header().Set(HeaderExtractorVersion, plan.Version)
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
		caseName, cerr := takeSandboxCase(q, p.Test)
		if cerr != nil {
			return fail(cerr)
		}
		cr, merr := takeMaxAge(q)
		if merr != nil {
			return fail(merr)
		}
		params, err := plan.Params(q)
		if err != nil {
			return fail(errcode.As(err))
		}
		if browser.Screenshot {
			// A screenshot is of its moment and is not stored: max_age does not apply.
			cr.on = false
		}
		if cr.on {
			if cr.key, err = cacheKey(plan.ID, plan.Version, p.Test, caseName, endpointCacheParams{params, browser.RenderJS, browser.WaitFor}); err != nil {
				return fail(&errcode.Error{Code: errcode.InternalError, Cause: err})
			}
			hit, herr := s.cacheLookup(c, p, plan.ID, cr, start, &cost)
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
		params, fetcher, sbCase, ferr := s.fetcherFor(plan, params, p.Test, caseName)
		if ferr != nil {
			return fail(ferr)
		}
		if sbCase != "" {
			c.Response().Header().Set(HeaderSandboxCase, sbCase)
		}
		var rf *renderingFetcher
		if !p.Test && s.deps.Renderer != nil {
			// the sandbox replays fixture pages as they are: nothing to render
			rf = &renderingFetcher{live: fetcher, renderer: s.deps.Renderer, opts: browser}
			fetcher = rf
		}
		ctx, cancel := context.WithTimeout(c.Request().Context(), s.cfg.RequestTimeout)
		defer cancel()
		runStart = s.now()
		fetching = timedFetcher{f: fetcher, now: s.now}
		res, err := plan.Run(ctx, params, &fetching)
		runTime = s.now().Sub(runStart)
		if s.deps.Timing != nil {
			defer func() { s.deps.Timing(plan.ID, s.now().Sub(start), runTime) }()
		}
		if err != nil {
			var re *engine.RunError
			if errors.As(err, &re) {
				if !p.Test {
					s.health.failure(plan, clientCode(re.Err.Code))
				}
				setFetchHeaders(c, re.Attempts, re.SourceStatus, re.ResolvedURL)
				if re.Err.Code == errcode.ExtractionFailed {
					s.metrics.extractionFailed(plan.ID)
				}
				if re.Err.Code == errcode.InternalError {
					s.log.ErrorContext(ctx, "run failed", "request_id", requestID(c), "endpoint", plan.ID, "err", re.Err.Cause)
				}
				return fail(re.Err)
			}
			if !p.Test {
				s.health.failure(plan, errcode.InternalError)
			}
			return fail(&errcode.Error{Code: errcode.InternalError, Cause: err})
		}
		if !p.Test {
			// Extractor health counts live runs only: sandbox answers are our own fixture pages.
			s.health.success(plan, res.Data)
		}
		s.logWarnings(ctx, plan.ID, res.Warnings, "request_id", requestID(c))
		setFetchHeaders(c, res.Attempts, res.SourceStatus, res.ResolvedURL)
		body, err := res.MarshalJSON()
		if err != nil {
			return fail(&errcode.Error{Code: errcode.InternalError, Cause: err})
		}
		addOn, shot := rf.addOns()
		body = withScreenshot(body, shot)
		if !p.Test {
			cost = CostPerRequest*max(res.Units, 1) + addOn
			if cerr := s.chargeSuccess(ctx, c, p, plan.ID, cost, addOn, start); cerr != nil {
				cost = 0
				return fail(cerr)
			}
		} else {
			s.logRequest(c, p, plan.ID, http.StatusOK, "", 0, start)
		}
		if cr.on {
			s.cacheStore(c, p, plan.ID, cr, runStart, cacheMeta{Version: plan.Version, SourceStatus: res.SourceStatus, ResolvedURL: res.ResolvedURL, Case: sbCase}, body)
		}
		c.Response().Header().Set(HeaderCost, strconv.Itoa(cost))
		return c.JSONBlob(http.StatusOK, body)
	}
}

// logWarnings tells the operator what a successful run left out (an optional value that could not be
// read, an optional step that failed): the client gets the answer, the sitedef's author the reason.
// who names the run (its request id, or its batch and item).
func (s *Server) logWarnings(ctx context.Context, endpoint string, warnings []string, who ...any) {
	if len(warnings) > 0 {
		s.log.InfoContext(ctx, "run warnings", append(who, "endpoint", endpoint, "warnings", warnings)...)
	}
}

// checkCredits refuses a live request when the workspace's allowance cannot pay for one more: a
// pre-check that saves the fetch; the charge itself checks again inside its transaction.
func (s *Server) checkCredits(ctx context.Context, p Principal) *errcode.Error {
	if p.Test {
		return nil
	}
	used := p.CreditsUsed
	if !p.UsageKnown {
		var err error
		if used, err = s.deps.Ledger.CreditsUsed(ctx, p.WorkspaceID); err != nil {
			return storeError(err)
		}
	}
	if p.MonthlyCredits-used < CostPerRequest {
		return errCreditsSpent()
	}
	return nil
}

// errCreditsSpent is the refusal of a workspace whose monthly allowance cannot pay for a request.
func errCreditsSpent() *errcode.Error {
	return errcode.New(errcode.InsufficientCredits, "the workspace's monthly credit allowance is spent")
}

// chargeSuccess bills a live key's answered request: the charge and its request-log line go in one
// transaction, which checks the allowance again (checkCredits is only a pre-check that saves the
// fetch), so a request that lost the last credits to another is refused here.
func (s *Server) chargeSuccess(ctx context.Context, c echo.Context, p Principal, endpoint string, credits, addOn int, start time.Time) *errcode.Error {
	ch := Charge{ID: requestID(c), WorkspaceID: p.WorkspaceID, KeyID: p.KeyID, Endpoint: endpoint, Credits: credits}
	lg := s.requestLog(c, p, endpoint, http.StatusOK, "", credits, start)
	lg.AddOnCredits = addOn
	if err := s.deps.Ledger.Charge(context.WithoutCancel(ctx), ch, lg); err != nil {
		if errors.Is(err, ErrInsufficientCredits) {
			return errCreditsSpent()
		}
		return storeError(err)
	}
	s.metrics.credits.Add(uint64(credits))
	return nil
}

// failureStatus is the status and code a failed request is counted and logged under: what the
// client is sent (writeError answers blocked as target_unreachable).
func failureStatus(e *errcode.Error) (int, string) {
	if e.Code == errcode.Blocked {
		return http.StatusBadGateway, string(errcode.TargetUnreachable)
	}
	return e.Code.Status(), string(e.Code)
}

// endpointQuery returns the request's parameters without api_key (the browser parameters are taken
// out by takeBrowserParams).
func endpointQuery(c echo.Context) (url.Values, *errcode.Error) {
	q := url.Values{}
	for k, v := range c.QueryParams() {
		if k != "api_key" {
			q[k] = v
		}
	}
	return q, nil
}

// HeaderSandboxCase names the fixture case that answered a sandbox request (design Decision 16).
const HeaderSandboxCase = "Asa-Sandbox-Case"

// takeSandboxCase removes sandbox_case from q and returns it: a case name is for sandbox keys only,
// given once and not empty.
func takeSandboxCase(q url.Values, test bool) (string, *errcode.Error) {
	vals, ok := q[fixture.CaseParam]
	if !ok {
		return "", nil
	}
	delete(q, fixture.CaseParam)
	bad := func(format string, args ...any) *errcode.Error {
		e := errcode.New(errcode.InvalidParams, format, args...)
		e.Params = []string{fixture.CaseParam}
		return e
	}
	switch {
	case !test:
		return "", sandboxCaseForLiveKey()
	case len(vals) != 1:
		return "", bad("%s: given %d times; give it once", fixture.CaseParam, len(vals))
	case vals[0] == "":
		return "", bad("%s: empty; name a case of the endpoint (docs/endpoints.md lists them)", fixture.CaseParam)
	}
	return vals[0], nil
}

// sandboxCaseForLiveKey is the 400 of a live key naming a sandbox case.
func sandboxCaseForLiveKey() *errcode.Error {
	return &errcode.Error{Code: errcode.InvalidParams, Params: []string{fixture.CaseParam},
		Message: fixture.CaseParam + " picks a fixture case of the sandbox: it is for sandbox keys (asa_test_) only"}
}

// fetcherFor picks what answers a run: the live fetcher, or for a sandbox key the fixture case the
// sandbox chooses (or the one caseName names), with the parameters to run it with and its name.
func (s *Server) fetcherFor(plan *engine.Plan, params engine.Params, test bool, caseName string) (engine.Params, engine.Fetcher, string, *errcode.Error) {
	if test {
		if s.deps.Sandbox == nil {
			return nil, nil, "", errcode.New(errcode.TargetUnreachable, "the sandbox is not configured on this server")
		}
		res, err := s.deps.Sandbox.Resolve(plan, params, caseName)
		if err != nil {
			if e := errcode.As(err); e != nil {
				return nil, nil, "", e
			}
			return nil, nil, "", errcode.New(errcode.TargetUnreachable, "the sandbox has no page for %s", plan.ID)
		}
		return res.Params, res.Fetcher, res.Case, nil
	}
	if caseName != "" {
		return nil, nil, "", sandboxCaseForLiveKey()
	}
	if s.deps.Live == nil {
		return nil, nil, "", errcode.New(errcode.TargetUnreachable, "no fetcher is configured for live keys")
	}
	return params, s.deps.Live, "", nil
}

// timedFetcher adds up the time a run spends waiting for its fetches, for the request log: the
// rest of the run is extraction.
type timedFetcher struct {
	f     engine.Fetcher
	now   func() time.Time
	spent time.Duration
}

func (t *timedFetcher) Fetch(ctx context.Context, req *engine.Request) (*engine.Response, error) {
	start := t.now()
	defer func() { t.spent += t.now().Sub(start) }()
	return t.f.Fetch(ctx, req)
}

func isReserved(k string) bool {
	for _, r := range ReservedParams {
		if k == r {
			return true
		}
	}
	return false
}

func setFetchHeaders(c echo.Context, attempts, status int, resolved string) {
	h := c.Response().Header()
	h.Set(HeaderAttempts, strconv.Itoa(attempts))
	if status > 0 {
		h.Set(HeaderSourceStatus, strconv.Itoa(status))
	}
	if resolved != "" {
		h.Set(HeaderResolvedURL, resolved)
	}
}

func (s *Server) requestLog(c echo.Context, p Principal, endpoint string, status int, code string, cost int, start time.Time) RequestLog {
	return RequestLog{RequestID: requestID(c), WorkspaceID: p.WorkspaceID, KeyID: p.KeyID, Endpoint: endpoint,
		Status: status, ErrorCode: code, Cost: cost, Duration: s.now().Sub(start), At: start}
}

// logRequest records an unbilled request; a failure to log never fails the request.
func (s *Server) logRequest(c echo.Context, p Principal, endpoint string, status int, code string, cost int, start time.Time) {
	lg := s.requestLog(c, p, endpoint, status, code, cost, start)
	if err := s.deps.Ledger.Log(context.WithoutCancel(c.Request().Context()), lg); err != nil {
		s.log.WarnContext(c.Request().Context(), "logging request", "request_id", lg.RequestID, "err", err)
	}
}

// endpointCacheParams decide a sitedef endpoint's answer, for the cache key: the validated
// parameters and whether the pages were rendered (and what the rendering waited for).
type endpointCacheParams struct {
	Params   engine.Params
	RenderJS bool   `json:",omitempty"`
	WaitFor  string `json:",omitempty"`
}
