package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"asa/api"
	"asa/store"
)

// sandboxEnv is a server on loopback with the shipped sitedefs, the embedded fixtures as its
// sandbox, a real SQLite file and the batch worker running.
type sandboxEnv struct {
	base, live, test string
	db               *store.DB
	ended            chan string
}

func startSandbox(t *testing.T) *sandboxEnv {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "asa.db"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := db.CreateWorkspace(ctx, "sandbox", store.PlanPro, 0)
	if err != nil {
		t.Fatal(err)
	}
	liveKey, _, err := db.CreateKey(ctx, ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	testKey, _, err := db.CreateKey(ctx, ws.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	reg, sb := shipped(t)
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{RequestTimeout: 10 * time.Second, ShutdownTimeout: 5 * time.Second},
		api.Deps{Registry: reg, Sandbox: sb, Auth: backend, Ledger: backend, Batches: db,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Batch: api.BatchConfig{Poll: 20 * time.Millisecond}})
	e := &sandboxEnv{live: liveKey.String(), test: testKey.String(), db: db, ended: make(chan string, 16)}
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
		db.Close()
	})
	return e
}

type sbReply struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (e *sandboxEnv) get(t *testing.T, path string) sbReply {
	t.Helper()
	resp, err := http.Get(e.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	r := sbReply{status: resp.StatusCode, header: resp.Header, raw: string(b)}
	_ = json.Unmarshal(b, &r.body)
	return r
}

// TestSandboxAnswersTheQuestion: a sandbox key gets the case matching its parameters (named in
// Asa-Sandbox-Case), flags such as add_html apply, sandbox_case reaches every error, and a live key
// may not name a case. Nothing is billed.
func TestSandboxAnswersTheQuestion(t *testing.T) {
	e := startSandbox(t)
	tests := []struct {
		name, path  string
		key         string
		status      int
		caseName    string
		field, want string // a top-level output field, or "error" of an error body
	}{
		{"readme curl", "/api/v1/amazon/product?query=B0TEST1234", e.test, 200, "com-first-request", "id", "B0TEST1234"},
		{"by url", "/api/v1/amazon/product?query=https%3A%2F%2Fwww.amazon.co.jp%2Fdp%2FB0FXJP0001", e.test, 200, "co.jp-yen", "currency", "JPY"},
		{"storefront", "/api/v1/amazon/product?query=B0TEST1234&domain=co.uk", e.test, 200, "co.uk-in-stock", "currency", "GBP"},
		{"an error case's id", "/api/v1/amazon/product?query=B0FX404404", e.test, 404, "not-found", "error", "product_not_found"},
		{"by name", "/api/v1/amazon/product?query=B0TEST1234&sandbox_case=not-found", e.test, 404, "not-found", "error", "product_not_found"},
		{"blocked by name", "/api/v1/amazon/product?query=B0TEST1234&sandbox_case=captcha", e.test, 502, "captcha", "error", "target_unreachable"},
		{"success by name", "/api/v1/amazon/product?query=B0TEST1234&sandbox_case=de-core-price", e.test, 200, "de-core-price", "currency", "EUR"},
		{"unknown name", "/api/v1/amazon/product?query=B0TEST1234&sandbox_case=nope", e.test, 400, "", "error", "invalid_params"},
		{"twice", "/api/v1/amazon/product?query=B0TEST1234&sandbox_case=not-found&sandbox_case=captcha", e.test, 400, "", "error", "invalid_params"},
		{"live key", "/api/v1/amazon/product?query=B0TEST1234&sandbox_case=not-found", e.live, 400, "", "error", "invalid_params"},
		{"google", "/api/v1/google/search?query=gu+gels", e.test, 200, "modern-com", "", ""},
		{"google storefront", "/api/v1/google/search?query=was+auch+immer&domain=de", e.test, 200, "legacy-de", "", ""},
		{"amazon search", "/api/v1/amazon/search?query=duffel+bag", e.test, 200, "com-two-pages", "page", "1"},
		{"reddit id-mismatch", "/api/v1/reddit/post?query=abc&sandbox_case=id-mismatch", e.test, 502, "id-mismatch", "error", "id_mismatch"},
		{"universal by url", "/api/v1/universal/get?url=https%3A%2F%2Fshop.example.com%2Fp%2Fsteel-kettle", e.test, 200, "product", "url", "https://shop.example.com/p/steel-kettle"},
		{"universal default", "/api/v1/universal/get?url=https%3A%2F%2Fexample.org%2F", e.test, 200, "article", "url", "https://news.example.com/2024/05/harbour-bridge"},
		{"universal by name", "/api/v1/universal/get?url=https%3A%2F%2Fexample.org%2F&sandbox_case=product", e.test, 200, "product", "url", "https://shop.example.com/p/steel-kettle"},
		{"universal unknown name", "/api/v1/universal/get?url=https%3A%2F%2Fexample.org%2F&sandbox_case=nope", e.test, 400, "", "error", "invalid_params"},
		{"universal live key", "/api/v1/universal/get?url=https%3A%2F%2Fexample.org%2F&sandbox_case=product", e.live, 400, "", "error", "invalid_params"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.get(t, tc.path+"&api_key="+tc.key)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
			}
			if got := r.header.Get(api.HeaderSandboxCase); got != tc.caseName {
				t.Errorf("Asa-Sandbox-Case %q, want %q", got, tc.caseName)
			}
			if r.header.Get("Asa-Cost") != "0" {
				t.Errorf("Asa-Cost %q", r.header.Get("Asa-Cost"))
			}
			if tc.field != "" {
				if got := strings.Trim(jsonOf(r.body[tc.field]), `"`); got != tc.want {
					t.Errorf("%s = %s, want %s", tc.field, got, tc.want)
				}
			}
			if tc.status == 400 && (!strings.Contains(r.raw, "sandbox_case") || jsonOf(r.body["params"]) != `["sandbox_case"]`) {
				t.Errorf("400 does not name sandbox_case: %s", r.raw)
			}
		})
	}
	// The 400 for an unknown name lists the endpoint's cases.
	r := e.get(t, "/api/v1/amazon/product?query=B0TEST1234&sandbox_case=nope&api_key="+e.test)
	for _, name := range []string{"com-first-request", "not-found", "captcha", "co.uk-in-stock"} {
		if !strings.Contains(r.body["message"].(string), name) {
			t.Errorf("unknown case message does not list %s: %s", name, r.raw)
		}
	}
	// add_html attaches the page of whichever case answers.
	r = e.get(t, "/api/v1/amazon/product?query=B0TEST1234&add_html=true&api_key="+e.test)
	if h, _ := r.body["html"].(string); r.status != 200 || !strings.Contains(strings.ToLower(h[:min(len(h), 40)]), "<!doctype html") {
		t.Errorf("add_html: %d html %.60q", r.status, h)
	}
	r = e.get(t, "/api/v1/amazon/product?query=B0TEST1234&api_key="+e.test)
	if r.body["html"] != nil {
		t.Error("html without add_html")
	}
	used, err := e.db.CreditsUsed(context.Background(), 1, time.Now())
	if err != nil || used != 0 {
		t.Errorf("credits used %d (%v), want 0", used, err)
	}
}

// TestSandboxBatchAnswersEachItem: the items of a sandbox batch are answered like synchronous
// requests: the matching case, flags, and sandbox_case for errors.
func TestSandboxBatchAnswersEachItem(t *testing.T) {
	e := startSandbox(t)
	body := `{"endpoint":"amazon.product","items":[{"query":"B0TEST1234"},{"query":"B0FXJP0001","domain":"co.jp","add_html":true},{"query":"B0TEST1234","sandbox_case":"not-found"}]}`
	post := func(key, body string) sbReply {
		req, _ := http.NewRequest(http.MethodPost, e.base+"/api/v1/amazon/batch?api_key="+key, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		r := sbReply{status: resp.StatusCode, raw: string(b)}
		_ = json.Unmarshal(b, &r.body)
		return r
	}
	bad := post(e.test, `{"endpoint":"amazon.product","items":[{"query":"B0TEST1234","sandbox_case":"nope"}]}`)
	if bad.status != 400 || !strings.Contains(bad.raw, "not-found") {
		t.Errorf("unknown case in an item: %d %s", bad.status, bad.raw)
	}
	created := post(e.test, body)
	if created.status != 201 {
		t.Fatalf("create: %d %s", created.status, created.raw)
	}
	id := created.body["id"].(string)
	select {
	case got := <-e.ended:
		if got != id {
			t.Fatalf("ended %s, want %s", got, id)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the batch did not end")
	}
	r := e.get(t, "/api/v1/amazon/batch/"+id+"?api_key="+e.test)
	results := r.body["results"].([]any)
	if len(results) != 3 {
		t.Fatalf("results: %s", r.raw)
	}
	res := func(i int) map[string]any { return results[i].(map[string]any) }
	data := func(i int) map[string]any { d, _ := res(i)["data"].(map[string]any); return d }
	if data(0)["id"] != "B0TEST1234" || data(0)["html"] != nil {
		t.Errorf("item 0: %v", res(0))
	}
	if h, _ := data(1)["html"].(string); data(1)["currency"] != "JPY" || h == "" {
		t.Errorf("item 1: currency %v, html %d bytes", data(1)["currency"], len(h))
	}
	if res(2)["status"] != "failed" || res(2)["error"] != "product_not_found" || res(2)["http_status"].(float64) != 404 {
		t.Errorf("item 2: %v", res(2))
	}
	// A live key's item naming a case is refused with the batch, as its request would be: nothing
	// is created, nothing billed.
	created = post(e.live, `{"endpoint":"amazon.product","items":[{"query":"B0TEST1234"},{"query":"B0TEST1234","sandbox_case":"not-found"}]}`)
	if created.status != 400 || created.body["error"] != "invalid_params" || !strings.Contains(created.raw, "items[1]") {
		t.Errorf("live batch with sandbox_case: %d %s", created.status, created.raw)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSandboxCasesInOpenAPI: the served document lists each endpoint's cases as the values and
// examples of sandbox_case, with the status each answers, and describes Asa-Sandbox-Case.
func TestSandboxCasesInOpenAPI(t *testing.T) {
	e := startSandbox(t)
	r := e.get(t, "/api/v1/openapi.json")
	if r.status != 200 {
		t.Fatalf("%d", r.status)
	}
	paths := r.body["paths"].(map[string]any)
	for _, path := range []string{"/api/v1/amazon/product", "/api/v1/google/search", "/api/v1/reddit/post", "/api/v1/youtube/transcript", "/api/v1/universal/get"} {
		op := paths[path].(map[string]any)["get"].(map[string]any)
		var sc map[string]any
		for _, p := range op["parameters"].([]any) {
			if p := p.(map[string]any); p["name"] == "sandbox_case" {
				sc = p
			}
		}
		if sc == nil {
			t.Errorf("%s: no sandbox_case parameter", path)
			continue
		}
		enum := sc["schema"].(map[string]any)["enum"].([]any)
		examples := sc["examples"].(map[string]any)
		if len(enum) < 2 || len(examples) != len(enum) {
			t.Errorf("%s: enum %v, %d examples", path, enum, len(examples))
		}
		if op["responses"].(map[string]any)["200"].(map[string]any)["headers"].(map[string]any)["Asa-Sandbox-Case"] == nil {
			t.Errorf("%s: 200 does not list Asa-Sandbox-Case", path)
		}
	}
	op := paths["/api/v1/amazon/product"].(map[string]any)["get"].(map[string]any)
	for _, p := range op["parameters"].([]any) {
		p := p.(map[string]any)
		if p["name"] != "sandbox_case" {
			continue
		}
		nf := p["examples"].(map[string]any)["not-found"].(map[string]any)
		if nf["value"] != "not-found" || !strings.HasPrefix(nf["summary"].(string), "404 product_not_found") {
			t.Errorf("not-found example: %v", nf)
		}
		if !strings.Contains(p["description"].(string), "`com-first-request`") {
			t.Errorf("the description does not name the default case: %v", p["description"])
		}
	}
	if r.body["components"].(map[string]any)["headers"].(map[string]any)["Asa-Sandbox-Case"] == nil {
		t.Error("no Asa-Sandbox-Case header component")
	}
}
