package farm

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// client reaches the farm for any host name, over TLS (HTTP/2) or plain HTTP.
func client(f *Farm) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
				return d.DialContext(ctx, network, f.Addr())
			},
			TLSClientConfig:    &tls.Config{RootCAs: f.CertPool()},
			ForceAttemptHTTP2:  true,
			DisableCompression: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func newFarm(t *testing.T, o Options) *Farm {
	t.Helper()
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func fetch(t *testing.T, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestServeHandlersTLSAndPlain(t *testing.T) {
	f := newFarm(t, Options{})
	f.HandleFunc("www.amazon.com", "/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "amazon root %s", r.Proto) })
	f.HandleFunc("www.amazon.com", "/dp/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "amazon dp %s", r.Proto) })
	f.HandleFunc("*", "/dp/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "any dp") })
	c := client(f)
	for url, want := range map[string]string{
		"https://www.amazon.com/dp/B0":  "amazon dp HTTP/2.0",
		"https://WWW.AMAZON.COM/x":      "amazon root HTTP/2.0",
		"http://www.amazon.com/dp/B0":   "amazon dp HTTP/1.1",
		"https://www.amazon.de/dp/B0":   "any dp",
		"https://www.youtube.com/watch": "farm: no page",
	} {
		resp, body := fetch(t, c, url)
		if !strings.Contains(body, want) {
			t.Errorf("%s: %d %q, want %q", url, resp.StatusCode, body, want)
		}
		if strings.HasPrefix(url, "https") && resp.TLS.PeerCertificates[0].DNSNames[0] != strings.ToLower(strings.Split(url, "/")[2]) {
			t.Errorf("%s: certificate for %v", url, resp.TLS.PeerCertificates[0].DNSNames)
		}
	}
	if n := f.Count("www.amazon.com", "/dp/"); n != 2 {
		t.Errorf("count %d", n)
	}
	if n := f.Count("", ""); n != 5 {
		t.Errorf("total %d", n)
	}
	// Resolve maps the hosts the farm serves, never IP literals or localhost
	for hp, ok := range map[string]bool{"www.amazon.com:443": true, "www.amazon.com:80": true, "www.amazon.de:443": false, "127.0.0.1:443": false, "localhost:443": false} {
		if _, got := f.Resolve(hp); got != ok {
			t.Errorf("Resolve(%s) = %v", hp, got)
		}
	}
}

func TestPagesDirectory(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "www.reddit.com", "r", "golang"), 0o755)
	os.WriteFile(filepath.Join(dir, "www.reddit.com", "r", "golang", "index.html"), []byte("<h1>r/golang</h1>"), 0o644)
	os.WriteFile(filepath.Join(dir, "www.reddit.com", "about.html"), []byte("<h1>about</h1>"), 0o644)
	os.WriteFile(filepath.Join(dir, "www.reddit.com", "data.json"), []byte(`{"a":1}`), 0o644)
	f := newFarm(t, Options{Pages: dir})
	c := client(f)
	for url, want := range map[string]string{
		"https://www.reddit.com/r/golang/": "r/golang",
		"https://www.reddit.com/about":     "about",
		"https://www.reddit.com/data.json": `{"a":1}`,
		"https://www.reddit.com/../../etc": "no page",
	} {
		_, body := fetch(t, c, url)
		if !strings.Contains(body, want) {
			t.Errorf("%s: %q", url, body)
		}
	}
	resp, _ := fetch(t, c, "https://www.reddit.com/data.json")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	if _, ok := f.Resolve("www.reddit.com:443"); !ok {
		t.Error("directory host not resolved")
	}
}

func TestFaultsAndControl(t *testing.T) {
	f := newFarm(t, Options{Hosts: []string{"*"}})
	f.HandleFunc("*", "/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "page "+r.URL.Path) })
	c := client(f)
	ctl := func(q string) string {
		resp, err := http.Get(f.ControlURL() + q)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, b)
		}
		return string(b)
	}
	ctl("/__farm/fault?kind=status&status=429&retry_after=7&host=www.amazon.com&path=/dp/&times=2")
	for i, want := range []int{429, 429, 200} {
		resp, _ := fetch(t, c, "https://www.amazon.com/dp/B0")
		if resp.StatusCode != want {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
		if want == 429 && resp.Header.Get("Retry-After") != "7" {
			t.Fatal("no Retry-After")
		}
	}
	ctl("/__farm/fault?kind=captcha&path=/s")
	if _, body := fetch(t, c, "https://www.amazon.de/s?k=x"); !strings.Contains(body, "validateCaptcha") {
		t.Fatal("no captcha")
	}
	ctl("/__farm/fault?kind=redirect&location=/dp/OTHER&path=/dp/OLD")
	if resp, _ := fetch(t, c, "https://www.amazon.com/dp/OLD"); resp.StatusCode != 302 || resp.Header.Get("Location") != "/dp/OTHER" {
		t.Fatalf("redirect: %d %v", resp.StatusCode, resp.Header)
	}
	// slow holds the answer (an hour here): the request has arrived and no answer comes; then it
	// answers (a millisecond here). No clock is read.
	ctl("/__farm/fault?kind=slow&delay=1h&path=/slow")
	held := holdRequest(t, f, c, "https://www.amazon.com/slow", "www.amazon.com", "/slow")
	held()
	ctl("/__farm/fault?kind=slow&delay=1ms&path=/slow")
	if _, body := fetch(t, c, "https://www.amazon.com/slow"); body != "page /slow" {
		t.Fatalf("slow %q", body)
	}
	// drip sends bps bytes a tick, flushing each: at 200 bytes/s a tick is 20 ms and 4 bytes.
	ctl("/__farm/fault?kind=drip&bps=200&path=/drip")
	fw := &flushWriter{header: http.Header{}}
	f.serve(fw, httptest.NewRequest("GET", "https://www.amazon.com/drip", nil))
	if got := strings.Join(fw.flushed, "|"); got != "|page| /dr|ip" {
		t.Fatalf("drip flushed %q, want the header then 4-byte chunks", got)
	}
	if _, body := fetch(t, c, "https://www.amazon.com/drip"); body != "page /drip" {
		t.Fatalf("drip %q", body)
	}
	ctl("/__farm/fault?kind=bomb&size=5000000&path=/bomb")
	resp, err := c.Get("https://www.amazon.com/bomb")
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, zr)
	resp.Body.Close()
	if err != nil || n != 5<<20 {
		t.Fatalf("bomb decoded %d bytes (%v)", n, err)
	}
	ctl("/__farm/fault?kind=reset&path=/reset")
	for _, u := range []string{"https://www.amazon.com/reset", "http://www.amazon.com/reset"} {
		if _, err := c.Get(u); err == nil {
			t.Fatalf("%s: no error", u)
		}
	}
	var counts map[string]int
	json.Unmarshal([]byte(ctl("/__farm/counts")), &counts)
	if counts["www.amazon.com/dp/B0"] != 3 {
		t.Fatalf("counts %v", counts)
	}
	if got := ctl("/__farm/counts?host=www.amazon.com&path=/dp/"); !strings.Contains(got, `"count":4`) {
		t.Fatalf("count %s", got)
	}
	ctl("/__farm/reset")
	if _, body := fetch(t, c, "https://www.amazon.com/reset"); body != "page /reset" {
		t.Fatal("faults not cleared")
	}
	if f.Count("", "") != 1 {
		t.Fatal("counts not reset")
	}
	for _, bad := range []string{"kind=nope", "kind=redirect", "kind=status&status=x", "kind=slow&delay=soon"} {
		resp, _ := http.Get(f.ControlURL() + "/__farm/fault?" + bad)
		if resp.StatusCode != 400 {
			t.Errorf("%s: %d", bad, resp.StatusCode)
		}
		resp.Body.Close()
	}
	if pemText := ctl("/__farm/ca.pem"); !strings.Contains(pemText, "BEGIN CERTIFICATE") {
		t.Fatal("no CA")
	}
}

// Latency holds every answer, and many requests are held at once: with an hour's latency, 50
// requests all arrive and none is answered; with a millisecond's, all are. No clock is read.
func TestLatencyAndConcurrency(t *testing.T) {
	f := newFarm(t, Options{Latency: time.Hour, ControlAddr: "off"})
	f.HandleFunc("www.amazon.com", "/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	c := client(f)
	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 50)
	for range 50 {
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", "https://www.amazon.com/", nil)
			resp, err := c.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			answered <- err
		}()
	}
	for f.Count("www.amazon.com", "/") < 50 {
		select {
		case err := <-answered:
			t.Fatalf("a request was answered before its latency: %v", err)
		case <-time.After(5 * time.Millisecond): // poll; not a bound
		}
	}
	select {
	case err := <-answered:
		t.Fatalf("a request was answered before its latency: %v", err)
	default:
	}
	cancel()
	for range 50 {
		if err := <-answered; err == nil {
			t.Fatal("a held request was answered")
		}
	}

	f = newFarm(t, Options{Latency: time.Millisecond, ControlAddr: "off"})
	f.HandleFunc("www.amazon.com", "/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	c = client(f)
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Get("https://www.amazon.com/")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}()
	}
	wg.Wait()
	if f.ControlURL() != "" {
		t.Fatal("control endpoint not off")
	}
}

// holdRequest starts a GET of url and waits until the farm has counted it; it fails the test if
// the answer comes first. The returned function checks the request is still unanswered, cancels
// it and waits for the client to give up.
func holdRequest(t *testing.T, f *Farm, c *http.Client, url, host, path string) func() {
	t.Helper()
	before := f.Count(host, path)
	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()
	for f.Count(host, path) == before {
		select {
		case err := <-answered:
			cancel()
			t.Fatalf("%s answered at once: %v", url, err)
		case <-time.After(5 * time.Millisecond): // poll; not a bound
		}
	}
	return func() {
		t.Helper()
		select {
		case err := <-answered:
			t.Fatalf("%s answered while held: %v", url, err)
		default:
		}
		cancel()
		if err := <-answered; err == nil {
			t.Fatalf("%s: answered after cancel", url)
		}
	}
}

// flushWriter records what a handler writes between flushes.
type flushWriter struct {
	header http.Header
	status int
	cur    bytes.Buffer
	// flushed holds each flushed piece; the first is what came before the first flush.
	flushed []string
}

func (w *flushWriter) Header() http.Header { return w.header }
func (w *flushWriter) WriteHeader(s int)   { w.status = s }
func (w *flushWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.cur.Write(p)
}
func (w *flushWriter) Flush() {
	w.flushed = append(w.flushed, w.cur.String())
	w.cur.Reset()
}

func TestMain_(t *testing.T) {
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	var mu sync.Mutex
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	done := make(chan error, 1)
	go func() {
		done <- Main(ctx, []string{"--addr", "127.0.0.1:0", "--control-addr", "off", "--ca-out", caFile}, w)
	}()
	for {
		mu.Lock()
		s := out.String()
		mu.Unlock()
		if strings.Contains(s, "serving") {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Main ended before serving: %v: %s", err, s)
		case <-time.After(10 * time.Millisecond): // poll; not a bound
		}
	}
	b, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	cert, err := x509.ParseCertificate(blk.Bytes)
	if err != nil || !cert.IsCA {
		t.Fatalf("CA: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := Main(context.Background(), []string{"--bogus"}, io.Discard); err == nil {
		t.Fatal("bad flag accepted")
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestHandleURL(t *testing.T) {
	f := newFarm(t, Options{ControlAddr: "off"})
	text := func(s string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, s) })
	}
	f.Handle("www.amazon.com", "/", text("prefix"))
	f.HandleURL("https://www.amazon.com/s?k=duffel+bag", text("page1"))
	f.HandleURL("https://www.amazon.com/s?k=duffel+bag&page=2", text("page2"))
	if err := f.HandleURL("/relative", text("x")); err == nil {
		t.Fatal("relative URL accepted")
	}
	c := client(f)
	for u, want := range map[string]string{
		"https://www.amazon.com/s?k=duffel+bag":                   "page1",
		"https://www.amazon.com/s?page=2&k=duffel+bag&ref=sr_pg2": "page2",
		"https://www.amazon.com/s?k=other":                        "prefix",
		"https://www.amazon.com/s/x?k=duffel+bag":                 "prefix",
	} {
		if _, body := fetch(t, c, u); body != want {
			t.Errorf("%s: %q, want %q", u, body, want)
		}
	}
}
