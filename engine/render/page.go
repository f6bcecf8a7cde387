package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/security"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"asa/engine/errcode"
)

// pollEvery is how often a render checks whether its page settled or its selector matches.
const pollEvery = 100 * time.Millisecond

// renderOn renders req in a fresh browser context of in.
func (p *Pool) renderOn(ctx context.Context, in *instance, req Request) (*Result, error) {
	eg, err := newEgress(ctx, p.dialer, p.opts.MaxTransferBytes)
	if err != nil {
		return nil, &errcode.Error{Code: errcode.ServiceUnavailable, Message: "no local port for the browser's egress", Cause: err}
	}
	defer eg.close()
	tctx, tcancel := chromedp.NewContext(in.ctx, chromedp.WithNewBrowserContext(func(cp *target.CreateBrowserContextParams) {
		cp.ProxyServer = "http://" + eg.addr()
		cp.ProxyBypassList = "<-loopback>" // loopback goes through the proxy too, where the guard refuses it
	}))
	defer tcancel()
	rctx, rcancel := context.WithCancel(tctx)
	defer rcancel()
	defer context.AfterFunc(ctx, rcancel)()

	st := &pageState{idle: p.opts.SettleIdle, inflight: map[network.RequestID]bool{}, dialogs: make(chan struct{}, 1)}
	if err = chromedp.Listen(rctx, st.onEvent); err != nil { // opens the tab
		if ctx.Err() != nil {
			// Slow (a busy machine) or hung? A hung browser finishes no render and does not answer a
			// trivial command either.
			if time.Since(time.Unix(0, p.lastOK.Load())) > probeTimeout && !p.responsive(in) {
				p.retire(in, "no answer to Browser.getVersion after a tab could not be opened in time")
			}
			return nil, timeoutErr(ctx.Err(), "opening a tab")
		}
		return nil, &errcode.Error{Code: errcode.ServiceUnavailable, Message: "the browser could not open a tab", Cause: err}
	}
	c := chromedp.FromContext(rctx)
	t, b := c.Target, c.Browser
	st.main = cdp.FrameID(t.TargetID)
	bcID := c.BrowserContextID

	// Pop-ups: any other tab of this browser context is closed as soon as it appears.
	popups := make(chan target.ID, 8)
	chromedp.ListenBrowser(rctx, func(ev any) {
		if e, ok := ev.(*target.EventTargetCreated); ok && e.TargetInfo != nil &&
			e.TargetInfo.BrowserContextID == bcID && e.TargetInfo.TargetID != t.TargetID {
			select {
			case popups <- e.TargetInfo.TargetID:
			default:
			}
		}
	})
	go func() {
		for {
			select {
			case id := <-popups:
				if _, err := cdp.Call(rctx, b, target.CloseTarget, target.CloseTargetParams{TargetID: id}); err == nil {
					st.count(&st.popups)
				}
			case <-st.dialogs:
				if _, err := cdp.Call(rctx, t, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false}); err == nil {
					st.count(&st.dialogsDone)
				}
			case <-rctx.Done():
				return
			}
		}
	}()

	setup := func() error {
		if _, err := cdp.Call(rctx, b, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: bcID}); err != nil {
			return err
		}
		if _, err := cdp.Call(rctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(p.opts.Width), Height: int64(p.opts.Height), DeviceScaleFactor: 1}); err != nil {
			return err
		}
		if p.opts.IgnoreCertErrors {
			if _, err := cdp.Call(rctx, t, security.SetIgnoreCertificateErrors, security.SetIgnoreCertificateErrorsParams{Ignore: true}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := setup(); err != nil {
		return nil, p.pageErr(ctx, eg, st, "setting up the tab", err)
	}

	nav, err := cdp.Call(rctx, t, page.Navigate, page.NavigateParams{URL: req.URL})
	if err != nil {
		return nil, p.pageErr(ctx, eg, st, "navigating", err)
	}
	if nav.ErrorText != "" {
		return nil, p.navErr(eg, req, st, nav.ErrorText)
	}
	if nav.IsDownload {
		return nil, &errcode.Error{Code: errcode.TargetUnreachable, Detail: "status", Message: "the URL is a download, not a page"}
	}

	if err := p.settle(rctx, t, st, req.WaitFor); err != nil {
		return nil, p.pageErr(ctx, eg, st, "waiting for the page to settle", err)
	}
	res := &Result{}
	st.mu.Lock()
	res.Status, res.URL, res.ContentType = st.status, st.url, st.mime
	res.Popups, res.Dialogs = st.popups, st.dialogsDone
	st.mu.Unlock()
	if res.URL == "" {
		res.URL = req.URL
	}
	html, err := p.outerHTML(rctx, t)
	if err != nil {
		return nil, p.pageErr(ctx, eg, st, "reading the DOM", err)
	}
	res.HTML = html
	if req.Screenshot {
		shot, err := p.screenshot(rctx, t, req.FullPage)
		if err != nil {
			return nil, p.pageErr(ctx, eg, st, "taking the screenshot", err)
		}
		res.Screenshot = shot
	}
	if eg.over.Load() {
		return nil, tooLarge(p.opts.MaxTransferBytes)
	}
	res.Refused = eg.refusals()
	return res, nil
}

// responsive asks the browser for its version, with a short deadline of its own.
func (p *Pool) responsive(in *instance) bool {
	c := chromedp.FromContext(in.ctx)
	if c == nil || c.Browser == nil || in.dead() {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	_, err := cdp.Call(ctx, c.Browser, browser.GetVersion, cdp.Empty{})
	return err == nil
}

// probeTimeout bounds the liveness probe of a browser that seems hung.
const probeTimeout = 10 * time.Second

func tooLarge(n int64) *errcode.Error {
	return &errcode.Error{Code: errcode.TargetUnreachable, Detail: "too_large",
		Message: fmt.Sprintf("the page transferred more than the %d MiB a render may", n>>20)}
}

// pageErr maps a failure after the tab opened: the request's deadline, the transfer cap, or the
// browser gone (the caller retries on a fresh one).
func (p *Pool) pageErr(ctx context.Context, eg *egress, st *pageState, during string, err error) error {
	var ec *errcode.Error
	switch {
	case errors.As(err, &ec):
		return ec
	case eg.over.Load():
		return tooLarge(p.opts.MaxTransferBytes)
	case ctx.Err() != nil:
		return timeoutErr(ctx.Err(), during)
	}
	if st != nil && st.isCrashed() {
		return errTabCrashed
	}
	return &errcode.Error{Code: errcode.TargetUnreachable, Detail: "connection", Message: "the browser failed rendering the page", Cause: fmt.Errorf("%s: %w", during, err)}
}

// navErr maps a failed navigation (net::ERR_...) to what the egress saw of the page's own host.
func (p *Pool) navErr(eg *egress, req Request, st *pageState, text string) error {
	hostport := ""
	if u, err := url.Parse(req.URL); err == nil {
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		hostport = net.JoinHostPort(u.Hostname(), port)
	}
	detail := eg.failure(hostport)
	if detail == "" {
		detail = "connection"
		if strings.Contains(text, "TIMED_OUT") {
			detail = "timeout"
		}
	}
	msgs := map[string]string{
		"forbidden":  "the target is at an address we do not connect to",
		"timeout":    "the target did not answer in time",
		"too_large":  tooLarge(p.opts.MaxTransferBytes).Message,
		"connection": "the target could not be reached",
	}
	msg := msgs[detail]
	if msg == "" {
		msg = msgs["connection"]
	}
	return &errcode.Error{Code: errcode.TargetUnreachable, Detail: detail, Message: msg, Cause: fmt.Errorf("navigating to %s: %s", req.URL, text)}
}

// settle waits until the page is loaded and its network quiet, or waitFor matches.
func (p *Pool) settle(ctx context.Context, t *chromedp.Target, st *pageState, waitFor string) error {
	var probe string
	if waitFor != "" {
		sel, _ := json.Marshal(waitFor)
		probe = fmt.Sprintf("document.querySelector(%s) !== null", sel)
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if probe != "" {
			res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: probe, ReturnByValue: ptr(true)})
			if err != nil {
				return err
			}
			if res.ExceptionDetails != nil {
				return &errcode.Error{Code: errcode.InvalidParams, Params: []string{"wait_for"},
					Message: fmt.Sprintf("wait_for: %q is not a CSS selector the browser accepts", waitFor)}
			}
			if res.Result != nil && string(res.Result.Value) == "true" {
				return nil
			}
		} else if st.settled(time.Now()) {
			return nil
		}
		if st.isCrashed() {
			return errTabCrashed
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// outerHTML returns the document with its doctype, refused over Options.MaxDOMBytes (checked in the
// page, so an oversized DOM never crosses the protocol).
func (p *Pool) outerHTML(ctx context.Context, t *chromedp.Target) ([]byte, error) {
	expr := fmt.Sprintf(`(() => {
  const d = document.doctype;
  const h = (d ? "<!DOCTYPE " + d.name + ">\n" : "") + (document.documentElement ? document.documentElement.outerHTML : "");
  return h.length > %d ? null : h;
})()`, p.opts.MaxDOMBytes)
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: ptr(true)})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return nil, fmt.Errorf("reading the DOM: %v", res.ExceptionDetails)
	}
	if string(res.Result.Value) == "null" {
		return nil, &errcode.Error{Code: errcode.TargetUnreachable, Detail: "too_large",
			Message: fmt.Sprintf("the rendered page is over the %d MiB limit", p.opts.MaxDOMBytes>>20)}
	}
	var s string
	if err := json.Unmarshal(res.Result.Value, &s); err != nil {
		return nil, fmt.Errorf("reading the DOM: %w", err)
	}
	return []byte(s), nil
}

// screenshot captures the viewport, or the whole page up to Options.MaxScreenshotHeight.
func (p *Pool) screenshot(ctx context.Context, t *chromedp.Target, full bool) ([]byte, error) {
	params := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng}
	if full {
		m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		w, h := float64(p.opts.Width), float64(p.opts.Height)
		if cs := m.CSSContentSize; cs != nil {
			w, h = max(cs.Width, 1), max(cs.Height, 1)
		}
		w = min(w, float64(p.opts.Width)*4)
		h = min(h, float64(p.opts.MaxScreenshotHeight))
		params.Clip = &page.Viewport{X: 0, Y: 0, Width: w, Height: h, Scale: 1}
		params.CaptureBeyondViewport = ptr(true)
	}
	res, err := cdp.Call(ctx, t, page.CaptureScreenshot, params)
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

func ptr[T any](v T) *T { return &v }

// pageState follows the page's network and load from the tab's events (called on chromedp's read
// loop: it must only record).
type pageState struct {
	idle    time.Duration
	main    cdp.FrameID
	dialogs chan struct{}

	mu          sync.Mutex
	inflight    map[network.RequestID]bool
	loaded      bool
	crashed     bool      // the tab's renderer died (out of memory, most often)
	popups      int       // pop-ups closed
	dialogsDone int       // dialogs dismissed
	quietAt     time.Time // when the last request in flight ended
	status      int
	url         string
	mime        string
}

func (s *pageState) onEvent(ev any) {
	if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
		select {
		case s.dialogs <- struct{}{}:
		default:
		}
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		s.inflight[e.RequestID] = true
	case *network.EventResponseReceived:
		if e.Type == network.ResourceTypeDocument && e.FrameID == s.main && e.Response != nil {
			s.status, s.url, s.mime = int(e.Response.Status), e.Response.URL, e.Response.MimeType
		}
	case *network.EventLoadingFinished:
		s.done(e.RequestID)
	case *network.EventLoadingFailed:
		s.done(e.RequestID)
	case *inspector.EventTargetCrashed:
		s.crashed = true
	case *page.EventLoadEventFired:
		s.loaded = true
		if len(s.inflight) == 0 {
			s.quietAt = time.Now()
		}
	}
}

func (s *pageState) done(id network.RequestID) {
	if s.inflight[id] {
		delete(s.inflight, id)
		if len(s.inflight) == 0 {
			s.quietAt = time.Now()
		}
	}
}

var errTabCrashed = &errcode.Error{Code: errcode.TargetUnreachable, Detail: "too_large",
	Message: "the page crashed its tab (it used more memory than a page may)"}

func (s *pageState) count(n *int) {
	s.mu.Lock()
	*n++
	s.mu.Unlock()
}

func (s *pageState) isCrashed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.crashed
}

// settled: loaded, nothing in flight, and quiet for the idle time.
func (s *pageState) settled(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loaded && len(s.inflight) == 0 && !s.quietAt.IsZero() && now.Sub(s.quietAt) >= s.idle
}
