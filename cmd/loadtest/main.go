// Command loadtest measures the API service under load on loopback (make loadtest): the rate and
// burst ceilings at twice a plan's sustained rate, the concurrency ceiling, and the service's own
// overhead per request (authentication, limits, billing, logging; the target fetch excluded) at
// 500 requests per second. It runs the real server on a temporary SQLite file and prints figures;
// it exits 1 when a ceiling is broken or a 5xx is seen. With -flood it runs only a flood of
// refused requests (make floodtest) and reports the WAL's size and the counters.
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"asa/api"
	"asa/api/apikey"
	"asa/engine"
	"asa/engine/registry"
	"asa/store"
)

//go:embed testdata
var testdata embed.FS

func main() {
	dur := flag.Duration("duration", 30*time.Second, "length of the rate phase")
	rps := flag.Int("overhead-rps", 500, "request rate of the overhead phase")
	odur := flag.Duration("overhead-duration", 10*time.Second, "length of the overhead phase")
	farmN := flag.Int("farm-requests", 1000, "requests in flight at once in the farm phase (0 skips it)")
	farmLatency := flag.Duration("farm-latency", 2*time.Second, "the farm's answer time in the farm phase")
	farmSteady := flag.Duration("farm-duration", 10*time.Second, "how long the farm phase keeps farm-requests in flight, after a ramp of one farm-latency")
	skip := flag.Bool("farm-only", false, "run the farm phase only")
	memLimit := flag.String("memory-limit", "", "asa serve's --memory-limit in the farm phase (default: asa's own, auto)")
	farmPages := flag.String("farm-pages", "tiny,amazon", "the pages of the farm phase: tiny (a one-line page), amazon (the amazon.product fixture page)")
	flood := flag.Duration("flood", 0, "run only the refusal flood for this long (make floodtest): WAL size over time, counters checked")
	floodClients := flag.Int("flood-clients", 64, "connections sending requests back to back in the flood")
	floodKeys := flag.Int("flood-keys", 4, "free-plan keys the flood spreads over")
	flag.Parse()
	if *flood > 0 {
		if err := runFlood(*flood, *floodClients, max(1, *floodKeys)); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
		return
	}
	if !*skip {
		if err := run(*dur, *rps, *odur); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			os.Exit(1)
		}
	}
	if *farmN > 0 {
		for _, page := range strings.Split(*farmPages, ",") {
			if page != "tiny" && page != "amazon" {
				fmt.Fprintf(os.Stderr, "loadtest: unknown farm page %q (tiny or amazon)\n", page)
				os.Exit(2)
			}
			if err := runFarmPhase(*farmN, *farmLatency, *farmSteady, page == "tiny", *memLimit); err != nil {
				fmt.Fprintln(os.Stderr, "loadtest:", err)
				os.Exit(1)
			}
		}
	}
}

// target answers instantly, except that "hold" requests wait until released: the fetch is not what
// is measured.
type target struct{ release chan struct{} }

func (t *target) Fetch(ctx context.Context, req *engine.Request) (*engine.Response, error) {
	id := req.URL[len("https://load.example/item/"):]
	if id == "hold" {
		select {
		case <-t.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	body := `<html><body><h1 data-id="` + id + `">Item ` + id + `</h1></body></html>`
	return &engine.Response{Status: 200, URL: req.URL, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(body), Attempts: 1}, nil
}

type timing struct {
	mu        sync.Mutex
	overheads []time.Duration
}

// newBench makes what both load tests run against: a fresh SQLite database (at path, in a temporary
// directory named after prefix) and the catalogue of testdata. cleanup closes the database and
// removes the directory.
func newBench(ctx context.Context, prefix string) (path string, db *store.DB, reg *registry.Registry, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, nil, nil, err
	}
	path = filepath.Join(dir, "asa.db")
	if db, err = store.Open(ctx, path); err != nil {
		os.RemoveAll(dir)
		return "", nil, nil, nil, err
	}
	cleanup = func() {
		db.Close()
		os.RemoveAll(dir)
	}
	sub, _ := fs.Sub(testdata, "testdata")
	reg, diags := registry.Load(engine.New(), sub)
	if diags.HasErrors() {
		cleanup()
		return "", nil, nil, nil, diags
	}
	return path, db, reg, cleanup, nil
}

func run(rateDur time.Duration, overheadRPS int, overheadDur time.Duration) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, db, reg, cleanup, err := newBench(ctx, "asa-loadtest")
	if err != nil {
		return err
	}
	defer cleanup()
	tg := &target{release: make(chan struct{})}
	tm := &timing{}
	var admitMu sync.Mutex
	admittedAt := map[int64][]time.Time{}
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{RequestTimeout: 30 * time.Second}, api.Deps{
		Registry: reg, Live: tg, Auth: backend, Ledger: backend,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnAdmit: func(key int64, at time.Time) {
			admitMu.Lock()
			admittedAt[key] = append(admittedAt[key], at)
			admitMu.Unlock()
		},
		Timing: func(_ string, total, run time.Duration) {
			tm.mu.Lock()
			tm.overheads = append(tm.overheads, total-run)
			tm.mu.Unlock()
		},
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = srv.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String() + "/api/v1/load/item?api_key="
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000, MaxConnsPerHost: 0}, Timeout: 30 * time.Second}
	get := func(url string) (int, error) {
		resp, err := client.Get(url)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	newKey := func(ws store.Workspace) (apikey.Key, error) {
		k, _, err := db.CreateKey(ctx, ws.ID, false)
		return k, err
	}
	failed := false

	// 1. Rate and burst at twice the free plan's sustained rate.
	free, err := db.CreateWorkspace(ctx, "rate", store.PlanFree, 1_000_000_000)
	if err != nil {
		// custom credits are only for custom plans; fall back to the plan's allowance
		free, err = db.CreateWorkspace(ctx, "rate", store.PlanFree, 0)
		if err != nil {
			return err
		}
	}
	k, err := newKey(free)
	if err != nil {
		return err
	}
	lim := store.PlanLimits(store.PlanFree)
	interval := time.Second / time.Duration(2*lim.RPS)
	var admitted []time.Time
	var fivexx, limited int
	start := time.Now()
	for t := start; time.Since(start) < rateDur; t = t.Add(interval) {
		time.Sleep(time.Until(t))
		code, err := get(base + k.String() + "&query=abc")
		if err != nil {
			return err
		}
		switch {
		case code == 200:
			admitted = append(admitted, time.Now())
		case code == 429:
			limited++
		case code >= 500:
			fivexx++
		}
	}
	elapsed := time.Since(start)
	ceiling := int(float64(lim.RPS)*elapsed.Seconds()) + lim.Burst
	// Windows are checked on the limiter's own admission times.
	admitMu.Lock()
	at := append([]time.Time(nil), admittedAt[keyID(ctx, db, k)]...)
	admitMu.Unlock()
	maxWindow := 0
	for i := range at {
		j := i
		for j < len(at) && at[j].Sub(at[i]) < api.BurstWindow {
			j++
		}
		maxWindow = max(maxWindow, j-i)
	}
	window := api.WindowCeiling(api.Limits{RPS: float64(lim.RPS), Burst: lim.Burst})
	fmt.Printf("rate: free plan (%d rps sustained, burst %d per %v), driven at %d rps for %v\n", lim.RPS, window, api.BurstWindow, 2*lim.RPS, elapsed.Round(time.Millisecond))
	fmt.Printf("  admitted %d (ceiling sustained x %.0fs + burst = %d), refused %d, 5xx %d, most admitted in a 3 s window %d (ceiling %d)\n",
		len(admitted), elapsed.Seconds(), ceiling, limited, fivexx, maxWindow, window)
	if len(admitted) > ceiling || maxWindow > window || fivexx > 0 {
		failed = true
		fmt.Println("  FAIL")
	}

	// 2. The concurrency ceiling: C requests held at the target, request C+1 refused at once.
	cws, err := db.CreateWorkspace(ctx, "concurrency", store.PlanVibe, 0)
	if err != nil {
		return err
	}
	ck, err := newKey(cws)
	if err != nil {
		return err
	}
	cl := store.PlanLimits(store.PlanVibe)
	var held sync.WaitGroup
	var heldOK atomic.Int64
	for i := 0; i < cl.Concurrency; i++ {
		held.Add(1)
		go func() {
			defer held.Done()
			if code, err := get(base + ck.String() + "&query=hold"); err == nil && code == 200 {
				heldOK.Add(1)
			}
		}()
		// Stay under the burst ceiling so only concurrency can refuse the extra request.
		time.Sleep(time.Second / time.Duration(cl.RPS))
	}
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	code, err := get(base + ck.String() + "&query=abc")
	if err != nil {
		return err
	}
	refusal := time.Since(t0)
	close(tg.release)
	held.Wait()
	fmt.Printf("concurrency: vibe plan (%d in flight): request %d got %d in %v; the %d held requests: %d ok\n",
		cl.Concurrency, cl.Concurrency+1, code, refusal.Round(time.Microsecond), cl.Concurrency, heldOK.Load())
	if code != 429 || refusal > 100*time.Millisecond || heldOK.Load() != int64(cl.Concurrency) {
		failed = true
		fmt.Println("  FAIL")
	}

	// 3. Overhead at a steady request rate spread over pro keys (25 rps each).
	pws, err := db.CreateWorkspace(ctx, "overhead", store.PlanCustom, 1_000_000_000)
	if err != nil {
		return err
	}
	pl := store.PlanLimits(store.PlanCustom)
	nkeys := min(store.MaxActiveKeys, (overheadRPS+pl.RPS-1)/pl.RPS+1)
	var keys []apikey.Key
	for i := 0; i < nkeys; i++ {
		k, err := newKey(pws)
		if err != nil {
			return err
		}
		keys = append(keys, k)
	}
	tm.mu.Lock()
	tm.overheads = tm.overheads[:0]
	tm.mu.Unlock()
	var wg sync.WaitGroup
	var codes sync.Map
	step := time.Second / time.Duration(overheadRPS)
	start = time.Now()
	n := 0
	for t := start; time.Since(start) < overheadDur; t = t.Add(step) {
		time.Sleep(time.Until(t))
		key := keys[n%len(keys)]
		n++
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, err := get(base + key.String() + "&query=abc")
			if err != nil {
				code = -1
			}
			v, _ := codes.LoadOrStore(code, new(atomic.Int64))
			v.(*atomic.Int64).Add(1)
		}()
	}
	wg.Wait()
	el := time.Since(start)
	tm.mu.Lock()
	o := append([]time.Duration(nil), tm.overheads...)
	tm.mu.Unlock()
	sort.Slice(o, func(i, j int) bool { return o[i] < o[j] })
	pct := func(p float64) time.Duration {
		if len(o) == 0 {
			return 0
		}
		return o[min(len(o)-1, int(p*float64(len(o))))]
	}
	summary := ""
	codes.Range(func(k, v any) bool {
		summary += fmt.Sprintf(" %v:%d", k, v.(*atomic.Int64).Load())
		if c := k.(int); c >= 500 || c < 0 {
			failed = true
		}
		return true
	})
	fmt.Printf("overhead: %d requests in %v (%.0f rps) over %d custom-plan keys; statuses%s\n", n, el.Round(time.Millisecond), float64(n)/el.Seconds(), len(keys), summary)
	fmt.Printf("  service overhead per request (auth + limits + billing + logging, fetch and extraction excluded): p50 %v, p99 %v, max %v (target p99 < 2ms)\n",
		pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), pct(1).Round(time.Microsecond))
	if failed {
		return fmt.Errorf("a ceiling was broken or a request failed")
	}
	return nil
}

// keyID finds a key's row id by its short prefix.
func keyID(ctx context.Context, db *store.DB, k apikey.Key) int64 {
	wss, _ := db.Workspaces(ctx)
	for _, ws := range wss {
		keys, _ := db.Keys(ctx, ws.ID)
		for _, r := range keys {
			if r.ShortPrefix == k.Short() {
				return r.ID
			}
		}
	}
	return 0
}
