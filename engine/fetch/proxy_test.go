package fetch

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fetch/farm"
	"asa/engine/fetch/fetchtest"
)

// socks5Server is a minimal SOCKS5 server (RFC 1928, with RFC 1929 user/password) that only ever
// connects to loopback addresses and records the targets it was asked for.
type socks5Server struct {
	ln         net.Listener
	user, pass string
	conns      atomic.Int64
	mu         sync.Mutex
	targets    []string
}

func newSOCKS5(t testing.TB, user, pass string) *socks5Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &socks5Server{ln: ln, user: user, pass: pass}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.handle(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return s
}

func (s *socks5Server) url() string {
	if s.user != "" {
		return fmt.Sprintf("socks5://%s:%s@%s", s.user, s.pass, s.ln.Addr())
	}
	return "socks5://" + s.ln.Addr().String()
}

func (s *socks5Server) handle(c net.Conn) {
	defer c.Close()
	s.conns.Add(1)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 512)
	if _, err := io.ReadFull(c, buf[:2]); err != nil || buf[0] != 5 {
		return
	}
	methods := buf[2 : 2+int(buf[1])]
	if _, err := io.ReadFull(c, methods); err != nil {
		return
	}
	want := byte(0)
	if s.user != "" {
		want = 2
	}
	if !slices.Contains(methods, want) {
		c.Write([]byte{5, 0xff})
		return
	}
	c.Write([]byte{5, want})
	if want == 2 {
		if _, err := io.ReadFull(c, buf[:2]); err != nil {
			return
		}
		u := make([]byte, buf[1])
		io.ReadFull(c, u)
		io.ReadFull(c, buf[:1])
		p := make([]byte, buf[0])
		io.ReadFull(c, p)
		if string(u) != s.user || string(p) != s.pass {
			c.Write([]byte{1, 1})
			return
		}
		c.Write([]byte{1, 0})
	}
	if _, err := io.ReadFull(c, buf[:4]); err != nil || buf[1] != 1 {
		return
	}
	var host string
	switch buf[3] {
	case 1:
		io.ReadFull(c, buf[:4])
		host = netip.AddrFrom4([4]byte(buf[:4])).String()
	case 4:
		io.ReadFull(c, buf[:16])
		host = netip.AddrFrom16([16]byte(buf[:16])).String()
	case 3:
		io.ReadFull(c, buf[:1])
		n := int(buf[0])
		io.ReadFull(c, buf[:n])
		host = string(buf[:n])
	}
	io.ReadFull(c, buf[:2])
	target := net.JoinHostPort(host, fmt.Sprint(binary.BigEndian.Uint16(buf[:2])))
	s.mu.Lock()
	s.targets = append(s.targets, target)
	s.mu.Unlock()
	a, err := netip.ParseAddr(host)
	if err != nil || !a.IsLoopback() {
		c.Write([]byte{5, 2, 0, 1, 0, 0, 0, 0, 0, 0}) // not allowed by ruleset
		return
	}
	up, err := net.Dial("tcp", target)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer up.Close()
	c.SetDeadline(time.Time{})
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	go func() { io.Copy(up, c); up.Close() }()
	io.Copy(c, up)
}

func (s *socks5Server) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.targets...)
}

// connectProxy is an HTTP CONNECT proxy handler (for http:// and https:// proxies in tests).
type connectProxy struct {
	mu      sync.Mutex
	targets []string
	auth    string
}

func (p *connectProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
		return
	}
	p.mu.Lock()
	p.targets = append(p.targets, r.Host)
	p.mu.Unlock()
	if p.auth != "" && r.Header.Get("Proxy-Authorization") != p.auth {
		w.WriteHeader(http.StatusProxyAuthRequired)
		return
	}
	up, err := net.Dial("tcp", r.Host)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusOK)
	http.NewResponseController(w).Flush()
	c, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	go func() {
		if n := brw.Reader.Buffered(); n > 0 {
			b, _ := brw.Reader.Peek(n)
			up.Write(b)
		}
		io.Copy(up, c)
		up.Close()
	}()
	io.Copy(c, up)
	c.Close()
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

// TestTinyproxy fetches farm pages over TLS through a real proxy (CONNECT to the checked address).
func TestTinyproxy(t *testing.T) {
	addr, log := fetchtest.Tinyproxy(t)
	f := newFarm(t)
	c, lo := farmClient(t, f, Options{Proxies: []Proxy{{URL: "http://" + addr, Country: "US"}}})
	ctx := WithCountry(context.Background(), "us")
	for _, u := range []string{"https://www.amazon.com/dp/B0TINY", "http://www.amazon.com/dp/B0PLAIN"} {
		resp, err := get(c, ctx, u, nil)
		if err != nil || resp.Status != 200 || !strings.Contains(string(resp.Body), "Product B0") {
			t.Fatalf("%s: %v %v", u, resp, err)
		}
	}
	if !strings.Contains(log(), "CONNECT "+f.Addr()) {
		t.Fatalf("tinyproxy log has no CONNECT %s:\n%s", f.Addr(), log())
	}
	for _, d := range lo.connected() {
		if d != addr {
			t.Errorf("dialled %s directly, not through the proxy", d)
		}
	}
	if f.Count("www.amazon.com", "/dp/") != 2 {
		t.Fatal("farm did not see the requests")
	}
}

func TestSOCKS5AndHTTPSProxies(t *testing.T) {
	f := newFarm(t)
	socks := newSOCKS5(t, "alice", "s0cks-secret")
	cp := &connectProxy{auth: "Basic " + "Ym9iOmh0dHBzLXNlY3JldA=="} // bob:https-secret
	tlsProxy := httptest.NewTLSServer(cp)
	t.Cleanup(tlsProxy.Close)
	pool := f.CertPool().Clone()
	pool.AddCert(tlsProxy.Certificate())
	c, _ := farmClient(t, f, Options{
		RootCAs: pool,
		Proxies: []Proxy{
			{URL: socks.url(), Country: "de"},
			{URL: "https://bob:https-secret@" + tlsProxy.Listener.Addr().String(), Country: "fr"},
		},
	})
	if got := c.Countries(); !slices.Equal(got, []string{"de", "fr"}) {
		t.Fatalf("countries %v", got)
	}
	resp, err := get(c, WithCountry(context.Background(), "DE"), "https://www.amazon.de/dp/B0SOCKS", nil)
	if err != nil || resp.Status != 200 {
		t.Fatalf("socks5: %v", err)
	}
	if got := socks.seen(); len(got) != 1 || got[0] != f.Addr() {
		t.Fatalf("socks5 asked for %v, want the checked address %s", got, f.Addr())
	}
	resp, err = get(c, WithCountry(context.Background(), "fr"), "https://www.amazon.fr/dp/B0HTTPS", nil)
	if err != nil || resp.Status != 200 {
		t.Fatalf("https proxy: %v", err)
	}
	if len(cp.targets) != 1 || cp.targets[0] != f.Addr() {
		t.Fatalf("https proxy asked for %v", cp.targets)
	}
	// an unconfigured country is a 400 naming "country"
	_, err = get(c, WithCountry(context.Background(), "jp"), "https://www.amazon.co.jp/dp/B0", nil)
	e := wantErr(t, err, errcode.InvalidParams, "")
	if !slices.Equal(e.Params, []string{"country"}) || !errors.Is(err, ErrUnknownCountry) || !strings.Contains(e.Message, "de, fr") {
		t.Fatalf("%v %v", e.Params, e)
	}
	if err := c.CheckCountry("xx1"); err == nil {
		t.Fatal("bad code accepted")
	}
	if err := c.CheckCountry("FR"); err != nil {
		t.Fatal(err)
	}
	// without proxies any country is unknown
	direct, _ := farmClient(t, f, Options{})
	_, err = get(direct, WithCountry(context.Background(), "de"), "https://www.amazon.de/dp/B0", nil)
	wantErr(t, err, errcode.InvalidParams, "")
	if len(direct.Countries()) != 0 {
		t.Fatal("countries without proxies")
	}
}

// TestProxyRotation: each retry goes through another proxy of the country.
func TestProxyRotation(t *testing.T) {
	f := newFarm(t)
	a, b := newSOCKS5(t, "", ""), newSOCKS5(t, "", "")
	c, _ := farmClient(t, f, Options{Proxies: []Proxy{{URL: a.url(), Country: "de"}, {URL: b.url(), Country: "de"}}})
	f.SetFault(farm.Fault{Kind: farm.Status, Status: 502, Path: "/dp/ROT", Times: 1})
	resp, err := get(c, WithCountry(context.Background(), "de"), "https://www.amazon.de/dp/ROT", nil)
	if err != nil || resp.Status != 200 || resp.Attempts != 2 {
		t.Fatalf("%v %v", resp, err)
	}
	if len(a.seen()) != 1 || len(b.seen()) != 1 {
		t.Fatalf("proxies used %d and %d times", len(a.seen()), len(b.seen()))
	}
}

// TestProxyRest: a failing proxy is rested after ProxyFailures failures, back after the cool-down;
// its credentials appear in no error and no log line.
func TestProxyRest(t *testing.T) {
	f := newFarm(t)
	good := newSOCKS5(t, "", "")
	dead, _ := net.Listen("tcp", "127.0.0.1:0")
	deadAddr := dead.Addr().String()
	dead.Close()
	var logs syncBuffer
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	c, _ := farmClient(t, f, Options{
		Proxies:       []Proxy{{URL: "http://user:hunter2-secret@" + deadAddr, Country: "us"}, {URL: good.url(), Country: "us"}},
		ProxyFailures: 2,
		ProxyCooldown: time.Minute,
		Now:           func() time.Time { return time.Unix(0, now.Load()) },
		Logger:        slog.New(slog.NewTextHandler(&logs, nil)),
	})
	attempts := 0
	for range 6 {
		resp, err := get(c, context.Background(), "https://www.amazon.com/dp/B0REST", nil)
		if err != nil || resp.Status != 200 {
			t.Fatalf("%v", err)
		}
		attempts += resp.Attempts
	}
	// the dead proxy failed twice (two Fetches each retried on the good one), then rested
	if attempts != 6+2 {
		t.Fatalf("attempts %d, want 8", attempts)
	}
	if !strings.Contains(logs.String(), "proxy rested") || strings.Contains(logs.String(), "hunter2") {
		t.Fatalf("log: %s", logs.String())
	}
	now.Add(int64(2 * time.Minute))
	resp, _ := get(c, context.Background(), "https://www.amazon.com/dp/B0REST", nil)
	resp2, _ := get(c, context.Background(), "https://www.amazon.com/dp/B0REST", nil)
	if resp.Attempts+resp2.Attempts < 3 || resp.Status != 200 || resp2.Status != 200 {
		t.Fatalf("after the cool-down the dead proxy is not tried again: %d, %d", resp.Attempts, resp2.Attempts)
	}
	// every proxy dead: the error names no credentials
	c2, _ := farmClient(t, f, Options{Proxies: []Proxy{{URL: "http://user:hunter2-secret@" + deadAddr, Country: "us"}}})
	_, err := get(c2, context.Background(), "https://www.amazon.com/dp/B0", nil)
	e := wantErr(t, err, errcode.TargetUnreachable, "connection")
	if strings.Contains(e.Error(), "hunter2") || !strings.Contains(e.Error(), "xxxxx") {
		t.Fatalf("error: %v", e)
	}
	_, err = New(Options{Proxies: []Proxy{{URL: "ftp://user:hunter2-secret@host", Country: "us"}}})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("bad proxy: %v", err)
	}
	_, err = New(Options{Proxies: []Proxy{{URL: "http://host:1", Country: "usa"}}})
	if err == nil {
		t.Fatal("bad country accepted")
	}
}

// TestProxyGuard: through a proxy, the target is still checked (the proxy never resolves it), and
// user URLs keep their rules.
func TestProxyGuard(t *testing.T) {
	dns := newFakeDNS(t)
	dns.set("internal.example", "127.0.0.1")
	socks := newSOCKS5(t, "", "")
	c, _ := newTestClient(t, Options{Resolver: dns.resolver(), Proxies: []Proxy{{URL: socks.url(), Country: "de"}}, MaxAttempts: 1})
	_, err := c.Fetch(context.Background(), &engine.Request{URL: "https://internal.example/"})
	wantErr(t, err, errcode.TargetUnreachable, "forbidden")
	_, err = c.Fetch(WithUserURL(context.Background()), &engine.Request{URL: "https://internal.example:8080/"})
	wantErr(t, err, errcode.InvalidParams, "")
	if socks.conns.Load() != 0 {
		t.Fatal("the proxy was asked")
	}
}

// TestProxyRefusesConnect: a proxy answering CONNECT with an error status fails the attempt as a
// proxy failure, naming the status; the half-open connection is closed, and nothing panics (a
// refused CONNECT used to close a nil connection in the transport's dial goroutine, which took the
// whole process down).
func TestProxyRefusesConnect(t *testing.T) {
	f := newFarm(t)
	cp := &connectProxy{auth: "Basic " + "Ym9iOmh0dHBzLXNlY3JldA=="} // bob:https-secret
	srv := httptest.NewServer(cp)
	t.Cleanup(srv.Close)
	c, _ := farmClient(t, f, Options{MaxAttempts: 2, Proxies: []Proxy{{URL: "http://bob:wrong@" + srv.Listener.Addr().String(), Country: "us"}}})
	_, err := get(c, WithCountry(context.Background(), "us"), "https://www.amazon.com/dp/B0REFUSED", nil)
	e := wantErr(t, err, errcode.TargetUnreachable, "")
	if !strings.Contains(err.Error(), "407") || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("error %q: want the 407 named and the password kept out (%+v)", err, e)
	}
	if got := len(cp.seen()); got != 2 {
		t.Fatalf("the proxy saw %d CONNECTs, want one per attempt (2)", got)
	}
}

// TestProxyAtItsClientCap: a proxy at its cap on clients (tinyproxy's MaxClients) accepts the next
// connection and does not answer it. The tunnels a client keeps idle through the proxy, one per
// target host, are what fills it here: the CONNECT that gets no answer within ProxyTimeout frees
// them, and the retry gets through, where the attempt used to wait out its whole deadline.
func TestProxyAtItsClientCap(t *testing.T) {
	addr, _ := fetchtest.TinyproxyMaxClients(t, 2)
	f := newFarm(t)
	c, _ := farmClient(t, f, Options{ProxyTimeout: 300 * time.Millisecond, AttemptTimeout: time.Minute,
		Proxies: []Proxy{{URL: "http://" + addr, Country: "us"}}})
	ctx := WithCountry(context.Background(), "us")
	for i, host := range []string{"www.amazon.com", "www.amazon.de", "www.amazon.fr"} {
		resp, err := get(c, ctx, "https://"+host+"/dp/B0CAP", nil)
		if err != nil || resp.Status != 200 {
			t.Fatalf("%s: %v %v", host, resp, err)
		}
		// The first two fill the cap with their idle tunnels; the third's first CONNECT is not
		// answered, and its second is.
		if want := 1 + i/2; resp.Attempts != want {
			t.Errorf("%s: %d attempts, want %d", host, resp.Attempts, want)
		}
	}
}

func (p *connectProxy) seen() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.targets)
}

// TestSilentProxies: an HTTP proxy that never answers CONNECT and a SOCKS5 proxy that never answers
// its greeting fail the attempt after ProxyTimeout, saying so, rather than at the attempt's
// deadline (a minute here).
func TestSilentProxies(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.WaitGroup
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop); ln.Close(); held.Wait() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held.Add(1)
			go func() { defer held.Done(); <-stop; c.Close() }() // read nothing, answer nothing
		}
	}()
	f := newFarm(t)
	for _, tc := range []struct{ scheme, want string }{
		{"http", "no answer to CONNECT within 200ms"},
		{"socks5", "no SOCKS5 answer within 200ms"},
	} {
		c, _ := farmClient(t, f, Options{ProxyTimeout: 200 * time.Millisecond, AttemptTimeout: time.Minute, MaxAttempts: 1,
			Proxies: []Proxy{{URL: tc.scheme + "://" + ln.Addr().String(), Country: "us"}}})
		_, err := get(c, WithCountry(context.Background(), "us"), "https://www.amazon.com/dp/B0SILENT", nil)
		wantErr(t, err, errcode.TargetUnreachable, "")
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s proxy: %v; want %q", tc.scheme, err, tc.want)
		}
	}
}
