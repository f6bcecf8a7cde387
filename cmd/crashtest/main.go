// Command crashtest drives the real asa binary through batches against the target farm.
//
// make crashtest (the default mode): 400 items in 11 batches (one of 300, ten of 10), each with a
// webhook, while `asa serve` is killed with SIGKILL at random moments (6 times while items run, once
// more right after the last batch ends) and restarted on the same database. Between a kill and the
// restart the database is opened and PRAGMA integrity_check must say ok. At the end: every item has
// exactly one result; the usage ledger holds one charge per successful item and credits = 5 x
// successful items, equal to the batches' credits_charged; every webhook was delivered with a valid
// signature; the farm saw every item at least once and none more often than the kills allow.
//
// make crashtest-pg (-postgres): the same on PostgreSQL, on a server store/pgtest starts for the run
// (initdb into a temporary directory, a loopback port, stopped after); -db postgres://... runs it on
// a database of your own instead (it must be empty). On PostgreSQL another node may be alive, so a
// restarted node takes over the killed one's items only when their lease expires: asa serve runs
// with --batch-lease 2s. The integrity check between a kill and the restart is then only that the
// database answers and has its schema: its files are the server's business.
//
// make batchbench (-throughput): one 1000-item batch against the farm answering in 200 ms, with the
// default worker budget and no kills; the time from the POST to the webhook's arrival must be under
// 15 s.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"asa/api"
	"asa/cmd/internal/batchledger"
	"asa/cmd/internal/farmsite"
	"asa/engine/fetch"
	"asa/engine/fetch/farm"
	"asa/store"
	"asa/store/pgtest"
)

func main() {
	o := opts{}
	flag.StringVar(&o.bin, "bin", "", "the asa binary (default: go build ./cmd/asa into a temporary directory)")
	flag.BoolVar(&o.throughput, "throughput", false, "run the throughput benchmark instead of the crash test")
	flag.IntVar(&o.kills, "kills", 6, "crash test: SIGKILLs while items run (one more follows the end of the last batch)")
	flag.IntVar(&o.concurrency, "concurrency", 8, "crash test: the worker's budget (--batch-concurrency), small so the kills land mid-run")
	flag.DurationVar(&o.timeout, "timeout", 100*time.Second, "give up after this long")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (database, logs)")
	flag.StringVar(&o.db, "db", "", "a postgres:// URL of an empty database to run on (default: a SQLite file in the temporary directory)")
	flag.BoolVar(&o.postgres, "postgres", false, "run on PostgreSQL: start a server with store/pgtest (initdb, pg_ctl) for the run")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "crashtest: FAIL:", err)
		os.Exit(1)
	}
}

type opts struct {
	bin         string
	throughput  bool
	kills       int
	concurrency int
	timeout     time.Duration
	keep        bool
	db          string
	postgres    bool
}

// env is one run: the farm, the webhook receiver, the server process and its files.
type env struct {
	o       opts
	dir     string
	bin     string
	db      string
	addr    string
	base    string
	farm    *farm.Farm
	caFile  string
	key     string
	client  *fetch.Client
	srv     *exec.Cmd
	exited  chan error
	logs    *os.File
	starts  int
	latency func() time.Duration

	mu      sync.Mutex
	hits    map[string]int            // farm requests per item id
	secrets map[string]string         // batch id -> webhook secret
	hooks   map[string]map[string]int // batch id -> event id -> deliveries
	hookAt  map[string]time.Time      // batch id -> first delivery
	final   map[string]record         // batches seen ended with their webhook delivered
	badSigs int
}

func run(o opts) error {
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	e := &env{o: o, hits: map[string]int{}, secrets: map[string]string{}, hooks: map[string]map[string]int{}, hookAt: map[string]time.Time{}, final: map[string]record{}}
	dir, err := os.MkdirTemp("", "asa-crashtest-")
	if err != nil {
		return err
	}
	e.dir = dir
	if o.keep {
		fmt.Println("crashtest: files in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	if o.postgres {
		srv, err := pgtest.Start()
		if err != nil {
			return err
		}
		defer srv.Stop()
		dsn, drop, err := srv.CreateDB(ctx)
		if err != nil {
			return err
		}
		defer drop()
		e.o.db = dsn
	}
	if e.o.db != "" && !store.IsPostgres(e.o.db) {
		return fmt.Errorf("-db %q: want a postgres:// URL", e.o.db)
	}
	if err := e.setup(); err != nil {
		return err
	}
	defer e.teardown()
	if o.throughput {
		return e.benchmark(ctx)
	}
	return e.crash(ctx)
}

func (e *env) setup() error {
	e.bin = e.o.bin
	if e.bin == "" {
		e.bin = filepath.Join(e.dir, "asa")
		cmd := exec.Command("go", "build", "-o", e.bin, "./cmd/asa")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building asa: %w", err)
		}
	} else if abs, err := filepath.Abs(e.bin); err == nil {
		e.bin = abs
	}
	if _, err := farmsite.Write(e.dir, "crash"); err != nil {
		return err
	}
	// The farm impersonates crash.example over TLS with its own CA.
	f, err := farm.New(farm.Options{Hosts: []string{farmsite.Host("crash")}, ControlAddr: "off"})
	if err != nil {
		return err
	}
	e.farm = f
	e.caFile = filepath.Join(e.dir, "farm-ca.pem")
	if err := os.WriteFile(e.caFile, f.CACertPEM(), 0o644); err != nil {
		return err
	}
	e.latency = func() time.Duration { return time.Duration(50+rand.IntN(300)) * time.Millisecond }
	if e.o.throughput {
		e.latency = func() time.Duration { return 200 * time.Millisecond }
	}
	f.HandleFunc("crash.example", "/item/", func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/item/")
		e.mu.Lock()
		e.hits[id]++
		e.mu.Unlock()
		select {
		case <-time.After(e.latency()):
		case <-r.Context().Done():
			return
		}
		if strings.HasPrefix(id, "NF") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><body><h1 data-id="%s">Item %s</h1></body></html>`, id, id)
	})
	e.db = filepath.Join(e.dir, "asa.db")
	if e.o.db != "" {
		e.db = e.o.db
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	e.addr = ln.Addr().String()
	ln.Close()
	e.base = "http://" + e.addr
	if e.logs, err = os.Create(filepath.Join(e.dir, "serve.log")); err != nil {
		return err
	}
	// A custom workspace with room for every item; its key is printed alone on the last line.
	out, err := exec.Command(e.bin, "keys", "create", "--db", e.db, "--workspace", "crash", "--create-workspace", "--plan", "custom", "--credits", "1000000").CombinedOutput()
	if err != nil {
		return fmt.Errorf("asa keys create: %v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	e.key = strings.TrimSpace(lines[len(lines)-1])
	e.client, err = fetch.New(fetch.Options{AllowPrivateNetwork: true, MaxAttempts: 1, Logger: slog.New(slog.DiscardHandler)})
	return err
}

func (e *env) teardown() {
	if e.srv != nil && e.srv.Process != nil {
		_ = e.srv.Process.Kill()
		<-e.exited
	}
	if e.farm != nil {
		e.farm.Close()
	}
	if e.client != nil {
		e.client.Close()
	}
	if e.logs != nil {
		e.logs.Close()
	}
}

// start runs asa serve and waits until it answers.
func (e *env) start(ctx context.Context, extra ...string) error {
	args := []string{"serve", "--addr", e.addr, "--db", e.db, "--sitedefs", filepath.Join(e.dir, "sitedefs"),
		"--farm", e.farm.Addr(), "--farm-ca", e.caFile, "--allow-private-network", "--log-format", "json"}
	if store.IsPostgres(e.db) {
		args = append(args, "--batch-lease", "2s")
	}
	args = append(args, extra...)
	cmd := exec.Command(e.bin, args...)
	e.starts++
	fmt.Fprintf(e.logs, "==== start %d\n", e.starts)
	cmd.Stdout, cmd.Stderr = e.logs, e.logs
	if err := cmd.Start(); err != nil {
		return err
	}
	e.srv, e.exited = cmd, make(chan error, 1)
	go func() { e.exited <- cmd.Wait() }()
	for {
		if _, err := e.call(ctx, http.MethodGet, "/healthz", nil, nil, nil); err == nil {
			return nil
		}
		select {
		case err := <-e.exited:
			e.srv = nil
			return fmt.Errorf("asa serve exited: %v (see %s)", err, e.logs.Name())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (e *env) kill() {
	_ = e.srv.Process.Signal(syscall.SIGKILL)
	<-e.exited
	e.srv = nil
	fmt.Fprintf(e.logs, "==== SIGKILL\n")
}

// stop sends SIGTERM (a graceful shutdown) and waits.
func (e *env) stop() error {
	_ = e.srv.Process.Signal(syscall.SIGTERM)
	err := <-e.exited
	e.srv = nil
	return err
}

// integrity opens the database as a restart would and runs PRAGMA integrity_check.
func (e *env) integrity(ctx context.Context) error {
	db, err := store.Open(ctx, e.db)
	if err != nil {
		return fmt.Errorf("opening the database after a kill: %w", err)
	}
	defer db.Close()
	v, err := db.IntegrityCheck(ctx)
	if err != nil {
		return err
	}
	if v != "ok" {
		return fmt.Errorf("integrity_check: %s", v)
	}
	return nil
}

// call sends one request to the API and decodes the JSON answer into out.
func (e *env) call(ctx context.Context, method, path string, body []byte, hdr http.Header, out any) (int, error) {
	u, err := url.Parse(e.base + path)
	if err != nil {
		return 0, err
	}
	h := http.Header{"X-Api-Key": {e.key}}
	for k, v := range hdr {
		h[k] = v
	}
	req := &http.Request{Method: method, URL: u, Header: h}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var res *fetch.Result
	for {
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		res, err = e.client.Do(cctx, req, fetch.Limits{MaxBodyBytes: 256 << 20, Timeout: 30 * time.Second})
		if err != nil {
			return 0, err
		}
		if res.Status != http.StatusTooManyRequests {
			break
		}
		wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
		select {
		case <-cctx.Done():
			return 0, cctx.Err()
		case <-time.After(time.Duration(max(wait, 1)) * time.Second):
		}
	}
	if res.Status < 200 || res.Status > 299 {
		return res.Status, fmt.Errorf("%s %s: %d %s", method, path, res.Status, res.Body)
	}
	if out != nil {
		if err := json.Unmarshal(res.Body, out); err != nil {
			return res.Status, err
		}
	}
	return res.Status, nil
}

// receiver is the webhook endpoint: it checks the signature with the batch's secret and counts
// deliveries per batch and event id.
func (e *env) receiver() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		batch := r.Header.Get("X-ASA-Batch-Id")
		e.mu.Lock()
		defer e.mu.Unlock()
		secret := e.secrets[batch]
		if secret == "" || !api.VerifyWebhookSignature(secret, body, r.Header.Get("X-ASA-Signature")) {
			e.badSigs++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if e.hooks[batch] == nil {
			e.hooks[batch] = map[string]int{}
			e.hookAt[batch] = time.Now()
		}
		e.hooks[batch][r.Header.Get("webhook-id")]++
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/hooks", func() { srv.Close() }, nil
}

type created struct {
	ID     string `json:"id"`
	Secret string `json:"webhook_signature_secret"`
	Poll   string `json:"poll_url"`
}

// submit creates a batch of the given item ids, retrying through kills under one idempotency key.
func (e *env) submit(ctx context.Context, ids []string, hook, idem string) (created, error) {
	items := make([]map[string]string, len(ids))
	for i, id := range ids {
		items[i] = map[string]string{"query": id}
	}
	body, _ := json.Marshal(map[string]any{"endpoint": "crash.item", "items": items, "webhook_url": hook})
	var c created
	// The secret must be known before the webhook can arrive: hold the receiver's lock.
	e.mu.Lock()
	defer e.mu.Unlock()
	_, err := e.call(ctx, http.MethodPost, "/api/v1/crash/batch", body, http.Header{"Idempotency-Key": {idem}}, &c)
	if err != nil {
		return c, err
	}
	e.secrets[c.ID] = c.Secret
	return c, nil
}

type record struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	TotalCount     int    `json:"total_count"`
	ProcessedCount int    `json:"processed_count"`
	SuccessCount   int    `json:"success_count"`
	FailureCount   int    `json:"failure_count"`
	CreditsCharged int    `json:"credits_charged"`
	WebhookStatus  string `json:"webhook_delivery_status"`
	Results        []struct {
		Index          int             `json:"index"`
		Input          json.RawMessage `json:"input"`
		Status         string          `json:"status"`
		Error          string          `json:"error"`
		CreditsCharged int             `json:"credits_charged"`
	} `json:"results"`
}

func (e *env) poll(ctx context.Context, c created, limit int) (record, error) {
	var r record
	_, err := e.call(ctx, http.MethodGet, fmt.Sprintf("%s?limit=%d", c.Poll, limit), nil, nil, &r)
	return r, err
}

// progress sums the batches' processed counts. A batch seen delivered is not asked again (the key's
// rate limit applies to polls).
func (e *env) progress(ctx context.Context, bs []created) (processed, total, delivered int, err error) {
	for _, b := range bs {
		e.mu.Lock()
		r, done := e.final[b.ID]
		e.mu.Unlock()
		if !done {
			if r, err = e.poll(ctx, b, 1); err != nil {
				return 0, 0, 0, err
			}
			if r.WebhookStatus == "delivered" {
				e.mu.Lock()
				e.final[b.ID] = r
				e.mu.Unlock()
			}
		}
		processed += r.ProcessedCount
		total += r.TotalCount
		if r.WebhookStatus == "delivered" {
			delivered++
		}
	}
	return processed, total, delivered, nil
}

func (e *env) crash(ctx context.Context) error {
	began := time.Now()
	fmt.Printf("crashtest: database %s\n", store.RedactDSN(e.db))
	hook, closeHook, err := e.receiver()
	if err != nil {
		return err
	}
	defer closeHook()
	if err := e.start(ctx, "--batch-concurrency", strconv.Itoa(e.o.concurrency)); err != nil {
		return err
	}
	// 400 items: one batch of 300 and ten of 10; every 20th item is absent from the farm (404).
	var batches []created
	var expectOK int
	n := 0
	sizes := []int{300, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10}
	for bi, size := range sizes {
		ids := make([]string, size)
		for i := range ids {
			if n%20 == 19 {
				ids[i] = fmt.Sprintf("NF%05d", n)
			} else {
				ids[i] = fmt.Sprintf("IT%05d", n)
				expectOK++
			}
			n++
		}
		c, err := e.submit(ctx, ids, hook, fmt.Sprintf("crashtest-%d", bi))
		if err != nil {
			return err
		}
		batches = append(batches, c)
	}
	fmt.Printf("crashtest: %d items in %d batches, worker budget %d, farm latency 50-350 ms\n", n, len(batches), e.o.concurrency)

	kills := 0
	killAndRestart := func(when string) error {
		p, total, _, err := e.progress(ctx, batches)
		if err != nil {
			return err
		}
		e.kill()
		kills++
		if err := e.integrity(ctx); err != nil {
			return fmt.Errorf("after kill %d: %w", kills, err)
		}
		fmt.Printf("crashtest: kill %d (%s) at %d/%d items processed; integrity_check ok; restarting\n", kills, when, p, total)
		return e.start(ctx, "--batch-concurrency", strconv.Itoa(e.o.concurrency))
	}
	for kills < e.o.kills {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(300+rand.IntN(1200)) * time.Millisecond):
		}
		if err := killAndRestart("random moment"); err != nil {
			return err
		}
	}
	// One more right as the last batch ends: between its completion commit and the webhook.
	for {
		p, total, _, err := e.progress(ctx, batches)
		if err != nil {
			return err
		}
		if p == total {
			if err := killAndRestart("the last batch just ended"); err != nil {
				return err
			}
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("items stopped at %d/%d: %w", p, total, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	// Drain: every webhook delivered.
	for {
		_, _, delivered, err := e.progress(ctx, batches)
		if err != nil {
			return err
		}
		if delivered == len(batches) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d webhooks delivered: %w", delivered, len(batches), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Every item exactly once, from the API.
	var ok, failed, credits int
	var problems []string
	for _, b := range batches {
		r, err := e.poll(ctx, b, 1000)
		if err != nil {
			return err
		}
		seen := map[int]int{}
		for _, res := range r.Results {
			seen[res.Index]++
			switch {
			case res.Status == "ok" && res.CreditsCharged == 5:
				ok++
			case res.Status == "failed" && res.Error == "product_not_found" && res.CreditsCharged == 0:
				failed++
			default:
				problems = append(problems, fmt.Sprintf("batch %s item %d: %s %s %d credits", b.ID, res.Index, res.Status, res.Error, res.CreditsCharged))
			}
		}
		for i := 0; i < r.TotalCount; i++ {
			if seen[i] != 1 {
				problems = append(problems, fmt.Sprintf("batch %s item %d has %d results", b.ID, i, seen[i]))
			}
		}
		if r.Status != "complete" || r.ProcessedCount != r.TotalCount || r.SuccessCount+r.FailureCount != r.TotalCount {
			problems = append(problems, fmt.Sprintf("batch %s: %s %d/%d", b.ID, r.Status, r.ProcessedCount, r.TotalCount))
		}
		credits += r.CreditsCharged
	}
	if err := e.stop(); err != nil {
		problems = append(problems, fmt.Sprintf("graceful stop: %v", err))
	}
	// The ledger, from the database.
	db, err := store.Open(ctx, e.db)
	if err != nil {
		return err
	}
	defer db.Close()
	st, used, err := batchledger.Read(ctx, db, "crash")
	if err != nil {
		return err
	}
	if v, err := db.IntegrityCheck(ctx); err != nil || v != "ok" {
		problems = append(problems, fmt.Sprintf("final integrity_check: %q %v", v, err))
	}
	if ok != expectOK || failed != n-expectOK {
		problems = append(problems, fmt.Sprintf("%d ok and %d failed items, want %d and %d", ok, failed, expectOK, n-expectOK))
	}
	if st.Items != n || st.Finished != n || st.OK != ok || st.LedgerRows != ok || st.LedgerCredits != 5*ok || st.ItemCredits != 5*ok || credits != 5*ok || used != 5*ok {
		problems = append(problems, fmt.Sprintf("ledger: %+v, batches' credits %d, workspace used %d; want %d charges of 5", st, credits, used, ok))
	}
	e.mu.Lock()
	maxHits, reruns := 0, 0
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("IT%05d", i)
		if i%20 == 19 {
			id = fmt.Sprintf("NF%05d", i)
		}
		h := e.hits[id]
		if h < 1 || h > 1+kills {
			problems = append(problems, fmt.Sprintf("the farm saw item %s %d times (kills: %d)", id, h, kills))
		}
		maxHits = max(maxHits, h)
		reruns += max(h-1, 0)
	}
	duplicates := 0
	for _, b := range batches {
		ev := e.hooks[b.ID]
		if len(ev) != 1 {
			problems = append(problems, fmt.Sprintf("batch %s: webhook events %v", b.ID, ev))
		}
		for _, c := range ev {
			duplicates += c - 1
		}
	}
	bad := e.badSigs
	e.mu.Unlock()
	if bad > 0 {
		problems = append(problems, fmt.Sprintf("%d webhook requests with a bad signature", bad))
	}
	fmt.Printf("crashtest: %d kills, %d starts; %d items: %d ok, %d failed (404); %d credits charged = 5 x %d; ledger rows %d\n",
		kills, e.starts, n, ok, failed, used, ok, st.LedgerRows)
	fmt.Printf("crashtest: %d webhooks delivered, all signatures valid, %d redelivered (deduplicated by webhook-id); %d items re-fetched after kills (max %d fetches of one item)\n",
		len(batches), duplicates, reruns, maxHits)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n  "))
	}
	fmt.Printf("crashtest: PASS in %s\n", time.Since(began).Round(100*time.Millisecond))
	return nil
}

func (e *env) benchmark(ctx context.Context) error {
	hook, closeHook, err := e.receiver()
	if err != nil {
		return err
	}
	defer closeHook()
	if err := e.start(ctx); err != nil {
		return err
	}
	const n = 1000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("IT%05d", i)
	}
	t0 := time.Now()
	c, err := e.submit(ctx, ids, hook, "bench")
	if err != nil {
		return err
	}
	accepted := time.Since(t0)
	for {
		e.mu.Lock()
		at, ok := e.hookAt[c.ID]
		e.mu.Unlock()
		if ok {
			took := at.Sub(t0)
			r, err := e.poll(ctx, c, 1)
			if err != nil {
				return err
			}
			fmt.Printf("batchbench: %d items, farm latency 200 ms, default budget (%d): accepted in %s, webhook received %s after the POST (%.0f items/s); %d ok, %d credits\n",
				n, api.DefaultBatchConcurrency, accepted.Round(time.Millisecond), took.Round(10*time.Millisecond), float64(n)/took.Seconds(), r.SuccessCount, r.CreditsCharged)
			if r.SuccessCount != n || took > 15*time.Second {
				return fmt.Errorf("want %d ok items and the webhook within 15 s", n)
			}
			return e.stop()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no webhook: %w (log %s)", ctx.Err(), e.logs.Name())
		case <-time.After(5 * time.Millisecond):
		}
	}
}
