package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"asa/api"
	"asa/engine/fetch"
)

// cmdBatch runs `asa batch submit` and `asa batch get`: a client of a running asa serve.
func cmdBatch(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 || (args[0] != "submit" && args[0] != "get") {
		fmt.Fprint(stderr, usage)
		return 2
	}
	sub := args[0]
	fl := newFlags("asa batch "+sub, stderr)
	addr := fl.String("addr", "", "the API's address, HOST:PORT or a URL (env ASA_ADDR; default 127.0.0.1:8080)")
	key := fl.String("api-key", "", "API key (env ASA_API_KEY)")
	webhook := fl.String("webhook", "", "submit: URL to POST the results to when the batch ends (https, public)")
	idem := fl.String("idempotency-key", "", "submit: resubmitting with the same key within 24 h returns the same batch")
	detach := fl.Bool("detach", false, "submit: print the creation response and exit without waiting")
	interval := fl.Duration("interval", time.Second, "how often to poll")
	out := fl.String("o", "", "write the final batch record (JSON) to this file instead of stdout")
	offset := fl.Int("offset", 0, "get: first result index")
	limit := fl.Int("limit", 0, "get: results per page (1 to 1000); 0 fetches every result")
	if err := fl.Parse(reorder(args[1:], map[string]bool{"addr": true, "api-key": true, "webhook": true,
		"idempotency-key": true, "interval": true, "o": true, "offset": true, "limit": true})); err != nil {
		return 2
	}
	if *addr == "" {
		*addr = getenv("ASA_ADDR")
	}
	if *key == "" {
		*key = getenv("ASA_API_KEY")
	}
	base, err := apiBase(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "asa batch: %v\n", err)
		return 2
	}
	if *key == "" {
		fmt.Fprintln(stderr, "asa batch: no API key: pass --api-key or set ASA_API_KEY")
		return 2
	}
	c, err := newAPIClient(base, *key)
	if err != nil {
		fmt.Fprintf(stderr, "asa batch: %v\n", err)
		return 1
	}
	defer c.close()
	var w io.Writer = stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(stderr, "asa batch: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
	}
	if sub == "get" {
		if fl.NArg() != 1 {
			fmt.Fprintln(stderr, "asa batch get: want one batch ID (or its poll_url)")
			return 2
		}
		path := pollPath(fl.Arg(0))
		var rec map[string]any
		var raw []byte
		if *limit > 0 {
			raw, err = c.get(ctx, fmt.Sprintf("%s?offset=%d&limit=%d", path, *offset, *limit), &rec)
		} else {
			raw, err = c.all(ctx, path, &rec)
		}
		if err != nil {
			fmt.Fprintf(stderr, "asa batch get: %v\n", err)
			return 1
		}
		w.Write(raw)
		fmt.Fprintln(w)
		return 0
	}

	if fl.NArg() != 2 {
		fmt.Fprintln(stderr, "asa batch submit: want SITE.RESOURCE and ITEMS.jsonl (- for stdin)")
		return 2
	}
	endpoint := fl.Arg(0)
	items, lines, err := readItems(fl.Arg(1))
	if err != nil {
		fmt.Fprintf(stderr, "asa batch submit: %v\n", err)
		return 1
	}
	body := map[string]any{"endpoint": endpoint, "items": items}
	if *webhook != "" {
		body["webhook_url"] = *webhook
	}
	site, _, _ := strings.Cut(endpoint, ".")
	var created struct {
		ID                     string  `json:"id"`
		Status                 string  `json:"status"`
		TotalCount             int     `json:"total_count"`
		WebhookSignatureSecret *string `json:"webhook_signature_secret"`
		PollURL                string  `json:"poll_url"`
	}
	raw, err := c.post(ctx, "/api/v1/"+site+"/batch", body, *idem, &created)
	if err != nil {
		fmt.Fprintf(stderr, "asa batch submit: %s\n", itemLines(err.Error(), lines))
		return 1
	}
	if *detach {
		w.Write(raw)
		fmt.Fprintln(w)
		return 0
	}
	fmt.Fprintf(stderr, "batch %s accepted: %d items of %s\n", created.ID, created.TotalCount, endpoint)
	if created.WebhookSignatureSecret != nil {
		fmt.Fprintf(stderr, "webhook signing secret (shown once; keep it to verify X-ASA-Signature): %s\n", *created.WebhookSignatureSecret)
	}
	start := time.Now()
	bar := newProgress(stderr)
	for {
		var rec batchProgress
		if _, err := c.get(ctx, created.PollURL+"?limit=1", &rec); err != nil {
			bar.done()
			fmt.Fprintf(stderr, "asa batch submit: polling %s: %v\n", created.PollURL, err)
			return 1
		}
		bar.show(rec, time.Since(start))
		if rec.Status == "complete" || rec.Status == "failed" {
			bar.done()
			var final map[string]any
			raw, err := c.all(ctx, created.PollURL, &final)
			if err != nil {
				fmt.Fprintf(stderr, "asa batch submit: fetching the results: %v\n", err)
				return 1
			}
			w.Write(raw)
			fmt.Fprintln(w)
			fmt.Fprintf(stderr, "batch %s %s in %s: %d ok, %d failed, %d credits\n", created.ID, rec.Status,
				time.Since(start).Round(100*time.Millisecond), rec.SuccessCount, rec.FailureCount, rec.CreditsCharged)
			if rec.Status == "failed" {
				return 1
			}
			return 0
		}
		select {
		case <-ctx.Done():
			bar.done()
			fmt.Fprintf(stderr, "stopped waiting; the batch goes on: asa batch get %s\n", created.ID)
			return 1
		case <-time.After(*interval):
		}
	}
}

// batchProgress is what the progress bar reads from a poll.
type batchProgress struct {
	Status         string `json:"status"`
	TotalCount     int    `json:"total_count"`
	ProcessedCount int    `json:"processed_count"`
	SuccessCount   int    `json:"success_count"`
	FailureCount   int    `json:"failure_count"`
	CreditsCharged int    `json:"credits_charged"`
}

// progress draws a bar on a terminal (redrawn in place) or a line per change, at most every 2 s,
// elsewhere.
type progress struct {
	w     io.Writer
	tty   bool
	last  time.Time
	lastN int
	drawn bool
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w, lastN: -1}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func progressLine(r batchProgress, elapsed time.Duration) string {
	const width = 30
	filled := 0
	if r.TotalCount > 0 {
		filled = r.ProcessedCount * width / r.TotalCount
	}
	return fmt.Sprintf("[%s%s] %d/%d  ok %d  failed %d  credits %d  %s  %s",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), r.ProcessedCount, r.TotalCount,
		r.SuccessCount, r.FailureCount, r.CreditsCharged, r.Status, elapsed.Round(time.Second))
}

func (p *progress) show(r batchProgress, elapsed time.Duration) {
	line := progressLine(r, elapsed)
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
		p.drawn = true
		return
	}
	ended := r.Status == "complete" || r.Status == "failed"
	if r.ProcessedCount != p.lastN && (ended || time.Since(p.last) >= 2*time.Second) {
		fmt.Fprintln(p.w, line)
		p.last, p.lastN = time.Now(), r.ProcessedCount
	}
}

func (p *progress) done() {
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}

// readItems reads a JSON Lines file: one JSON object per line, blank lines skipped. lines maps an
// item's index to its line number.
func readItems(path string) (items []json.RawMessage, lines []int, err error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		r = f
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) || line[0] != '{' {
			return nil, nil, fmt.Errorf("%s:%d: not a JSON object", path, n)
		}
		items = append(items, json.RawMessage(append([]byte(nil), line...)))
		lines = append(lines, n)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if len(items) == 0 {
		return nil, nil, fmt.Errorf("%s: no items", path)
	}
	return items, lines, nil
}

var itemRef = regexp.MustCompile(`items\[(\d+)\]`)

// itemLines adds the file's line number to the server's items[i] references.
func itemLines(msg string, lines []int) string {
	return itemRef.ReplaceAllStringFunc(msg, func(m string) string {
		i, _ := strconv.Atoi(itemRef.FindStringSubmatch(m)[1])
		if i < len(lines) {
			return fmt.Sprintf("%s (line %d)", m, lines[i])
		}
		return m
	})
}

// apiBase turns --addr into a base URL.
func apiBase(addr string) (string, error) {
	if addr == "" {
		addr = defaultServeConfig().Addr
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("--addr %q: want HOST:PORT or an http(s) URL", addr)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// pollPath accepts a batch id or its poll_url. The poll answers under any site segment; the bare id
// uses "any".
func pollPath(arg string) string {
	if i := strings.Index(arg, "/api/v1/"); i >= 0 {
		p := arg[i:]
		if j := strings.IndexByte(p, '?'); j >= 0 {
			p = p[:j]
		}
		return p
	}
	return "/api/v1/any/batch/" + url.PathEscape(arg)
}

// apiClient talks to our own API. It goes through the project's one outbound client (with the
// network guard lifted: the API is usually on loopback).
type apiClient struct {
	base, key string
	c         *fetch.Client
}

func newAPIClient(base, key string) (*apiClient, error) {
	c, err := fetch.New(fetch.Options{AllowPrivateNetwork: true, MaxAttempts: 1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	return &apiClient{base: base, key: key, c: c}, nil
}

func (a *apiClient) close() { a.c.Close() }

// apiError is an error answer of the API.
type apiError struct {
	Status  int
	Code    string   `json:"error"`
	Message string   `json:"message"`
	Params  []string `json:"params"`
}

func (e *apiError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("HTTP %d", e.Status)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// do sends one request, waiting out 429s (Retry-After) a few times.
func (a *apiClient) do(ctx context.Context, method, path string, body []byte, hdr http.Header, out any) ([]byte, error) {
	for try := 0; ; try++ {
		u, err := url.Parse(a.base + path)
		if err != nil {
			return nil, err
		}
		h := http.Header{"X-Api-Key": {a.key}, "Accept": {"application/json"}}
		for k, v := range hdr {
			h[k] = v
		}
		req := &http.Request{Method: method, URL: u, Header: h}
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := a.c.Do(ctx, req, fetch.Limits{MaxBodyBytes: 256 << 20, Timeout: 2 * time.Minute})
		if err != nil {
			return nil, err
		}
		if res.Status == http.StatusTooManyRequests && try < 10 {
			wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Duration(max(wait, 1)) * time.Second):
			}
			continue
		}
		if res.Status < 200 || res.Status > 299 {
			e := &apiError{Status: res.Status}
			_ = json.Unmarshal(res.Body, e)
			return nil, e
		}
		if out != nil {
			if err := json.Unmarshal(res.Body, out); err != nil {
				return nil, fmt.Errorf("reading the answer: %w", err)
			}
		}
		return res.Body, nil
	}
}

func (a *apiClient) get(ctx context.Context, path string, out any) ([]byte, error) {
	return a.do(ctx, http.MethodGet, path, nil, nil, out)
}

func (a *apiClient) post(ctx context.Context, path string, body any, idem string, out any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	if idem != "" {
		h.Set(api.HeaderIdempotencyKey, idem)
	}
	return a.do(ctx, http.MethodPost, path, b, h, out)
}

// all fetches the batch record with every result: one page of the largest size is a whole batch.
func (a *apiClient) all(ctx context.Context, path string, out any) ([]byte, error) {
	return a.get(ctx, fmt.Sprintf("%s?limit=%d", path, api.MaxResultsLimit), out)
}

// newWebhookClient builds the outbound client of batch webhooks: direct egress, the SSRF guard at
// parse, resolve and dial time. --allow-private-network lifts the guard and lets any port through,
// so tests and local development can point webhooks at a loopback receiver.
func newWebhookClient(cfg serveConfig, log *slog.Logger) (*fetch.Client, error) {
	opts := fetch.Options{AllowPrivateNetwork: cfg.AllowPrivateNetwork, Logger: log}
	if cfg.AllowPrivateNetwork {
		opts.AllowPorts = make([]int, 0, 65535)
		for p := 1; p <= 65535; p++ {
			opts.AllowPorts = append(opts.AllowPorts, p)
		}
	}
	return fetch.New(opts)
}
