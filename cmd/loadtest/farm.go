package main

import (
	"bufio"
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
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"asa/engine/fetch/farm"
	"asa/fixtures"
)

// runFarmPhase starts the real asa binary against a target farm that answers every request after
// latency, fires n requests at once, and reports the latency asa adds over the farm's and the
// binary's peak resident memory.
func runFarmPhase(n int, latency time.Duration, tiny bool) error {
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
	f, err := farm.New(farm.Options{ControlAddr: "off", Latency: latency})
	if err != nil {
		return err
	}
	defer f.Close()
	f.HandleFunc("www.amazon.com", "/dp/"+asin, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(page)
	})
	f.HandleFunc("load.example", "/item/", func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/item/")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<html><body><h1 data-id="` + id + `">Item ` + id + `</h1></body></html>`))
	})
	ca := filepath.Join(dir, "farm-ca.pem")
	if err := os.WriteFile(ca, f.CACertPEM(), 0o600); err != nil {
		return err
	}
	bin := filepath.Join(dir, "asa")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/asa").CombinedOutput(); err != nil {
		return fmt.Errorf("building asa: %v\n%s", err, out)
	}
	db := filepath.Join(dir, "asa.db")
	perKey := 100 // the custom plan's concurrency ceiling
	var keys []string
	for i := 0; i < (n+perKey-1)/perKey; i++ {
		out, err := exec.Command(bin, "keys", "create", "--db", db, "--workspace", "load", "--plan", "custom", "--credits", "100000000").Output()
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
	target, what := "/api/v1/amazon/product?query="+asin, fmt.Sprintf("the amazon.product fixture page (%d KB)", len(page)>>10)
	if tiny {
		args = append(args, "--sitedefs", "cmd/loadtest/testdata")
		target, what = "/api/v1/load/item?query=abc", "a tiny page"
	}
	srv := exec.CommandContext(ctx, bin, args...)
	if prof := os.Getenv("LOADTEST_CPUPROFILE"); prof != "" && tiny {
		srv.Env = append(os.Environ(), "ASA_CPUPROFILE="+prof)
	}
	stderr, _ := srv.StderrPipe()
	srv.Stdout = io.Discard
	if err := srv.Start(); err != nil {
		return err
	}
	// asa's own request log gives the time each request spent inside the server.
	var serverMu sync.Mutex
	var serverSide []time.Duration
	logDone := make(chan struct{})
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct {
				Msg string `json:"msg"`
				MS  int64  `json:"duration_ms"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "request" {
				serverMu.Lock()
				serverSide = append(serverSide, time.Duration(line.MS)*time.Millisecond-latency)
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
	var wg sync.WaitGroup
	lat := make([]time.Duration, n)
	codes := make([]int, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			t0 := time.Now()
			resp, err := client.Get("http://" + addr + target + "&api_key=" + keys[i%len(keys)])
			if err != nil {
				codes[i] = -1
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			codes[i], lat[i] = resp.StatusCode, time.Since(t0)
		}(i)
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(t0)
	ok := 0
	var added []time.Duration
	for i, c := range codes {
		if c == 200 {
			ok++
			added = append(added, lat[i]-latency)
		}
	}
	sort.Slice(added, func(i, j int) bool { return added[i] < added[j] })
	pct := func(p float64) time.Duration {
		if len(added) == 0 {
			return 0
		}
		return added[min(len(added)-1, int(p*float64(len(added))))]
	}
	rss := peakRSS(srv.Process.Pid)
	time.Sleep(200 * time.Millisecond) // let the last log lines arrive
	serverMu.Lock()
	ss := append([]time.Duration(nil), serverSide...)
	serverMu.Unlock()
	sort.Slice(ss, func(i, j int) bool { return ss[i] < ss[j] })
	spct := func(p float64) time.Duration {
		if len(ss) == 0 {
			return 0
		}
		return ss[min(len(ss)-1, int(p*float64(len(ss))))]
	}
	fmt.Printf("farm: %d requests at once to asa serve (subprocess) for %s, the farm answering after %v, over %d keys: %d ok in %v\n", n, what, latency, len(keys), ok, wall.Round(time.Millisecond))
	fmt.Printf("  latency added over the farm's, inside asa (its request log): p50 %v, p99 %v (target p99 < 50ms)\n",
		spct(0.5).Round(time.Millisecond), spct(0.99).Round(time.Millisecond))
	fmt.Printf("  latency added as the client saw it (the client shares the 2 cores): p50 %v, p99 %v; asa serve peak RSS %s (target < 300 MB)\n",
		pct(0.5).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), rss)
	if ok != n {
		return fmt.Errorf("%d of %d requests failed", n-ok, n)
	}
	return nil
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
