package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"asa/api"
	"asa/api/apikey"
	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fetch"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/store"
)

// edgeEnv is the API of the shop test sitedef with a clock the test moves and, when asked, /metrics
// on a listener of its own.
type edgeEnv struct {
	*env
	clock       *fakeClock
	metricsBase string
}

type edgeOpts struct {
	plan           string
	limiter        string // a limiterKinds name; "" is the default
	metricsToken   string
	metricsOwnPort bool
}

func startEdge(t *testing.T, o edgeOpts) *edgeEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	clock := &fakeClock{t: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)}
	// The limiter first: without its server (redis-server outside CI) it skips the test, and a
	// store opened before that would be left running.
	limiter := newTestLimiter(t, o.limiter, clock.Now)
	e := &env{logs: &syncBuffer{}, target: &target{hold: make(chan struct{})}, cancel: cancel, done: make(chan error, 1)}
	e.dbPath = filepath.Join(t.TempDir(), "asa.db")
	db, err := store.Open(ctx, e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if e.ws, err = db.CreateWorkspace(ctx, "acme", o.plan, 0); err != nil {
		t.Fatal(err)
	}
	if e.live, _, err = db.CreateKey(ctx, e.ws.ID, false); err != nil {
		t.Fatal(err)
	}
	if e.test, _, err = db.CreateKey(ctx, e.ws.ID, true); err != nil {
		t.Fatal(err)
	}
	reg, diags := registry.Load(engine.New(), os.DirFS("../engine/testdata"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb, err := fixture.NewSandbox(os.DirFS("testdata/fixtures"), reg)
	if err != nil {
		t.Fatal(err)
	}
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{RequestTimeout: 5 * time.Second, ShutdownTimeout: 5 * time.Second,
		MetricsToken: o.metricsToken, MetricsOwnListener: o.metricsOwnPort},
		api.Deps{Registry: reg, Live: e.target, Sandbox: sb, Auth: backend, Ledger: backend, Now: clock.Now,
			Log: slog.New(slog.NewJSONHandler(e.logs, nil)), Limiter: limiter})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.base = "http://" + ln.Addr().String()
	go func() { e.done <- srv.Serve(ctx, ln) }()
	ee := &edgeEnv{env: e, clock: clock}
	metricsDone := make(chan error, 1)
	if o.metricsOwnPort {
		mln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ee.metricsBase = "http://" + mln.Addr().String()
		go func() { metricsDone <- srv.ServeMetrics(ctx, mln) }()
	} else {
		metricsDone <- nil
	}
	t.Cleanup(func() {
		cancel()
		if err := <-e.done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if err := <-metricsDone; err != nil {
			t.Errorf("serve metrics: %v", err)
		}
		db.Close()
	})
	return ee
}

// newKey adds a key to the workspace: each has limits of its own.
func (e *edgeEnv) newKey(t *testing.T, test bool) string {
	t.Helper()
	k, _, err := e.db.CreateKey(context.Background(), e.ws.ID, test)
	if err != nil {
		t.Fatal(err)
	}
	return k.String()
}

func (e *edgeEnv) product(t *testing.T, key string) reply {
	t.Helper()
	return e.get(t, "/api/v1/shop/product?query=AB1234&api_key="+key)
}

// TestRetryAfterAdmitsAfterExactlyThatWait: over HTTP, on the server's clock, a client refused with
// Retry-After N and coming back exactly N seconds later is admitted, whichever limit refused it.
// (The old limiter answered from the token bucket alone: after a burst of 10 on the free plan it
// said 1 s, and a second later the 3-second window still refused.)
func TestRetryAfterAdmitsAfterExactlyThatWait(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testRetryAfterAdmitsAfterExactlyThatWait(t, kind)
		})
	}
}

func testRetryAfterAdmitsAfterExactlyThatWait(t *testing.T, kind string) {
	e := startEdge(t, edgeOpts{plan: store.PlanFree, limiter: kind}) // 10 in flight, 2 RPS, 10 per 3 s
	tests := []struct {
		name      string
		burst     int           // admitted at once first
		then      time.Duration // the fake clock is advanced this much before the refused request
		refilled  int           // requests first spent from what the bucket refilled meanwhile
		wantAfter string        // its Retry-After
	}{
		// The bucket has a token again (0.5 s at 2 RPS) long before the window has room.
		{"window binds, bucket refilled", 10, 600 * time.Millisecond, 0, "3"},
		{"window binds, bucket empty", 10, 100 * time.Millisecond, 0, "3"},
		// After 3 s the window is empty but the bucket holds only 6 tokens: the 7th waits for one.
		{"bucket binds", 10, 3*time.Second + time.Millisecond, 6, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := e.newKey(t, true)
			for i := 0; i < tt.burst; i++ {
				if r := e.product(t, key); r.status != 200 {
					t.Fatalf("burst request %d: %d %s", i+1, r.status, r.raw)
				}
			}
			e.clock.Advance(tt.then) // the server's injected clock: nothing here reads real time
			for i := 0; i < tt.refilled; i++ {
				if r := e.product(t, key); r.status != 200 {
					t.Fatalf("refilled request %d: %d %s", i+1, r.status, r.raw)
				}
			}
			r := e.product(t, key)
			if r.status != 429 || r.body["error"] != "rate_limited" {
				t.Fatalf("want a 429: %d %s", r.status, r.raw)
			}
			ra := r.header.Get("Retry-After")
			if ra != tt.wantAfter {
				t.Errorf("Retry-After %q, want %s", ra, tt.wantAfter)
			}
			checkRateLimitFields(t, r.header, ra)
			n, _ := strconv.Atoi(ra)
			e.clock.Advance(time.Duration(n) * time.Second)
			if r := e.product(t, key); r.status != 200 {
				t.Errorf("after waiting exactly Retry-After (%s s): %d %s", ra, r.status, r.raw)
			}
		})
	}

	// The audit's trial: 8 clients refused one after another just after a burst, each coming back
	// exactly Retry-After later. 7 are admitted: at 2 RPS the bucket holds 6.2 tokens when the first
	// comes back and refills 0.2 per 100 ms, so the 8th finds it spent by the 7 before it. It is told
	// to wait again, and that wait is enough too.
	key := e.newKey(t, true)
	for i := 0; i < 10; i++ {
		e.product(t, key)
	}
	start := e.clock.Now()
	var backAt []time.Time
	for i := 1; i <= 8; i++ {
		e.clock.Advance(start.Add(time.Duration(i) * 100 * time.Millisecond).Sub(e.clock.Now()))
		r := e.product(t, key)
		n, _ := strconv.Atoi(r.header.Get("Retry-After"))
		if r.status != 429 || n == 0 {
			t.Fatalf("client %d: %d Retry-After %q", i, r.status, r.header.Get("Retry-After"))
		}
		backAt = append(backAt, e.clock.Now().Add(time.Duration(n)*time.Second))
	}
	admitted := 0
	for i, at := range backAt {
		e.clock.Advance(at.Sub(e.clock.Now()))
		r := e.product(t, key)
		if r.status == 200 {
			admitted++
			continue
		}
		n, _ := strconv.Atoi(r.header.Get("Retry-After"))
		e.clock.Advance(time.Duration(n) * time.Second)
		if r := e.product(t, key); r.status != 200 {
			t.Errorf("client %d: refused again after its second wait: %d %s", i+1, r.status, r.raw)
		}
	}
	t.Logf("%d of 8 clients admitted after waiting exactly Retry-After", admitted)
	if admitted != 7 {
		t.Errorf("%d of 8 clients admitted after waiting exactly Retry-After; want 7", admitted)
	}
}

// checkRateLimitFields reads the IETF fields of a 429: one policy has nothing left and says so for
// no longer than Retry-After.
func checkRateLimitFields(t *testing.T, h http.Header, retryAfter string) {
	t.Helper()
	if got, want := h.Get("RateLimit-Policy"), `"concurrency";q=10;qu="concurrent-requests", "sustained";q=2;w=1, "burst";q=10;w=3`; got != want {
		t.Errorf("RateLimit-Policy %q, want %q", got, want)
	}
	ra, _ := strconv.Atoi(retryAfter)
	exhausted := false
	for _, item := range strings.Split(h.Get("RateLimit"), ", ") {
		name, params, _ := strings.Cut(item, ";")
		p := map[string]int{}
		for _, kv := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(kv, "=")
			p[k], _ = strconv.Atoi(v)
		}
		if _, ok := p["r"]; !ok {
			t.Errorf("RateLimit item %s without r", item)
		}
		if p["r"] == 0 && name != `"concurrency"` {
			exhausted = true
			if p["t"] < 1 || p["t"] > ra {
				t.Errorf("RateLimit %s: t must be 1 to Retry-After (%d)", item, ra)
			}
		}
	}
	if !exhausted {
		t.Errorf("RateLimit %q: no policy has nothing left on a 429", h.Get("RateLimit"))
	}
}

func TestRateLimitFieldsOnAdmission(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			testRateLimitFieldsOnAdmission(t, kind)
		})
	}
}

func testRateLimitFieldsOnAdmission(t *testing.T, kind string) {
	e := startEdge(t, edgeOpts{plan: store.PlanPro, limiter: kind}) // 50 in flight, 25 RPS, 60 per 3 s (window 75)
	r := e.product(t, e.live.String())
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	for h, want := range map[string]string{
		"RateLimit-Policy": `"concurrency";q=50;qu="concurrent-requests", "sustained";q=25;w=1, "burst";q=75;w=3`,
		// one slot is held by this very request while the headers are written
		"RateLimit": `"concurrency";r=49, "sustained";r=25;t=1, "burst";r=74;t=3`,
		"Asa-Rps":   "1/25",
	} {
		if got := r.header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
}

// TestMethodNotAllowed: another method on a GET endpoint is 405 with Allow and the JSON envelope.
func TestMethodNotAllowed(t *testing.T) {
	e := startEdge(t, edgeOpts{plan: store.PlanFree})
	for _, tt := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/shop/product?query=AB1234&api_key=" + e.live.String()},
		{http.MethodPut, "/api/v1/shop/product"},
		{http.MethodDelete, "/api/v1/universal/get"},
		{http.MethodPatch, "/healthz"},
	} {
		t.Run(tt.method+" "+tt.path[:min(len(tt.path), 24)], func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, e.base+tt.path, strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			raw, _ := io.ReadAll(resp.Body)
			_ = json.Unmarshal(raw, &body)
			if resp.StatusCode != 405 || body["error"] != "method_not_allowed" {
				t.Fatalf("%d %s", resp.StatusCode, raw)
			}
			if allow := resp.Header.Get("Allow"); !strings.Contains(allow, "GET") || strings.Contains(allow, tt.method) {
				t.Errorf("Allow %q", allow)
			}
			if body["request_id"] != resp.Header.Get("Asa-Request-Id") || !strings.HasSuffix(fmt.Sprint(body["docs_url"]), "#error-method-not-allowed") {
				t.Errorf("envelope: %s", raw)
			}
		})
	}
	if used, _ := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now()); used != 0 {
		t.Errorf("a refused method cost %d credits", used)
	}
}

// TestKeyInEveryPlace: Authorization: Bearer is a third place for the key; every place given must
// carry the same key.
func TestKeyInEveryPlace(t *testing.T) {
	e := startEdge(t, edgeOpts{plan: store.PlanPro})
	live, test := e.live.String(), e.test.String()
	unknown, _ := apikey.Generate(false)
	withKey := "/api/v1/shop/product?query=AB1234&api_key="
	bare := "/api/v1/shop/product?query=AB1234"
	tests := []struct {
		name   string
		path   string
		hdr    [][2]string
		status int
		code   string
	}{
		{"bearer", bare, [][2]string{{"Authorization", "Bearer " + live}}, 200, ""},
		{"bearer, scheme in lower case", bare, [][2]string{{"Authorization", "bearer " + live}}, 200, ""},
		{"the same key in all three places", withKey + live, [][2]string{{"X-API-Key", live}, {"Authorization", "Bearer " + live}}, 200, ""},
		{"another scheme is not ours", withKey + live, [][2]string{{"Authorization", "Basic dXNlcjpwdw=="}}, 200, ""},
		{"another scheme alone", bare, [][2]string{{"Authorization", "Basic dXNlcjpwdw=="}}, 401, "unauthorized"},
		{"bearer and query differ", withKey + live, [][2]string{{"Authorization", "Bearer " + test}}, 400, "invalid_params"},
		{"bearer and header differ", bare, [][2]string{{"X-API-Key", live}, {"Authorization", "Bearer " + test}}, 400, "invalid_params"},
		{"query and header differ", withKey + live, [][2]string{{"X-API-Key", test}}, 400, "invalid_params"},
		{"bearer twice", bare, [][2]string{{"Authorization", "Bearer " + live}, {"Authorization", "Bearer " + live}}, 400, "invalid_params"},
		{"bearer of an unknown key", bare, [][2]string{{"Authorization", "Bearer " + unknown.String()}}, 401, "unauthorized"},
		{"bearer of a garbled key", bare, [][2]string{{"Authorization", "Bearer " + garble(live)}}, 401, "unauthorized"},
		{"empty bearer", bare, [][2]string{{"Authorization", "Bearer "}}, 401, "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.base+tt.path, nil)
			for _, h := range tt.hdr {
				req.Header.Add(h[0], h[1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			if resp.StatusCode != tt.status || (tt.code != "" && body["error"] != tt.code) {
				t.Fatalf("%d %s; want %d %s", resp.StatusCode, raw, tt.status, tt.code)
			}
			if tt.code == "invalid_params" && fmt.Sprint(body["params"]) != "[api_key]" {
				t.Errorf("params %v", body["params"])
			}
		})
	}
	if strings.Contains(e.logs.String(), live) {
		t.Error("a full key reached the logs")
	}
}

// TestBodyLimitIsEightMiB: a body of exactly 8 MiB is read; one byte more is 413 in the envelope.
func TestBodyLimitIsEightMiB(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true})
	const limit = 8 << 20
	head := `{"endpoint": "shop.product", "items": [{"query": "AB1234"}]}`
	pad := func(n int) string { return head + strings.Repeat(" ", n-len(head)) } // JSON allows trailing space
	if r := e.create(t, e.test, pad(limit)); r.status != 201 {
		t.Errorf("8 MiB: %d %.300s", r.status, r.raw)
	}
	r := e.create(t, e.test, pad(limit+1))
	if r.status != 413 || r.body["error"] != "invalid_params" || r.body["request_id"] == nil || r.body["docs_url"] == nil {
		t.Errorf("8 MiB + 1: %d %.300s", r.status, r.raw)
	}
	// The same without a Content-Length (chunked): the cap is found while reading.
	chunked := func(body string) reply {
		t.Helper()
		// A reader of unknown length makes the client send the body chunked.
		req, _ := http.NewRequest(http.MethodPost, e.base+"/api/v1/shop/batch?api_key="+e.test, io.MultiReader(strings.NewReader(body)))
		req.Header.Set("Content-Type", "application/json")
		if req.ContentLength != 0 {
			t.Fatalf("the request would not be chunked")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		rp := reply{status: resp.StatusCode, raw: string(raw)}
		_ = json.Unmarshal(raw, &rp.body)
		return rp
	}
	if r := chunked(pad(limit)); r.status != 201 {
		t.Errorf("8 MiB chunked: %d %.300s", r.status, r.raw)
	}
	if r := chunked(pad(limit + 1)); r.status != 413 || r.body["error"] != "invalid_params" {
		t.Errorf("8 MiB + 1 chunked: %d %.300s", r.status, r.raw)
	}
}

// rawExchange writes req on a fresh connection and reads the one response.
func rawExchange(t *testing.T, base, req string) (*http.Response, map[string]any) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second)) // a hung server fails the test, it is not timed
	go func() { _, _ = io.WriteString(conn, req) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("%d: not JSON (%v): %q", resp.StatusCode, err, raw)
	}
	return resp, body
}

// TestNetHTTPRefusalsAreJSON: what net/http answers by itself, before any handler, comes in the
// API's error envelope.
func TestNetHTTPRefusalsAreJSON(t *testing.T) {
	e := startEdge(t, edgeOpts{plan: store.PlanFree})
	big := strings.Repeat("a", 40<<10) // over the 32 KiB of headers
	tests := []struct {
		name   string
		req    string
		status int
		code   string
		msg    string
	}{
		{"malformed request line", "GET /healthz\r\nHost: x\r\n\r\n", 400, "invalid_params", "malformed"},
		{"missing Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "invalid_params", "Host"},
		{"invalid header", "GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", 400, "invalid_params", "malformed"},
		{"headers too large", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\n\r\n", 431, "invalid_params", "larger than 32768 bytes"},
		{"request line too large", "GET /healthz?" + big + " HTTP/1.1\r\nHost: x\r\n\r\n", 431, "invalid_params", "larger"},
		{"unknown transfer encoding", "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: zip\r\n\r\n", 501, "not_implemented", "transfer encoding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawExchange(t, e.base, tt.req)
			if resp.StatusCode != tt.status || body["error"] != tt.code {
				t.Fatalf("%d %v; want %d %s", resp.StatusCode, body, tt.status, tt.code)
			}
			if !strings.Contains(fmt.Sprint(body["message"]), tt.msg) {
				t.Errorf("message %q lacks %q", body["message"], tt.msg)
			}
			id := resp.Header.Get("Asa-Request-Id")
			if !strings.HasPrefix(id, "req_") || body["request_id"] != id {
				t.Errorf("request id: header %q body %v", id, body["request_id"])
			}
			if !strings.Contains(fmt.Sprint(body["docs_url"]), "#error-") {
				t.Errorf("docs_url %v", body["docs_url"])
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
	// The connection wrapper leaves ordinary answers alone, plain-text ones included.
	if r := e.get(t, "/metrics"); r.status != 200 || !strings.Contains(r.raw, "asa_requests_in_flight") {
		t.Errorf("metrics: %d %.200s", r.status, r.raw)
	}
}

// TestMetricsListenerAndToken: /metrics can leave the API's listener for one of its own, and can
// require a bearer token.
func TestMetricsListenerAndToken(t *testing.T) {
	const token = "s3cret-metrics-token"
	e := startEdge(t, edgeOpts{plan: store.PlanFree, metricsToken: token, metricsOwnPort: true})
	e.product(t, e.live.String())
	if r := e.get(t, "/metrics", "Authorization", "Bearer "+token); r.status != 404 || r.body["error"] != "not_found" {
		t.Errorf("/metrics on the API's listener: %d %.200s", r.status, r.raw)
	}
	get := func(hdr ...string) reply {
		t.Helper()
		m := &env{base: e.metricsBase}
		return m.get(t, "/metrics", hdr...)
	}
	for _, tt := range []struct {
		name string
		hdr  []string
	}{
		{"no token", nil},
		{"wrong token", []string{"Authorization", "Bearer " + token + "x"}},
		{"another scheme", []string{"Authorization", "Basic " + token}},
		{"in X-API-Key", []string{"X-API-Key", token}},
	} {
		if r := get(tt.hdr...); r.status != 401 || r.body["error"] != "unauthorized" || r.header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: %d %v %.200s", tt.name, r.status, r.header, r.raw)
		}
	}
	r := get("Authorization", "Bearer "+token)
	if r.status != 200 || !strings.Contains(r.raw, `asa_requests_total{endpoint="shop.product",code="200"} 1`) {
		t.Errorf("with the token: %d %.300s", r.status, r.raw)
	}
	if r := get("Authorization", "Bearer "+token); r.status != 200 {
		t.Errorf("again: %d", r.status)
	}
	// Only /metrics lives there.
	if r := (&env{base: e.metricsBase}).get(t, "/api/v1/shop/product?query=AB1234&api_key="+e.live.String()); r.status != 404 {
		t.Errorf("the API on the metrics listener: %d", r.status)
	}
}

// TestUnknownParametersListed: an error names at most 20 unknown parameters and counts the rest.
func TestUnknownParametersListed(t *testing.T) {
	e := startEdge(t, edgeOpts{plan: store.PlanPro})
	q := url.Values{"api_key": {e.live.String()}}
	for i := range 50 {
		q.Set(fmt.Sprintf("extra%02d", i), "1")
	}
	q.Set(strings.Repeat("z", 500), "1")
	for _, path := range []string{"/api/v1/shop/product?query=AB1234&", "/api/v1/universal/get?url=https%3A%2F%2Fexample.com%2F&"} {
		r := e.get(t, path+q.Encode())
		if r.status != 400 || r.body["error"] != "invalid_params" {
			t.Fatalf("%s: %d %.300s", path, r.status, r.raw)
		}
		params, _ := r.body["params"].([]any)
		msg := fmt.Sprint(r.body["message"])
		if len(params) != 20 || params[0] != "extra00" || params[19] != "extra19" {
			t.Errorf("%s: params %v", path, params)
		}
		if !strings.Contains(msg, "extra19, ... and 31 more") || strings.Contains(msg, "extra20") {
			t.Errorf("%s: message %q", path, msg)
		}
		if len(r.raw) > 2000 {
			t.Errorf("%s: a %d-byte error", path, len(r.raw))
		}
	}
}

// TestTargetNotFoundOnEveryEndpoint: every shipped endpoint, on the live path (real sitedefs, the
// real outbound client, TLS to the target farm), answers a target's 404 with 404
// product_not_found, whatever rules it has for pages it does not recognise.
func TestTargetNotFoundOnEveryEndpoint(t *testing.T) {
	fe := startFarm(t, fetch.Options{Backoff: fetch.Backoff{Base: time.Millisecond, Max: 5 * time.Millisecond}}, store.PlanCustom, 10*time.Second)
	cases, err := fixture.LoadCases("../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	// Every page of every host the endpoints ask is a 404, as a site answers for an item it does not
	// have. The hosts are learnt by running each case once against a fetcher that answers 404 too.
	notFound := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, "<!doctype html><html><head><title>404 Not Found</title></head><body><h1>Not Found</h1><p>The page you asked for does not exist.</p></body></html>")
	})
	learn := engine.FetcherFunc(func(ctx context.Context, req *engine.Request) (*engine.Response, error) {
		u, err := url.Parse(req.URL)
		if err != nil {
			return nil, err
		}
		fe.farm.Handle(u.Hostname(), "/", notFound)
		return &engine.Response{Status: 404, URL: req.URL, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte("<html><body>Not Found</body></html>"), Attempts: 1}, nil
	})
	// The parameters of each endpoint: its first case's, else (a site mounting a family base with no
	// case of its own) its base's first case's, moved to the site's host.
	byID := map[string]url.Values{}
	first := map[string]url.Values{}
	for _, c := range cases {
		if first[c.Endpoint] == nil {
			first[c.Endpoint] = fixture.Values(c.Params)
		}
	}
	for _, id := range fe.reg.IDs() {
		switch {
		case first[id] != nil:
			byID[id] = first[id]
		case first[fe.reg.BaseOf(id)] != nil:
			byID[id] = onSite(fe.reg.Plan(id), first[fe.reg.BaseOf(id)])
		default:
			t.Errorf("%s has no fixture case to take its parameters from", id)
		}
	}
	for _, id := range fe.reg.IDs() {
		params := byID[id]
		if params == nil {
			continue
		}
		fixture.Execute(context.Background(), fe.reg.Plan(id), params, learn)
		t.Run(id, func(t *testing.T) {
			site, resource, _ := strings.Cut(id, ".")
			q := url.Values{}
			for k, v := range params {
				q[k] = v
			}
			q.Set("api_key", fe.live.String())
			r := fe.get(t, "/api/v1/"+site+"/"+resource+"?"+q.Encode())
			if r.status != 404 || r.body["error"] != "product_not_found" || r.body["retryable"] != false {
				t.Fatalf("%d %.300s", r.status, r.raw)
			}
			if r.header.Get("Asa-Source-Status") != "404" || r.header.Get("Asa-Cost") != "0" {
				t.Errorf("Asa-Source-Status %q Asa-Cost %q", r.header.Get("Asa-Source-Status"), r.header.Get("Asa-Cost"))
			}
		})
	}
}

// TestEveryErrorCodeDocumented: each code a client can get has its anchor in docs/api.md, where its
// docs_url points.
func TestEveryErrorCodeDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range errcode.All() {
		if c == errcode.Blocked { // never reaches a client
			continue
		}
		info, _ := errcode.Lookup(c)
		anchor := `<a id="error-` + strings.ReplaceAll(string(c), "_", "-") + `"></a>`
		heading := fmt.Sprintf("### `%s` (%d", c, info.Status)
		if i := strings.Index(string(b), anchor); i < 0 || !strings.HasPrefix(strings.TrimSpace(string(b[i+len(anchor):])), heading) {
			t.Errorf("docs/api.md lacks %s followed by %s...)", anchor, heading)
		}
	}
}
