package fetch

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"time"

	"asa/engine"
	"asa/engine/errcode"
)

// Client is the one outbound HTTP client of the project. It is safe for concurrent use.
type Client struct {
	opts   Options
	guard  *guard
	direct *http.Transport
	pool   *pool
	// chunks lends the pieces bodies of unknown length are read in.
	chunks chunkPool
}

var _ engine.Fetcher = (*Client)(nil)

// New returns a Client. It fails on malformed Options (a bad proxy URL or country, a bad address).
func New(opts Options) (*Client, error) {
	opts.withDefaults()
	g := &guard{allowPrivate: opts.AllowPrivateNetwork, ports: []uint16{80, 443}}
	for _, p := range opts.AllowPorts {
		if p < 1 || p > 65535 {
			return nil, fmt.Errorf("fetch: AllowPorts: %d is not a port", p)
		}
		g.ports = append(g.ports, uint16(p))
	}
	var err error
	if g.allow, err = parseAddrSet("AllowAddrs", opts.AllowAddrs); err != nil {
		return nil, err
	}
	if g.deny, err = parseAddrSet("DenyAddrs", opts.DenyAddrs); err != nil {
		return nil, err
	}
	for _, h := range opts.DenyHosts {
		ch, err := canonicalHost(strings.TrimSpace(h))
		if err != nil {
			return nil, fmt.Errorf("fetch: DenyHosts: %v", err)
		}
		g.denyHosts = append(g.denyHosts, strings.TrimSuffix(ch, "."))
	}
	c := &Client{opts: opts, guard: g}
	if opts.AllowPrivateNetwork {
		opts.Logger.Warn("fetch: AllowPrivateNetwork is on: the SSRF guard is lifted, private and metadata addresses can be reached; for tests and local development only")
	}
	c.direct = c.newTransport(c.dialDirect)
	c.pool = &pool{c: c, byCountry: map[string][]*proxyState{}}
	for _, p := range opts.Proxies {
		ps, err := parseProxy(p)
		if err != nil {
			return nil, err
		}
		ps.tr = c.newTransport(c.proxyDialer(ps))
		c.pool.all = append(c.pool.all, ps)
		c.pool.byCountry[ps.country] = append(c.pool.byCountry[ps.country], ps)
	}
	return c, nil
}

func (c *Client) newTransport(dial func(ctx context.Context, network, addr string) (net.Conn, error)) *http.Transport {
	return &http.Transport{
		Proxy:                  nil, // never the environment's: a proxy would hide the target's address from the guard
		DialContext:            dial,
		TLSClientConfig:        &tls.Config{RootCAs: c.opts.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    c.opts.TLSHandshakeTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 256 << 10,
		DisableCompression:     true, // we decode ourselves, with a cap on the decoded size
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           512,
		MaxIdleConnsPerHost:    64,
		MaxConnsPerHost:        c.opts.MaxConnsPerHost, // bounds the TLS handshake storm of a cold start; HTTP/2 multiplexes over them
		IdleConnTimeout:        90 * time.Second,
	}
}

// Close releases idle connections.
func (c *Client) Close() {
	c.direct.CloseIdleConnections()
	for _, p := range c.pool.all {
		p.tr.CloseIdleConnections()
	}
}

// Countries returns the countries of the configured proxies (lower-case ISO 3166-1 alpha-2, sorted).
func (c *Client) Countries() []string { return c.pool.countries() }

// CheckCountry returns nil for "" and for a configured country, else an *errcode.Error
// invalid_params naming "country" (wrapping ErrUnknownCountry).
func (c *Client) CheckCountry(country string) error {
	return c.pool.check(strings.ToLower(strings.TrimSpace(country)))
}

// CheckURL applies the parse-time rules of user-supplied URLs to raw (no DNS) and returns the
// canonical URL, or an *errcode.Error invalid_params naming "url" (wrapping ErrInvalidURL or
// ErrForbiddenAddress). The API calls it to answer 400 before queueing or charging anything.
func (c *Client) CheckURL(raw string) (string, error) {
	u, err := c.guard.checkURL(raw, true)
	if err != nil {
		return "", invalidURL(err)
	}
	return u.String(), nil
}

func invalidURL(err error) *errcode.Error {
	return &errcode.Error{Code: errcode.InvalidParams, Message: "url: " + err.Error(), Params: []string{"url"}, Cause: err}
}

// Fetch performs req with retries (engine.Fetcher). On success the Response carries the status
// (a 5xx or 429 that outlived every attempt included), the final URL, the headers (Content-Encoding
// and Content-Length removed), the body decoded from its Content-Encoding (not converted to UTF-8),
// and Attempts. On failure the error is an *errcode.Error (see the package doc) and the Response is
// non-nil with Attempts alone set, so that callers can count attempts that failed.
func (c *Client) Fetch(ctx context.Context, req *engine.Request) (*engine.Response, error) {
	user := c.opts.GuardUserURLs || userURL(ctx)
	u, err := c.guard.checkURL(req.URL, user)
	if err != nil {
		return nil, invalidURL(err)
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = c.opts.AttemptTimeout
	}
	sp := &spec{
		method:    method,
		url:       u,
		header:    mergeHeaders(browserHeaders(c.opts.UserAgent), req.Header),
		body:      req.Body,
		timeout:   timeout,
		maxBody:   c.opts.MaxBodyBytes,
		redirects: c.opts.MaxRedirects,
		user:      user,
		attempts:  c.opts.MaxAttempts,
	}
	res, attempts, err := c.run(ctx, sp)
	if err != nil {
		return &engine.Response{Attempts: attempts}, err
	}
	return &engine.Response{Status: res.Status, URL: res.URL, Header: res.Header, Body: res.Body, Attempts: attempts}, nil
}

// NoRedirects in Limits.Redirects returns a 3xx as it is.
const NoRedirects = -1

// Limits bound one Do call. Zero values take the Client's Options.
type Limits struct {
	// MaxBodyBytes caps the decoded body (Options.MaxBodyBytes when 0).
	MaxBodyBytes int64
	// Truncate keeps the first MaxBodyBytes instead of failing with too_large.
	Truncate bool
	// Timeout bounds each attempt (Options.AttemptTimeout when 0).
	Timeout time.Duration
	// MaxAttempts (1 when 0): retries as Fetch does when above 1.
	MaxAttempts int
	// Redirects is the hop cap (Options.MaxRedirects when 0; NoRedirects for none).
	Redirects int
	// UserURL applies the strict rules of user-supplied URLs.
	UserURL bool
	// Direct never uses a proxy, even when proxies are configured.
	Direct bool
	// BrowserHeaders adds the browser-like defaults Fetch sends; otherwise only Accept-Encoding is added.
	BrowserHeaders bool
	// NoKeepAlive closes the connection after the call, so the next call resolves the name again.
	NoKeepAlive bool
}

// Result is what Do returns: the body is already read, decoded and capped.
type Result struct {
	Status int
	Proto  string
	// URL is the final URL after redirects.
	URL    string
	Header http.Header
	Body   []byte
	// Truncated is set when Limits.Truncate cut the body.
	Truncated bool
	Attempts  int
}

// MaxRequestBody caps the body Do sends.
const MaxRequestBody = 1 << 20

// Do sends req through the same guard, transports, caps and timeouts as Fetch. req.Context is
// ignored: ctx bounds the call. Errors are *errcode.Error as for Fetch.
func (c *Client) Do(ctx context.Context, req *http.Request, lim Limits) (*Result, error) {
	user := c.opts.GuardUserURLs || userURL(ctx) || lim.UserURL
	if req.URL == nil {
		return nil, invalidURL(fmt.Errorf("%w: no URL", ErrInvalidURL))
	}
	u, err := c.guard.checkParsed(req.URL, user)
	if err != nil {
		return nil, invalidURL(err)
	}
	var body []byte
	if req.Body != nil {
		body, err = io.ReadAll(io.LimitReader(req.Body, MaxRequestBody+1))
		req.Body.Close()
		if err != nil {
			return nil, &errcode.Error{Code: errcode.InternalError, Message: "reading the request body", Cause: err}
		}
		if len(body) > MaxRequestBody {
			return nil, &errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("the request body is over %d bytes", MaxRequestBody), Params: []string{"body"}}
		}
	}
	defaults := http.Header{"Accept-Encoding": {AcceptEncoding}}
	if lim.BrowserHeaders {
		defaults = browserHeaders(c.opts.UserAgent)
	}
	sp := &spec{
		method:    req.Method,
		url:       u,
		header:    mergeHeaders(defaults, req.Header),
		body:      body,
		timeout:   lim.Timeout,
		maxBody:   lim.MaxBodyBytes,
		redirects: lim.Redirects,
		user:      user,
		direct:    lim.Direct,
		truncate:  lim.Truncate,
		attempts:  max(lim.MaxAttempts, 1),
		close:     lim.NoKeepAlive,
	}
	if sp.method == "" {
		sp.method = http.MethodGet
	}
	if sp.timeout <= 0 {
		sp.timeout = c.opts.AttemptTimeout
	}
	if sp.maxBody <= 0 {
		sp.maxBody = c.opts.MaxBodyBytes
	}
	if sp.redirects == 0 {
		sp.redirects = c.opts.MaxRedirects
	}
	res, attempts, err := c.run(ctx, sp)
	if err != nil {
		return nil, err
	}
	res.Attempts = attempts
	return res, nil
}

// Webhook defaults of PostWebhook.
const (
	WebhookTimeout      = 15 * time.Second
	WebhookMaxBodyBytes = 64 << 10
	WebhookUserAgent    = "asa-webhooks/1"
)

// spec is one request as the retry loop sees it.
type spec struct {
	method    string
	url       *url.URL
	header    http.Header
	body      []byte
	timeout   time.Duration
	maxBody   int64
	redirects int
	user      bool
	direct    bool
	truncate  bool
	attempts  int
	close     bool // no keep-alive: every call dials (and resolves) anew
}

// failure is a classified attempt error.
type failure struct {
	detail string // timeout, connection, forbidden, too_large, too_many_redirects, encoding
	retry  bool
	proxy  bool // counts against the proxy's health
	err    error
}

var (
	errAttemptTimeout = errors.New("attempt deadline")
	errIdle           = errors.New("no body bytes within the idle timeout")
)

// run is the retry loop shared by Fetch and Do.
func (c *Client) run(ctx context.Context, sp *spec) (*Result, int, error) {
	country := CountryFrom(ctx)
	if !sp.direct {
		if err := c.pool.check(country); err != nil {
			return nil, 0, err
		}
	}
	var (
		used     []*proxyState
		res      *Result
		fail     *failure
		attempts int
	)
	for {
		attempts++
		var p *proxyState
		if !sp.direct {
			if p = c.pool.pick(country, used); p != nil {
				used = append(used, p)
			}
		}
		res, fail = c.once(ctx, sp, p)
		c.pool.report(p, fail != nil && fail.proxy)
		var wait time.Duration
		if fail == nil {
			if !retryStatus(res.Status) {
				break
			}
			wait = c.backoff(attempts)
			if ra, ok := retryAfter(res.Header, time.Now()); ok {
				wait = min(ra, c.opts.MaxRetryAfter)
			}
		} else if !fail.retry {
			break
		} else {
			wait = c.backoff(attempts)
		}
		if attempts >= sp.attempts {
			break
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			break
		}
		if err := c.sleep(ctx, wait); err != nil {
			break
		}
	}
	if fail != nil {
		return nil, attempts, fail.errcode(sp)
	}
	return res, attempts, nil
}

func retryStatus(s int) bool { return s == http.StatusTooManyRequests || s >= 500 && s <= 599 }

// retryAfter parses Retry-After (seconds or an HTTP date).
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

// backoff is the full-jitter wait before retry n.
func (c *Client) backoff(n int) time.Duration {
	ceil := c.opts.Backoff.Base
	for i := 1; i < n && ceil < c.opts.Backoff.Max; i++ {
		ceil *= 2
	}
	ceil = min(ceil, c.opts.Backoff.Max)
	if ceil <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(ceil) + 1))
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.opts.sleep != nil {
		return c.opts.sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// once makes one attempt, following redirects, and reads the body.
func (c *Client) once(ctx context.Context, sp *spec, p *proxyState) (*Result, *failure) {
	actx, cancelTimeout := context.WithTimeoutCause(ctx, sp.timeout, errAttemptTimeout)
	defer cancelTimeout()
	actx, cancel := context.WithCancelCause(actx)
	defer cancel(nil)

	tr := c.direct
	if p != nil {
		tr = p.tr
	}
	jar, _ := cookiejar.New(nil) // a fresh jar per attempt: cookies set by a hop go to the next hop
	hc := &http.Client{Transport: tr, Jar: jar, CheckRedirect: c.checkRedirect(sp)}
	var body io.Reader
	if sp.body != nil {
		body = bytes.NewReader(sp.body)
	}
	hreq, err := http.NewRequestWithContext(actx, sp.method, sp.url.String(), body)
	if err != nil {
		return nil, &failure{detail: "connection", err: err}
	}
	hreq.Header = sp.header.Clone()
	hreq.Close = sp.close
	resp, err := hc.Do(hreq)
	if err != nil {
		return nil, c.classify(ctx, actx, err)
	}
	defer resp.Body.Close()
	var rd io.Reader = resp.Body
	if c.opts.IdleTimeout > 0 {
		ir := &idleReader{r: resp.Body, d: c.opts.IdleTimeout}
		ir.t = time.AfterFunc(c.opts.IdleTimeout, func() { cancel(errIdle) })
		defer ir.t.Stop()
		rd = ir
	}
	b, truncated, err := readBody(rd, resp.Header.Get("Content-Encoding"), sp.maxBody, sp.truncate, resp.ContentLength, &c.chunks)
	if err != nil {
		return nil, c.classify(ctx, actx, err)
	}
	h := resp.Header.Clone()
	if len(parseCodings(h.Get("Content-Encoding"))) > 0 {
		h.Del("Content-Encoding")
	}
	h.Del("Content-Length")
	return &Result{Status: resp.StatusCode, Proto: resp.Proto, URL: resp.Request.URL.String(), Header: h, Body: b, Truncated: truncated}, nil
}

type idleReader struct {
	r io.Reader
	d time.Duration
	t *time.Timer
}

func (i *idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.t.Reset(i.d)
	}
	return n, err
}

// checkRedirect caps hops, re-checks every hop, and drops credentials on a change of host.
func (c *Client) checkRedirect(sp *spec) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if sp.redirects < 0 {
			return http.ErrUseLastResponse
		}
		if len(via) > sp.redirects {
			return fmt.Errorf("%w: more than %d hops", ErrTooManyRedirects, sp.redirects)
		}
		u, err := c.guard.checkParsed(req.URL, sp.user)
		if err != nil {
			return fmt.Errorf("redirect refused: %w", err)
		}
		req.URL = u
		if !strings.EqualFold(u.Hostname(), via[0].URL.Hostname()) {
			req.Header.Del("Authorization")
			req.Header.Del("Cookie")
			req.Header.Del("Proxy-Authorization")
		}
		return nil
	}
}

// classify turns an attempt error into a failure.
func (c *Client) classify(parent, actx context.Context, err error) *failure {
	f := &failure{err: err}
	var dnsErr *net.DNSError
	var pe *proxyError
	switch {
	case errors.Is(err, ErrForbiddenAddress) || errors.Is(err, ErrInvalidURL):
		f.detail = "forbidden"
	case errors.Is(err, ErrTooManyRedirects):
		f.detail = "too_many_redirects"
	case errors.Is(err, ErrTooLarge):
		f.detail = "too_large"
	case errors.Is(err, ErrUnsupportedEncoding):
		f.detail = "encoding"
	case parent.Err() != nil:
		f.detail = "timeout"
		f.err = fmt.Errorf("%w (%v)", context.Cause(parent), err)
	case actx.Err() != nil || isTimeout(err):
		f.detail, f.retry, f.proxy = "timeout", true, true
		if cause := context.Cause(actx); cause != nil {
			f.err = fmt.Errorf("%w (%v)", cause, err)
		}
	case errors.As(err, &dnsErr) && !errors.As(err, &pe):
		// our own lookup of the target: not the proxy's fault; a name that does not exist stays so
		f.detail, f.retry = "connection", !dnsErr.IsNotFound
	default:
		f.detail, f.retry, f.proxy = "connection", true, true
	}
	return f
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// errcode maps the last failure to the client-facing error.
func (f *failure) errcode(sp *spec) *errcode.Error {
	msg := map[string]string{
		"timeout":            "the target did not answer in time",
		"connection":         "the target could not be reached",
		"forbidden":          "the target is at an address we do not connect to",
		"too_large":          "the target's response is over the " + sizeString(sp.maxBody) + " limit",
		"too_many_redirects": fmt.Sprintf("the target redirected more than %d times", sp.redirects),
		"encoding":           "the target used a content encoding we do not decode",
	}[f.detail]
	return &errcode.Error{Code: errcode.TargetUnreachable, Message: msg, Detail: f.detail, Cause: f.err}
}

func sizeString(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}
