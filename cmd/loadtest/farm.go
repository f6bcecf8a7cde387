package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"asa/engine/fetch/farm"
	"asa/fixtures"
)

// runFarmPhase starts the real asa binary against a target farm that answers every request after
// latency, keeps n requests in flight for the steady duration, then fires n requests at once, and
// reports the latency asa adds over the farm's in both, and the binary's peak resident memory.
func runFarmPhase(n int, latency, steady time.Duration, tiny bool, memoryLimit string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, err := os.MkdirTemp("", "asa-loadtest-farm")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	page, err := fixtures.FS.ReadFile("amazon/product/com-in-stock/page.html")
	if err != nil {
		return err
	}
	const asin = "B0FXCOM001"
	f, err := farm.New(farm.Options{ControlAddr: "off"})
	if err != nil {
		return err
	}
	defer f.Close()
	// The handlers wait the latency themselves and time their own part: how late the farm answers
	// (its timer and its write, on the cores it shares with asa) is not latency asa adds.
	var farmMu sync.Mutex
	var farmLate []farmAnswer
	answer := func(w http.ResponseWriter, body []byte) {
		t0 := time.Now()
		time.Sleep(latency)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(body)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		done := time.Now()
		farmMu.Lock()
		farmLate = append(farmLate, farmAnswer{at: done, late: done.Sub(t0) - latency})
		farmMu.Unlock()
	}
	f.HandleFunc("www.amazon.com", "/dp/"+asin, func(w http.ResponseWriter, _ *http.Request) { answer(w, page) })
	f.HandleFunc("load.example", "/item/", func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/item/")
		answer(w, []byte(`<html><body><h1 data-id="`+id+`">Item `+id+`</h1></body></html>`))
	})
	farmSince := func(from time.Time) []time.Duration {
		farmMu.Lock()
		defer farmMu.Unlock()
		var out []time.Duration
		for _, a := range farmLate {
			if !a.at.Before(from) {
				out = append(out, a.late)
			}
		}
		return sorted(out)
	}
	ca := filepath.Join(dir, "farm-ca.pem")
	if err := os.WriteFile(ca, f.CACertPEM(), 0o600); err != nil {
		return err
	}
	bin := filepath.Join(dir, "asa")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/asa").CombinedOutput(); err != nil {
		return fmt.Errorf("building asa: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "asa.db")
	// The custom plan admits 100 in flight and 50 requests per second per key; n clients in a closed
	// loop send n per farm latency. Keys enough for half of both ceilings keep the limits out of
	// what is measured here (the loadtest's rate phase measures them).
	perKey := 50
	var keys []string
	for i := 0; i < (n+perKey-1)/perKey; i++ {
		out, err := exec.Command(bin, "keys", "create", "--db", db, "--workspace", "load", "--create-workspace", "--plan", "custom", "--credits", "100000000").Output()
		if err != nil {
			return fmt.Errorf("creating a key: %v", err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		keys = append(keys, lines[len(lines)-1])
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	args := []string{"serve", "--addr", addr, "--db", db, "--farm", f.Addr(), "--farm-ca", ca, "--log-level", "info", "--log-format", "json"}
	if memoryLimit != "" {
		args = append(args, "--memory-limit", memoryLimit)
	}
	target, what := "/api/v1/amazon/product?query="+asin, fmt.Sprintf("the amazon.product fixture page (%d KB)", len(page)>>10)
	if tiny {
		args = append(args, "--sitedefs", "cmd/loadtest/testdata")
		target, what = "/api/v1/load/item?query=abc", "a tiny page"
	}
	srv := exec.CommandContext(ctx, bin, args...)
	if prof := os.Getenv("LOADTEST_CPUPROFILE"); prof != "" {
		// one profile per page kind: PROF.tiny, PROF.amazon
		kind := map[bool]string{true: "tiny", false: "amazon"}[tiny]
		srv.Env = append(os.Environ(), "ASA_CPUPROFILE="+prof+"."+kind)
	}
	stderr, _ := srv.StderrPipe()
	srv.Stdout = io.Discard
	if err := srv.Start(); err != nil {
		return err
	}
	// asa's own request log gives the time each request spent inside the server, and where.
	var serverMu sync.Mutex
	var serverLines []serverLine
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct {
				Time time.Time `json:"time"`
				Msg  string    `json:"msg"`
				MS   int64     `json:"duration_ms"`
				Pre  int64     `json:"pre_run_ms"`
				Run  int64     `json:"run_ms"`
				Get  int64     `json:"fetch_ms"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "request" {
				ms := func(v int64) time.Duration { return time.Duration(v) * time.Millisecond }
				serverMu.Lock()
				serverLines = append(serverLines, serverLine{at: line.Time, total: ms(line.MS), pre: ms(line.Pre), run: ms(line.Run), fetch: ms(line.Get)})
				serverMu.Unlock()
			}
		}
	}()
	defer func() { _ = srv.Process.Signal(os.Interrupt); _ = srv.Wait() }()
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i > 500 {
			return fmt.Errorf("asa serve did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n, MaxConnsPerHost: 0}, Timeout: latency + 30*time.Second}
	get := func(i int) (int, time.Duration) {
		t0 := time.Now()
		resp, err := client.Get("http://" + addr + target + "&api_key=" + keys[i%len(keys)])
		if err != nil {
			return -1, 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode, time.Since(t0)
	}
	serverSince := func(from time.Time) []serverLine {
		time.Sleep(300 * time.Millisecond) // let the last log lines arrive
		serverMu.Lock()
		defer serverMu.Unlock()
		var out []serverLine
		for _, l := range serverLines {
			if !l.at.Before(from) {
				out = append(out, l)
			}
		}
		return out
	}
	fmt.Printf("farm: asa serve (subprocess) for %s, the farm answering after %v, %d keys of the custom plan\n", what, latency, len(keys))
	// Loading the catalogue has a high-water mark of its own, which VmHWM keeps.
	fmt.Printf("  asa serve peak RSS from its start, before the load: %s\n", peakRSS(srv.Process.Pid))

	// Steady state: n clients in a closed loop (each sends its next request when its last one is
	// answered), started evenly over one farm latency so that arrivals are spread as they are under
	// sustained traffic; then n requests are in flight at every moment. Only requests that start
	// after the ramp are measured.
	var inFlight, failed atomic.Int64
	rampEnd := time.Now().Add(latency)
	var cpuAt0, selfAt0 time.Duration
	go func() {
		time.Sleep(time.Until(rampEnd))
		cpuAt0, selfAt0 = cpuTime(srv.Process.Pid), cpuTime(os.Getpid())
	}()
	stop := rampEnd.Add(steady)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var seen []time.Duration
	failures := map[int]int{}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			time.Sleep(time.Duration(i) * latency / time.Duration(n))
			for time.Now().Before(stop) {
				t0 := time.Now()
				inFlight.Add(1)
				code, d := get(i)
				inFlight.Add(-1)
				if code != 200 {
					failed.Add(1)
					mu.Lock()
					failures[code]++
					mu.Unlock()
					continue
				}
				if t0.After(rampEnd) {
					mu.Lock()
					seen = append(seen, d-latency)
					mu.Unlock()
				}
			}
		}(i)
	}
	var samples []int64
	sampleDone := make(chan struct{})
	go func() {
		defer close(sampleDone)
		for time.Now().Before(stop) {
			time.Sleep(50 * time.Millisecond)
			if time.Now().After(rampEnd) && time.Now().Before(stop) {
				samples = append(samples, inFlight.Load())
			}
		}
	}()
	wg.Wait()
	<-sampleDone
	cpuUsed, selfUsed := cpuTime(srv.Process.Pid)-cpuAt0, cpuTime(os.Getpid())-selfAt0
	elapsed := time.Since(rampEnd)
	// Server lines of requests that started after the ramp: they end at least one latency later.
	lines := serverSince(rampEnd.Add(latency))
	lo, hi := int64(n), int64(0)
	for _, v := range samples {
		lo, hi = min(lo, v), max(hi, v)
	}
	fmt.Printf("  steady: %d clients in a closed loop for %v: %d requests measured, in flight %d to %d (sampled every 50ms), %d failed\n",
		n, steady, len(seen), lo, hi, failed.Load())
	fmt.Printf("    CPU over the measured part: asa serve %.2f cores, the loadtest (clients and farm) %.2f cores, of %d\n",
		cpuUsed.Seconds()/elapsed.Seconds(), selfUsed.Seconds()/elapsed.Seconds(), runtime.NumCPU())
	reportServer(lines, latency)
	fl := farmSince(rampEnd.Add(latency))
	fmt.Printf("    the farm's own lateness (its timer and its write, on the same cores), p50/p99: %v/%v\n", pctOf(fl, 0.5), pctOf(fl, 0.99))
	fmt.Printf("    as the client saw it (the client and the farm share the 2 cores with asa): p50 %v, p99 %v\n",
		pctOf(sorted(seen), 0.5), pctOf(sorted(seen), 0.99))
	// VmHWM now is the steady phase's peak (start-up's included); the burst's shows at the end.
	fmt.Printf("    asa serve peak RSS so far %s\n", peakRSS(srv.Process.Pid))
	if failed.Load() > 0 {
		return fmt.Errorf("%d requests failed in the steady phase (status: count %v)", failed.Load(), failures)
	}

	// Cold burst: n requests at the same instant on an idle server. All n start their fetch
	// together and all n answers come back together, so what asa adds is bounded below by n times
	// its CPU per request divided by the cores (the client and the farm included on this machine).
	time.Sleep(time.Second)
	burstFrom := time.Now()
	codes := make([]int, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			codes[i], _ = get(i)
		}(i)
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(t0)
	ok := 0
	for _, c := range codes {
		if c == 200 {
			ok++
		}
	}
	fmt.Printf("  cold burst: %d requests at the same instant: %d ok in %v\n", n, ok, wall.Round(time.Millisecond))
	reportServer(serverSince(burstFrom), latency)
	fmt.Printf("  asa serve peak RSS %s (target < 300 MB), over both phases\n", peakRSS(srv.Process.Pid))
	if ok != n {
		return fmt.Errorf("%d of %d requests failed in the burst", n-ok, n)
	}
	return nil
}

// farmAnswer is when the farm finished an answer and how late it was.
type farmAnswer struct {
	at   time.Time
	late time.Duration
}

// serverLine is one request line of asa's log: when it ended and where its time went.
type serverLine struct {
	at                     time.Time
	total, pre, run, fetch time.Duration
}

// reportServer prints the latency asa added over the farm's, from its own request log.
func reportServer(lines []serverLine, latency time.Duration) {
	var total, pre, fetch, extract, post []time.Duration
	for _, l := range lines {
		total = append(total, l.total-latency)
		pre = append(pre, l.pre)
		fetch = append(fetch, l.fetch-latency)
		extract = append(extract, l.run-l.fetch)
		post = append(post, l.total-l.pre-l.run)
	}
	total, pre, fetch, extract, post = sorted(total), sorted(pre), sorted(fetch), sorted(extract), sorted(post)
	fmt.Printf("    latency added over the farm's, inside asa (its request log, %d requests): p50 %v, p99 %v, max %v (target p99 < 50ms)\n",
		len(total), pctOf(total, 0.5), pctOf(total, 0.99), pctOf(total, 1))
	fmt.Printf("    of which (p50/p99): before the fetch (auth, limits, credits) %v/%v; the fetch beyond the farm's %v %v/%v; extraction %v/%v; after (charge, response) %v/%v\n",
		pctOf(pre, 0.5), pctOf(pre, 0.99), latency, pctOf(fetch, 0.5), pctOf(fetch, 0.99), pctOf(extract, 0.5), pctOf(extract, 0.99), pctOf(post, 0.5), pctOf(post, 0.99))
}

func sorted(d []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), d...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// pctOf is the p-quantile of sorted durations, to the millisecond.
func pctOf(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))].Round(time.Millisecond)
}

// cpuTime is the user and system CPU time a process has used, from /proc (0 where unknown).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses and may hold spaces.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

// peakRSS reads VmHWM, the peak resident set, of a process.
func peakRSS(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "unknown"
	}
	if m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b); m != nil {
		kb, _ := strconv.Atoi(string(m[1]))
		return fmt.Sprintf("%.0f MB", float64(kb)/1024)
	}
	return "unknown"
}
