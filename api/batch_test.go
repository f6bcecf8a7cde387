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
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"asa/api"
	"asa/engine"
	"asa/engine/fetch"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/store"
)

// fakeClock is the server's clock in batch tests: time moves only when the test says so.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// hook is one webhook request as the receiver saw it.
type hook struct {
	path   string
	header http.Header
	body   []byte
}

// receiver is a loopback webhook endpoint. status picks the answer to the n-th request (1-based).
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []hook
	ch     chan hook
	status func(n int) (int, http.Header)
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{ch: make(chan hook, 100), status: func(int) (int, http.Header) { return 204, nil }}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, _ := io.ReadAll(req.Body)
		h := hook{path: req.URL.Path, header: req.Header.Clone(), body: b}
		r.mu.Lock()
		r.got = append(r.got, h)
		n := len(r.got)
		st := r.status
		r.mu.Unlock()
		code, hdr := st(n)
		for k, v := range hdr {
			w.Header()[k] = v
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, "answer %d", n)
		r.ch <- h
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.got)
}

// The waits below block on the event itself, with no timer: how long an event takes depends on the
// machine, and a test must not. An event that never comes is a hang, which go test's -timeout
// reports with the stack of every goroutine (more telling than a timer's "did not arrive").

func (r *receiver) wait(t *testing.T) hook {
	t.Helper()
	return <-r.ch
}

type batchEnv struct {
	base   string
	db     *store.DB
	srv    *api.Server
	target *target
	live   string
	test   string
	ws     store.Workspace
	hooks  *receiver
	clock  *fakeClock
	dsn    string // the store's file or URL
	logs   *syncBuffer
	// fetched gets every URL the target is asked for; itemDone every committed item outcome;
	// recorded every recorded webhook attempt.
	fetched  chan string
	itemDone chan itemEvent
	recorded chan string
}

type itemEvent struct {
	batch string
	ended bool
}

type batchOpts struct {
	plan    string
	credits int
	cfg     api.BatchConfig
	clock   *fakeClock // nil: the wall clock
	noLoop  bool       // do not run the worker: the test drives it
	// join, when set, makes this a second node on join's database (PostgreSQL): its workspace and
	// keys, and webhooks may go to join's receiver.
	join *batchEnv
}

func startBatches(t *testing.T, o batchOpts) *batchEnv {
	t.Helper()
	if o.plan == "" {
		o.plan = store.PlanPro
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &batchEnv{target: &target{hold: make(chan struct{})}, clock: o.clock, logs: &syncBuffer{},
		fetched: make(chan string, 10000), itemDone: make(chan itemEvent, 10000), recorded: make(chan string, 100)}
	live := engine.FetcherFunc(func(ctx context.Context, req *engine.Request) (*engine.Response, error) {
		e.fetched <- req.URL
		return e.target.Fetch(ctx, req)
	})
	var db *store.DB
	var err error
	if o.join != nil {
		db, err = store.Open(ctx, o.join.dsn)
		e.dsn, e.ws, e.live, e.test = o.join.dsn, o.join.ws, o.join.live, o.join.test
	} else {
		db, e.dsn, err = openStore(ctx, t)
	}
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if o.join == nil {
		if e.ws, err = db.CreateWorkspace(ctx, "acme", o.plan, o.credits); err != nil {
			t.Fatal(err)
		}
		liveKey, _, err := db.CreateKey(ctx, e.ws.ID, false)
		if err != nil {
			t.Fatal(err)
		}
		testKey, _, err := db.CreateKey(ctx, e.ws.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		e.live, e.test = liveKey.String(), testKey.String()
	}
	reg, diags := registry.Load(engine.New(), os.DirFS("../engine/testdata"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb, err := fixture.NewSandbox(os.DirFS("testdata/fixtures"), reg)
	if err != nil {
		t.Fatal(err)
	}
	e.hooks = newReceiver(t)
	if o.join != nil {
		e.hooks = o.join.hooks
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.hooks.srv.URL, "http://"))
	p, _ := strconv.Atoi(port)
	wc, err := fetch.New(fetch.Options{AllowPrivateNetwork: true, AllowPorts: []int{p}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wc.Close)
	cfg := o.cfg
	cfg.AllowHTTPWebhooks = true
	if cfg.Lease == 0 {
		cfg.Lease = time.Minute
	}
	if cfg.Poll == 0 {
		cfg.Poll = 20 * time.Millisecond
	}
	now := time.Now
	if o.clock != nil {
		now = o.clock.Now
	}
	backend := api.NewStoreBackend(db, now)
	e.srv = api.New(api.Config{RequestTimeout: 5 * time.Second, ShutdownTimeout: 5 * time.Second},
		api.Deps{Registry: reg, Live: live, Sandbox: sb, Auth: backend, Ledger: backend, Now: now,
			Log:     slog.New(slog.NewJSONHandler(e.logs, nil)),
			Batches: db, Webhooks: api.FetchWebhooks{Client: wc}, Batch: cfg})
	e.srv.OnItemDone(func(batch string, ended bool) { e.itemDone <- itemEvent{batch, ended} })
	e.srv.OnWebhookRecorded(func(batch, state string) { e.recorded <- state })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.base = "http://" + ln.Addr().String()
	served, worked := make(chan error, 1), make(chan error, 1)
	go func() { served <- e.srv.Serve(ctx, ln) }()
	if o.noLoop {
		worked <- nil
	} else {
		go func() { worked <- e.srv.RunBatches(ctx) }()
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-e.target.hold:
		default:
			close(e.target.hold)
		}
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		<-worked
		db.Close()
	})
	return e
}

func (e *batchEnv) do(t *testing.T, method, path string, body any, hdr ...string) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, _ := json.Marshal(b)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, e.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
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

func (e *batchEnv) create(t *testing.T, key string, body any, hdr ...string) reply {
	t.Helper()
	return e.do(t, http.MethodPost, "/api/v1/shop/batch?api_key="+key, body, hdr...)
}

func (e *batchEnv) poll(t *testing.T, key, id string, query ...string) reply {
	t.Helper()
	q := ""
	if len(query) > 0 {
		q = "&" + strings.Join(query, "&")
	}
	r := e.do(t, http.MethodGet, "/api/v1/shop/batch/"+id+"?api_key="+key+q, nil)
	if r.status == 200 {
		checkCounts(t, r.body)
	}
	return r
}

// checkCounts asserts what must hold at every poll.
func checkCounts(t *testing.T, b map[string]any) {
	t.Helper()
	n := func(k string) int { f, _ := b[k].(float64); return int(f) }
	if n("processed_count") != n("success_count")+n("failure_count") || n("processed_count") > n("total_count") {
		t.Errorf("counts disagree: %v", b)
	}
	status := b["status"]
	switch {
	case status == "pending" && (b["started_at"] != nil || n("processed_count") != 0):
		t.Errorf("pending batch with a start or results: %v", b)
	case status == "running" && (b["started_at"] == nil || b["completed_at"] != nil):
		t.Errorf("running batch without started_at or with completed_at: %v", b)
	case (status == "complete" || status == "failed") && (b["completed_at"] == nil || n("processed_count") != n("total_count")):
		t.Errorf("ended batch: %v", b)
	case status == "complete" && n("success_count") == 0, status == "failed" && n("success_count") != 0:
		t.Errorf("status %v with %d successes", status, n("success_count"))
	}
	credits := 0
	for _, r := range b["results"].([]any) {
		credits += int(r.(map[string]any)["credits_charged"].(float64))
	}
	if b["results_offset"].(float64) == 0 && b["results_next_offset"] == nil && credits != n("credits_charged") {
		t.Errorf("credits_charged %d, results sum to %d", n("credits_charged"), credits)
	}
}

func itemsOf(queries ...string) []map[string]any {
	out := make([]map[string]any, len(queries))
	for i, q := range queries {
		out[i] = map[string]any{"query": q}
	}
	return out
}

// waitItems waits until n item outcomes are committed.
func (e *batchEnv) waitItems(t *testing.T, n int) {
	t.Helper()
	for range n {
		<-e.itemDone
	}
}

// waitEnd waits until batch id ends and returns its poll (all results).
func (e *batchEnv) waitEnd(t *testing.T, key, id string) reply {
	t.Helper()
	for {
		if ev := <-e.itemDone; ev.batch == id && ev.ended {
			return e.poll(t, key, id, "limit=1000")
		}
	}
}

// waitFetches waits until the target was asked for n pages.
func (e *batchEnv) waitFetches(t *testing.T, n int) {
	t.Helper()
	for range n {
		<-e.fetched
	}
}

// waitRecorded waits for the next recorded webhook attempt and returns the delivery's state.
func (e *batchEnv) waitRecorded(t *testing.T) string {
	t.Helper()
	return <-e.recorded
}

func TestBatchValidation(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true})
	many := make([]map[string]any, 1001)
	for i := range many {
		many[i] = map[string]any{"query": "AB1234"}
	}
	hook := e.hooks.srv.URL + "/in"
	tests := []struct {
		name   string
		path   string
		body   any
		status int
		code   string
		params string
	}{
		{"no key", "/api/v1/shop/batch", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}, 401, "unauthorized", ""},
		{"unknown site", "/api/v1/nosuch/batch?api_key=" + e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}, 404, "not_found", ""},
		{"not json", "", "{", 400, "invalid_params", "[body]"},
		{"not an object", "", "[1]", 400, "invalid_params", "[body]"},
		{"two objects", "", `{"endpoint":"shop.product","items":[{"query":"AB1234"}]} {}`, 400, "invalid_params", "[body]"},
		{"unknown field", "", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "name": "x"}, 400, "invalid_params", "[name]"},
		{"no endpoint", "", map[string]any{"items": itemsOf("AB1234")}, 400, "invalid_params", "[endpoint]"},
		{"endpoint not a string", "", map[string]any{"endpoint": 3, "items": itemsOf("AB1234")}, 400, "invalid_params", "[endpoint]"},
		{"unknown endpoint", "", map[string]any{"endpoint": "shop.nothing", "items": itemsOf("AB1234")}, 400, "invalid_params", "[endpoint]"},
		{"no items", "", map[string]any{"endpoint": "shop.product"}, 400, "invalid_params", "[items]"},
		{"empty items", "", map[string]any{"endpoint": "shop.product", "items": []any{}}, 400, "invalid_params", "[items]"},
		{"1001 items", "", map[string]any{"endpoint": "shop.product", "items": many}, 400, "invalid_params", "[items]"},
		{"item not an object", "", map[string]any{"endpoint": "shop.product", "items": []any{map[string]any{"query": "AB1234"}, "AB1234"}}, 400, "invalid_params", "[items[1]]"},
		{"nested value", "", map[string]any{"endpoint": "shop.product", "items": []any{map[string]any{"query": []string{"AB1234"}}}}, 400, "invalid_params", "[items[0]]"},
		{"item breaks a rule", "", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234", "AB1234", "abc")}, 400, "invalid_params", "[items[2].query]"},
		{"item misses a parameter", "", map[string]any{"endpoint": "shop.product", "items": []any{map[string]any{"add_html": true}}}, 400, "invalid_params", "[items[0].query]"},
		{"item has an unknown parameter", "", map[string]any{"endpoint": "shop.product", "items": []any{map[string]any{"query": "AB1234", "color": "red"}}}, 400, "invalid_params", "[items[0].color]"},
		{"reserved parameter", "", map[string]any{"endpoint": "shop.product", "items": []any{map[string]any{"query": "AB1234"}, map[string]any{"query": "AB1234", "render_js": true}}}, 501, "not_implemented", "[items[1].render_js]"},
		{"webhook not a URL", "", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "webhook_url": "hooks"}, 400, "invalid_params", "[webhook_url]"},
		{"webhook ftp", "", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "webhook_url": "ftp://example.com/x"}, 400, "invalid_params", "[webhook_url]"},
		{"webhook with credentials", "", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "webhook_url": "https://u:p@example.com/x"}, 400, "invalid_params", "[webhook_url]"},
		{"webhook port", "", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "webhook_url": "https://example.com:8443/x"}, 400, "invalid_params", "[webhook_url]"},
		{"accepted", "", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234", "NF1234"), "webhook_url": hook}, 201, "", ""},
		{"query parameter", "/api/v1/shop/batch?api_key=" + e.live + "&endpoint=shop.product", map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}, 400, "invalid_params", "[endpoint]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = "/api/v1/shop/batch?api_key=" + e.live
			}
			r := e.do(t, http.MethodPost, path, tt.body)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.raw)
			}
			if r.header.Get("Asa-Cost") != "0" || !strings.HasPrefix(r.header.Get("Asa-Request-Id"), "req_") {
				t.Errorf("headers %v", r.header)
			}
			if tt.code == "" {
				return
			}
			if r.body["error"] != tt.code || (tt.params != "" && fmt.Sprint(r.body["params"]) != tt.params) {
				t.Errorf("error %v params %v, want %s %s: %s", r.body["error"], r.body["params"], tt.code, tt.params, r.raw)
			}
			if strings.HasPrefix(tt.params, "[items[") {
				idx := tt.params[1 : strings.Index(tt.params, "]")+1]
				if !strings.HasPrefix(r.body["message"].(string), idx+": ") {
					t.Errorf("message %q does not start with the item %s", r.body["message"], idx)
				}
			}
		})
	}
	if e.target.hits != 0 {
		t.Errorf("validation fetched %d pages", e.target.hits)
	}
}

// The webhook guard without the test switch: https only, public addresses only.
func TestBatchWebhookURLRules(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true})
	strict, err := fetch.New(fetch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer strict.Close()
	reg, _ := registry.Load(engine.New(), os.DirFS("../engine/testdata"))
	backend := api.NewStoreBackend(e.db, nil)
	srv := api.New(api.Config{}, api.Deps{Registry: reg, Live: e.target, Auth: backend, Ledger: backend, Batches: e.db,
		Webhooks: api.FetchWebhooks{Client: strict}, Log: slog.New(slog.DiscardHandler)})
	for _, tt := range []struct {
		url string
		ok  bool
	}{
		{"https://hooks.example.com/in?x=1", true},
		{"http://hooks.example.com/in", false},
		{"https://127.0.0.1/in", false},
		{"https://localhost/in", false},
		{"https://169.254.169.254/latest", false},
		{"https://[::1]/in", false},
		{"https://10.0.0.8/in", false},
		{"https://2130706433/in", false},
		{"https://metadata.google.internal/", false},
	} {
		body, _ := json.Marshal(map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "webhook_url": tt.url})
		req := httptest.NewRequest(http.MethodPost, "/api/v1/shop/batch?api_key="+e.live, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		if (rec.Code == 201) != tt.ok {
			t.Errorf("%s: %d %s", tt.url, rec.Code, rec.Body)
		}
		if !tt.ok && !strings.Contains(rec.Body.String(), `"params":["webhook_url"]`) {
			t.Errorf("%s: %s", tt.url, rec.Body)
		}
	}
}

func TestBatchLifecycleAndWebhook(t *testing.T) {
	e := startBatches(t, batchOpts{})
	r := e.create(t, e.live, map[string]any{
		"endpoint":    "shop.product",
		"items":       []any{map[string]any{"query": "AB1234", "api_key": "asa_live_leaked"}, map[string]any{"query": "NF1234"}, map[string]any{"query": "hold01"}},
		"webhook_url": e.hooks.srv.URL + "/in?x=1",
	})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id, _ := r.body["id"].(string)
	secret, _ := r.body["webhook_signature_secret"].(string)
	if len(id) != 36 || r.body["status"] != "pending" || r.body["total_count"] != 3.0 || !strings.HasPrefix(secret, "whsec_") ||
		r.body["poll_url"] != "/api/v1/shop/batch/"+id || r.body["created_at"] == nil {
		t.Fatalf("creation response: %s", r.raw)
	}
	// Two items finish; the held one keeps the batch running.
	e.waitItems(t, 2)
	p := e.poll(t, e.live, id)
	if p.body["status"] != "running" || p.body["started_at"] == nil || p.body["completed_at"] != nil || p.body["credits_charged"] != 5.0 ||
		p.body["webhook_delivery_status"] != nil || len(p.body["results"].([]any)) != 2 {
		t.Fatalf("while running: %s", p.raw)
	}
	if strings.Contains(p.raw, "webhook_signature_secret") || strings.Contains(p.raw, "whsec_") || strings.Contains(p.raw, "asa_live_") {
		t.Fatalf("the poll shows a secret or a key: %s", p.raw)
	}
	e.target.hold <- struct{}{}
	h := e.hooks.wait(t)
	if st := e.waitRecorded(t); st != "delivered" {
		t.Fatalf("delivery %s", st)
	}
	final := e.poll(t, e.live, id)
	if final.body["status"] != "complete" || final.body["success_count"] != 2.0 || final.body["failure_count"] != 1.0 || final.body["credits_charged"] != 10.0 ||
		final.body["webhook_delivery_status"] != "delivered" || final.body["webhook_delivered_at"] == nil || final.body["webhook_last_error"] != nil {
		t.Fatalf("final: %s", final.raw)
	}
	// Headers and signatures.
	if h.header.Get("X-ASA-Batch-Id") != id || h.header.Get("X-ASA-Event") != "batch.completed" ||
		h.header.Get("Content-Type") != "application/json" || h.header.Get("X-ASA-Attempt") != "1" {
		t.Errorf("headers %v", h.header)
	}
	if !api.VerifyWebhookSignature(secret, h.body, h.header.Get("X-ASA-Signature")) {
		t.Errorf("X-ASA-Signature does not verify")
	}
	if api.VerifyWebhookSignature(secret, append([]byte(" "), h.body...), h.header.Get("X-ASA-Signature")) ||
		api.VerifyWebhookSignature("whsec_other", h.body, h.header.Get("X-ASA-Signature")) {
		t.Errorf("a changed body or another secret verifies")
	}
	if err := verifyStandard(secret, h.header, h.body, time.Now()); err != nil {
		t.Errorf("Standard Webhooks: %v", err)
	}
	// The body is the poll response as it stood when the batch ended.
	var got, want map[string]any
	if err := json.Unmarshal(h.body, &got); err != nil {
		t.Fatal(err)
	}
	p = e.poll(t, e.live, id)
	_ = json.Unmarshal([]byte(p.raw), &want)
	if got["webhook_delivery_status"] != "pending" || got["webhook_delivered_at"] != nil {
		t.Errorf("webhook body delivery fields: %v %v", got["webhook_delivery_status"], got["webhook_delivered_at"])
	}
	for _, k := range []string{"webhook_delivery_status", "webhook_delivered_at", "webhook_last_error"} {
		delete(got, k)
		delete(want, k)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Errorf("webhook body differs from the poll:\n%s\n%s", gb, wb)
	}
	res := want["results"].([]any)
	first, second := res[0].(map[string]any), res[1].(map[string]any)
	if first["status"] != "ok" || first["http_status"] != 200.0 || first["credits_charged"] != 5.0 ||
		fmt.Sprint(first["input"]) != "map[query:AB1234]" || first["data"].(map[string]any)["id"] != "AB1234" {
		t.Errorf("ok result: %v", first)
	}
	if second["status"] != "failed" || second["http_status"] != 404.0 || second["error"] != "product_not_found" || second["credits_charged"] != 0.0 ||
		second["data"].(map[string]any)["error"] != "product_not_found" {
		t.Errorf("failed result: %v", second)
	}
	if used, _ := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now()); used != 10 {
		t.Errorf("ledger: %d credits, want 10", used)
	}
	if n := e.hooks.count(); n != 1 {
		t.Errorf("%d webhooks, want 1", n)
	}
}

// verifyStandard checks the Standard Webhooks headers as its libraries do.
func verifyStandard(secret string, h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || id == "" {
		return fmt.Errorf("bad id or timestamp %q %q", id, ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return fmt.Errorf("timestamp %s outside tolerance", ts)
	}
	_, want := api.SignWebhook(secret, id, sec, body)
	for _, s := range strings.Fields(sigs) {
		if s == want {
			return nil
		}
	}
	return fmt.Errorf("no matching signature in %q", sigs)
}

func TestBatchVisibilityAndPagination(t *testing.T) {
	e := startBatches(t, batchOpts{})
	qs := make([]string, 25)
	for i := range qs {
		qs[i] = fmt.Sprintf("AB%04d", i)
	}
	r := e.create(t, e.test, map[string]any{"endpoint": "shop.product", "items": itemsOf(qs...)})
	if r.status != 201 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	id := r.body["id"].(string)
	final := e.waitEnd(t, e.test, id)
	if final.body["credits_charged"] != 0.0 || final.body["success_count"] != 25.0 {
		t.Fatalf("sandbox batch: %s", final.raw)
	}
	// The live key of the same workspace sees it; another workspace does not.
	if p := e.poll(t, e.live, id); p.status != 200 {
		t.Errorf("same workspace: %d", p.status)
	}
	other, _ := e.db.CreateWorkspace(context.Background(), "other", store.PlanFree, 0)
	ok, _, _ := e.db.CreateKey(context.Background(), other.ID, false)
	for _, id := range []string{id, "00000000-0000-4000-8000-000000000000", "x"} {
		if p := e.poll(t, ok.String(), id); p.status != 404 || p.body["error"] != "not_found" {
			t.Errorf("other workspace, %s: %d %s", id, p.status, p.raw)
		}
	}
	p := e.poll(t, e.test, id, "offset=10", "limit=10")
	res := p.body["results"].([]any)
	if len(res) != 10 || res[0].(map[string]any)["index"] != 10.0 || p.body["results_next_offset"] != 20.0 || p.body["processed_count"] != 25.0 {
		t.Errorf("page 2: %d results, next %v", len(res), p.body["results_next_offset"])
	}
	p = e.poll(t, e.test, id, "offset=20", "limit=10")
	if len(p.body["results"].([]any)) != 5 || p.body["results_next_offset"] != nil {
		t.Errorf("last page: %s", p.raw)
	}
	if p := e.poll(t, e.test, id); len(p.body["results"].([]any)) != 25 || p.body["results_limit"] != 100.0 {
		t.Errorf("default page: %s", p.raw)
	}
	for _, q := range []string{"limit=0", "limit=1001", "offset=-1", "offset=x", "color=red"} {
		if p := e.poll(t, e.test, id, q); p.status != 400 {
			t.Errorf("%s: %d", q, p.status)
		}
	}
	if p := e.do(t, http.MethodGet, "/api/v1/shop/batch/"+id, nil); p.status != 401 {
		t.Errorf("no key: %d", p.status)
	}
}

func TestBatchIdempotencyKey(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true})
	body := map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234", "AB1235")}
	a := e.create(t, e.live, body, "Idempotency-Key", "order-77")
	b := e.create(t, e.live, body, "Idempotency-Key", "order-77")
	if a.status != 201 || b.status != 200 || a.body["id"] != b.body["id"] || b.header.Get("Idempotent-Replayed") != "true" ||
		a.body["webhook_signature_secret"] != b.body["webhook_signature_secret"] {
		t.Fatalf("replay: %s / %s", a.raw, b.raw)
	}
	c := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}, "Idempotency-Key", "order-77")
	if c.status != 409 || c.body["error"] != "conflict" {
		t.Fatalf("other body: %d %s", c.status, c.raw)
	}
	d := e.create(t, e.live, body, "Idempotency-Key", "order-78")
	if d.status != 201 || d.body["id"] == a.body["id"] {
		t.Fatalf("another key: %s", d.raw)
	}
	if n := e.create(t, e.live, body); n.body["id"] == a.body["id"] {
		t.Fatal("no key: same batch")
	}
	if r := e.create(t, e.live, body, "Idempotency-Key", strings.Repeat("k", 256)); r.status != 400 {
		t.Fatalf("long key: %d", r.status)
	}
}

// TestWebhookRetrySchedule drives the delivery loop on a fake clock against a receiver that always
// fails: attempts at +0, then 1, 2, 5, 15 and 60 minutes after the one before (+1, +3, +8, +23
// and +83 minutes), each next attempt persisted before it falls due, then failed.
func TestWebhookRetrySchedule(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)}
	e := startBatches(t, batchOpts{clock: clock, noLoop: true})
	e.hooks.status = func(n int) (int, http.Header) { return 500, nil }
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "webhook_url": e.hooks.srv.URL})
	id, secret := r.body["id"].(string), r.body["webhook_signature_secret"].(string)
	ctx := context.Background()
	if n := e.srv.RunQueuedItems(ctx); n != 1 {
		t.Fatalf("ran %d items", n)
	}
	start := clock.Now()
	want := []time.Duration{0, time.Minute, 3 * time.Minute, 8 * time.Minute, 23 * time.Minute, 83 * time.Minute}
	if got := api.WebhookAttemptOffsets(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("computed schedule %v, want %v", got, want)
	}
	var attempts []time.Duration
	var first hook
	for step := time.Duration(0); step <= 3*time.Hour; step += 10 * time.Second {
		if n := e.srv.DeliverDueWebhooks(ctx); n > 0 {
			attempts = append(attempts, clock.Now().Sub(start))
			h := <-e.hooks.ch
			if first.body == nil {
				first = h
			}
			if !bytes.Equal(h.body, first.body) || h.header.Get("webhook-id") != first.header.Get("webhook-id") {
				t.Errorf("attempt %d changed the body or the event id", len(attempts))
			}
			if h.header.Get("X-ASA-Attempt") != strconv.Itoa(len(attempts)) || !api.VerifyWebhookSignature(secret, h.body, h.header.Get("X-ASA-Signature")) {
				t.Errorf("attempt %d: headers %v", len(attempts), h.header)
			}
			if err := verifyStandard(secret, h.header, h.body, clock.Now()); err != nil {
				t.Errorf("attempt %d: %v", len(attempts), err)
			}
			p := e.poll(t, e.live, id)
			wantStatus := "retrying"
			if len(attempts) == 6 {
				wantStatus = "failed"
			}
			if p.body["webhook_delivery_status"] != wantStatus || p.body["webhook_last_error"] != "the receiver answered 500" || p.body["webhook_delivered_at"] != nil {
				t.Errorf("after attempt %d: %v %v", len(attempts), p.body["webhook_delivery_status"], p.body["webhook_last_error"])
			}
			// The next attempt is stored when this one is recorded: the schedule survives a restart.
			d, err := e.db.WebhookDelivery(ctx, id)
			if n := len(attempts); err != nil || d.Attempts != n ||
				(n < len(want) && !d.NextAttemptAt.Equal(start.Add(want[n]))) || (n == len(want) && !d.NextAttemptAt.IsZero()) {
				t.Errorf("after attempt %d: stored %+v %v", n, d, err)
			}
		}
		clock.Advance(10 * time.Second)
	}
	if fmt.Sprint(attempts) != fmt.Sprint(want) {
		t.Fatalf("attempts at %v, want %v", attempts, want)
	}
	atts, err := e.db.WebhookAttempts(ctx, id)
	if err != nil || len(atts) != 6 || atts[5].Status != 500 || atts[0].Response != "answer 1" {
		t.Fatalf("delivery log: %+v %v", atts, err)
	}
}

// A 503 with Retry-After longer than the schedule's delay pushes the next attempt; a 3xx is a
// failure and its Location is never followed; a success ends the retries.
func TestWebhookRetryAfterAndRedirects(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)}
	e := startBatches(t, batchOpts{clock: clock, noLoop: true})
	e.hooks.status = func(n int) (int, http.Header) {
		switch n {
		case 1:
			return 503, http.Header{"Retry-After": {"600"}}
		case 2:
			return 302, http.Header{"Location": {e.hooks.srv.URL + "/elsewhere"}}
		}
		return 200, nil
	}
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "webhook_url": e.hooks.srv.URL + "/in"})
	id := r.body["id"].(string)
	ctx := context.Background()
	e.srv.RunQueuedItems(ctx)
	if e.srv.DeliverDueWebhooks(ctx) != 1 {
		t.Fatal("no first attempt")
	}
	<-e.hooks.ch
	clock.Advance(9 * time.Minute)
	if e.srv.DeliverDueWebhooks(ctx) != 0 {
		t.Fatal("Retry-After: 600 not honoured")
	}
	clock.Advance(time.Minute)
	if e.srv.DeliverDueWebhooks(ctx) != 1 {
		t.Fatal("no attempt after Retry-After")
	}
	<-e.hooks.ch
	p := e.poll(t, e.live, id)
	if p.body["webhook_delivery_status"] != "retrying" || !strings.Contains(fmt.Sprint(p.body["webhook_last_error"]), "302") {
		t.Fatalf("after the redirect: %s", p.raw)
	}
	clock.Advance(2 * time.Minute)
	if e.srv.DeliverDueWebhooks(ctx) != 1 {
		t.Fatal("no third attempt")
	}
	<-e.hooks.ch
	if e.hooks.count() != 3 {
		t.Fatalf("%d requests", e.hooks.count())
	}
	p = e.poll(t, e.live, id)
	if p.body["webhook_delivery_status"] != "delivered" || p.body["webhook_delivered_at"] == nil || p.body["webhook_last_error"] != nil {
		t.Fatalf("delivered: %s", p.raw)
	}
	clock.Advance(2 * time.Hour)
	if e.srv.DeliverDueWebhooks(ctx) != 0 {
		t.Fatal("a delivered webhook was sent again")
	}
	e.hooks.mu.Lock()
	defer e.hooks.mu.Unlock()
	for _, h := range e.hooks.got {
		if h.path != "/in" {
			t.Errorf("a request to %s: the redirect was followed", h.path)
		}
	}
}

// TestBatchFairness: with every slot of the budget held by a big batch, a one-item batch created
// later runs as soon as one slot frees, before the big batch's queued items.
func TestBatchFairness(t *testing.T) {
	e := startBatches(t, batchOpts{cfg: api.BatchConfig{Concurrency: 2}})
	qs := make([]string, 20)
	for i := range qs {
		qs[i] = fmt.Sprintf("HOLD%02d", i)
	}
	big := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf(qs...)}).body["id"].(string)
	e.waitFetches(t, 2)
	small := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}).body["id"].(string)
	e.target.hold <- struct{}{} // one slot frees
	final := e.waitEnd(t, e.live, small)
	if final.body["status"] != "complete" || final.body["success_count"] != 1.0 {
		t.Fatalf("small: %s", final.raw)
	}
	b := e.poll(t, e.live, big)
	if b.body["processed_count"] != 1.0 || b.body["status"] != "running" {
		t.Fatalf("big batch advanced past its fair share: %s", b.raw)
	}
	// The budget is the worker's own: the key's limits stay free for synchronous requests.
	if r := e.do(t, http.MethodGet, "/api/v1/shop/product?api_key="+e.live+"&query=AB1234", nil); r.status != 200 || r.header.Get("Asa-Concurrency") != "1/50" {
		t.Fatalf("sync request during a batch: %d %s %s", r.status, r.header.Get("Asa-Concurrency"), r.raw)
	}
	close(e.target.hold)
	if final := e.waitEnd(t, e.live, big); final.body["status"] != "complete" {
		t.Fatalf("big: %s", final.raw)
	}
}

// TestBatchRecoversAfterCrash: items left running by a process that died are run again at the
// next start, billed once, and the batch's webhook is sent.
func TestBatchRecoversAfterCrash(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true})
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234", "AB1235", "NF1234"), "webhook_url": e.hooks.srv.URL})
	id := r.body["id"].(string)
	ctx := context.Background()
	// A previous process claimed two items and completed one, then died.
	claimed, lease := time.Now(), time.Hour
	if onPostgres(t) {
		// Other nodes may share a PostgreSQL database, so an owner that is not this process is
		// taken over only once its lease expires: the dead process's expired an hour ago.
		claimed = claimed.Add(-2 * time.Hour)
	}
	got, err := e.db.ClaimItems(ctx, "dead-boot", 2, claimed, lease)
	if err != nil || len(got) != 2 {
		t.Fatal(got, err)
	}
	if _, err := e.db.CompleteItem(ctx, store.ItemOutcome{Item: got[0], Owner: "dead-boot", OK: true, HTTPStatus: 200, Data: []byte(`{"id":"AB1234"}`), Credits: 5}); err != nil {
		t.Fatal(err)
	}
	// This process starts its worker: the dead process's lease is requeued at once (on SQLite,
	// where this process is the only one, even before it expires).
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- e.srv.RunBatches(wctx) }()
	defer func() { cancel(); <-done }()
	e.hooks.wait(t)
	final := e.poll(t, e.live, id)
	if final.body["status"] != "complete" || final.body["success_count"] != 2.0 || final.body["credits_charged"] != 10.0 {
		t.Fatalf("%s", final.raw)
	}
	if used, _ := e.db.CreditsUsed(ctx, e.ws.ID, time.Now()); used != 10 {
		t.Fatalf("used %d", used)
	}
	if n := len(e.fetched); n != 2 {
		t.Fatalf("target saw %d requests, want 2 (the item completed before the crash is not run again)", n)
	}
}

// TestBatchShutdownReleasesItems: a shutdown lets running items finish within the drain timeout and
// releases the others, which the next start runs.
func TestBatchShutdownReleasesItems(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true, cfg: api.BatchConfig{DrainTimeout: 50 * time.Millisecond}})
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("HOLD01", "AB1234")})
	id := r.body["id"].(string)
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.srv.RunBatches(wctx) }()
	e.waitItems(t, 1)
	e.waitFetches(t, 2) // the held item is running
	cancel()
	<-done
	p := e.poll(t, e.live, id)
	if p.body["processed_count"] != 1.0 || p.body["status"] != "running" {
		t.Fatalf("after shutdown: %s", p.raw)
	}
	close(e.target.hold)
	wctx, cancel = context.WithCancel(context.Background())
	go func() { done <- e.srv.RunBatches(wctx) }()
	defer func() { cancel(); <-done }()
	if final := e.waitEnd(t, e.live, id); final.body["status"] != "complete" || final.body["success_count"] != 2.0 {
		t.Fatalf("after the restart: %s", final.raw)
	}
}

func TestBatchOverAllowance(t *testing.T) {
	e := startBatches(t, batchOpts{plan: store.PlanCustom, credits: 12})
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1230", "AB1231", "AB1232", "AB1233")})
	final := e.waitEnd(t, e.live, r.body["id"].(string))
	if final.body["status"] != "complete" || final.body["success_count"] != 2.0 || final.body["failure_count"] != 2.0 || final.body["credits_charged"] != 10.0 {
		t.Fatalf("%s", final.raw)
	}
	for _, x := range final.body["results"].([]any) {
		m := x.(map[string]any)
		if m["status"] == "failed" && (m["error"] != "insufficient_credits" || m["http_status"] != 402.0) {
			t.Errorf("failed item: %v", m)
		}
	}
	if r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}); r.status != 402 {
		t.Fatalf("a batch when the allowance is spent: %d %s", r.status, r.raw)
	}
	if r := e.create(t, e.test, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}); r.status != 201 {
		t.Fatalf("sandbox batches are free: %d %s", r.status, r.raw)
	}
}

// A batch of items that all fail ends failed.
func TestBatchAllFailed(t *testing.T) {
	e := startBatches(t, batchOpts{})
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("NF1234", "BL1234", "EM1234")})
	final := e.waitEnd(t, e.live, r.body["id"].(string))
	if final.body["status"] != "failed" {
		t.Fatalf("%s", final.raw)
	}
	codes := []string{}
	for _, x := range final.body["results"].([]any) {
		codes = append(codes, x.(map[string]any)["error"].(string))
	}
	if fmt.Sprint(codes) != "[product_not_found target_unreachable extraction_failed]" || final.body["credits_charged"] != 0.0 {
		t.Fatalf("%v %s", codes, final.raw)
	}
}

// TestBatchItemWarningsLogged: what a batch item's successful run left out reaches the log with its
// batch, as a synchronous request's does with its request id.
func TestBatchItemWarningsLogged(t *testing.T) {
	e := startBatches(t, batchOpts{})
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("WP1234")})
	id := r.body["id"].(string)
	if final := e.waitEnd(t, e.live, id); final.body["status"] != "complete" {
		t.Fatalf("%s", final.raw)
	}
	for line := range strings.Lines(e.logs.String()) {
		if strings.Contains(line, `"msg":"run warnings"`) && strings.Contains(line, `"batch":"`+id+`"`) && strings.Contains(line, "field price") {
			return
		}
	}
	t.Errorf("no run warnings logged for batch %s:\n%s", id, e.logs.String())
}

// universal.get items go through the universal endpoint's checks and run (here from its sandbox).
func TestBatchUniversal(t *testing.T) {
	e := startBatches(t, batchOpts{})
	post := func(body any) reply {
		return e.do(t, http.MethodPost, "/api/v1/universal/batch?api_key="+e.test, body)
	}
	r := post(map[string]any{"endpoint": "universal.get", "items": []any{map[string]any{"url": "https://shop.example.com/p/steel-kettle"}, map[string]any{"url": "ftp://x"}}})
	if r.status != 400 || fmt.Sprint(r.body["params"]) != "[items[1].url]" {
		t.Fatalf("bad url: %d %s", r.status, r.raw)
	}
	r = post(map[string]any{"endpoint": "universal.get", "items": []any{
		map[string]any{"url": "https://shop.example.com/p/steel-kettle"},
		map[string]any{"url": "https://news.example.com/2024/05/harbour-bridge", "parse": "text"},
	}})
	if r.status != 201 || r.body["poll_url"] != "/api/v1/universal/batch/"+r.body["id"].(string) {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	final := e.waitEnd(t, e.test, r.body["id"].(string))
	if final.body["status"] != "complete" || final.body["success_count"] != 2.0 || final.body["credits_charged"] != 0.0 {
		t.Fatalf("%s", final.raw)
	}
	first := final.body["results"].([]any)[0].(map[string]any)
	if d, _ := first["data"].(map[string]any); d == nil || d["url"] != "https://shop.example.com/p/steel-kettle" {
		t.Fatalf("universal result: %v", first)
	}
}

// TestBatchAcrossNodes: two nodes on one PostgreSQL database run the same batch with their own
// workers: every item runs once and has one result, each success is billed once, and one webhook is
// sent, by one of them.
func TestBatchAcrossNodes(t *testing.T) {
	if !onPostgres(t) {
		t.Skip("nodes share a database on PostgreSQL only")
	}
	cfg := api.BatchConfig{Concurrency: 4}
	a := startBatches(t, batchOpts{cfg: cfg})
	b := startBatches(t, batchOpts{cfg: cfg, join: a})
	ids := make([]string, 60)
	for i := range ids {
		ids[i] = fmt.Sprintf("AB%04d", i)
	}
	ids[7] = "NF0007"
	r := a.create(t, a.live, map[string]any{"endpoint": "shop.product", "items": itemsOf(ids...), "webhook_url": a.hooks.srv.URL})
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	id := r.body["id"].(string)
	a.hooks.wait(t)
	final := b.poll(t, b.live, id, "limit=1000")
	if final.body["status"] != "complete" || final.body["success_count"] != 59.0 || final.body["credits_charged"] != 295.0 {
		t.Fatalf("%s", final.raw)
	}
	if used, _ := a.db.CreditsUsed(context.Background(), a.ws.ID, time.Now()); used != 295 {
		t.Fatalf("credits used %d, want 5 x 59", used)
	}
	if n := len(a.fetched) + len(b.fetched); n != len(ids) {
		t.Fatalf("the target saw %d requests (node a %d, node b %d), want each item once: %d", n, len(a.fetched), len(b.fetched), len(ids))
	}
	if n := a.hooks.count(); n != 1 {
		t.Fatalf("%d webhooks, want 1", n)
	}
	t.Logf("items run by node a: %d, by node b: %d", len(a.fetched), len(b.fetched))
}

// TestBatchMistypedEndpoint: an endpoint one or two edits from a real one is refused naming it.
func TestBatchMistypedEndpoint(t *testing.T) {
	e := startBatches(t, batchOpts{})
	r := e.do(t, http.MethodPost, "/api/v1/shop/batch?api_key="+e.live, map[string]any{"endpoint": "shop.prodcut", "items": itemsOf("AB1234")})
	if r.status != 400 || r.body["error"] != "invalid_params" || !strings.HasSuffix(fmt.Sprint(r.body["message"]), "did you mean shop.product?") {
		t.Fatalf("%d %s", r.status, r.raw)
	}
}
