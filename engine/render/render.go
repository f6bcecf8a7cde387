// Package render renders pages in a headless Chromium driven over the DevTools protocol (chromedp):
// the DOM after the page's scripts ran, and screenshots.
//
// # Isolation
//
// A Pool runs one browser process and at most Options.MaxContexts renders at once; each render gets
// a fresh browser context (incognito: no cookies, storage or cache shared with any other request)
// holding one tab, disposed of when the render ends. Downloads are denied, JavaScript dialogs
// dismissed, pop-ups closed, and only http and https URLs are navigated to (the page cannot open
// file:// or chrome:// itself: Chromium refuses them to web content).
//
// # Egress
//
// Every browser context is created with its own forward proxy (egress.go), a listener on
// 127.0.0.1 inside asa, with the proxy bypass list "<-loopback>" so that even loopback goes through
// it. The proxy dials every connection (CONNECT for https and websockets, plain HTTP requests) with
// the Dialer, fetch.Client.DialTarget: the SSRF guard at parse and dial time and the proxies of the
// request's country, exactly as plain fetching. The browser itself is started with --proxy-server
// pointing at a listener that refuses everything, so nothing can leave without a context's proxy.
// A page's bytes on the wire are capped per render (Options.MaxTransferBytes), the DOM returned
// (Options.MaxDOMBytes) and the JavaScript heap (Options.JSHeapMB) too.
//
// # Settling and deadlines
//
// A render navigates, then waits until the page settles: the load event fired and no request in
// flight for Options.SettleIdle; or, with a wait_for CSS selector, until it matches. The request's
// context bounds it (and Options.Timeout): a page that never settles fails with target_unreachable,
// detail timeout.
//
// # Crashes
//
// A browser that dies (crash, OOM kill) is replaced by a fresh process; renders that were running on
// it are retried once on the new one when their deadline allows, so a crash does not fail requests.
// One that hangs (a tab cannot be opened within a request's deadline, and Browser.getVersion gets no
// answer within 10 s) is killed and replaced the same way. A slow machine is not a hung browser.
package render

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/chromedp"

	"asa/engine/errcode"
)

// Defaults of Options.
const (
	DefaultMaxContexts      = 8
	DefaultTimeout          = 30 * time.Second
	DefaultStartTimeout     = 20 * time.Second
	DefaultSettleIdle       = 500 * time.Millisecond
	DefaultMaxDOMBytes      = 10 << 20
	DefaultMaxTransferBytes = 50 << 20
	DefaultJSHeapMB         = 256
	DefaultMaxShotHeight    = 16384
	DefaultWidth            = 1280
	DefaultHeight           = 800
)

// Options configures a Pool. ExecPath is required; the rest have defaults.
type Options struct {
	// ExecPath is the Chromium binary (Debian: /usr/bin/chromium).
	ExecPath string
	// MaxContexts bounds the renders at once (browser contexts); more wait for a slot within their
	// deadline. Default 8.
	MaxContexts int
	// Timeout bounds one render when the request's context allows more. Default 30s.
	Timeout time.Duration
	// StartTimeout bounds starting the browser process. Default 20s.
	StartTimeout time.Duration
	// SettleIdle is how long the network must be quiet after the load event. Default 500ms.
	SettleIdle time.Duration
	// MaxDOMBytes caps the rendered HTML returned (over it: target_unreachable, too_large). Default 10 MiB.
	MaxDOMBytes int
	// MaxTransferBytes caps the bytes all of a page's connections may receive. Default 50 MiB.
	MaxTransferBytes int64
	// JSHeapMB caps the V8 heap of a page (--max-old-space-size). Default 256.
	JSHeapMB int
	// MaxScreenshotHeight caps a full-page screenshot, in CSS pixels. Default 16384.
	MaxScreenshotHeight int
	// Width and Height are the viewport (default 1280×800).
	Width, Height int
	// IgnoreCertErrors accepts any TLS certificate: for the test farm and demos only.
	IgnoreCertErrors bool
	// Logger receives browser starts, crashes and replacements. Default: discarded.
	Logger *slog.Logger
}

func (o *Options) withDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxContexts, DefaultMaxContexts)
	def(&o.MaxDOMBytes, DefaultMaxDOMBytes)
	def(&o.JSHeapMB, DefaultJSHeapMB)
	def(&o.MaxScreenshotHeight, DefaultMaxShotHeight)
	def(&o.Width, DefaultWidth)
	def(&o.Height, DefaultHeight)
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.SettleIdle <= 0 {
		o.SettleIdle = DefaultSettleIdle
	}
	if o.MaxTransferBytes <= 0 {
		o.MaxTransferBytes = DefaultMaxTransferBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Request is one page to render.
type Request struct {
	// URL is the http(s) page; the caller has applied the parse-time URL rules already.
	URL string
	// WaitFor is a CSS selector: the page is done when it matches (instead of network idle).
	WaitFor string
	// Screenshot asks for a PNG of the page after it settled; FullPage for the whole page rather than
	// the viewport.
	Screenshot bool
	FullPage   bool
}

// Result is a rendered page.
type Result struct {
	// Status is the main document's HTTP status, URL its final URL (after redirects), ContentType
	// its MIME type.
	Status      int
	URL         string
	ContentType string
	// HTML is the rendered DOM (document.documentElement.outerHTML with its doctype).
	HTML []byte
	// Screenshot is the PNG, when asked for.
	Screenshot []byte
	// Refused lists the connections the page's egress refused or could not open.
	Refused []Refusal
	// Retried is set when the render was retried on a fresh browser after a crash.
	Retried bool
	// Popups and Dialogs count the pop-up windows closed and the dialogs dismissed.
	Popups, Dialogs int
}

// Pool runs the browser and its renders. It is safe for concurrent use.
type Pool struct {
	opts   Options
	dialer Dialer
	slots  chan struct{}
	// sink is the browser-wide proxy: every context has its own proxy, so anything that reaches
	// this one escaped them and is refused.
	sink     *http.Server
	sinkAddr string

	mu     sync.Mutex
	inst   *instance
	closed bool
	wg     sync.WaitGroup // instance watchers
	starts atomic.Int64
	lastOK atomic.Int64 // unix nanoseconds of the last render that succeeded
}

// New returns a Pool; the browser starts with the first render (Start starts it at once).
func New(opts Options, d Dialer) (*Pool, error) {
	opts.withDefaults()
	if opts.ExecPath == "" {
		return nil, errors.New("render: no browser executable")
	}
	if _, err := os.Stat(opts.ExecPath); err != nil {
		return nil, fmt.Errorf("render: browser %s: %w", opts.ExecPath, err)
	}
	if d == nil {
		return nil, errors.New("render: no dialer")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Pool{opts: opts, dialer: d, slots: make(chan struct{}, opts.MaxContexts), sinkAddr: ln.Addr().String()}
	p.sink = &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no egress outside a render", http.StatusForbidden)
		}),
		ReadHeaderTimeout: 5 * time.Second,
		ErrorLog:          discardLog,
	}
	go p.sink.Serve(ln)
	return p, nil
}

var discardLog = log.New(io.Discard, "", 0)

// Start starts the browser now rather than on the first render.
func (p *Pool) Start(ctx context.Context) error {
	_, err := p.instance(ctx)
	return err
}

// Close stops the browser. Renders still running fail.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	inst := p.inst
	p.inst = nil
	p.mu.Unlock()
	if inst != nil {
		inst.stop()
	}
	p.wg.Wait()
	return p.sink.Close()
}

// Starts is how many browser processes the pool has started (the first, and each replacement).
func (p *Pool) Starts() int { return int(p.starts.Load()) }

// BrowserPID is the pid of the running browser process, or 0.
func (p *Pool) BrowserPID() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst == nil {
		return 0
	}
	return p.inst.pid
}

// instance is one browser process.
type instance struct {
	ctx         context.Context // the chromedp browser context
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	lost        <-chan struct{}
	pid         int
	stopOnce    sync.Once
}

func (in *instance) stop() {
	in.stopOnce.Do(func() {
		in.cancel()
		in.allocCancel()
	})
}

func (in *instance) dead() bool {
	select {
	case <-in.lost:
		return true
	default:
		return false
	}
}

// instance returns the running browser, starting one when there is none or it died.
func (p *Pool) instance(ctx context.Context) (*instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errcode.New(errcode.ServiceUnavailable, "the browser is shutting down")
	}
	if p.inst != nil && !p.inst.dead() {
		return p.inst, nil
	}
	if p.inst != nil {
		p.inst.stop()
		p.inst = nil
	}
	in, err := p.launch(ctx)
	if err != nil {
		return nil, err
	}
	p.inst = in
	return in, nil
}

// retire stops in if it is still the pool's browser (a hung one); the next render starts another.
func (p *Pool) retire(in *instance, why string) {
	p.mu.Lock()
	if p.inst == in {
		p.inst = nil
	}
	p.mu.Unlock()
	p.opts.Logger.Warn("render: replacing the browser", "pid", in.pid, "reason", why)
	in.stop()
}

func (p *Pool) flags() []chromedp.ExecAllocatorOption {
	o := p.opts
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(o.ExecPath),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Headless,
		chromedp.NoSandbox, // we run as root; the renderer is still confined by the egress proxy
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		// WebRTC's UDP (STUN, ICE candidates) would go around the proxy: none that is not proxied.
		// The force- switch alone did not stop STUN to loopback (TestRenderWebRTCStaysInside); the
		// policy switch does.
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("disable-features", "Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,InterestFeedContentSuggestions"),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("proxy-server", "http://"+p.sinkAddr),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("js-flags", fmt.Sprintf("--max-old-space-size=%d", o.JSHeapMB)),
		chromedp.WindowSize(o.Width, o.Height),
		// a fresh --user-data-dir: chromedp makes a temporary one per process and removes it
	}
}

// launch starts a browser process and waits until it answers.
func (p *Pool) launch(ctx context.Context) (*instance, error) {
	actx, acancel := chromedp.NewExecAllocator(context.Background(), p.flags()...)
	bctx, bcancel := chromedp.NewContext(actx)
	in := &instance{ctx: bctx, cancel: bcancel, allocCancel: acancel}
	// The first Run starts the process and must not carry a deadline (it would bound the browser's
	// life), so a hang is cut by stopping the instance.
	hung := time.AfterFunc(p.opts.StartTimeout, in.stop)
	stopOnCtx := context.AfterFunc(ctx, in.stop)
	err := chromedp.Do(bctx)
	hung.Stop()
	ctxDone := !stopOnCtx()
	if err != nil || ctxDone {
		in.stop()
		if ctxDone {
			return nil, &errcode.Error{Code: errcode.TargetUnreachable, Detail: "timeout", Message: "the request's deadline passed while the browser was starting", Cause: ctx.Err()}
		}
		return nil, &errcode.Error{Code: errcode.ServiceUnavailable, Message: "the browser could not be started", Cause: err}
	}
	c := chromedp.FromContext(bctx)
	in.lost = c.Browser.LostConnection
	if pr := c.Browser.Process(); pr != nil {
		in.pid = pr.Pid
	}
	p.starts.Add(1)
	p.opts.Logger.Info("render: browser started", "pid", in.pid)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		select {
		case <-in.lost:
			p.opts.Logger.Warn("render: the browser process ended", "pid", in.pid)
			p.mu.Lock()
			if p.inst == in {
				p.inst = nil
			}
			p.mu.Unlock()
			in.stop()
		case <-bctx.Done():
		}
	}()
	return in, nil
}

// Render renders req. Errors are *errcode.Error: target_unreachable (detail timeout, forbidden,
// connection, too_large), invalid_params naming wait_for for a selector the browser rejects,
// service_unavailable when the browser cannot run.
func (p *Pool) Render(ctx context.Context, req Request) (*Result, error) {
	if u, err := url.Parse(req.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// file:, chrome:, data:, javascript: ... are never navigated to
		return nil, &errcode.Error{Code: errcode.InvalidParams, Params: []string{"url"}, Message: "only http and https pages are rendered"}
	}
	ctx, cancel := context.WithTimeout(ctx, p.opts.Timeout)
	defer cancel()
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, timeoutErr(ctx.Err(), "waiting for a free browser context")
	}
	defer func() { <-p.slots }()
	retried := false
	for {
		in, err := p.instance(ctx)
		if err != nil {
			return nil, err
		}
		res, err := p.renderOn(ctx, in, req)
		if err == nil {
			p.lastOK.Store(time.Now().UnixNano())
			res.Retried = retried
			return res, nil
		}
		// A render that failed because its browser died is retried once on a fresh one.
		if !retried && in.dead() && ctx.Err() == nil {
			retried = true
			continue
		}
		if in.dead() && ctx.Err() == nil {
			return nil, &errcode.Error{Code: errcode.ServiceUnavailable, Message: "the browser crashed", Cause: err}
		}
		return nil, err
	}
}

func timeoutErr(cause error, during string) *errcode.Error {
	return &errcode.Error{Code: errcode.TargetUnreachable, Detail: "timeout", Message: "the page did not settle in time", Cause: fmt.Errorf("%s: %w", during, cause)}
}
