package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"asa/engine/errcode"
)

// publicStandIn is the loopback alias that tests allow (Options.AllowAddrs) as a stand-in for a
// public server; 127.0.0.1 stays internal.
const publicStandIn = "127.0.0.10"

// fakeDNS is an in-process DNS server over UDP on loopback. Each name has a list of answer sets
// consumed in order (the last one repeats), TTL 0: enough for rebinding and dual-stack answers.
type fakeDNS struct {
	pc      net.PacketConn
	mu      sync.Mutex
	answers map[string][][]netip.Addr
	asked   map[string]int
}

func newFakeDNS(t testing.TB) *fakeDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDNS{pc: pc, answers: map[string][][]netip.Addr{}, asked: map[string]int{}}
	go d.serve()
	t.Cleanup(func() { pc.Close() })
	return d
}

// set gives name its answer sets: set("a.test", "1.2.3.4") or set("a.test", "1.2.3.4,::1", "127.0.0.1").
func (d *fakeDNS) set(name string, sets ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var all [][]netip.Addr
	for _, s := range sets {
		var as []netip.Addr
		for _, a := range strings.Split(s, ",") {
			as = append(as, netip.MustParseAddr(strings.TrimSpace(a)))
		}
		all = append(all, as)
	}
	d.answers[strings.ToLower(strings.TrimSuffix(name, "."))] = all
}

// queries counts the A queries for name (one per lookup).
func (d *fakeDNS) queries(name string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.asked[name]
}

// resolver returns a net.Resolver that only ever talks to d.
func (d *fakeDNS) resolver() *net.Resolver {
	addr := d.pc.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var nd net.Dialer
		return nd.DialContext(ctx, "udp", addr)
	}}
}

func (d *fakeDNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if out := d.answer(buf[:n]); out != nil {
			d.pc.WriteTo(out, from)
		}
	}
}

func (d *fakeDNS) answer(msg []byte) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil
	}
	q, err := p.Question()
	if err != nil {
		return nil
	}
	name := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
	d.mu.Lock()
	sets, ok := d.answers[name]
	var addrs []netip.Addr
	if ok {
		i := d.asked[name]
		if q.Type == dnsmessage.TypeA {
			d.asked[name]++
		}
		addrs = sets[min(i, len(sets)-1)]
	}
	d.mu.Unlock()
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionAvailable: true}
	if !ok {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.StartQuestions()
	b.Question(q)
	b.StartAnswers()
	for _, a := range addrs {
		hdr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}
		if a.Is4() && q.Type == dnsmessage.TypeA {
			b.AResource(hdr, dnsmessage.AResource{A: a.As4()})
		} else if a.Is6() && q.Type == dnsmessage.TypeAAAA {
			b.AAAAResource(hdr, dnsmessage.AAAAResource{AAAA: a.As16()})
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil
	}
	return out
}

// canary is an HTTP server on a loopback address that counts every request it gets.
type canary struct {
	ln   net.Listener
	srv  *http.Server
	hits atomic.Int64
	mu   sync.Mutex
	reqs []*http.Request
}

func newCanary(t testing.TB, addr string, h http.HandlerFunc) *canary {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c := &canary{ln: ln}
	c.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		c.mu.Lock()
		c.reqs = append(c.reqs, r.Clone(context.Background()))
		c.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		fmt.Fprint(w, "canary")
	})}
	go c.srv.Serve(ln)
	t.Cleanup(func() { c.srv.Close() })
	return c
}

func (c *canary) port() int { return c.ln.Addr().(*net.TCPAddr).Port }

// canaryPair listens on publicStandIn and 127.0.0.1 with the same port: pub answers with pubH,
// internal must never be hit.
func canaryPair(t testing.TB, pubH http.HandlerFunc) (pub, internal *canary) {
	t.Helper()
	for range 20 {
		pub = newCanary(t, publicStandIn+":0", pubH)
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", pub.port()))
		if err != nil {
			pub.srv.Close()
			continue
		}
		ln.Close()
		internal = newCanary(t, ln.Addr().String(), nil)
		return pub, internal
	}
	t.Fatal("no port free on both loopback addresses")
	return nil, nil
}

// loopbackOnly is an Options.dial for tests: nothing but loopback is ever connected to. An address
// outside loopback that the guard would let through fails the test ("would have dialed") instead of
// sending a packet. dials records every address actually connected to.
type loopbackOnly struct {
	t     testing.TB
	mu    sync.Mutex
	dials []string
}

func (l *loopbackOnly) dial(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		// a proxy given by name: resolve it only if it is localhost
		host, port, _ := net.SplitHostPort(addr)
		if host != "localhost" {
			l.t.Errorf("would have resolved %q outside the test", addr)
			return nil, errors.New("test: refusing to resolve")
		}
		addr = net.JoinHostPort("127.0.0.1", port)
		ap = netip.MustParseAddrPort(addr)
	}
	if !ap.Addr().Unmap().IsLoopback() {
		if d.Control != nil {
			nw := "tcp4"
			if ap.Addr().Is6() && !ap.Addr().Is4In6() {
				nw = "tcp6"
			}
			if err := d.Control(nw, addr, nil); err != nil {
				return nil, err // refused by the guard: the point of the test
			}
		}
		l.t.Errorf("would have dialed %s (not loopback) after the guard let it through", addr)
		return nil, errors.New("test: refusing to dial outside loopback")
	}
	conn, err := d.DialContext(ctx, network, addr)
	if err == nil {
		l.mu.Lock()
		l.dials = append(l.dials, addr)
		l.mu.Unlock()
	}
	return conn, err
}

func (l *loopbackOnly) connected() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.dials...)
}

// fast are options that keep tests quick.
func fast(o Options) Options {
	if o.Backoff == (Backoff{}) {
		o.Backoff = Backoff{Base: time.Millisecond, Max: 2 * time.Millisecond}
	}
	if o.MaxRetryAfter == 0 {
		o.MaxRetryAfter = 5 * time.Millisecond
	}
	if o.AttemptTimeout == 0 {
		o.AttemptTimeout = 5 * time.Second
	}
	return o
}

func newTestClient(t testing.TB, o Options) (*Client, *loopbackOnly) {
	t.Helper()
	lo := &loopbackOnly{t: t}
	o = fast(o)
	o.dial = lo.dial
	if o.Resolver == nil {
		// no DNS packet ever leaves a test: names come from /etc/hosts, Options.Resolve or a fakeDNS
		o.Resolver = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
			t.Errorf("a DNS query would have left the test")
			return nil, errors.New("test: no DNS")
		}}
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, lo
}

// wantErr checks err is an *errcode.Error with code and detail (detail "" = any).
func wantErr(t testing.TB, err error, code errcode.Code, detail string) *errcode.Error {
	t.Helper()
	e := errcode.As(err)
	if e == nil {
		t.Fatalf("error = %v, want %s/%s", err, code, detail)
	}
	if e.Code != code || detail != "" && e.Detail != detail {
		t.Fatalf("error = %s detail %q (%v), want %s detail %q", e.Code, e.Detail, e, code, detail)
	}
	return e
}
