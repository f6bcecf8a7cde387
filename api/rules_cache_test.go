package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"asa/api"
	"asa/engine"
	"asa/engine/fetch"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/store"
)

// cacheEnv serves the test shop (live: the target simulator) and universal/get (live: a loopback
// site through the real outbound client; sandbox: the embedded fixtures) with the response cache in
// a real SQLite file, the batch worker, and a clock the test moves.
type cacheEnv struct {
	base   string
	db     *store.DB
	target *target
	site   *site
	live   string
	test   string
	other  string // a live key of another workspace
	ws     store.Workspace
	ended  chan string
	clock  *fakeClock
}

// routed sends the loopback site's URLs to the real client and the rest to the shop simulator.
type routed struct {
	site   *site
	client *fetch.Client
	shop   *target
}

func (r routed) Fetch(ctx context.Context, req *engine.Request) (*engine.Response, error) {
	if strings.HasPrefix(req.URL, r.site.srv.URL) {
		return r.client.Fetch(ctx, req)
	}
	return r.shop.Fetch(ctx, req)
}

func (r routed) CheckURL(raw string) (string, error) { return r.client.CheckURL(raw) }

func startCache(t testing.TB, credits int, cfg api.Config) *cacheEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// Mid-month: moving the clock never crosses into another month's credits.
	now := time.Now().UTC()
	e := &cacheEnv{target: &target{hold: make(chan struct{})}, ended: make(chan string, 16),
		clock: &fakeClock{t: time.Date(now.Year(), now.Month(), 15, 12, 0, 0, 0, time.UTC)}}
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "asa.db"))
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if e.ws, err = db.CreateWorkspace(ctx, "acme", store.PlanPro, credits); err != nil {
		t.Fatal(err)
	}
	live, _, err := db.CreateKey(ctx, e.ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	test, _, err := db.CreateKey(ctx, e.ws.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	ws2, err := db.CreateWorkspace(ctx, "other", store.PlanPro, credits)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := db.CreateKey(ctx, ws2.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	e.live, e.test, e.other = live.String(), test.String(), other.String()
	reg, diags := registry.Load(engine.New(), os.DirFS("../engine/testdata"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb, err := fixture.NewSandbox(os.DirFS("testdata/fixtures"), reg)
	if err != nil {
		t.Fatal(err)
	}
	e.site = articleSite(t)
	c, err := fetch.New(fetch.Options{AllowPrivateNetwork: true, AllowPorts: []int{sitePort(e.site)}, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	backend := api.NewStoreBackend(db, e.clock.Now)
	cfg.RequestTimeout, cfg.ShutdownTimeout = 10*time.Second, 5*time.Second
	srv := api.New(cfg, api.Deps{Registry: reg, Live: routed{site: e.site, client: c, shop: e.target}, Sandbox: sb,
		Auth: backend, Ledger: backend, Cache: db, Batches: db, Now: e.clock.Now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Batch: api.BatchConfig{Poll: 20 * time.Millisecond}})
	srv.OnItemDone(func(batch string, ended bool) {
		if ended {
			e.ended <- batch
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.base = "http://" + ln.Addr().String()
	served, worked := make(chan error, 1), make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	go func() { worked <- srv.RunBatches(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		<-worked
		c.Close()
		http.DefaultClient.CloseIdleConnections()
		db.Close()
	})
	return e
}

// articleSite is newSite's article and not-found page, for benchmarks as well as tests.
func articleSite(t testing.TB) *site {
	s := &site{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path != "/article" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("<html><head><title>Not found</title></head><body><p>Gone.</p></body></html>"))
			return
		}
		_, _ = w.Write([]byte(articlePage))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func sitePort(s *site) int {
	_, port, _ := net.SplitHostPort(s.srv.Listener.Addr().String())
	n := 0
	for _, c := range port {
		n = n*10 + int(c-'0')
	}
	return n
}

func (e *cacheEnv) get(t testing.TB, path string, hdr ...string) reply {
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

func (e *cacheEnv) post(t testing.TB, path, body string) reply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.base+path, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
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

func (e *cacheEnv) credits(t testing.TB) int {
	t.Helper()
	used, err := e.db.CreditsUsed(context.Background(), e.ws.ID, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return used
}

func uget(key string, kv ...string) string {
	q := url.Values{"api_key": {key}}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return "/api/v1/universal/get?" + q.Encode()
}

const articleRules = `{"headline": "//h1", "first": {"xpath": "//article/p[1]", "transform": "truncate(value, 20)"},
 "paragraphs": {"type": "list<object>", "xpath": "//article/p", "fields": {"words": {"xpath": ".", "transform": "len(split(normSpace(value), ' '))", "type": "int"}}},
 "missing": {"select": [{"xpath": "//h5"}, {"const": "none"}]}}`

// TestExtractRules: universal/get with extract_rules over real HTTP, live and sandbox, in batches;
// refused rule sets are 400 invalid_params with the path of each problem, before any fetch.
func TestExtractRules(t *testing.T) {
	e := startCache(t, 100000, api.Config{})
	page := e.site.url("/article")

	r := e.get(t, uget(e.live, "url", page, "extract_rules", articleRules))
	if r.status != 200 || r.header.Get("Asa-Cost") != "5" {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	ext, _ := r.body["extracted"].(map[string]any)
	paras, _ := ext["paragraphs"].([]any)
	if ext["headline"] != "Harbour Bridge Reopens" || ext["first"] == nil || len(paras) != 3 || ext["missing"] != "none" || r.body["title"] == nil {
		t.Errorf("extracted: %s", r.raw)
	}
	if w, _ := paras[0].(map[string]any)["words"].(float64); w < 20 {
		t.Errorf("words of the first paragraph: %v", paras[0])
	}
	if !strings.HasSuffix(strings.TrimSpace(r.raw), `"missing":"none"}}`) {
		t.Errorf("extracted is not last, or its keys are not in the rules' order: %s", r.raw[max(0, len(r.raw)-200):])
	}

	// The same rules again are not compiled again.
	compiled := func() string {
		m := e.get(t, "/metrics").raw
		i := strings.Index(m, "\nasa_extract_rules_compiled_total ")
		return strings.Fields(m[i:])[1]
	}
	before := compiled()
	if r := e.get(t, uget(e.live, "url", page, "extract_rules", articleRules)); r.status != 200 || compiled() != before {
		t.Errorf("the same rules: %d, compiled %s then %s", r.status, before, compiled())
	}
	if r := e.get(t, uget(e.live, "url", page, "extract_rules", `{"other": "//h1"}`)); r.status != 200 || compiled() == before {
		t.Errorf("new rules: %d, compiled %s then %s", r.status, before, compiled())
	}

	// parse=html reads whatever page the target answered, and extract_rules with it.
	r = e.get(t, uget(e.live, "url", e.site.url("/missing"), "parse", "html", "extract_rules", `{"t": "//title"}`))
	if r.status != 200 || r.body["extracted"].(map[string]any)["t"] != "Not found" {
		t.Errorf("parse=html on a 404: %d %s", r.status, r.raw)
	}

	// A required field the page lacks fails the request as a sitedef's would, unbilled.
	r = e.get(t, uget(e.live, "url", page, "extract_rules", `{"price": {"xpath": "//span[@class='price']", "required": true}}`))
	if r.status != 502 || r.body["error"] != "extraction_failed" || r.header.Get("Asa-Cost") != "0" {
		t.Errorf("required field missing: %d %s", r.status, r.raw)
	}

	hits := e.site.hits.Load()
	for _, tc := range []struct{ name, rules, path, msg string }{
		{"bad xpath", `{"items": {"type": "list<object>", "xpath": "//li", "fields": {"name": {"xpath": "./a["}}}}`, "items.fields.name.xpath", "bad XPath"},
		{"unknown key", `{"title": {"xpaht": "//h1"}}`, "title.xpaht", "unknown key"},
		{"bad expression", `{"n": {"expr": "len(", "type": "int"}}`, "n.expr", "bad expression"},
		{"not JSON", `{"a": `, "a", "not valid JSON"},
		{"too large", `{"a": "` + strings.Repeat("x", 17000) + `"}`, "", "over the limit of 16384"},
		{"quadratic", `{"a": "//p[//h1]"}`, "a", "absolute path inside a predicate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.get(t, uget(e.live, "url", page, "extract_rules", tc.rules))
			if r.status != 400 || r.body["error"] != "invalid_params" || r.header.Get("Asa-Cost") != "0" {
				t.Fatalf("%d %s", r.status, r.raw)
			}
			if ps, _ := r.body["params"].([]any); len(ps) != 1 || ps[0] != "extract_rules" {
				t.Errorf("params: %v", r.body["params"])
			}
			errs, _ := r.body["errors"].([]any)
			if len(errs) == 0 {
				t.Fatalf("no errors: %s", r.raw)
			}
			first := errs[0].(map[string]any)
			if first["path"] != tc.path || !strings.Contains(first["message"].(string), tc.msg) || !strings.Contains(r.body["message"].(string), tc.msg) {
				t.Errorf("got %v; want %q at %q", first, tc.msg, tc.path)
			}
		})
	}
	if e.site.hits.Load() != hits {
		t.Error("a refused rule set fetched the page")
	}

	// Sandbox keys: the rules run on the fixture page, unbilled.
	r = e.get(t, uget(e.test, "url", "https://news.example.com/2024/05/harbour-bridge", "extract_rules", `{"h": "//h1", "site": {"xpath": "//meta[@property='og:site_name']/@content"}}`))
	if r.status != 200 || r.header.Get("Asa-Cost") != "0" || r.header.Get("Asa-Sandbox-Case") == "" {
		t.Fatalf("sandbox: %d %s", r.status, r.raw)
	}
	if ext := r.body["extracted"].(map[string]any); ext["h"] == nil || ext["site"] != "The Example Times" {
		t.Errorf("sandbox extracted: %v", ext)
	}

	// Batches take the rules as a JSON object (or its text) in an item, and check them before
	// accepting the batch.
	bad := e.post(t, "/api/v1/universal/batch?api_key="+e.test, `{"endpoint":"universal.get","items":[{"url":"https://news.example.com/a","extract_rules":{"h":{"xpath":"//h1["}}}]}`)
	if bad.status != 400 || !strings.Contains(bad.raw, `"path":"h.xpath"`) || !strings.Contains(bad.raw, "items[0]") {
		t.Errorf("bad rules in an item: %d %s", bad.status, bad.raw)
	}
	bad = e.post(t, "/api/v1/shop/batch?api_key="+e.test, `{"endpoint":"shop.product","items":[{"query":"SB0001","max_age":60}]}`)
	if bad.status != 400 || !strings.Contains(bad.raw, "items[0].max_age") {
		t.Errorf("max_age in an item: %d %s", bad.status, bad.raw)
	}
	created := e.post(t, "/api/v1/universal/batch?api_key="+e.test, `{"endpoint":"universal.get","items":[
		{"url":"https://news.example.com/2024/05/harbour-bridge","extract_rules":{"h":"//h1"}},
		{"url":"https://news.example.com/2024/05/harbour-bridge","extract_rules":"{\"t\": \"//title\"}"}]}`)
	if created.status != 201 {
		t.Fatalf("batch: %d %s", created.status, created.raw)
	}
	id := created.body["id"].(string)
	select {
	case <-e.ended:
	case <-time.After(20 * time.Second):
		t.Fatal("the batch did not end")
	}
	b := e.get(t, "/api/v1/universal/batch/"+id+"?api_key="+e.test)
	results, _ := b.body["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("results: %s", b.raw)
	}
	for i, want := range []string{"h", "t"} {
		res := results[i].(map[string]any)
		data, _ := res["data"].(map[string]any)
		ext, _ := data["extracted"].(map[string]any)
		if res["status"] != "ok" || ext[want] == nil {
			t.Errorf("item %d: %v", i, res)
		}
		if in, _ := json.Marshal(res["input"]); !strings.Contains(string(in), "extract_rules") {
			t.Errorf("item %d input: %s", i, in)
		}
	}
}

// TestResponseCacheOverHTTP: max_age on a sitedef endpoint and on universal/get; hits cost one
// credit each under their own charge, misses are fetched and stored, max_age=0 refreshes, entries
// are per workspace and per key mode, errors are never stored, and bad values are 400.
func TestResponseCacheOverHTTP(t *testing.T) {
	e := startCache(t, 100000, api.Config{})
	path := func(key string, kv ...string) string {
		q := url.Values{"api_key": {key}}
		for i := 0; i+1 < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return "/api/v1/shop/product?" + q.Encode()
	}
	check := func(r reply, cache, cost string) {
		t.Helper()
		if r.status != 200 || r.header.Get("Asa-Cache") != cache || r.header.Get("Asa-Cost") != cost {
			t.Fatalf("want 200 %s costing %s; got %d %q costing %q: %s", cache, cost, r.status, r.header.Get("Asa-Cache"), r.header.Get("Asa-Cost"), r.raw)
		}
		if _, err := time.Parse(time.RFC3339, r.header.Get("Asa-Fetched-At")); err != nil {
			t.Errorf("Asa-Fetched-At %q: %v", r.header.Get("Asa-Fetched-At"), err)
		}
	}
	plain := e.get(t, path(e.live, "query", "AB1234"))
	if plain.status != 200 || plain.header.Get("Asa-Cache") != "" || plain.header.Get("Asa-Fetched-At") != "" {
		t.Fatalf("without max_age: %d %v", plain.status, plain.header)
	}
	fetches := e.targetHits()
	first := e.get(t, path(e.live, "query", "AB1234", "max_age", "60"))
	check(first, "miss", "5")
	// The same request, normalised: lower case, the default domain spelt out, the key in a header.
	hit := e.get(t, "/api/v1/shop/product?domain=us&max_age=60&query=ab1234", "X-API-Key", e.live)
	check(hit, "hit", "1")
	if hit.raw != first.raw || hit.header.Get("Asa-Fetched-At") != first.header.Get("Asa-Fetched-At") ||
		hit.header.Get("Asa-Extractor-Version") != "shop@1.2.3" || hit.header.Get("Asa-Source-Status") != "200" || hit.header.Get("Asa-Attempts") != "0" {
		t.Errorf("hit: %v %s", hit.header, hit.raw)
	}
	if hit.header.Get("Asa-Request-Id") == first.header.Get("Asa-Request-Id") {
		t.Error("a hit has the request id of the response it repeats")
	}
	if n := e.targetHits() - fetches; n != 1 {
		t.Errorf("%d fetches for a miss and a hit; want 1", n)
	}
	// Another workspace, and the sandbox of the same workspace, never see the entry.
	check(e.get(t, path(e.other, "query", "AB1234", "max_age", "60")), "miss", "5")
	sb := e.get(t, path(e.test, "query", "SB0001", "max_age", "60"))
	check(sb, "miss", "0")
	sbHit := e.get(t, path(e.test, "query", "SB0001", "max_age", "60"))
	check(sbHit, "hit", "0")
	if sbHit.header.Get("Asa-Sandbox-Case") != "basic" || sbHit.raw != sb.raw {
		t.Errorf("sandbox hit: %v", sbHit.header)
	}
	check(e.get(t, path(e.test, "query", "SB0001", "max_age", "60", "sandbox_case", "basic")), "miss", "0")

	// Older than max_age: fetched again; max_age=0 always fetches and refreshes the entry.
	e.clock.Advance(61 * time.Second)
	fetches = e.targetHits()
	check(e.get(t, path(e.live, "query", "AB1234", "max_age", "60")), "miss", "5")
	check(e.get(t, path(e.live, "query", "AB1234", "max_age", "120")), "hit", "1")
	e.clock.Advance(10 * time.Second)
	fresh := e.get(t, path(e.live, "query", "AB1234", "max_age", "0"))
	check(fresh, "miss", "5")
	again := e.get(t, path(e.live, "query", "AB1234", "max_age", "5"))
	check(again, "hit", "1")
	if again.header.Get("Asa-Fetched-At") != fresh.header.Get("Asa-Fetched-At") || fresh.header.Get("Asa-Fetched-At") == first.header.Get("Asa-Fetched-At") {
		t.Errorf("max_age=0 did not refresh the entry: %s then %s", fresh.header.Get("Asa-Fetched-At"), again.header.Get("Asa-Fetched-At"))
	}
	if n := e.targetHits() - fetches; n != 2 {
		t.Errorf("%d fetches; want 2 (the expired entry and max_age=0)", n)
	}

	// Errors are not stored.
	fetches = e.targetHits()
	for range 2 {
		if r := e.get(t, path(e.live, "query", "NF0001", "max_age", "60")); r.status != 404 || r.header.Get("Asa-Cache") != "miss" {
			t.Errorf("not found: %d %q", r.status, r.header.Get("Asa-Cache"))
		}
	}
	if n := e.targetHits() - fetches; n != 2 {
		t.Errorf("an error was answered from the cache: %d fetches", n)
	}

	// universal/get: the rules are part of the key.
	page := e.site.url("/article")
	check(e.get(t, uget(e.live, "url", page, "max_age", "600", "extract_rules", `{"h": "//h1"}`)), "miss", "5")
	u := e.get(t, uget(e.live, "url", page, "max_age", "600", "extract_rules", `{"h": "//h1"}`))
	check(u, "hit", "1")
	if u.body["extracted"].(map[string]any)["h"] != "Harbour Bridge Reopens" || u.header.Get("Asa-Extractor-Version") != api.UniversalExtractorVersion {
		t.Errorf("universal hit: %v %s", u.header, u.raw)
	}
	check(e.get(t, uget(e.live, "url", page, "max_age", "600", "extract_rules", `{"t": "//title"}`)), "miss", "5")
	check(e.get(t, uget(e.test, "url", "https://news.example.com/2024/05/harbour-bridge", "max_age", "600")), "miss", "0")
	check(e.get(t, uget(e.test, "url", "https://news.example.com/2024/05/harbour-bridge", "max_age", "600")), "hit", "0")

	// Bad values, on both kinds of endpoint.
	for _, v := range []string{"-1", "1.5", "abc", "", " 5", "2592001"} {
		for _, p := range []string{path(e.live, "query", "AB1234", "max_age", v), uget(e.live, "url", page, "max_age", v)} {
			r := e.get(t, p)
			if ps, _ := r.body["params"].([]any); r.status != 400 || r.body["error"] != "invalid_params" || len(ps) != 1 || ps[0] != "max_age" {
				t.Errorf("max_age=%q: %d %s", v, r.status, r.raw)
			}
		}
	}
	if r := e.get(t, path(e.live, "query", "AB1234")+"&max_age=1&max_age=2"); r.status != 400 {
		t.Errorf("max_age twice: %d", r.status)
	}

	// Billing: every hit is a charge of its own, of one credit.
	want := 5*6 + 1*4 // misses and hits of the live key above
	if got := e.credits(t); got != want {
		t.Errorf("credits used %d, want %d", got, want)
	}
	m := e.get(t, "/metrics")
	if !strings.Contains(m.raw, `asa_cache_requests_total{result="hit"} 6`) {
		t.Errorf("metrics: %s", m.raw[strings.Index(m.raw, "asa_cache"):])
	}
}

// TestResponseCacheBounds: an answer larger than the entry cap is served but not kept, the total is
// kept under its cap by evicting the oldest entries, and a hit needs its one credit.
func TestResponseCacheBounds(t *testing.T) {
	e := startCache(t, 11, api.Config{CacheMaxEntry: 2048, CacheMaxTotal: 300})
	get := func(q string) reply {
		return e.get(t, "/api/v1/shop/product?max_age=600&query="+q, "X-API-Key", e.live)
	}
	r := get("AB0001")
	if r.status != 200 || len(r.raw) < 100 || len(r.raw) > 150 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	// The first costs 5, the hit 1, and with 5 left one more miss ends the allowance.
	if r := get("AB0001"); r.header.Get("Asa-Cache") != "hit" {
		t.Fatalf("second request: %q", r.header.Get("Asa-Cache"))
	}
	for _, q := range []string{"AB0002", "AB0003", "AB0004", "AB0005"} {
		_ = e.get(t, "/api/v1/shop/product?max_age=600&query="+q, "X-API-Key", e.test)
	}
	n, size, err := e.db.CacheSize(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if size > 300 || n != 2 {
		t.Errorf("%d entries of %d bytes; the cap of 300 holds 2", n, size)
	}
	if r := get("AB0001"); r.header.Get("Asa-Cache") != "miss" {
		t.Errorf("the oldest entry was not evicted: %q", r.header.Get("Asa-Cache"))
	}
	// 5+1+5 = 11 credits used: a hit now needs a credit the workspace no longer has.
	if r := get("AB0001"); r.status != 402 || r.body["error"] != "insufficient_credits" {
		t.Errorf("hit without credits: %d %s", r.status, r.raw)
	}
	big := e.get(t, uget(e.test, "url", "https://news.example.com/2024/05/harbour-bridge", "max_age", "600", "parse", "html"))
	if big.status != 200 || len(big.raw) <= 2048 || big.header.Get("Asa-Cache") != "miss" {
		t.Fatalf("big: %d, %d bytes", big.status, len(big.raw))
	}
	if r := e.get(t, uget(e.test, "url", "https://news.example.com/2024/05/harbour-bridge", "max_age", "600", "parse", "html")); r.header.Get("Asa-Cache") != "miss" {
		t.Error("an answer over the entry cap was kept")
	}
}

func (e *cacheEnv) targetHits() int {
	e.target.mu.Lock()
	defer e.target.mu.Unlock()
	return e.target.hits
}
