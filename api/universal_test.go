package api_test

import (
	"compress/gzip"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"asa/api"
	"asa/engine"
	"asa/engine/fetch"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/store"
)

const articlePage = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Harbour Bridge Reopens - The Example Times</title>
<meta property="og:site_name" content="The Example Times">
<meta name="description" content="The bridge reopened after eight months.">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Harbour Bridge Reopens",
"datePublished":"2024-05-06T08:30:00+02:00","author":{"@type":"Person","name":"Ana Lima"}}</script></head>
<body><nav><a href="/">Home</a> <a href="/city">City</a></nav>
<article><h1>Harbour Bridge Reopens</h1>
<p>The harbour bridge reopened to traffic on Monday morning after eight months of structural repairs, the city's transport department said, ending long detours for thousands of commuters.</p>
<p>Engineers replaced more than two hundred corroded cables and resurfaced the entire deck. The work ran three weeks over schedule because of storms in February, but stayed within budget.</p>
<p>Buses return to their usual routes from Tuesday, and cyclists get a new protected lane on the eastern side, separated from traffic by a low concrete barrier.</p>
</article><footer><a href="/about">About</a></footer></body></html>`

// site is the loopback stand-in for the public web, reached through the real outbound client.
type site struct {
	srv  *httptest.Server
	hits atomic.Int64
}

func newSite(t *testing.T) *site {
	s := &site{}
	mux := http.NewServeMux()
	page := func(ct, body string, status int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}
	}
	mux.HandleFunc("/article", page("text/html; charset=utf-8", articlePage, 200))
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = zw.Write([]byte(articlePage))
		_ = zw.Close()
	})
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/article", http.StatusFound) })
	mux.HandleFunc("/data.json", page("application/json", `{"z":1,"items":[{"id":"a"}]}`, 200))
	mux.HandleFunc("/notes.txt", page("text/plain; charset=utf-8", "plain notes\nsecond line\n", 200))
	mux.HandleFunc("/doc.pdf", page("application/pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", 200))
	mux.HandleFunc("/logo.png", page("image/png", "\x89PNG\r\n\x1a\n\x00\x00", 200))
	mux.HandleFunc("/empty", page("text/html", "<html><body></body></html>", 200))
	mux.HandleFunc("/missing", page("text/html", "<html><head><title>Not found</title></head><body><p>Gone.</p></body></html>", 404))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) url(path string) string { return s.srv.URL + path }

// loopbackClient is the real outbound client, allowed to reach the test site on loopback (its
// SSRF guard forbids private space and ports other than 80 and 443 for user URLs otherwise).
func loopbackClient(t *testing.T, s *site) *fetch.Client {
	_, port, _ := net.SplitHostPort(s.srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	c, err := fetch.New(fetch.Options{AllowPrivateNetwork: true, AllowPorts: []int{p}, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// startWith serves the API with live as the live fetcher and credits for the workspace.
func startWith(t *testing.T, live engine.Fetcher, credits int) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{logs: &syncBuffer{}, cancel: cancel, done: make(chan error, 1), now: time.Now()}
	e.dbPath = filepath.Join(t.TempDir(), "asa.db")
	db, err := store.Open(ctx, e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if e.ws, err = db.CreateWorkspace(ctx, "acme", store.PlanPro, credits); err != nil {
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
	srv := api.New(api.Config{RequestTimeout: 5 * time.Second, ShutdownTimeout: 5 * time.Second},
		api.Deps{Registry: reg, Live: live, Sandbox: sb, Auth: backend, Ledger: backend, Log: slog.New(slog.NewJSONHandler(e.logs, nil))})
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

func universalPath(key string, q url.Values) string {
	q.Set("api_key", key)
	return "/api/v1/universal/get?" + q.Encode()
}

func TestUniversal(t *testing.T) {
	s := newSite(t)
	e := startWith(t, loopbackClient(t, s), 100000)
	live := e.live.String()
	q := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Add(kv[i], kv[i+1])
		}
		return v
	}
	tests := []struct {
		name     string
		q        url.Values
		status   int
		code     string
		detail   string
		want     map[string]any // dotted paths into the body
		resolved string
		source   string
	}{
		{name: "auto", q: q("url", s.url("/article")), status: 200, source: "200", resolved: s.url("/article"), want: map[string]any{
			"url": s.url("/article"), "resolved_url": s.url("/article"), "title": "Harbour Bridge Reopens",
			"text": "startswith:The harbour bridge reopened", "links": "count:3", "links.1.href": s.url("/city"),
			"metadata.author": "Ana Lima", "metadata.published": "2024-05-06T08:30:00+02:00",
			"metadata.description": "The bridge reopened after eight months.", "structured.article.type": "NewsArticle"}},
		{name: "json is auto", q: q("url", s.url("/article"), "parse", "json"), status: 200, want: map[string]any{"title": "Harbour Bridge Reopens"}},
		{name: "text", q: q("url", s.url("/article"), "parse", "text"), status: 200, want: map[string]any{
			"text": "re:(?s)^The harbour bridge.*barrier\\.$", "title": "absent", "links": "absent"}},
		{name: "markdown", q: q("url", s.url("/article"), "parse", "markdown"), status: 200, want: map[string]any{"markdown": "startswith:The harbour bridge"}},
		{name: "html", q: q("url", s.url("/article"), "parse", "html"), status: 200, want: map[string]any{
			"status": 200.0, "html": "contains:<title>Harbour Bridge Reopens - The Example Times</title>"}},
		{name: "gzip body", q: q("url", s.url("/gzip")), status: 200, want: map[string]any{"title": "Harbour Bridge Reopens"}},
		{name: "redirect", q: q("url", s.url("/moved")), status: 200, resolved: s.url("/article"), want: map[string]any{
			"url": s.url("/moved"), "resolved_url": s.url("/article")}},
		{name: "json target", q: q("url", s.url("/data.json")), status: 200, want: map[string]any{"data.z": 1.0, "data.items.0.id": "a", "title": "absent"}},
		{name: "plain text", q: q("url", s.url("/notes.txt"), "parse", "text"), status: 200, want: map[string]any{"text": "plain notes\nsecond line"}},
		{name: "404 keeps its status in html mode", q: q("url", s.url("/missing"), "parse", "html"), status: 200, source: "404", want: map[string]any{"status": 404.0}},
		{name: "404 is product_not_found", q: q("url", s.url("/missing")), status: 404, code: "product_not_found", source: "404"},
		{name: "404 as text too", q: q("url", s.url("/missing"), "parse", "text"), status: 404, code: "product_not_found", source: "404"},
		{name: "pdf", q: q("url", s.url("/doc.pdf")), status: 502, code: "extraction_failed"},
		{name: "image", q: q("url", s.url("/logo.png"), "parse", "text"), status: 502, code: "extraction_failed"},
		{name: "empty page", q: q("url", s.url("/empty")), status: 502, code: "extraction_failed"},
		{name: "no url", q: q("parse", "auto"), status: 400, code: "invalid_params"},
		{name: "relative url", q: q("url", "/article"), status: 400, code: "invalid_params"},
		{name: "ftp url", q: q("url", "ftp://example.com/file"), status: 400, code: "invalid_params"},
		{name: "credentials in url", q: q("url", "http://user:pw@example.com/"), status: 400, code: "invalid_params"},
		{name: "url twice", q: q("url", s.url("/article"), "url", s.url("/empty")), status: 400, code: "invalid_params"},
		{name: "bad parse", q: q("url", s.url("/article"), "parse", "pdf"), status: 400, code: "invalid_params"},
		{name: "unknown parameter", q: q("url", s.url("/article"), "query", "x"), status: 400, code: "invalid_params"},
		{name: "country not configured", q: q("url", s.url("/article"), "country", "de"), status: 400, code: "invalid_params"},
		{name: "reserved", q: q("url", s.url("/article"), "render_js", "true", "screenshot", "1"), status: 501, code: "not_implemented"},
		{name: "port not allowed", q: q("url", "http://127.0.0.1:1/x"), status: 400, code: "invalid_params"}, // user URLs: 80, 443 and AllowPorts
	}
	charged := 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.get(t, universalPath(live, tt.q))
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.raw)
			}
			h := r.header
			if v := h.Get("Asa-Extractor-Version"); v != api.UniversalExtractorVersion {
				t.Errorf("Asa-Extractor-Version %q", v)
			}
			if tt.source != "" && h.Get("Asa-Source-Status") != tt.source {
				t.Errorf("Asa-Source-Status %q, want %s", h.Get("Asa-Source-Status"), tt.source)
			}
			if tt.resolved != "" && h.Get("Asa-Resolved-Url") != tt.resolved {
				t.Errorf("Asa-Resolved-Url %q, want %s", h.Get("Asa-Resolved-Url"), tt.resolved)
			}
			if tt.code != "" {
				if h.Get("Asa-Cost") != "0" {
					t.Errorf("Asa-Cost %q on an error", h.Get("Asa-Cost"))
				}
				if r.body["error"] != tt.code {
					t.Errorf("error %v, want %s: %s", r.body["error"], tt.code, r.raw)
				}
				if tt.detail != "" && r.body["detail"] != tt.detail {
					t.Errorf("detail %v, want %s", r.body["detail"], tt.detail)
				}
				if tt.code == "not_implemented" && strings.Join(toStrings(r.body["params"]), ",") != "render_js,screenshot" {
					t.Errorf("params %v", r.body["params"])
				}
				return
			}
			if h.Get("Asa-Cost") != "5" {
				t.Errorf("Asa-Cost %q, want 5", h.Get("Asa-Cost"))
			}
			charged += 5
			for _, k := range []string{"Asa-Attempts", "Asa-Source-Status", "Asa-Resolved-Url", "Asa-Concurrency", "Asa-Rps", "Asa-Request-Id"} {
				if h.Get(k) == "" {
					t.Errorf("missing %s", k)
				}
			}
			var body any = r.body
			for path, want := range tt.want {
				v, found := fixture.Lookup(body, path)
				if err := fixture.Match(v, found, want); err != nil {
					t.Errorf("%s: %v\n%s", path, err, r.raw)
				}
			}
		})
	}
	used, err := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if used != charged {
		t.Errorf("credits used %d, want %d (5 per success, 0 per error)", used, charged)
	}
}

func toStrings(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, e := range l {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestUniversalSSRF: with the guard on (the production setting), loopback and private targets are
// refused and cost nothing; the test site is never reached.
func TestUniversalSSRF(t *testing.T) {
	s := newSite(t)
	_, port, _ := net.SplitHostPort(s.srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	c, err := fetch.New(fetch.Options{MaxAttempts: 1, AllowPorts: []int{p}}) // the port is allowed, the address is not
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	e := startWith(t, c, 100000)
	for _, target := range []string{s.url("/article"), "http://localhost/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/", "http://10.0.0.1/", "http://2130706433/"} {
		r := e.get(t, universalPath(e.live.String(), url.Values{"url": {target}}))
		if r.status != 400 && r.status != 502 {
			t.Errorf("%s: status %d, want a refusal: %s", target, r.status, r.raw)
		}
		if r.header.Get("Asa-Cost") != "0" {
			t.Errorf("%s: charged %s", target, r.header.Get("Asa-Cost"))
		}
		t.Logf("%s: %d %v %v", target, r.status, r.body["error"], r.body["message"])
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("the loopback site was reached %d times", n)
	}
}

// countryFetcher is a live fetcher with egress countries, recording the country each fetch got.
type countryFetcher struct {
	mu  sync.Mutex
	got []string
}

func (f *countryFetcher) Countries() []string { return []string{"de", "us"} }

func (f *countryFetcher) Fetch(ctx context.Context, req *engine.Request) (*engine.Response, error) {
	f.mu.Lock()
	f.got = append(f.got, fetch.CountryFrom(ctx))
	f.mu.Unlock()
	return &engine.Response{Status: 200, URL: req.URL, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(articlePage), Attempts: 2}, nil
}

func TestUniversalCountry(t *testing.T) {
	f := &countryFetcher{}
	e := startWith(t, f, 100000)
	live := e.live.String()
	r := e.get(t, universalPath(live, url.Values{"url": {"https://news.example.com/a"}, "country": {"DE"}}))
	if r.status != 200 || r.header.Get("Asa-Attempts") != "2" {
		t.Fatalf("status %d, attempts %s: %s", r.status, r.header.Get("Asa-Attempts"), r.raw)
	}
	r = e.get(t, universalPath(live, url.Values{"url": {"https://news.example.com/a"}, "country": {"fr"}}))
	if r.status != 400 || r.body["error"] != "invalid_params" || !strings.Contains(r.raw, "de, us") || strings.Join(toStrings(r.body["params"]), ",") != "country" {
		t.Errorf("unknown country: %d %s", r.status, r.raw)
	}
	r = e.get(t, universalPath(live, url.Values{"url": {"https://news.example.com/a"}}))
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	if strings.Join(f.got, ",") != "de," {
		t.Errorf("countries seen by the fetcher %q, want de then none", f.got)
	}
}

// TestUniversalSandbox: sandbox keys get the fixture pages of fixtures/universal/get, never the
// network, never billed.
func TestUniversalSandbox(t *testing.T) {
	s := newSite(t)
	e := startWith(t, loopbackClient(t, s), 100000)
	test := e.test.String()
	r := e.get(t, universalPath(test, url.Values{"url": {s.url("/article")}}))
	if r.status != 200 || r.header.Get("Asa-Cost") != "0" {
		t.Fatalf("status %d cost %s: %s", r.status, r.header.Get("Asa-Cost"), r.raw)
	}
	if r.body["url"] != "https://news.example.com/2024/05/harbour-bridge" || r.body["title"] != "Harbour Bridge Reopens After Eight Months" {
		t.Errorf("default sandbox answer: %s", r.raw)
	}
	r = e.get(t, universalPath(test, url.Values{"url": {"https://shop.example.com/p/steel-kettle"}, "parse": {"auto"}}))
	price, _ := fixture.Lookup(r.body, "structured.product.price")
	if r.status != 200 || price != 34.99 {
		t.Errorf("product fixture: %d %s", r.status, r.raw)
	}
	r = e.get(t, universalPath(test, url.Values{"url": {"https://shop.example.com/p/steel-kettle"}, "parse": {"text"}}))
	if r.status != 200 || !strings.HasPrefix(r.body["text"].(string), "This kettle boils") {
		t.Errorf("text mode: %d %s", r.status, r.raw)
	}
	r = e.get(t, universalPath(test, url.Values{"parse": {"auto"}}))
	if r.status != 400 {
		t.Errorf("sandbox validates like live: %d %s", r.status, r.raw)
	}
	if n := s.hits.Load(); n != 0 {
		t.Errorf("a sandbox request reached the network %d times", n)
	}
	used, _ := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now())
	if used != 0 {
		t.Errorf("sandbox billed %d credits", used)
	}
}

func TestUniversalInsufficientCredits(t *testing.T) {
	s := newSite(t)
	e := startWith(t, loopbackClient(t, s), 4)
	r := e.get(t, universalPath(e.live.String(), url.Values{"url": {s.url("/article")}}))
	if r.status != 402 || r.body["error"] != "insufficient_credits" {
		t.Errorf("status %d: %s", r.status, r.raw)
	}
	if s.hits.Load() != 0 {
		t.Errorf("fetched without credits")
	}
}
