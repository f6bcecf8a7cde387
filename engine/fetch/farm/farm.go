package farm

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Options configures a Farm.
type Options struct {
	// Addr is where the farm listens: TLS (HTTP/2 and HTTP/1.1) and plain HTTP on one port, told apart
	// by the first byte. Default 127.0.0.1:0.
	Addr string
	// ControlAddr is the plain-HTTP control endpoint (/__farm/...). Default 127.0.0.1:0; "off" disables it.
	ControlAddr string
	// Pages is a directory served as Pages/<host>/<path> (a directory serves its index.html; a path
	// without an extension also tries <path>.html). Empty: no directory.
	Pages string
	// Hosts are names Resolve maps to the farm besides those with a handler or a Pages directory;
	// "*" maps every host name (never IP literals or localhost).
	Hosts []string
	// Latency delays every answer (a slow but healthy target, for load tests).
	Latency time.Duration
	// Logf logs one line per request when set.
	Logf func(format string, args ...any)
}

// Farm is a local HTTPS server that impersonates target sites.
type Farm struct {
	opts   Options
	ca     *ca
	ln     *sniffListener
	srv    *http.Server
	ctlLn  net.Listener
	ctlSrv *http.Server
	wg     sync.WaitGroup

	mu       sync.RWMutex
	routes   []route
	faults   []*faultState
	counts   map[string]int
	hosts    map[string]bool
	anyHost  bool
	pagesAbs string
}

type route struct {
	host, prefix string
	// exact routes (HandleURL) match the path exactly and need their query parameters present.
	exact bool
	query url.Values
	h     http.Handler
}

// New starts a Farm. Close it when done.
func New(opts Options) (*Farm, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.ControlAddr == "" {
		opts.ControlAddr = "127.0.0.1:0"
	}
	c, err := newCA()
	if err != nil {
		return nil, fmt.Errorf("farm: CA: %w", err)
	}
	f := &Farm{opts: opts, ca: c, counts: map[string]int{}, hosts: map[string]bool{}}
	for _, h := range opts.Hosts {
		h = normHost(h)
		if h == "*" {
			f.anyHost = true
		} else if h != "" {
			f.hosts[h] = true
		}
	}
	if opts.Pages != "" {
		abs, err := filepath.Abs(opts.Pages)
		if err != nil {
			return nil, fmt.Errorf("farm: pages: %w", err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("farm: pages: %s is not a directory", opts.Pages)
		}
		f.pagesAbs = abs
	}
	raw, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("farm: %w", err)
	}
	f.ln = newSniffListener(raw, c.tlsConfig())
	f.srv = &http.Server{
		Handler:           http.HandlerFunc(f.serve),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
		ErrorLog:          nilLogger(),
	}
	f.wg.Add(1)
	go func() { defer f.wg.Done(); f.srv.Serve(f.ln) }()
	if opts.ControlAddr != "off" {
		f.ctlLn, err = net.Listen("tcp", opts.ControlAddr)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("farm: control: %w", err)
		}
		f.ctlSrv = &http.Server{Handler: http.HandlerFunc(f.control), ReadHeaderTimeout: 10 * time.Second}
		f.wg.Add(1)
		go func() { defer f.wg.Done(); f.ctlSrv.Serve(f.ctlLn) }()
	}
	return f, nil
}

// Addr is the farm's ip:port (TLS and plain HTTP).
func (f *Farm) Addr() string { return f.ln.Addr().String() }

// ControlURL is the base URL of the control endpoint ("" when disabled).
func (f *Farm) ControlURL() string {
	if f.ctlLn == nil {
		return ""
	}
	return "http://" + f.ctlLn.Addr().String()
}

// CertPool holds the farm's CA, for fetch.Options.RootCAs.
func (f *Farm) CertPool() *x509.CertPool { return f.ca.pool }

// CACertPEM is the farm's CA certificate, PEM-encoded.
func (f *Farm) CACertPEM() []byte { return f.ca.pem() }

// Resolve is a fetch.Options.Resolve: it maps "host:port" of the hosts the farm serves (any port) to
// the farm's address. IP literals and localhost names are never mapped.
func (f *Farm) Resolve(hostport string) (string, bool) {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = normHost(host)
	if host == "" || host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return "", false
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return "", false
	}
	if f.serves(host) {
		return f.Addr(), true
	}
	return "", false
}

func (f *Farm) serves(host string) bool {
	f.mu.RLock()
	defer f.mu.RUnlock()
	if f.anyHost || f.hosts[host] {
		return true
	}
	for _, r := range f.routes {
		if r.host == host {
			return true
		}
	}
	if f.pagesAbs != "" {
		if st, err := os.Stat(filepath.Join(f.pagesAbs, host)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// Handle serves requests for host (case-insensitive; "*" for any host) whose path starts with
// pathPrefix ("" or "/" for all). The longest prefix wins; an exact host beats "*".
func (f *Farm) Handle(host, pathPrefix string, h http.Handler) {
	host = normHost(host)
	if pathPrefix == "" {
		pathPrefix = "/"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes = append(f.routes, route{host: host, prefix: pathPrefix, h: h})
}

// HandleURL serves requests for exactly rawURL's host and path that carry at least rawURL's query
// parameters (a recorded page: https://www.amazon.com/s?k=duffel+bag&page=2). It beats Handle
// routes of the same host; among HandleURL routes the one naming more parameters wins.
func (f *Farm) HandleURL(rawURL string, h http.Handler) error {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return fmt.Errorf("farm: HandleURL: %q is not an absolute URL", rawURL)
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes = append(f.routes, route{host: normHost(u.Hostname()), prefix: p, exact: true, query: u.Query(), h: h})
	return nil
}

// HandleFunc is Handle with a function.
func (f *Farm) HandleFunc(host, pathPrefix string, h func(http.ResponseWriter, *http.Request)) {
	f.Handle(host, pathPrefix, http.HandlerFunc(h))
}

// Count returns how many requests the farm received for host ("" or "*" for any) under pathPrefix
// ("" for any), faults included.
func (f *Farm) Count(host, pathPrefix string) int {
	host = normHost(host)
	f.mu.RLock()
	defer f.mu.RUnlock()
	n := 0
	for k, v := range f.counts {
		h, p, _ := strings.Cut(k, "/")
		if (host == "*" || h == host) && strings.HasPrefix("/"+p, pathPrefix) {
			n += v
		}
	}
	return n
}

// Counts returns the request counters keyed "host/path".
func (f *Farm) Counts() map[string]int {
	f.mu.RLock()
	defer f.mu.RUnlock()
	out := make(map[string]int, len(f.counts))
	for k, v := range f.counts {
		out[k] = v
	}
	return out
}

// ResetCounts zeroes the counters.
func (f *Farm) ResetCounts() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts = map[string]int{}
}

// Close stops the farm and waits for its servers.
func (f *Farm) Close() error {
	var err error
	if f.srv != nil {
		err = f.srv.Close()
	}
	if f.ctlSrv != nil {
		f.ctlSrv.Close()
	}
	f.ln.Close()
	f.wg.Wait()
	return err
}

func normHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "*"
	}
	return h
}

// serve is the farm's handler: count, latency, fault, content.
func (f *Farm) serve(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = normHost(host)
	f.mu.Lock()
	f.counts[host+r.URL.Path]++
	f.mu.Unlock()
	if f.opts.Logf != nil {
		f.opts.Logf("farm: %s %s %s%s", r.Proto, r.Method, host, r.URL.RequestURI())
	}
	if f.opts.Latency > 0 && !sleepCtx(r.Context(), f.opts.Latency) {
		return
	}
	if ft := f.matchFault(host, r.URL.Path); ft != nil {
		f.applyFault(w, r, ft)
		return
	}
	f.content(w, r, host)
}

// content serves a page from the handlers or the Pages directory.
func (f *Farm) content(w http.ResponseWriter, r *http.Request, host string) {
	if h := f.handler(host, r.URL); h != nil {
		h.ServeHTTP(w, r)
		return
	}
	if f.pagesAbs != "" && f.serveFile(w, r, host) {
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, "<!doctype html><title>Not found</title><h1>farm: no page for %s%s</h1>\n", host, htmlEscape(r.URL.Path))
}

func (f *Farm) handler(host string, u *url.URL) http.Handler {
	f.mu.RLock()
	defer f.mu.RUnlock()
	// an exact host beats "*"; then a HandleURL route (the more query parameters, the better); then
	// the longest prefix; then the latest registration.
	var best http.Handler
	var bestScore [4]int
	q := u.Query()
	for _, rt := range f.routes {
		if rt.host != host && rt.host != "*" {
			continue
		}
		score := [4]int{0, 0, 0, len(rt.prefix)}
		if rt.host == host {
			score[0] = 1
		}
		if rt.exact {
			if u.Path != rt.prefix || !queryHas(q, rt.query) {
				continue
			}
			score[1], score[2] = 1, len(rt.query)
		} else if !strings.HasPrefix(u.Path, rt.prefix) {
			continue
		}
		if best == nil || !scoreLess(score, bestScore) {
			best, bestScore = rt.h, score
		}
	}
	return best
}

func scoreLess(a, b [4]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func queryHas(q, want url.Values) bool {
	for k, vs := range want {
		have := q[k]
		for _, v := range vs {
			if !slices.Contains(have, v) {
				return false
			}
		}
	}
	return true
}

func (f *Farm) serveFile(w http.ResponseWriter, r *http.Request, host string) bool {
	clean := path.Clean("/" + r.URL.Path)
	base := filepath.Join(f.pagesAbs, host)
	cands := []string{filepath.Join(base, filepath.FromSlash(clean))}
	if path.Ext(clean) == "" {
		cands = append(cands, filepath.Join(base, filepath.FromSlash(clean))+".html")
	}
	for _, c := range cands {
		st, err := os.Stat(c)
		if err == nil && st.IsDir() {
			c = filepath.Join(c, "index.html")
			st, err = os.Stat(c)
		}
		if err != nil || st.IsDir() {
			continue
		}
		fh, err := os.Open(c)
		if err != nil {
			continue
		}
		defer fh.Close()
		if ct := mime.TypeByExtension(filepath.Ext(c)); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		http.ServeContent(w, r, "", st.ModTime(), fh)
		return true
	}
	return false
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// sniffListener serves TLS and plain HTTP on one port: a first byte of 0x16 (a TLS handshake
// record) makes the connection a *tls.Conn.
type sniffListener struct {
	net.Listener
	conf  *tls.Config
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newSniffListener(l net.Listener, conf *tls.Config) *sniffListener {
	s := &sniffListener{Listener: l, conf: conf, conns: make(chan net.Conn), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *sniffListener) run() {
	for {
		c, err := s.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				s.Close()
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go s.sniff(c)
	}
}

func (s *sniffListener) sniff(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	b, err := br.Peek(1)
	if err != nil {
		c.Close()
		return
	}
	c.SetReadDeadline(time.Time{})
	var out net.Conn = &peekConn{Conn: c, r: br}
	if b[0] == 0x16 {
		out = tls.Server(out, s.conf)
	}
	select {
	case s.conns <- out:
	case <-s.done:
		out.Close()
	}
}

func (s *sniffListener) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

func (s *sniffListener) Close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = s.Listener.Close()
	})
	return err
}

type peekConn struct {
	net.Conn
	r *bufio.Reader
}

func (p *peekConn) Read(b []byte) (int, error) { return p.r.Read(b) }

// tcpConn finds the *net.TCPConn under a hijacked connection.
func tcpConn(c net.Conn) *net.TCPConn {
	for {
		switch x := c.(type) {
		case *net.TCPConn:
			return x
		case *tls.Conn:
			c = x.NetConn()
		case *peekConn:
			c = x.Conn
		default:
			return nil
		}
	}
}

func nilLogger() *log.Logger { return log.New(io.Discard, "", 0) }
