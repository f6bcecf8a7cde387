package farm

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Kind is a kind of fault.
type Kind string

// The faults.
const (
	// Captcha answers 200 with an Amazon-style image captcha page (Fault.Body overrides it).
	Captcha Kind = "captcha"
	// Status answers Fault.Status (default 500) with a small page, and a Retry-After header when
	// Fault.RetryAfter > 0: 404, 500, 503, 429 with Retry-After. With Times it is "fail the first N
	// requests, then succeed".
	Status Kind = "status"
	// Slow waits Fault.Delay before the first byte, then serves the page.
	Slow Kind = "slow"
	// Drip sends the headers at once, then the page at Fault.BytesPerSec (default 1).
	Drip Kind = "drip"
	// Redirect answers Fault.Status (default 302) to Fault.Location (another product, another host).
	Redirect Kind = "redirect"
	// Reset closes the connection with a TCP RST (HTTP/1.1: hijack, SO_LINGER 0); on HTTP/2 the
	// stream is reset instead (the connection is shared).
	Reset Kind = "reset"
	// Bomb streams a gzip body that decodes to Fault.Size bytes (default 1 GiB) of zeros, built from
	// one pre-compressed member repeated: nothing of that size is ever held in memory.
	Bomb Kind = "bomb"
)

// Fault is a switchable misbehaviour for matching requests.
type Fault struct {
	Kind Kind
	// Host ("" for any) and Path (a prefix; "" for any) select the requests.
	Host string
	Path string
	// Times limits the fault to the next Times matching requests (0: until cleared).
	Times int

	Status      int
	RetryAfter  int // seconds
	Delay       time.Duration
	BytesPerSec int
	Location    string
	Size        int64
	Body        string
}

type faultState struct {
	Fault
	left int // remaining uses when Times > 0 (under Farm.mu)
}

// SetFault adds a fault. The most recently added matching fault applies.
func (f *Farm) SetFault(ft Fault) error {
	switch ft.Kind {
	case Captcha, Status, Slow, Drip, Redirect, Reset, Bomb:
	default:
		return fmt.Errorf("farm: unknown fault kind %q", ft.Kind)
	}
	if ft.Kind == Redirect && ft.Location == "" {
		return fmt.Errorf("farm: a redirect fault needs a Location")
	}
	ft.Host = normHost(ft.Host)
	fs := &faultState{Fault: ft, left: ft.Times}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, fs)
	return nil
}

// ClearFaults removes every fault.
func (f *Farm) ClearFaults() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = nil
}

// matchFault returns the fault for a request and uses it up when it is counted.
func (f *Farm) matchFault(host, p string) *Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.faults) - 1; i >= 0; i-- {
		fs := f.faults[i]
		if fs.Host != "*" && fs.Host != host || !strings.HasPrefix(p, fs.Path) {
			continue
		}
		ft := fs.Fault
		if fs.Times > 0 {
			fs.left--
			if fs.left <= 0 {
				f.faults = append(f.faults[:i], f.faults[i+1:]...)
			}
		}
		return &ft
	}
	return nil
}

// CaptchaPage is the default body of a Captcha fault.
const CaptchaPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Amazon.com</title></head>
<body><div class="a-container a-padding-double-large">
<h4>Enter the characters you see below</h4>
<p class="a-last">Sorry, we just need to make sure you're not a robot. For best results, please make sure your browser is accepting cookies.</p>
<form method="get" action="/errors/validateCaptcha" name="">
<input type=hidden name="amzn" value="farm"/>
<img src="https://images-na.ssl-images-amazon.com/captcha/farm/Captcha_farm.jpg">
<input autocomplete="off" spellcheck="false" placeholder="Type characters" id="captchacharacters" name="field-keywords" type="text">
<button type="submit">Continue shopping</button>
</form></div></body></html>
`

func (f *Farm) applyFault(w http.ResponseWriter, r *http.Request, ft *Fault) {
	switch ft.Kind {
	case Captcha:
		body := ft.Body
		if body == "" {
			body = CaptchaPage
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, body)
	case Status:
		st := ft.Status
		if st == 0 {
			st = http.StatusInternalServerError
		}
		if ft.RetryAfter > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(ft.RetryAfter))
		}
		body := ft.Body
		if body == "" {
			body = fmt.Sprintf("<!doctype html><title>%d</title><h1>%d %s</h1>\n", st, st, http.StatusText(st))
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(st)
		fmt.Fprint(w, body)
	case Slow:
		if !sleepCtx(r.Context(), ft.Delay) {
			return
		}
		f.content(w, r, normHost(hostOnly(r.Host)))
	case Drip:
		f.drip(w, r, ft)
	case Redirect:
		st := ft.Status
		if st < 300 || st > 399 {
			st = http.StatusFound
		}
		w.Header().Set("Location", ft.Location)
		w.WriteHeader(st)
	case Reset:
		reset(w)
	case Bomb:
		serveBomb(w, r, ft.Size)
	}
}

func hostOnly(h string) string {
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		return h[:i]
	}
	return h
}

// reset closes the connection with an RST.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // HTTP/2: RST_STREAM
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc := tcpConn(conn); tc != nil {
		tc.SetLinger(0)
		tc.Close()
		return
	}
	conn.Close()
}

// drip records the page, then sends it slowly.
func (f *Farm) drip(w http.ResponseWriter, r *http.Request, ft *Fault) {
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	f.content(rec, r, normHost(hostOnly(r.Host)))
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.Header().Del("Content-Length")
	w.WriteHeader(rec.status)
	rc := http.NewResponseController(w)
	rc.Flush()
	bps := ft.BytesPerSec
	if bps <= 0 {
		bps = 1
	}
	interval := max(time.Second/time.Duration(bps), 20*time.Millisecond)
	chunk := max(int(int64(bps)*int64(interval)/int64(time.Second)), 1)
	body := rec.body.Bytes()
	t := time.NewTicker(interval)
	defer t.Stop()
	for len(body) > 0 {
		n := min(chunk, len(body))
		if _, err := w.Write(body[:n]); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
		body = body[n:]
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
	}
}

type recorder struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(s int) {
	if !r.wrote {
		r.status, r.wrote = s, true
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.body.Write(b)
}

// bombMember is one complete gzip member of 1 MiB of zeros (about 1 KiB); a gzip stream may be a
// series of members, so Size/1MiB copies of it decode to Size bytes.
var bombMember = sync.OnceValue(func() []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(make([]byte, 1<<20))
	zw.Close()
	return buf.Bytes()
})

// DefaultBombSize is the decoded size of a Bomb fault.
const DefaultBombSize = 1 << 30

func serveBomb(w http.ResponseWriter, r *http.Request, size int64) {
	if size <= 0 {
		size = DefaultBombSize
	}
	m := bombMember()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Encoding", "gzip")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	for i, n := int64(0), (size+(1<<20)-1)>>20; i < n; i++ {
		if r.Context().Err() != nil {
			return
		}
		if _, err := w.Write(m); err != nil {
			return
		}
		if i%64 == 63 {
			rc.Flush()
		}
	}
}
