package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/render"
)

// Renderer renders pages in a headless browser (render.Pool); nil when the server has none
// (--browser not given), and then the browser parameters answer 501.
type Renderer interface {
	Render(ctx context.Context, req render.Request) (*render.Result, error)
}

// The add-ons of the spec, in credits, charged on success only (Asa-Cost includes them).
const (
	// RenderCost is charged for each page rendered in the browser (render_js=true, screenshot=true,
	// or a sitedef step with render: true).
	RenderCost = 10
	// ScreenshotCost is charged when the answer carries a screenshot.
	ScreenshotCost = 10
)

// browserParams are the request parameters of the browser. Without a browser each one given answers
// 501 not_implemented naming it (render_js and screenshot are the spec's reserved parameters).
var browserParams = []string{"render_js", "screenshot", "full_page", "wait_for"}

// browserOpts are a request's browser parameters.
type browserOpts struct {
	RenderJS, Screenshot, FullPage bool
	WaitFor                        string
}

// any is true when the request asks for the browser.
func (o browserOpts) any() bool { return o.RenderJS || o.Screenshot }

// takeBrowserParams removes the browser parameters from q and parses them. Without a browser, any of
// them given is 501 naming them; with one, malformed values are invalid_params.
func (s *Server) takeBrowserParams(q url.Values) (browserOpts, *errcode.Error) {
	var o browserOpts
	var given []string
	for _, k := range browserParams {
		if _, ok := q[k]; ok {
			given = append(given, k)
		}
	}
	if len(given) == 0 {
		return o, nil
	}
	if s.deps.Renderer == nil {
		sort.Strings(given)
		return o, &errcode.Error{Code: errcode.NotImplemented, Params: given,
			Message: "this server has no browser: render_js, screenshot, full_page and wait_for are not available (the operator starts asa serve with --browser)"}
	}
	bad := func(k, format string, args ...any) *errcode.Error {
		return &errcode.Error{Code: errcode.InvalidParams, Params: []string{k}, Message: k + ": " + fmt.Sprintf(format, args...)}
	}
	for _, k := range given {
		vals := q[k]
		delete(q, k)
		if len(vals) != 1 {
			return o, bad(k, "given %d times; give it once", len(vals))
		}
		v := strings.TrimSpace(vals[0])
		if k == "wait_for" {
			switch {
			case v == "":
				return o, bad(k, "empty; give a CSS selector such as #price or .results li")
			case len(v) > engine.MaxWaitFor:
				return o, bad(k, "longer than %d bytes", engine.MaxWaitFor)
			}
			o.WaitFor = v
			continue
		}
		var b bool
		switch strings.ToLower(v) {
		case "true", "1":
			b = true
		case "false", "0", "":
		default:
			return o, bad(k, "%q is not a boolean (true or false)", vals[0])
		}
		switch k {
		case "render_js":
			o.RenderJS = b
		case "screenshot":
			o.Screenshot = b
		case "full_page":
			o.FullPage = b
		}
	}
	if o.FullPage && !o.Screenshot {
		return o, bad("full_page", "full_page is for screenshot=true")
	}
	if o.WaitFor != "" && !o.any() {
		return o, bad("wait_for", "wait_for is for render_js=true (or screenshot=true)")
	}
	return o, nil
}

// renderingFetcher sends the html steps of a run through the browser when the request asks for it
// (render_js, screenshot) or the step needs it (sitedef render: true); other steps, and every step
// when the server has no browser, go to the live fetcher. It counts the pages rendered (the add-on)
// and keeps the first screenshot.
type renderingFetcher struct {
	live     engine.Fetcher
	renderer Renderer
	opts     browserOpts

	mu       sync.Mutex
	rendered map[string]bool // step/page rendered: a page fetched again (a blocked page's retry) is charged once
	shot     []byte
}

func (f *renderingFetcher) Fetch(ctx context.Context, req *engine.Request) (*engine.Response, error) {
	html := req.Parse == "" || req.Parse == "html"
	if f.renderer == nil || !(req.Render || f.opts.any() && html && strings.EqualFold(req.Method, http.MethodGet)) {
		return f.live.Fetch(ctx, req)
	}
	waitFor := f.opts.WaitFor
	if waitFor == "" {
		waitFor = req.WaitFor
	}
	f.mu.Lock()
	wantShot := f.opts.Screenshot && f.shot == nil
	f.mu.Unlock()
	res, err := f.renderer.Render(ctx, render.Request{URL: req.URL, WaitFor: waitFor, Screenshot: wantShot, FullPage: f.opts.FullPage})
	if err != nil {
		return &engine.Response{Attempts: 1}, err
	}
	f.mu.Lock()
	if wantShot && f.shot == nil {
		f.shot = res.Screenshot
	}
	html = res.ContentType == "" || strings.Contains(res.ContentType, "html")
	if html {
		if f.rendered == nil {
			f.rendered = map[string]bool{}
		}
		f.rendered[fmt.Sprintf("%s/%d", req.Step, req.Page)] = true
	}
	f.mu.Unlock()
	if !html {
		// A JSON document, an image, a PDF: the browser's viewer of it is no page to extract from.
		// The target's own bytes answer, and no rendering is charged (a screenshot taken still is).
		return f.live.Fetch(ctx, req)
	}
	h := http.Header{}
	// The DOM is text the browser already decoded: UTF-8, whatever the page was sent in.
	h.Set("Content-Type", "text/html; charset=utf-8")
	return &engine.Response{Status: res.Status, URL: res.URL, Header: h, Body: res.HTML, Attempts: 1}, nil
}

// addOns is the add-on credits of a successful run, and the screenshot to return.
func (f *renderingFetcher) addOns() (credits int, shot []byte) {
	if f == nil {
		return 0, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	credits = RenderCost * len(f.rendered)
	if f.shot != nil {
		credits += ScreenshotCost
	}
	return credits, f.shot
}

// withScreenshot adds "screenshot": the PNG in base64 as the last key of a JSON object.
func withScreenshot(body, png []byte) []byte {
	body = bytes.TrimRight(body, " \n")
	if len(png) == 0 || len(body) < 2 || body[len(body)-1] != '}' {
		return body
	}
	enc := base64.StdEncoding.EncodedLen(len(png))
	out := make([]byte, 0, len(body)+enc+20)
	out = append(out, body[:len(body)-1]...)
	if len(bytes.TrimSpace(body[1:len(body)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"screenshot":"`...)
	out = base64.StdEncoding.AppendEncode(out, png)
	return append(out, `"}`...)
}
