package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fetch/farm"
)

// newFarm starts a farm serving every host name, with a product page under /dp/, an echo of the
// request under /echo, redirect hops under /hop/N and encoded bodies under /enc/CODING.
func newFarm(t testing.TB) *farm.Farm {
	t.Helper()
	f, err := farm.New(farm.Options{Hosts: []string{"*"}, ControlAddr: "off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	f.HandleFunc("*", "/dp/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>Product %s</title></head><body><span id=productTitle>%s</span></body></html>\n",
			strings.TrimPrefix(r.URL.Path, "/dp/"), r.Host)
	})
	f.HandleFunc("*", "/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"proto": r.Proto, "host": r.Host, "method": r.Method, "header": r.Header})
	})
	f.HandleFunc("*", "/hop/", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/hop/"))
		if n > 0 {
			http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
			return
		}
		fmt.Fprint(w, "landed")
	})
	f.HandleFunc("*", "/setcookie", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "farm1", Path: "/"})
		http.Redirect(w, r, "/echo", http.StatusFound)
	})
	f.HandleFunc("*", "/xhost", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	f.HandleFunc("*", "/enc/", func(w http.ResponseWriter, r *http.Request) {
		coding := strings.TrimPrefix(r.URL.Path, "/enc/")
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if n == 0 {
			n = 1000
		}
		body := bytes.Repeat([]byte("hello farm "), n)
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", strings.ReplaceAll(coding, "deflate-raw", "deflate"))
		w.Write(encode(t, coding, body))
	})
	return f
}

func encode(t testing.TB, coding string, body []byte) []byte {
	var buf bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "deflate-raw":
		w, _ = flate.NewWriter(&buf, flate.BestSpeed)
	case "br":
		w = brotli.NewWriterLevel(&buf, 1)
	case "zstd":
		w, _ = zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest))
	default:
		return body
	}
	w.Write(body)
	w.Close()
	return buf.Bytes()
}

func farmClient(t testing.TB, f *farm.Farm, o Options) (*Client, *loopbackOnly) {
	t.Helper()
	o.Resolve = f.Resolve
	if o.RootCAs == nil {
		o.RootCAs = f.CertPool()
	}
	return newTestClient(t, o)
}

func get(c *Client, ctx context.Context, url string, h http.Header) (*engine.Response, error) {
	return c.Fetch(ctx, &engine.Request{URL: url, Header: h})
}

// TestFaultTable: for each injected fault, what the caller sees.
func TestFaultTable(t *testing.T) {
	f := newFarm(t)
	type row struct {
		name     string
		fault    *farm.Fault
		url      string // default https://www.amazon.com/dp/<name>
		timeout  time.Duration
		status   int
		code     errcode.Code
		detail   string
		attempts int
		count    int // requests the farm saw for the path
		body     string
		finalURL string
		waits    []time.Duration // backoff waits; -1 = any jittered wait
	}
	rows := []row{
		{name: "ok", status: 200, attempts: 1, count: 1, body: "Product ok"},
		{name: "captcha", fault: &farm.Fault{Kind: farm.Captcha}, status: 200, attempts: 1, count: 1, body: "/errors/validateCaptcha"},
		{name: "notfound", fault: &farm.Fault{Kind: farm.Status, Status: 404}, status: 404, attempts: 1, count: 1},
		{name: "err500", fault: &farm.Fault{Kind: farm.Status, Status: 500}, status: 500, attempts: 3, count: 3, waits: []time.Duration{-1, -1}},
		{name: "ratelimited", fault: &farm.Fault{Kind: farm.Status, Status: 429, RetryAfter: 1}, status: 429, attempts: 3, count: 3,
			waits: []time.Duration{5 * time.Millisecond, 5 * time.Millisecond}}, // Retry-After 1s capped by MaxRetryAfter
		{name: "fail2", fault: &farm.Fault{Kind: farm.Status, Status: 503, Times: 2}, status: 200, attempts: 3, count: 3, body: "Product fail2"},
		{name: "ratelimited1", fault: &farm.Fault{Kind: farm.Status, Status: 429, Times: 1}, status: 200, attempts: 2, count: 2},
		{name: "slow", fault: &farm.Fault{Kind: farm.Slow, Delay: 5 * time.Second}, timeout: 150 * time.Millisecond,
			code: errcode.TargetUnreachable, detail: "timeout", attempts: 3, count: 3},
		{name: "slowok", fault: &farm.Fault{Kind: farm.Slow, Delay: 30 * time.Millisecond}, status: 200, attempts: 1, count: 1, body: "Product slowok"},
		{name: "drip", fault: &farm.Fault{Kind: farm.Drip, BytesPerSec: 1}, timeout: 150 * time.Millisecond,
			code: errcode.TargetUnreachable, detail: "timeout", attempts: 3, count: 3},
		{name: "dripfast", fault: &farm.Fault{Kind: farm.Drip, BytesPerSec: 4000}, status: 200, attempts: 1, count: 1, body: "Product dripfast"},
		{name: "redirect", fault: &farm.Fault{Kind: farm.Redirect, Location: "/dp/B0OTHER?th=1"}, status: 200, attempts: 1, count: 1,
			body: "Product B0OTHER", finalURL: "https://www.amazon.com/dp/B0OTHER?th=1"},
		{name: "reset", fault: &farm.Fault{Kind: farm.Reset}, code: errcode.TargetUnreachable, detail: "connection", attempts: 3, count: 3},
		{name: "reset1", fault: &farm.Fault{Kind: farm.Reset, Times: 1}, status: 200, attempts: 2, count: 2},
		{name: "resethttp1", fault: &farm.Fault{Kind: farm.Reset}, url: "http://www.amazon.com/dp/resethttp1",
			code: errcode.TargetUnreachable, detail: "connection", attempts: 3, count: 3},
		{name: "bomb", fault: &farm.Fault{Kind: farm.Bomb}, code: errcode.TargetUnreachable, detail: "too_large", attempts: 1, count: 1},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			path := "/dp/" + r.name
			f.ClearFaults()
			if r.fault != nil {
				ft := *r.fault
				ft.Host, ft.Path = "www.amazon.com", path
				if err := f.SetFault(ft); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			var waits []time.Duration
			o := Options{AttemptTimeout: r.timeout}
			o.sleep = func(ctx context.Context, d time.Duration) error {
				mu.Lock()
				waits = append(waits, d)
				mu.Unlock()
				return nil
			}
			c, _ := farmClient(t, f, o)
			u := r.url
			if u == "" {
				u = "https://www.amazon.com" + path
			}
			start := time.Now()
			resp, err := get(c, context.Background(), u, nil)
			if resp == nil || resp.Attempts != r.attempts {
				t.Errorf("attempts = %v, want %d", resp, r.attempts)
			}
			if r.code != "" {
				e := wantErr(t, err, r.code, r.detail)
				t.Logf("%s: %s/%s after %d attempts in %v (%v)", r.name, e.Code, e.Detail, resp.Attempts, time.Since(start).Round(time.Millisecond), e)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if resp.Status != r.status {
					t.Errorf("status = %d, want %d", resp.Status, r.status)
				}
				if !strings.Contains(string(resp.Body), r.body) {
					t.Errorf("body = %.200q, want %q", resp.Body, r.body)
				}
				if r.finalURL != "" && resp.URL != r.finalURL {
					t.Errorf("final URL = %s, want %s", resp.URL, r.finalURL)
				}
				t.Logf("%s: status %d after %d attempts in %v", r.name, resp.Status, resp.Attempts, time.Since(start).Round(time.Millisecond))
			}
			if got := f.Count("www.amazon.com", path); got != r.count {
				t.Errorf("farm saw %d requests, want %d", got, r.count)
			}
			mu.Lock()
			defer mu.Unlock()
			if r.waits != nil {
				if len(waits) != len(r.waits) {
					t.Fatalf("waits = %v, want %v", waits, r.waits)
				}
				for i, w := range r.waits {
					if w >= 0 && waits[i] != w {
						t.Errorf("wait %d = %v, want %v", i, waits[i], w)
					}
				}
			}
		})
	}
}

// TestGzipBombMemory: a body decoding to 1 GiB is stopped at the cap with little memory.
func TestGzipBombMemory(t *testing.T) {
	f := newFarm(t)
	f.SetFault(farm.Fault{Kind: farm.Bomb, Path: "/bomb", Size: 1 << 30})
	c, _ := farmClient(t, f, Options{MaxAttempts: 1})
	// warm up the TLS connection and the bomb's member outside the measure
	if _, err := get(c, context.Background(), "https://www.amazon.com/dp/x", nil); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	start := time.Now()
	_, err := get(c, context.Background(), "https://www.amazon.com/bomb", nil)
	close(done)
	wg.Wait()
	wantErr(t, err, errcode.TargetUnreachable, "too_large")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatal(err)
	}
	growth := int64(peak.Load()) - int64(before.HeapInuse)
	t.Logf("1 GiB gzip bomb refused in %v; peak heap growth %.1f MiB", time.Since(start).Round(time.Millisecond), float64(growth)/(1<<20))
	if growth > 64<<20 {
		t.Fatalf("heap grew by %d MiB", growth>>20)
	}
}

// TestZstdBomb: 1 GiB of zstd (repeated frames) is refused at the cap too.
func TestZstdBomb(t *testing.T) {
	f := newFarm(t)
	frame := encode(t, "zstd", make([]byte, 1<<20))
	f.HandleFunc("*", "/zbomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "zstd")
		for range 1024 {
			if _, err := w.Write(frame); err != nil {
				return
			}
		}
	})
	f.HandleFunc("*", "/brbomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "br")
		w.Write(encode(t, "br", make([]byte, 3<<20)))
	})
	c, _ := farmClient(t, f, Options{MaxAttempts: 1, MaxBodyBytes: 2 << 20})
	for _, p := range []string{"/zbomb", "/brbomb"} {
		_, err := get(c, context.Background(), "https://www.amazon.com"+p, nil)
		wantErr(t, err, errcode.TargetUnreachable, "too_large")
	}
}

func TestEncodings(t *testing.T) {
	f := newFarm(t)
	c, _ := farmClient(t, f, Options{MaxAttempts: 1})
	want := strings.Repeat("hello farm ", 1000)
	for _, coding := range []string{"identity", "gzip", "deflate", "deflate-raw", "br", "zstd"} {
		resp, err := get(c, context.Background(), "https://www.amazon.com/enc/"+coding, nil)
		if err != nil {
			t.Fatalf("%s: %v", coding, err)
		}
		if string(resp.Body) != want {
			t.Errorf("%s: body %.60q", coding, resp.Body)
		}
		if resp.Header.Get("Content-Encoding") != "" && coding != "identity" {
			t.Errorf("%s: Content-Encoding kept", coding)
		}
	}
	for _, coding := range []string{"compress", "gzip,%20gzip"} {
		_, err := get(c, context.Background(), "https://www.amazon.com/enc/"+coding, nil)
		wantErr(t, err, errcode.TargetUnreachable, "encoding")
	}
	// the cap applies to the decoded size; Do can truncate instead
	_, err := c.Do(context.Background(), mustReq(t, "GET", "https://www.amazon.com/enc/gzip?n=100000"), Limits{MaxBodyBytes: 1000})
	wantErr(t, err, errcode.TargetUnreachable, "too_large")
	res, err := c.Do(context.Background(), mustReq(t, "GET", "https://www.amazon.com/enc/gzip?n=100000"), Limits{MaxBodyBytes: 1000, Truncate: true})
	if err != nil || len(res.Body) != 1000 || !res.Truncated {
		t.Fatalf("truncate: %v %v", res, err)
	}
}

func mustReq(t testing.TB, method, url string) *http.Request {
	r, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDripDeadline: a 1 byte/s drip ends at the attempt deadline, and at the request's deadline.
// Which deadline ended it is read from the error's cause, not from a clock.
func TestDripDeadline(t *testing.T) {
	f := newFarm(t)
	f.SetFault(farm.Fault{Kind: farm.Drip, BytesPerSec: 1})
	c, _ := farmClient(t, f, Options{MaxAttempts: 1, AttemptTimeout: 400 * time.Millisecond})
	_, err := get(c, context.Background(), "https://www.amazon.com/dp/drip", nil)
	wantErr(t, err, errcode.TargetUnreachable, "timeout")
	if !errors.Is(err, errAttemptTimeout) {
		t.Fatalf("ended by %v, want the attempt deadline", err)
	}
	// the per-request deadline (ctx) ends it too, without retrying past it
	c2, _ := farmClient(t, f, Options{MaxAttempts: 3, AttemptTimeout: 20 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	resp, err := get(c2, ctx, "https://www.amazon.com/dp/drip2", nil)
	wantErr(t, err, errcode.TargetUnreachable, "timeout")
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, errAttemptTimeout) || resp.Attempts != 1 {
		t.Fatalf("ended by %v after %d attempts, want the request's deadline after 1", err, resp.Attempts)
	}
	// the idle watchdog ends a stalled body before the attempt deadline
	c3, _ := farmClient(t, f, Options{MaxAttempts: 1, AttemptTimeout: 20 * time.Second, IdleTimeout: 300 * time.Millisecond})
	f.ClearFaults()
	f.HandleFunc("*", "/stall", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>"))
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	})
	_, err = get(c3, context.Background(), "https://www.amazon.com/stall", nil)
	wantErr(t, err, errcode.TargetUnreachable, "timeout")
	if !errors.Is(err, errIdle) {
		t.Fatalf("stall ended by %v, want the idle watchdog", err)
	}
}

func TestRedirects(t *testing.T) {
	f := newFarm(t)
	c, _ := farmClient(t, f, Options{MaxAttempts: 1})
	resp, err := get(c, context.Background(), "https://www.amazon.com/hop/5", nil)
	if err != nil || string(resp.Body) != "landed" || resp.URL != "https://www.amazon.com/hop/0" {
		t.Fatalf("5 hops: %v %v", resp, err)
	}
	_, err = get(c, context.Background(), "https://www.amazon.com/hop/6", nil)
	wantErr(t, err, errcode.TargetUnreachable, "too_many_redirects")
	if n := f.Count("www.amazon.com", "/hop/"); n != 6+6 {
		t.Fatalf("farm saw %d hops", n)
	}

	// credentials survive a same-host redirect and are dropped on a cross-host one
	h := http.Header{"Authorization": {"Bearer secret"}, "Cookie": {"session=secret"}}
	for _, tc := range []struct {
		to   string
		kept bool
	}{
		{"https://www.amazon.com/echo", true},
		{"https://evil.test/echo", false},
		{"https://amazon.com/echo", false},
	} {
		resp, err := get(c, context.Background(), "https://www.amazon.com/xhost?to="+tc.to, h)
		if err != nil {
			t.Fatal(err)
		}
		var echo struct{ Header http.Header }
		json.Unmarshal(resp.Body, &echo)
		got := echo.Header.Get("Authorization") != "" || echo.Header.Get("Cookie") != ""
		if got != tc.kept {
			t.Errorf("redirect to %s: credentials sent = %v (%v)", tc.to, got, echo.Header)
		}
		if resp.URL != tc.to {
			t.Errorf("final URL %s", resp.URL)
		}
	}
}

func TestCookiesAndHeaders(t *testing.T) {
	f := newFarm(t)
	c, _ := farmClient(t, f, Options{MaxAttempts: 1})
	resp, err := get(c, context.Background(), "https://www.amazon.de/setcookie", http.Header{"Accept-Language": {"de-DE,de;q=0.9"}})
	if err != nil {
		t.Fatal(err)
	}
	var echo struct {
		Proto  string
		Header http.Header
	}
	json.Unmarshal(resp.Body, &echo)
	if echo.Header.Get("Cookie") != "sid=farm1" {
		t.Errorf("cookie from the redirect hop not sent: %v", echo.Header)
	}
	for k, v := range map[string]string{
		"User-Agent": DefaultUserAgent, "Accept-Encoding": AcceptEncoding, "Accept-Language": "de-DE,de;q=0.9",
		"Sec-Fetch-Mode": "navigate", "Sec-Ch-Ua-Mobile": "?0",
	} {
		if got := echo.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if echo.Proto != "HTTP/2.0" {
		t.Errorf("proto %s", echo.Proto)
	}
	// a fresh jar per request
	resp, _ = get(c, context.Background(), "https://www.amazon.de/echo", nil)
	var echo2 struct{ Header http.Header }
	json.Unmarshal(resp.Body, &echo2)
	if echo2.Header.Get("Cookie") != "" {
		t.Errorf("cookie leaked into another request")
	}
}

func TestHTTP2AndDo(t *testing.T) {
	f := newFarm(t)
	c, _ := farmClient(t, f, Options{})
	res, err := c.Do(context.Background(), mustReq(t, "GET", "https://www.youtube.com/echo"), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Proto != "HTTP/2.0" || res.Status != 200 || res.Attempts != 1 {
		t.Fatalf("%+v", res)
	}
	var echo struct{ Header http.Header }
	json.Unmarshal(res.Body, &echo)
	if echo.Header.Get("User-Agent") != "Go-http-client/2.0" && echo.Header.Get("User-Agent") != "" {
		// Do adds no browser headers unless asked
		t.Logf("UA %q", echo.Header.Get("User-Agent"))
	}
	if echo.Header.Get("Sec-Fetch-Mode") != "" {
		t.Errorf("browser headers without BrowserHeaders")
	}
}

// TestPostWebhook: no redirects, a capped body, user-URL rules.
func TestPostWebhook(t *testing.T) {
	f := newFarm(t)
	f.HandleFunc("hooks.example", "/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte("x"), 1<<20))
	})
	var got atomic.Value
	f.HandleFunc("hooks.example", "/hook", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(r.Header.Get("Content-Type") + " " + r.Header.Get("X-Asa-Signature") + " " + r.Header.Get("Webhook-Id") + " " + string(b))
		w.WriteHeader(204)
	})
	c, _ := farmClient(t, f, Options{})
	res, err := c.PostWebhook(context.Background(), "https://hooks.example/hop/1", []byte(`{}`), nil)
	if err != nil || res.Status != 302 {
		t.Fatalf("redirect followed: %+v %v", res, err)
	}
	res, err = c.PostWebhook(context.Background(), "https://hooks.example/big", []byte(`{}`), nil)
	if err != nil || len(res.Body) != WebhookMaxBodyBytes || !res.Truncated {
		t.Fatalf("big: %v", err)
	}
	res, err = c.PostWebhook(context.Background(), "https://hooks.example/hook", []byte(`{"a":1}`),
		http.Header{"Webhook-Id": {"msg_1"}})
	if err != nil || res.Status != 204 {
		t.Fatal(err)
	}
	if s, _ := got.Load().(string); s != `application/json  msg_1 {"a":1}` {
		t.Fatalf("receiver saw %q", s)
	}
	_, err = c.PostWebhook(context.Background(), "https://hooks.example:8443/hook", nil, nil)
	wantErr(t, err, errcode.InvalidParams, "")
}

func BenchmarkFetchLoopback(b *testing.B) {
	f := newFarm(b)
	c, _ := farmClient(b, f, Options{})
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := get(c, context.Background(), "https://www.amazon.com/dp/B0BENCH", nil)
			if err != nil || resp.Status != 200 {
				b.Fatal(err)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// TestThousandInFlight: 1,000 concurrent requests to a farm that answers after a delay all succeed
// through one client, and the client adds little over the farm's delay.
func TestThousandInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	const delay = 500 * time.Millisecond
	f, err := farm.New(farm.Options{Hosts: []string{"*"}, Latency: delay, ControlAddr: "off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	f.HandleFunc("*", "/", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	c, _ := farmClient(t, f, Options{AttemptTimeout: 30 * time.Second, MaxAttempts: 1})
	lat := make([]time.Duration, 1000)
	var failed atomic.Int64
	var wg sync.WaitGroup
	for i := range lat {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			resp, err := get(c, context.Background(), fmt.Sprintf("https://www.amazon.com/dp/B%d", i), nil)
			lat[i] = time.Since(start)
			if err != nil || resp.Status != 200 {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	t.Logf("1000 in flight, farm delay %v: added p50 %v, p99 %v, max %v", delay,
		(lat[499] - delay).Round(time.Millisecond), (lat[989] - delay).Round(time.Millisecond), (lat[999] - delay).Round(time.Millisecond))
	if failed.Load() != 0 {
		t.Fatalf("%d requests failed", failed.Load())
	}
}

// TestStalledTargets: a target that accepts and never answers, and one that never finishes TLS,
// end at the attempt deadline.
func TestStalledTargets(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	resolve := func(string) (string, bool) { return ln.Addr().String(), true }
	c, _ := newTestClient(t, Options{Resolve: resolve, MaxAttempts: 2, AttemptTimeout: 150 * time.Millisecond})
	for _, u := range []string{"http://stall.example/", "https://stall.example/"} {
		resp, err := c.Fetch(context.Background(), &engine.Request{URL: u})
		wantErr(t, err, errcode.TargetUnreachable, "timeout")
		if !errors.Is(err, errAttemptTimeout) || resp.Attempts != 2 {
			t.Fatalf("%s: ended by %v after %d attempts, want the attempt deadline twice", u, err, resp.Attempts)
		}
	}
}

func TestClientHintsFollowUserAgent(t *testing.T) {
	h := browserHeaders("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36")
	if !strings.Contains(h.Get("Sec-Ch-Ua"), `"Google Chrome";v="141"`) || h.Get("Sec-Ch-Ua-Platform") != `"macOS"` {
		t.Fatal(h)
	}
	h = browserHeaders("Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0")
	if h.Get("Sec-Ch-Ua") != "" {
		t.Fatal("client hints for Firefox")
	}
	if !strings.Contains(browserHeaders(DefaultUserAgent).Get("Sec-Ch-Ua"), ChromeVersion) {
		t.Fatal("default")
	}
}

// TestStaticResolveAndCAFile: how `asa serve` reaches a farm started by `asa farm`.
func TestStaticResolveAndCAFile(t *testing.T) {
	f := newFarm(t)
	caFile := t.TempDir() + "/ca.pem"
	if err := os.WriteFile(caFile, f.CACertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	pool, err := CertPoolFromFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	resolve, err := StaticResolve(f.Addr())
	if err != nil {
		t.Fatal(err)
	}
	for hp, ok := range map[string]bool{"www.amazon.com:443": true, "x.test:80": true, "127.0.0.1:443": false, "[::1]:443": false, "localhost:80": false} {
		if _, got := resolve(hp); got != ok {
			t.Errorf("%s: %v", hp, got)
		}
	}
	c, _ := newTestClient(t, Options{Resolve: resolve, RootCAs: pool})
	resp, err := get(c, context.Background(), "https://www.google.com/dp/B0", nil)
	if err != nil || resp.Status != 200 {
		t.Fatal(err)
	}
	if _, err := StaticResolve("farm:8443"); err == nil {
		t.Fatal("name accepted")
	}
	if _, err := CertPoolFromFile(os.DevNull); err == nil {
		t.Fatal("empty CA file accepted")
	}
}
