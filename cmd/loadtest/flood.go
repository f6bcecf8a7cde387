package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"asa/api"
	"asa/api/apikey"
	"asa/store"
)

// walTarget is what the flood must stay under (issue 11: 887 MB after 40 s before the request log
// was written in groups).
const walTarget = 64 << 20

// runFlood (make floodtest) sends requests as fast as clients connections allow, for dur, with a
// few free-plan keys: nearly all are refused (429), a few are admitted and billed. It prints the
// WAL's size every second and at the end, then checks every counter against what the clients were
// answered: refusals per key, usage rows, credits. It fails when the WAL passed walTarget, a
// counter is off or a 5xx was seen.
func runFlood(dur time.Duration, clients, nkeys int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	path, db, reg, cleanup, err := newBench(ctx, "asa-floodtest")
	if err != nil {
		return err
	}
	defer cleanup()
	tg := &target{release: make(chan struct{})}
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{RequestTimeout: 30 * time.Second}, api.Deps{
		Registry: reg, Live: tg, Auth: backend, Ledger: backend,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	type keyRun struct {
		key    apikey.Key
		ws     store.Workspace
		byCode sync.Map // status -> *atomic.Int64
	}
	keys := make([]*keyRun, nkeys)
	for i := range keys {
		ws, err := db.CreateWorkspace(ctx, fmt.Sprint("flood", i), store.PlanFree, 0)
		if err != nil {
			return err
		}
		k, _, err := db.CreateKey(ctx, ws.ID, false)
		if err != nil {
			return err
		}
		keys[i] = &keyRun{key: k, ws: ws}
	}
	base := "http://" + ln.Addr().String() + "/api/v1/load/item?query=abc&api_key="
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 30 * time.Second}
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	mb := func(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/(1<<20)) }
	fmt.Printf("flood: %d clients, %d free-plan keys (2 rps, burst 10 each), %v, WAL limit %s (truncated past %s)\n",
		clients, nkeys, dur, mb(store.DefaultWALLimit), mb(2*store.DefaultWALLimit))
	fmt.Printf("  WAL at start: %s\n", mb(walSize()))

	var sent, transportErrs atomic.Int64
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for c := range clients {
		kr := keys[c%len(keys)]
		wg.Go(func() {
			url := base + kr.key.String()
			for time.Now().Before(deadline) {
				resp, err := client.Get(url)
				sent.Add(1)
				if err != nil {
					transportErrs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				v, _ := kr.byCode.LoadOrStore(resp.StatusCode, new(atomic.Int64))
				v.(*atomic.Int64).Add(1)
			}
		})
	}
	start := time.Now()
	var maxWAL int64
	tick := time.NewTicker(time.Second)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	last := int64(0)
loop:
	for {
		select {
		case <-done:
			break loop
		case <-tick.C:
			w, n := walSize(), sent.Load()
			maxWAL = max(maxWAL, w)
			fmt.Printf("  %3.0fs  WAL %9s  requests %8d  (%6d/s)\n", time.Since(start).Seconds(), mb(w), n, n-last)
			last = n
		}
	}
	tick.Stop()
	elapsed := time.Since(start)
	endWAL := walSize()
	maxWAL = max(maxWAL, endWAL)
	total := sent.Load()
	fmt.Printf("  %d requests in %v: %.0f/s; WAL largest %s, at the end %s (target < %s)\n",
		total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), mb(maxWAL), mb(endWAL), mb(walTarget))

	failed := maxWAL >= walTarget || transportErrs.Load() > 0
	for _, kr := range keys {
		codes := map[int]int64{}
		kr.byCode.Range(func(k, v any) bool {
			codes[k.(int)] = v.(*atomic.Int64).Load()
			return true
		})
		var answered int64
		for c, n := range codes {
			answered += n
			if c >= 500 {
				failed = true
			}
		}
		refusals, err := db.Refusals(ctx, kr.ws.ID, time.Time{})
		if err != nil {
			return err
		}
		var counted int64
		for _, r := range refusals {
			counted += r.Count
		}
		rows, err := db.Usage(ctx, store.UsageQuery{WorkspaceID: kr.ws.ID})
		if err != nil {
			return err
		}
		var requests, errs, credits int64
		for _, r := range rows {
			requests, errs, credits = requests+int64(r.Requests), errs+int64(r.Errors), credits+int64(r.Credits)
		}
		used, err := db.CreditsUsed(ctx, kr.ws.ID, time.Now())
		if err != nil {
			return err
		}
		refused := answered - codes[200]
		ok := counted == refused && requests == answered && errs == refused && credits == 5*codes[200] && int64(used) == credits
		fmt.Printf("  key %s: answered %v; store: %d refusal rows counting %d, usage %d requests %d errors %d credits, billed %d: %s\n",
			kr.key.Short(), codes, len(refusals), counted, requests, errs, credits, used, map[bool]string{true: "exact", false: "MISMATCH"}[ok])
		if !ok {
			failed = true
		}
	}
	if n := db.DroppedLogRows(); n > 0 {
		fmt.Printf("  %d log rows dropped\n", n)
		failed = true
	}
	if fi, err := os.Stat(path); err == nil {
		fmt.Printf("  database file %s; WAL after the counts %s\n", mb(fi.Size()), mb(walSize()))
	}
	cancel()
	if err := <-served; err != nil {
		return err
	}
	if failed {
		return fmt.Errorf("flood: the WAL passed %s, a counter is off, or a request failed", mb(walTarget))
	}
	return nil
}
