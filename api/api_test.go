package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"asa/api"
	"asa/api/apikey"
	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/store"
)

// target is the stand-in for third-party sites: it answers the shop sitedef's steps by product id.
// Ids: NF.... 404, BL.... captcha, EM.... empty page, GA.... gallery, ZZ.... another item's page,
// PANIC. a panic inside the fetcher, HOLD.. blocks until released; anything else a good page.
type target struct {
	hold chan struct{}
	mu   sync.Mutex
	hits int
}

func (t *target) Fetch(ctx context.Context, req *engine.Request) (*engine.Response, error) {
	t.mu.Lock()
	t.hits++
	t.mu.Unlock()
	id := req.URL[strings.LastIndex(req.URL, "/")+1:]
	if i := strings.IndexByte(id, '?'); i >= 0 {
		id = id[:i]
	}
	page := func(status int, body string) (*engine.Response, error) {
		return &engine.Response{Status: status, URL: req.URL, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(body), Attempts: 1}, nil
	}
	if strings.Contains(req.URL, "/r/") { // reviews
		n := req.Page
		return page(200, fmt.Sprintf(`<html><body><div class="review" id="r%d"></div></body></html>`, n))
	}
	switch {
	case strings.HasPrefix(id, "NF"):
		return page(404, "<html><body>gone</body></html>")
	case strings.HasPrefix(id, "BL"):
		return page(200, `<html><body><form action="/captcha"></form></body></html>`)
	case strings.HasPrefix(id, "EM"):
		return page(200, "")
	case strings.HasPrefix(id, "GA"):
		return page(200, `<html><body><div class="gallery-grid"></div></body></html>`)
	case strings.HasPrefix(id, "ZZ"):
		return page(200, `<html><body><input id="sku" value="AB1234"><h1>Other</h1></body></html>`)
	case strings.HasPrefix(id, "WP"): // a price the sitedef cannot read: a warning, not an error
		return page(200, `<html><body><input id="sku" value="`+id+`"><h1>Kettle</h1><span class="price">$ask us</span></body></html>`)
	case strings.HasPrefix(id, "PANIC"):
		panic("target simulator asked to panic")
	case strings.HasPrefix(id, "HOLD"):
		select {
		case <-t.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return page(200, `<html><body><input id="sku" value="`+id+`"><h1>Kettle</h1><span class="price">$34.99</span></body></html>`)
}

type env struct {
	base   string
	db     *store.DB
	dbPath string
	logs   *syncBuffer
	target *target
	live   apikey.Key
	test   apikey.Key
	ws     store.Workspace
	cancel context.CancelFunc
	done   chan error
	now    time.Time
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func start(t *testing.T, plan string, credits int) *env {
	t.Helper()
	return startLimited(t, plan, credits, nil)
}

// startLimited starts the server on a Limiter of the test's (nil: the default, this node's memory).
func startLimited(t *testing.T, plan string, credits int, limiter api.Limiter) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{logs: &syncBuffer{}, target: &target{hold: make(chan struct{})}, cancel: cancel, done: make(chan error, 1), now: time.Now()}
	db, dbPath, err := openStore(ctx, t)
	e.dbPath = dbPath
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if e.ws, err = db.CreateWorkspace(ctx, "acme", plan, credits); err != nil {
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
	log := slog.New(slog.NewJSONHandler(e.logs, nil))
	srv := api.New(api.Config{RequestTimeout: 5 * time.Second, ShutdownTimeout: 5 * time.Second},
		api.Deps{Registry: reg, Live: e.target, Sandbox: sb, Auth: backend, Ledger: backend, Log: log, Limiter: limiter})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.base = "http://" + ln.Addr().String()
	go func() { e.done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-e.done; err != nil {
			t.Errorf("serve: %v", err)
		}
		db.Close()
	})
	return e
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (e *env) get(t *testing.T, path string, hdr ...string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.base+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header, raw: string(b)}
	_ = json.Unmarshal(b, &r.body)
	return r
}

func TestErrorsAndBilling(t *testing.T) {
	e := start(t, store.PlanPro, 0)
	revoked, _, err := e.db.CreateKey(context.Background(), e.ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.RevokeKey(context.Background(), e.ws.ID, revoked.Short()); err != nil {
		t.Fatal(err)
	}
	unknown, _ := apikey.Generate(false)
	live, test := e.live.String(), e.test.String()
	p := func(key, q string) string { return "/api/v1/shop/product?api_key=" + key + "&" + q }
	tests := []struct {
		name   string
		path   string
		hdr    []string
		status int
		code   string
		detail string
		cost   string
	}{
		{"success", p(live, "query=AB1234"), nil, 200, "", "", "5"},
		{"success by header", "/api/v1/shop/product?query=AB1234", []string{"X-API-Key", live}, 200, "", "", "5"},
		{"sandbox never billed", p(test, "query=QQ1234"), nil, 200, "", "", "0"},
		{"paginated bills per page", "/api/v1/shop/reviews?api_key=" + live + "&query=AB1234&pages=3", nil, 200, "", "", "15"},
		{"invalid params", p(live, "query=abc"), nil, 400, "invalid_params", "", "0"},
		{"sandbox validates too", p(test, "query=abc"), nil, 400, "invalid_params", "", "0"},
		{"key in both places differs", p(live, "query=AB1234"), []string{"X-API-Key", test}, 400, "invalid_params", "", "0"},
		{"missing key", "/api/v1/shop/product?query=AB1234", nil, 401, "unauthorized", "", "0"},
		{"garbled key", p(garble(live), "query=AB1234"), nil, 401, "unauthorized", "", "0"},
		{"unknown key", p(unknown.String(), "query=AB1234"), nil, 401, "unauthorized", "", "0"},
		{"revoked key", p(revoked.String(), "query=AB1234"), nil, 401, "revoked", "", "0"},
		{"not found", p(live, "query=NF1234"), nil, 404, "product_not_found", "", "0"},
		{"unknown endpoint", "/api/v1/shop/nothing?api_key=" + live, nil, 404, "not_found", "", "0"},
		{"reserved", p(live, "query=AB1234&render_js=true&screenshot=1"), nil, 501, "not_implemented", "", "0"},
		{"blocked", p(live, "query=BL1234"), nil, 502, "target_unreachable", "blocked", "0"},
		{"empty page", p(live, "query=EM1234"), nil, 502, "extraction_failed", "", "0"},
		{"other item", p(live, "query=ZZ1234"), nil, 502, "id_mismatch", "", "0"},
		{"gallery", p(live, "query=GA1234"), nil, 502, "generic_gallery_page", "", "0"},
		{"panic", p(live, "query=PANIC1"), nil, 500, "internal_error", "", "0"},
	}
	charged := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, tt.path, tt.hdr...)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.raw)
			}
			if got := r.header.Get("Asa-Cost"); got != tt.cost {
				t.Errorf("Asa-Cost %q, want %q", got, tt.cost)
			}
			rid := r.header.Get("Asa-Request-Id")
			if !strings.HasPrefix(rid, "req_") {
				t.Errorf("no request id header")
			}
			if tt.code == "" {
				if v := r.header.Get("Asa-Extractor-Version"); v != "shop@1.2.3" {
					t.Errorf("Asa-Extractor-Version %q", v)
				}
				for _, h := range []string{"Asa-Attempts", "Asa-Source-Status", "Asa-Resolved-Url", "Asa-Concurrency", "Asa-Rps"} {
					if r.header.Get(h) == "" {
						t.Errorf("missing %s", h)
					}
				}
				fmt.Sscan(tt.cost, new(int))
				var c int
				fmt.Sscan(tt.cost, &c)
				charged += c
				return
			}
			if r.body["error"] != tt.code {
				t.Errorf("error %v, want %s: %s", r.body["error"], tt.code, r.raw)
			}
			if r.body["request_id"] != rid {
				t.Errorf("body request_id %v differs from header %s", r.body["request_id"], rid)
			}
			if du, _ := r.body["docs_url"].(string); !strings.HasSuffix(du, "#error-"+strings.ReplaceAll(tt.code, "_", "-")) {
				t.Errorf("docs_url %q", du)
			}
			if tt.detail != "" && r.body["detail"] != tt.detail {
				t.Errorf("detail %v, want %s", r.body["detail"], tt.detail)
			}
			if tt.code == "product_not_found" && r.body["retryable"] != false {
				t.Errorf("product_not_found without retryable false")
			}
			if tt.code == "not_implemented" && fmt.Sprint(r.body["params"]) != "[render_js screenshot]" {
				t.Errorf("params %v", r.body["params"])
			}
			if strings.Contains(r.raw, "goroutine") || strings.Contains(r.raw, "panic") {
				t.Errorf("internals leaked to the client: %s", r.raw)
			}
		})
	}
	used, err := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if used != charged {
		t.Errorf("credits used %d, want %d (the sum of Asa-Cost)", used, charged)
	}
	// The full keys appear nowhere: not in the database, its WAL, nor the logs.
	for _, f := range []string{e.dbPath, e.dbPath + "-wal", e.dbPath + "-shm"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, k := range []apikey.Key{e.live, e.test, revoked} {
			if bytes.Contains(b, []byte(k.String())) {
				t.Errorf("%s contains a full key", filepath.Base(f))
			}
		}
	}
	logs := e.logs.String()
	if !strings.Contains(logs, e.live.Short()) {
		t.Errorf("logs do not name keys by short prefix")
	}
	for _, k := range []apikey.Key{e.live, e.test, revoked} {
		if strings.Contains(logs, k.String()) {
			t.Errorf("logs contain a full key")
		}
	}
}

// TestRunWarningsLogged: what a successful run left out reaches the operator's log with the request
// id, while the client gets its 200.
func TestRunWarningsLogged(t *testing.T) {
	e := start(t, store.PlanPro, 0)
	r := e.get(t, "/api/v1/shop/product?api_key="+e.live.String()+"&query=WP1234")
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	rid := r.header.Get("Asa-Request-Id")
	var logged map[string]any
	for line := range strings.Lines(e.logs.String()) {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "run warnings" {
			logged = rec
		}
	}
	if logged == nil {
		t.Fatalf("no run warnings logged:\n%s", e.logs.String())
	}
	if logged["request_id"] != rid || logged["endpoint"] != "shop.product" || !strings.Contains(fmt.Sprint(logged["warnings"]), "price") {
		t.Errorf("logged %v, want request id %s, endpoint shop.product and the price's warning", logged, rid)
	}
	// a price read well is no warning (the test shop's in_stock warns on a page without its state)
	r = e.get(t, "/api/v1/shop/product?api_key="+e.live.String()+"&query=AB1234")
	for line := range strings.Lines(e.logs.String()) {
		if strings.Contains(line, r.header.Get("Asa-Request-Id")) && strings.Contains(line, "run warnings") && strings.Contains(line, "field price") {
			t.Errorf("a price warning for a page with a readable price: %s", line)
		}
	}
}

func TestInsufficientCredits(t *testing.T) {
	e := start(t, store.PlanCustom, 12)
	p := "/api/v1/shop/product?api_key=" + e.live.String() + "&query=AB1234"
	for i, want := range []int{200, 200, 402, 402} {
		r := e.get(t, p)
		if r.status != want {
			t.Fatalf("request %d: status %d, want %d: %s", i+1, r.status, want, r.raw)
		}
		if want == 402 && (r.body["error"] != "insufficient_credits" || r.header.Get("Asa-Cost") != "0") {
			t.Errorf("request %d: %s cost %s", i+1, r.raw, r.header.Get("Asa-Cost"))
		}
	}
	if used, _ := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now()); used != 10 {
		t.Errorf("used %d, want 10", used)
	}
}

func TestRevocationIsImmediate(t *testing.T) {
	e := start(t, store.PlanFree, 0)
	p := "/api/v1/shop/product?api_key=" + e.live.String() + "&query=AB1234"
	if r := e.get(t, p); r.status != 200 {
		t.Fatalf("before: %d %s", r.status, r.raw)
	}
	if err := e.db.RevokeKey(context.Background(), e.ws.ID, e.live.Short()); err != nil {
		t.Fatal(err)
	}
	if r := e.get(t, p); r.status != 401 || r.body["error"] != "revoked" {
		t.Fatalf("after: %d %s", r.status, r.raw)
	}
}

// targetHits is how many requests the target has received.
func (e *env) targetHits() int {
	e.target.mu.Lock()
	defer e.target.mu.Unlock()
	return e.target.hits
}

func TestConcurrencyCeiling(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := startLimited(t, store.PlanFree, 0, newTestLimiter(t, kind, nil)) // 10 in flight, burst 10
			p := "/api/v1/shop/product?api_key=" + e.live.String() + "&query=HOLD01"
			var wg sync.WaitGroup
			for i := 0; i < 10; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if r := e.get(t, p); r.status != 200 {
						t.Errorf("held request: %d %s", r.status, r.raw)
					}
				}()
			}
			// Wait until all ten hold their slots at the target.
			for e.targetHits() < 10 {
				time.Sleep(5 * time.Millisecond) // poll; not a bound
			}
			// The refusal comes while all ten still hold their slots (the target answers none of them
			// before hold is closed): request 11 did not wait for a slot.
			r := e.get(t, "/api/v1/shop/product?api_key="+e.live.String()+"&query=AB1234")
			if r.status != 429 || r.body["error"] != "rate_limited" || r.header.Get("Retry-After") == "" {
				t.Errorf("request 11: %d %s", r.status, r.raw)
			}
			if n := e.targetHits(); n != 10 {
				t.Errorf("target hits %d while the ten are held, want 10", n)
			}
			close(e.target.hold)
			wg.Wait()
			// Slots are freed: after the burst window the key is admitted again.
			if r := e.get(t, "/api/v1/shop/product?api_key="+e.test.String()+"&query=AB1234"); r.status != 200 {
				t.Errorf("sandbox key of the same workspace has its own slots: %d %s", r.status, r.raw)
			}
		})
	}
}

func TestBurstCeiling(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			e := startLimited(t, store.PlanFree, 0, newTestLimiter(t, kind, nil)) // burst 10 in 3 s
			p := "/api/v1/shop/product?api_key=" + e.test.String() + "&query=AB1234"
			ok, limited := 0, 0
			for i := 0; i < 14; i++ {
				r := e.get(t, p)
				switch r.status {
				case 200:
					ok++
					if got, want := r.header.Get("Asa-Rps"), fmt.Sprintf("%d/2", ok); got != want && ok <= 2 {
						// Only the first two are surely within one second of the first.
						t.Errorf("admission %d: Asa-Rps %q, want %q", ok, got, want)
					}
				case 429:
					limited++
					if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
						t.Errorf("Retry-After %q", ra)
					}
				default:
					t.Fatalf("status %d %s", r.status, r.raw)
				}
			}
			if ok != 10 || limited != 4 {
				t.Errorf("admitted %d, limited %d; want 10 and 4", ok, limited)
			}
		})
	}
}

func TestHealthReadyMetrics(t *testing.T) {
	e := start(t, store.PlanFree, 0)
	if r := e.get(t, "/healthz"); r.status != 200 {
		t.Errorf("healthz %d", r.status)
	}
	if r := e.get(t, "/readyz"); r.status != 200 {
		t.Errorf("readyz %d %s", r.status, r.raw)
	}
	e.get(t, "/api/v1/shop/product?api_key="+e.live.String()+"&query=AB1234")
	e.get(t, "/api/v1/shop/product?api_key="+e.live.String()+"&query=EM1234")
	r := e.get(t, "/metrics")
	for _, want := range []string{
		`asa_requests_total{endpoint="shop.product",code="200"} 1`,
		`asa_requests_total{endpoint="shop.product",code="502"} 1`,
		`asa_credits_charged_total 5`,
		`asa_extraction_failures_total{sitedef="shop.product"} 1`,
		`asa_requests_in_flight 0`,
		`asa_request_duration_seconds_count{endpoint="shop.product"} 2`,
	} {
		if !strings.Contains(r.raw, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if r := e.get(t, "/nowhere"); r.status != 404 || r.body["error"] != "not_found" {
		t.Errorf("unknown path: %d %s", r.status, r.raw)
	}
}

// TestGracefulShutdown: on shutdown an in-flight request finishes and is billed; new connections are
// refused; Serve returns cleanly.
func TestGracefulShutdown(t *testing.T) {
	e := start(t, store.PlanFree, 0)
	got := make(chan reply, 1)
	go func() { got <- e.get(t, "/api/v1/shop/product?api_key="+e.live.String()+"&query=HOLD02") }()
	for e.targetHits() == 0 {
		time.Sleep(5 * time.Millisecond) // poll; not a bound
	}
	e.cancel() // what SIGTERM does in asa serve
	time.Sleep(100 * time.Millisecond)
	close(e.target.hold)
	r := <-got
	if r.status != 200 || r.header.Get("Asa-Cost") != "5" {
		t.Fatalf("in-flight request: %d %s", r.status, r.raw)
	}
	if err := <-e.done; err != nil {
		t.Fatalf("serve: %v", err)
	}
	e.done <- nil // for the cleanup
	if used, _ := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now()); used != 5 {
		t.Errorf("the in-flight request was not billed exactly once: %d", used)
	}
	if _, err := http.Get(e.base + "/healthz"); err == nil {
		t.Error("new connections still accepted after shutdown")
	}
}

// garble changes a key's last character (to another one: a random key may end in any of them).
func garble(key string) string {
	last := "x"
	if strings.HasSuffix(key, last) {
		last = "y"
	}
	return key[:len(key)-1] + last
}
