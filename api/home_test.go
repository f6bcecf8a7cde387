package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"asa/api"
	"asa/docs"
	"asa/engine/errcode"
	"asa/store"
)

// startDocsServer serves the shipped sitedefs and docs on loopback, its public URL its own address
// so docs_url links point at it; dashboard adds the dashboard.
func startDocsServer(t *testing.T, dashboard bool) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "asa.db"))
	if err != nil {
		t.Fatal(err)
	}
	reg, _ := shipped(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	backend := api.NewStoreBackend(db, nil)
	deps := api.Deps{Registry: reg, Auth: backend, Ledger: backend, Docs: docs.FS, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if dashboard {
		deps.Dashboard = api.DashboardConfig{Store: db}
	}
	srv := api.New(api.Config{PublicURL: base, ShutdownTimeout: 5 * time.Second}, deps)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		db.Close()
	})
	return base
}

func fetchPage(t *testing.T, u string) (int, http.Header, string) {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestHomeLeadsSomewhere: GET / is a page linking the dashboard (when there is one), the docs and the
// catalogue, each of which answers 200; not a JSON 404.
func TestHomeLeadsSomewhere(t *testing.T) {
	for _, dash := range []bool{true, false} {
		base := startDocsServer(t, dash)
		status, h, body := fetchPage(t, base+"/")
		if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Fatalf("GET / (dashboard %v): %d %s", dash, status, h.Get("Content-Type"))
		}
		want := []string{"/docs", "/docs/api.md", "/docs/endpoints.md", "/catalogue", "/api/v1/openapi.json"}
		if dash {
			want = append(want, "/dashboard")
		} else if strings.Contains(body, `href="/dashboard"`) {
			t.Error("GET / links a dashboard the server does not have")
		}
		for _, href := range want {
			if !strings.Contains(body, `href="`+href+`"`) {
				t.Errorf("GET / (dashboard %v) does not link %s", dash, href)
				continue
			}
			if st, _, _ := fetchPage(t, base+href); st != 200 && (href != "/dashboard" || st != http.StatusSeeOther) {
				t.Errorf("%s: %d", href, st)
			}
		}
	}
}

// TestDocsURLOpensRenderedAnchor: the docs_url of an error body opens docs/api.md rendered as HTML,
// with an element whose id is the URL's fragment; so does every code of the catalogue. ?raw=1 gives
// the Markdown.
func TestDocsURLOpensRenderedAnchor(t *testing.T) {
	base := startDocsServer(t, false)
	status, _, body := fetchPage(t, base+"/api/v1/amazon/product?query=B0TEST1234")
	var eb struct {
		Error   string `json:"error"`
		DocsURL string `json:"docs_url"`
	}
	if err := json.Unmarshal([]byte(body), &eb); err != nil || status != 401 {
		t.Fatalf("%d %s", status, body)
	}
	u, err := url.Parse(eb.DocsURL)
	if err != nil || u.Fragment != "error-unauthorized" || !strings.HasPrefix(eb.DocsURL, base+"/docs/api.md#") {
		t.Fatalf("docs_url %q", eb.DocsURL)
	}
	u.Fragment = ""
	status, h, page := fetchPage(t, u.String())
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		t.Fatalf("%s: %d %s", u, status, h.Get("Content-Type"))
	}
	if strings.Contains(page, "<a id=\"error-unauthorized\"></a>\n### ") {
		t.Error("the page is raw Markdown")
	}
	for _, code := range errcode.All() {
		id := "error-" + strings.ReplaceAll(string(code), "_", "-")
		if code == errcode.Blocked { // never sent: a client sees target_unreachable
			continue
		}
		if !strings.Contains(page, `id="`+id+`"`) {
			t.Errorf("rendered api.md has no anchor %s", id)
		}
	}
	if !strings.Contains(page, "<table>") || !strings.Contains(page, "<h2 id=\"errors\">Errors</h2>") {
		t.Error("api.md is not rendered: no table or no heading with an id")
	}
	status, h, raw := fetchPage(t, base+"/docs/api.md?raw=1")
	if status != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/markdown") || !strings.HasPrefix(raw, "# ") {
		t.Errorf("raw: %d %s %.20q", status, h.Get("Content-Type"), raw)
	}
	if status, _, _ := fetchPage(t, base+"/docs/nope.md"); status != 404 {
		t.Errorf("unknown page: %d", status)
	}
}

// TestOpenAPIGzip: the OpenAPI document (kept gzipped) is the same JSON whether the client takes
// gzip or not, with Content-Encoding only when it does.
func TestOpenAPIGzip(t *testing.T) {
	base := startDocsServer(t, false)
	get := func(acceptEncoding string) (http.Header, []byte) {
		req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/openapi.json", nil)
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		// DisableCompression: the transport neither asks for gzip nor undoes it.
		resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("Accept-Encoding %q: %d %v", acceptEncoding, resp.StatusCode, err)
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("Accept-Encoding %q: no Vary: Accept-Encoding", acceptEncoding)
		}
		return resp.Header, b
	}
	_, plain := get("")
	if !json.Valid(plain) || !bytes.Contains(plain, []byte(`"openapi": "3.1.0"`)) {
		t.Fatalf("without Accept-Encoding: not the document: %.100s", plain)
	}
	for _, tc := range []struct {
		accept string
		gzip   bool
	}{
		{"gzip", true},
		{"br, gzip;q=0.8", true},
		{"*", true},
		{"GZIP", true},
		{"br", false},
		{"gzip;q=0", false},
		{"gzip; q=0.000, identity", false},
	} {
		h, body := get(tc.accept)
		if got := h.Get("Content-Encoding") == "gzip"; got != tc.gzip {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q", tc.accept, h.Get("Content-Encoding"))
			continue
		}
		if tc.gzip {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(body, plain) {
			t.Errorf("Accept-Encoding %q: another document (%d bytes against %d)", tc.accept, len(body), len(plain))
		}
	}
}
