package render

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"asa/engine/errcode"
)

func TestRenderScriptContent(t *testing.T) {
	p := needBrowser(t)
	cases := []struct {
		name, url, waitFor string
		want               []string
	}{
		{"xhr price", "http://shop.test/xhr-price", "", []string{`<span id="price">19.99</span>`, "<!DOCTYPE html>"}},
		{"timer list", "http://shop.test/timer-list", "", []string{"<li>alpha</li><li>beta</li><li>gamma</li>"}},
		{"wait_for", "http://shop.test/slow-list", "#items li", []string{"<li>late</li>"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := p.Render(ctx, Request{URL: tc.url, WaitFor: tc.waitFor})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != 200 || res.URL != tc.url || res.ContentType != "text/html" {
				t.Errorf("status %d url %s type %s", res.Status, res.URL, res.ContentType)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(res.HTML), w) {
					t.Errorf("rendered HTML lacks %q:\n%s", w, res.HTML)
				}
			}
		})
	}
}

func TestRenderRefusesSSRFFromScript(t *testing.T) {
	p := needBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := p.Render(ctx, Request{URL: "http://shop.test/hostile", WaitFor: "#done"})
	if err != nil {
		t.Fatal(err)
	}
	html := string(res.HTML)
	for _, id := range []string{"a", "b"} {
		if !strings.Contains(html, `<p id="`+id+`">refused</p>`) {
			t.Errorf("fetch %s was not refused:\n%s", id, html)
		}
	}
	// The pop-up is blocked (no user gesture) or, if one opens, closed.
	if opened := shared.farm.Count("shop.test", "/popup-target"); opened > 0 && res.Popups == 0 {
		t.Errorf("a pop-up loaded its page and was not closed")
	}
	if res.Dialogs < 1 {
		t.Errorf("the page's alert was not dismissed")
	}
	if n := shared.asaHits.Load(); n != 0 {
		t.Errorf("the page reached our port %d times", n)
	}
	asaHost := strings.TrimPrefix(shared.asa.URL, "http://")
	want := map[string]bool{asaHost: false, "169.254.169.254:80": false}
	for _, r := range res.Refused {
		if _, ok := want[r.Target]; ok && r.Detail == "forbidden" {
			want[r.Target] = true
		}
	}
	for target, seen := range want {
		if !seen {
			t.Errorf("no dial-time refusal of %s recorded; refused: %+v", target, res.Refused)
		}
	}
}

// Local files and browser pages are out of reach: from script, by navigation, and as the page itself;
// a download is not a page.
func TestRenderLocalAndDownloads(t *testing.T) {
	p := needBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := p.Render(ctx, Request{URL: "http://shop.test/escape", WaitFor: "#done"})
	if err != nil {
		t.Fatal(err)
	}
	if html := string(res.HTML); !strings.Contains(html, `<p id="f">refused</p>`) || strings.Contains(html, "root:") || res.URL != "http://shop.test/escape" {
		t.Errorf("url %s html %s", res.URL, html)
	}
	for _, u := range []string{"file:///etc/passwd", "chrome://version", "javascript:alert(1)", "data:text/html,<p>x</p>"} {
		_, err := p.Render(ctx, Request{URL: u})
		if e := errcode.As(err); e == nil || e.Code != errcode.InvalidParams {
			t.Errorf("%s: %v, want invalid_params", u, err)
		}
	}
	_, err = p.Render(ctx, Request{URL: "http://shop.test/report.bin"})
	if e := errcode.As(err); e == nil || e.Code != errcode.TargetUnreachable {
		t.Errorf("download: %v, want target_unreachable", err)
	}
}

// WebRTC cannot send UDP around the proxy (to a STUN server on loopback here).
func TestRenderWebRTCStaysInside(t *testing.T) {
	p := needBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := p.Render(ctx, Request{URL: "http://shop.test/webrtc", WaitFor: "#done"}); err != nil {
		t.Fatal(err)
	}
	if n := shared.stunHits.Load(); n != 0 {
		t.Errorf("the page sent %d UDP packets to a loopback STUN server", n)
	}
}

func TestRenderCaps(t *testing.T) {
	p := needBrowser(t)
	for _, tc := range []struct{ url, waitFor string }{
		{"http://shop.test/big-download", "#done"},
		{"http://shop.test/big-dom", ""},
		{"http://shop.test/big-heap", ""},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := p.Render(ctx, Request{URL: tc.url, WaitFor: tc.waitFor})
		cancel()
		if e := errcode.As(err); e == nil || e.Code != errcode.TargetUnreachable || e.Detail != "too_large" {
			t.Errorf("%s: %v, want target_unreachable too_large", tc.url, err)
		}
	}
}

func TestRenderDeadline(t *testing.T) {
	p := needBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := p.Render(ctx, Request{URL: "http://shop.test/never"})
	e := errcode.As(err)
	if e == nil || e.Code != errcode.TargetUnreachable || e.Detail != "timeout" {
		t.Fatalf("got %v, want target_unreachable timeout", err)
	}
}

func TestRenderScreenshot(t *testing.T) {
	p := needBrowser(t)
	for _, full := range []bool{false, true} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := p.Render(ctx, Request{URL: "http://shop.test/timer-list", Screenshot: true, FullPage: full})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(res.Screenshot, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("full=%v: not a PNG: % x", full, res.Screenshot[:min(8, len(res.Screenshot))])
		}
	}
}

func TestRenderRefusedTarget(t *testing.T) {
	p := needBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := p.Render(ctx, Request{URL: "http://169.254.169.254/latest/meta-data/"})
	e := errcode.As(err)
	if e == nil || e.Code != errcode.TargetUnreachable || e.Detail != "forbidden" {
		t.Fatalf("got %v, want target_unreachable forbidden", err)
	}
}

// A browser killed mid-render is replaced, and the render retried on the new one answers.
func TestRenderSurvivesBrowserCrash(t *testing.T) {
	p := needBrowser(t)
	before := p.Starts()
	pid := p.BrowserPID()
	if pid == 0 {
		t.Fatal("no browser running")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := p.Render(ctx, Request{URL: "http://shop.test/slow-list", WaitFor: "#items li"})
		done <- out{res, err}
	}()
	// Kill once the render's request reached the farm: the page is open in the browser.
	for shared.farm.Count("shop.test", "/slow-list") == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the render never reached the farm")
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	o := <-done
	if o.err != nil {
		t.Fatalf("render after the crash: %v", o.err)
	}
	if !o.res.Retried || !strings.Contains(string(o.res.HTML), "<li>late</li>") {
		t.Errorf("retried %v, html %s", o.res.Retried, o.res.HTML)
	}
	if p.Starts() != before+1 || p.BrowserPID() == pid {
		t.Errorf("starts %d -> %d, pid %d -> %d", before, p.Starts(), pid, p.BrowserPID())
	}
	// and the next render runs on the new browser
	res, err := p.Render(ctx, Request{URL: "http://shop.test/xhr-price"})
	if err != nil || !strings.Contains(string(res.HTML), "19.99") {
		t.Fatalf("after the crash: %v", errors.Join(err))
	}
}
