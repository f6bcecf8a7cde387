package api_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"asa/api"
	"asa/engine"
	"asa/engine/fetch"
	"asa/engine/fetch/farm"
	"asa/engine/registry"
	"asa/engine/render"
	"asa/store"
)

// The browser tests share one farm, outbound client and Chromium (closed by TestMain).
var browserShared struct {
	once   sync.Once
	farm   *farm.Farm
	client *fetch.Client
	pool   *render.Pool
	err    error
}

// closeBrowserShared runs after the package's tests.
func closeBrowserShared() {
	if b := &browserShared; b.pool != nil {
		b.pool.Close()
		b.client.Close()
		b.farm.Close()
	}
}

func chromiumPath() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, c := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

// sharedBrowser starts the farm and the browser once; it skips outside CI without Chromium.
func sharedBrowser(t *testing.T) *render.Pool {
	t.Helper()
	exe := chromiumPath()
	if exe == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is missing (apt-get install -y chromium)")
		}
		t.Skip("chromium is not installed (apt-get install -y chromium)")
	}
	b := &browserShared
	b.once.Do(func() {
		if b.farm, b.err = farm.New(farm.Options{ControlAddr: "off"}); b.err != nil {
			return
		}
		browserPages(b.farm)
		if b.client, b.err = fetch.New(fetch.Options{Resolve: b.farm.Resolve, RootCAs: b.farm.CertPool(), MaxAttempts: 1}); b.err != nil {
			return
		}
		if b.pool, b.err = render.New(render.Options{ExecPath: exe, MaxContexts: 6, SettleIdle: 300 * time.Millisecond,
			Timeout: 8 * time.Second}, b.client); b.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		b.err = b.pool.Start(ctx)
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.pool
}

func browserPages(f *farm.Farm) {
	html := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, body)
		}
	}
	// A product page whose price comes from an XHR.
	f.HandleFunc("shop.test", "/p/", html(`<!doctype html><html><head><title>Widget</title></head><body>
<h1>Widget</h1><p>Price: <span id="price"></span></p>
<script>fetch('/api/price').then(r => r.json()).then(j => { document.getElementById('price').textContent = j.price; });</script>
</body></html>`))
	f.HandleFunc("shop.test", "/api/price", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"price":"19.99"}`)
	})
	// A list filled after a timer.
	f.HandleFunc("shop.test", "/list", html(`<!doctype html><html><head><title>List</title></head><body><h1>List</h1><ul id="items"></ul>
<script>setTimeout(() => { document.getElementById('items').innerHTML = '<li>alpha</li><li>beta</li><li>gamma</li>'; }, 400);</script>
</body></html>`))
	// A captcha wall drawn by script: the site's blocked rule sees it on the rendered page only.
	f.HandleFunc("shop.test", "/walled/", html(`<!doctype html><html><head><title>Widget</title></head><body><h1>Widget</h1>
<script>document.body.insertAdjacentHTML('beforeend', '<form action="/captcha"><p>Are you a robot?</p></form>');</script>
</body></html>`))
	// A page whose load event never fires.
	f.HandleFunc("shop.test", "/never", html(`<!doctype html><html><head><title>Never</title></head><body><h1>Never</h1><img src="/hang"></body></html>`))
	f.HandleFunc("shop.test", "/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	// Scripts that try asa's own port and the metadata address; the page then says how they went.
	f.HandleFunc("shop.test", "/ssrf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><html><head><title>SSRF</title></head><body><h1>SSRF</h1><p id="a">pending</p><p id="b">pending</p>
<script>
const out = (id, p) => p.then(r => r.text()).then(t => 'got ' + t.slice(0, 40), e => 'refused').then(s => { document.getElementById(id).textContent = s; });
Promise.all([out('a', fetch('http://%s/healthz')), out('b', fetch('http://169.254.169.254/latest/meta-data/'))])
  .then(() => { const d = document.createElement('p'); d.id = 'done'; document.body.appendChild(d); });
</script></body></html>`, r.URL.Query().Get("asa"))
	})
}

// A site of the farm: a product whose price is written by script, and a list that needs rendering.
var farmshop = fstest.MapFS{
	"farmshop/site.yaml": {Data: []byte(`kind: site
site: farmshop
name: Farm shop
category: marketplace
version: 1.0.0
rules:
  - id: captcha
    match: {xpath: "//form[@action='/captcha']"}
    error: blocked
    detail: captcha
`)},
	"farmshop/product.yaml": {Data: []byte(`kind: endpoint
resource: product
summary: A product whose price an XHR fills in.
params:
  query: {type: string, required: true, pattern: '[a-z0-9]+', example: widget}
  walled: {type: bool, default: false}
steps:
  - id: page
    request:
      url: 'http://shop.test/${ params.walled ? "walled" : "p" }/${ params.query }'
fields:
  title: {type: string, required: true, xpath: //h1}
  price: {type: string, xpath: "//span[@id='price']"}
`)},
	"farmshop/list.yaml": {Data: []byte(`kind: endpoint
resource: list
summary: A list a timer fills in; the site needs the page rendered.
steps:
  - id: page
    render: true
    wait_for: '#items li'
    request:
      url: http://shop.test/list
fields:
  title: {type: string, required: true, xpath: //h1}
  items: {type: list<string>, xpath: "//ul[@id='items']/li"}
`)},
}

// startBrowserEnv serves the API with the farm as the web and the shared browser (nil: none).
func startBrowserEnv(t *testing.T, rdr api.Renderer) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{logs: &syncBuffer{}, cancel: cancel, done: make(chan error, 1), now: time.Now()}
	e.dbPath = filepath.Join(t.TempDir(), "asa.db")
	db, err := store.Open(ctx, e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if e.ws, err = db.CreateWorkspace(ctx, "acme", store.PlanPro, 100000); err != nil {
		t.Fatal(err)
	}
	if e.live, _, err = db.CreateKey(ctx, e.ws.ID, false); err != nil {
		t.Fatal(err)
	}
	reg, diags := registry.Load(engine.New(), farmshop)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{RequestTimeout: 20 * time.Second, ShutdownTimeout: 5 * time.Second},
		api.Deps{Registry: reg, Live: browserShared.client, Renderer: rdr, Auth: backend, Ledger: backend, Log: slog.New(slog.NewJSONHandler(e.logs, nil))})
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

func TestBrowserRendering(t *testing.T) {
	pool := sharedBrowser(t)
	e := startBrowserEnv(t, pool)
	none := startBrowserEnv(t, nil)
	key := e.live.String()
	asaHost := strings.TrimPrefix(e.base, "http://")
	uni := func(kv ...string) string {
		q := url.Values{"url": {kv[0]}}
		for i := 1; i+1 < len(kv); i += 2 {
			q.Add(kv[i], kv[i+1])
		}
		return universalPath(key, q)
	}
	ep := func(name, query string) string { return "/api/v1/farmshop/" + name + "?api_key=" + key + "&" + query }
	tests := []struct {
		name   string
		env    *env
		path   string
		status int
		code   string
		detail string
		cost   string
		want   map[string]string // JSON key -> value it must contain ("" : absent or empty)
		png    bool              // a screenshot must be in the body
	}{
		{name: "xhr price needs render_js", path: ep("product", "query=widget"), status: 200, cost: "5",
			want: map[string]string{"title": "Widget", "price": ""}},
		{name: "xhr price rendered", path: ep("product", "query=widget&render_js=true"), status: 200, cost: "15",
			want: map[string]string{"title": "Widget", "price": "19.99"}},
		{name: "screenshot", path: ep("product", "query=widget&screenshot=true&full_page=true"), status: 200, cost: "25",
			want: map[string]string{"price": "19.99"}, png: true},
		{name: "the site needs rendering", path: ep("list", ""), status: 200, cost: "15",
			want: map[string]string{"items": "alpha beta gamma"}},
		{name: "blocked rule on the rendered page", path: ep("product", "query=widget&walled=true&render_js=true"), status: 502,
			code: "target_unreachable", detail: "blocked", cost: "0"},
		{name: "blocked page not rendered", path: ep("product", "query=widget&walled=true"), status: 200, cost: "5",
			want: map[string]string{"title": "Widget"}},
		{name: "universal timer list", path: uni("http://shop.test/list", "render_js", "true", "parse", "html"), status: 200, cost: "15",
			want: map[string]string{"html": "<li>alpha</li><li>beta</li><li>gamma</li>"}},
		{name: "universal not rendered", path: uni("http://shop.test/list", "parse", "html"), status: 200, cost: "5",
			want: map[string]string{"html": `<ul id="items"></ul>`}},
		{name: "universal wait_for", path: uni("http://shop.test/list", "render_js", "true", "wait_for", "#items li", "parse", "text"), status: 200, cost: "15",
			want: map[string]string{"text": "alpha"}},
		{name: "a JSON target is not rendered", path: uni("http://shop.test/api/price", "render_js", "true"), status: 200, cost: "5",
			want: map[string]string{"data": "19.99"}},
		{name: "never settles", path: uni("http://shop.test/never", "render_js", "true"), status: 502, code: "target_unreachable", detail: "timeout", cost: "0"},
		{name: "ssrf from script", path: uni("http://shop.test/ssrf?asa="+asaHost, "render_js", "true", "wait_for", "#done", "parse", "html"), status: 200, cost: "15",
			want: map[string]string{"html": `<p id="a">refused</p><p id="b">refused</p>`}},
		{name: "metadata address as the page", path: uni("http://169.254.169.254/latest/meta-data/", "render_js", "true"), status: 400, code: "invalid_params", cost: "0"},
		{name: "bad boolean", path: uni("http://shop.test/list", "render_js", "yes"), status: 400, code: "invalid_params", cost: "0"},
		{name: "full_page without screenshot", path: uni("http://shop.test/list", "render_js", "true", "full_page", "true"), status: 400, code: "invalid_params", cost: "0"},
		{name: "bad selector", path: uni("http://shop.test/list", "render_js", "true", "wait_for", "li[[["), status: 400, code: "invalid_params", cost: "0"},
		{name: "no browser: 501", env: none, path: uni("http://shop.test/list", "render_js", "true", "screenshot", "true"), status: 501, code: "not_implemented", cost: "0"},
		{name: "no browser: sitedef 501", env: none, path: ep("product", "query=widget&render_js=true"), status: 501, code: "not_implemented", cost: "0"},
		{name: "no browser: render step fetched as is", env: none, path: ep("list", ""), status: 200, cost: "5", want: map[string]string{"items": ""}},
	}
	t.Run("requests", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				env := e
				if tt.env != nil {
					env = tt.env
				}
				path := tt.path
				if env == none {
					path = strings.Replace(path, key, none.live.String(), 1)
				}
				r := env.get(t, path)
				if r.status != tt.status {
					t.Fatalf("status %d, want %d: %.400s", r.status, tt.status, r.raw)
				}
				if c := r.header.Get("Asa-Cost"); c != tt.cost {
					t.Errorf("Asa-Cost %q, want %s", c, tt.cost)
				}
				if tt.code != "" {
					if r.body["error"] != tt.code || (tt.detail != "" && r.body["detail"] != tt.detail) {
						t.Errorf("error %v detail %v, want %s %s: %s", r.body["error"], r.body["detail"], tt.code, tt.detail, r.raw)
					}
					return
				}
				for k, want := range tt.want {
					got := fmt.Sprint(r.body[k])
					if l, ok := r.body[k].([]any); ok {
						parts := make([]string, len(l))
						for i, x := range l {
							parts[i] = fmt.Sprint(x)
						}
						got = strings.Join(parts, " ")
					}
					if r.body[k] == nil {
						got = ""
					}
					if want == "" && got != "" || !strings.Contains(got, want) {
						t.Errorf("%s = %.300q, want %q", k, got, want)
					}
				}
				shot, _ := r.body["screenshot"].(string)
				png, _ := base64.StdEncoding.DecodeString(shot)
				if tt.png != bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
					t.Errorf("screenshot present %v, want %v", len(png) > 0, tt.png)
				}
			})
		}
	})
	// The usage report (the dashboard's) keeps the add-on credits apart.
	wantAddOns := 0
	for _, tt := range tests {
		if tt.env == nil && tt.status == 200 {
			n, _ := strconv.Atoi(tt.cost)
			wantAddOns += n - api.CostPerRequest
		}
	}
	rows, err := e.db.Usage(context.Background(), store.UsageQuery{WorkspaceID: e.ws.ID})
	if err != nil {
		t.Fatal(err)
	}
	addOns := 0
	for _, r := range rows {
		addOns += r.AddOnCredits
	}
	if addOns != wantAddOns || wantAddOns == 0 {
		t.Errorf("usage shows %d add-on credits, want %d", addOns, wantAddOns)
	}
}

// parse=screenshot on universal answers the PNG itself.
func TestBrowserScreenshotPNG(t *testing.T) {
	pool := sharedBrowser(t)
	e := startBrowserEnv(t, pool)
	resp, err := http.Get(e.base + universalPath(e.live.String(), url.Values{"url": {"http://shop.test/list"}, "parse": {"screenshot"}}))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("status %d type %s body %.80q", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	if c := resp.Header.Get("Asa-Cost"); c != "25" {
		t.Errorf("Asa-Cost %s, want 25 (5 + render 10 + screenshot 10)", c)
	}
}
