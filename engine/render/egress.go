package render

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"asa/engine/errcode"
)

// Dialer opens a TCP connection to "host:port" through asa's guarded egress (fetch.Client.DialTarget):
// the SSRF guard at parse and dial time, proxies by the context's country.
type Dialer interface {
	DialTarget(ctx context.Context, hostport string) (net.Conn, error)
}

// Refusal is one connection the egress proxy refused or could not open for a page.
type Refusal struct {
	// Target is the "host:port" the page asked for.
	Target string
	// Detail is the target_unreachable detail: forbidden, timeout, connection, too_large.
	Detail string
}

// egress is the forward proxy of one render: the browser context of the render is created with
// proxyServer pointing at its listener, so every connection the page opens (documents, scripts, XHR,
// images, websockets, workers) arrives here and is dialled through the guarded Dialer. One listener
// per render attributes every connection to its request (country, byte budget) and ends them all
// when the render ends.
type egress struct {
	ln     net.Listener
	srv    *http.Server
	dialer Dialer
	ctx    context.Context // the render's: carries the country, ends with the render
	cancel context.CancelFunc
	budget atomic.Int64 // bytes the targets may still send
	over   atomic.Bool

	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	refused  []Refusal
	failures map[string]string // target -> detail of its first failure
	dials    int
}

// maxRefusals bounds what one render records of its refused connections.
const maxRefusals = 64

func newEgress(ctx context.Context, d Dialer, budget int64) (*egress, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ectx, cancel := context.WithCancel(ctx)
	e := &egress{ln: ln, dialer: d, ctx: ectx, cancel: cancel, conns: map[net.Conn]struct{}{}, failures: map[string]string{}}
	e.budget.Store(budget)
	e.srv = &http.Server{
		Handler:           http.HandlerFunc(e.serve),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ectx },
		ErrorLog:          discardLog,
	}
	go e.srv.Serve(ln)
	return e, nil
}

// addr is the proxy's "127.0.0.1:port".
func (e *egress) addr() string { return e.ln.Addr().String() }

func (e *egress) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		e.connect(w, r)
		return
	}
	// A forward-proxy request carries an absolute http URL; https arrives as CONNECT, anything else
	// (ftp://, a relative path: someone talking to the port directly) is refused.
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "not a proxy request", http.StatusBadRequest)
		return
	}
	e.forward(w, r)
}

func (e *egress) connect(w http.ResponseWriter, r *http.Request) {
	up, err := e.dial(r.Host)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	e.relay(w, up, "HTTP/1.1 200 Connection established\r\n\r\n")
}

// hopHeaders are the headers of one hop, never forwarded (RFC 9110 7.6.1, and the proxy's own).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "Te", "Trailer"}

// forward sends one plain-HTTP request to its target over a guarded connection and relays the
// answer: one request per connection (Connection: close), so the answer ends when the target closes,
// and a websocket upgrade simply carries on over the same relay. No HTTP client of ours is involved:
// the bytes go through as the browser and the target wrote them, counted against the budget.
func (e *egress) forward(w http.ResponseWriter, r *http.Request) {
	hostport := r.URL.Host
	if r.URL.Port() == "" {
		hostport = net.JoinHostPort(r.URL.Hostname(), "80")
	}
	up, err := e.dial(hostport)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	upgrade := strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
	out := r.Clone(e.ctx)
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	if upgrade {
		out.Header.Set("Connection", "Upgrade")
	} else {
		out.Header.Del("Upgrade")
		out.Close = true
	}
	// The request (and its body) goes out before the browser's connection is taken over: after
	// Hijack the body can no longer be read.
	up.SetWriteDeadline(time.Now().Add(30 * time.Second))
	if err := out.Write(up); err != nil {
		up.Close()
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	up.SetWriteDeadline(time.Time{})
	e.relay(w, up, "")
}

// relay takes over the browser's connection and copies both ways between it and up until either
// side ends; greeting is written to the browser first (CONNECT's answer).
func (e *egress) relay(w http.ResponseWriter, up net.Conn, greeting string) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	down, brw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !e.track(down) {
		down.Close()
		up.Close()
		return
	}
	defer e.untrack(down)
	defer down.Close()
	defer up.Close()
	if greeting != "" {
		if _, err := io.WriteString(down, greeting); err != nil {
			return
		}
	}
	done := make(chan struct{}, 2)
	go func() {
		// bytes the browser sent before our answer are in brw's reader
		io.Copy(up, brw.Reader)
		if cw, ok := up.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() {
		io.Copy(down, up)
		done <- struct{}{}
	}()
	<-done
}

// dial opens a guarded connection for the page and records why one is refused.
func (e *egress) dial(hostport string) (net.Conn, error) {
	hostport = strings.ToLower(hostport)
	e.mu.Lock()
	e.dials++
	e.mu.Unlock()
	if e.over.Load() {
		e.fail(hostport, "too_large")
		return nil, errBudget
	}
	conn, err := e.dialer.DialTarget(e.ctx, hostport)
	if err != nil {
		detail := "connection"
		if ec := errcode.As(err); ec != nil && ec.Detail != "" {
			detail = ec.Detail
		}
		e.fail(hostport, detail)
		return nil, err
	}
	cc := &countedConn{Conn: conn, e: e, target: hostport}
	if !e.track(cc) {
		conn.Close()
		return nil, context.Canceled
	}
	return cc, nil
}

var errBudget = errors.New("render: the page's transfer budget is spent")

func (e *egress) fail(target, detail string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.failures[target]; !ok {
		e.failures[target] = detail
	}
	if len(e.refused) < maxRefusals {
		e.refused = append(e.refused, Refusal{Target: target, Detail: detail})
	}
}

// failure is the detail of the first failed dial to target, or "".
func (e *egress) failure(target string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.failures[strings.ToLower(target)]
}

func (e *egress) refusals() []Refusal {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Refusal(nil), e.refused...)
}

func (e *egress) track(c net.Conn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.conns == nil {
		return false
	}
	e.conns[c] = struct{}{}
	return true
}

func (e *egress) untrack(c net.Conn) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.conns, c)
}

// close ends the listener and every connection of the render.
func (e *egress) close() {
	e.cancel()
	e.srv.Close()
	e.mu.Lock()
	conns := e.conns
	e.conns = nil
	e.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

// countedConn charges what a target sends against the render's budget; past it the connection is
// closed, and the render fails with too_large.
type countedConn struct {
	net.Conn
	e      *egress
	target string
	once   sync.Once
}

func (c *countedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.e.budget.Add(-int64(n)) < 0 {
		c.e.over.Store(true)
		c.e.fail(c.target, "too_large")
		c.Conn.Close()
		return 0, errBudget
	}
	return n, err
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.e.untrack(c) })
	return c.Conn.Close()
}
