// Command renderbench measures rendered pages against the target farm: latency p50/p99 for 1, 10
// and 50 renders at once through engine/render (the browser pool behind render_js, with its
// guarded egress), and the peak RSS of this process (asa's side: pool, egress proxy, farm) and of
// the Chromium process tree. It asserts nothing about time; it fails only when Chromium's peak
// passes -max-chromium-mb.
//
//	go run ./cmd/renderbench -browser /usr/bin/chromium
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"asa/engine/errcode"
	"asa/engine/fetch"
	"asa/engine/fetch/farm"
	"asa/engine/render"
)

func main() {
	exe := flag.String("browser", "/usr/bin/chromium", "Chromium binary")
	levels := flag.String("levels", "1,10,50", "requests at once, one run per value")
	contexts := flag.Int("contexts", render.DefaultMaxContexts, "the pool's browser contexts (asa serve --browser-contexts): requests beyond them wait")
	perWorker := flag.Int("n", 4, "renders per worker at each level (level 1 makes 5 times as many)")
	maxMB := flag.Int("max-chromium-mb", 2048, "fail when Chromium's peak RSS passes this many MiB")
	flag.Parse()
	if err := run(*exe, *levels, *contexts, *perWorker, *maxMB); err != nil {
		fmt.Fprintln(os.Stderr, "renderbench:", err)
		os.Exit(1)
	}
}

// page is a small shop page whose price an XHR sets and whose list a timer fills.
const page = `<!doctype html><html><head><title>Widget</title><style>body{font:16px sans-serif}</style></head><body>
<h1>Widget</h1><p>Price: <span id="price"></span></p><ul id="items"></ul>
<script>
fetch('/api/price').then(r => r.json()).then(j => { document.getElementById('price').textContent = j.price; });
setTimeout(() => { document.getElementById('items').innerHTML = Array.from({length: 50}, (_, i) => '<li>item ' + i + '</li>').join(''); }, 200);
</script></body></html>`

func run(exe, levels string, contexts, perWorker, maxMB int) error {
	f, err := farm.New(farm.Options{ControlAddr: "off"})
	if err != nil {
		return err
	}
	defer f.Close()
	f.HandleFunc("shop.test", "/p/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page)
	})
	f.HandleFunc("shop.test", "/api/price", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"price":"19.99"}`)
	})
	client, err := fetch.New(fetch.Options{Resolve: f.Resolve, RootCAs: f.CertPool(), MaxAttempts: 1})
	if err != nil {
		return err
	}
	defer client.Close()
	var lv []int
	for _, s := range strings.Split(levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("levels: %q", s)
		}
		lv = append(lv, n)
	}
	pool, err := render.New(render.Options{ExecPath: exe, MaxContexts: contexts, Timeout: 90 * time.Second,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}, client)
	if err != nil {
		return err
	}
	defer pool.Close()
	ctx := context.Background()
	if err := pool.Start(ctx); err != nil {
		return err
	}
	fmt.Printf("chromium %s, pid %d, %d browser contexts; renders of a farm page (XHR price + timer list), settle 500 ms idle; latency includes the wait for a context\n", exe, pool.BrowserPID(), contexts)
	fmt.Printf("%-6s %6s %8s %8s %8s %18s %16s\n", "level", "pages", "p50", "p99", "max", "chromium peak PSS", "asa peak RSS")
	worst := 0
	for _, n := range lv {
		count := n * perWorker
		if n == 1 {
			count = 5 * perWorker
		}
		stop := make(chan struct{})
		var peak atomic.Int64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			sampleRSS(pool.BrowserPID(), &peak, stop)
		}()
		lat, errs := renderMany(ctx, pool, n, count)
		failed := 0
		for _, k := range errs {
			failed += k
		}
		close(stop)
		wg.Wait()
		slices.Sort(lat)
		mib := int(peak.Load() >> 20)
		worst = max(worst, mib)
		fmt.Printf("%-6d %6d %8s %8s %8s %14d MiB %12d MiB", n, count, pct(lat, 50), pct(lat, 99), pct(lat, 100), mib, selfHWM()>>20)
		if failed > 0 {
			fmt.Printf("  failed: %v", errs)
		}
		fmt.Println()
	}
	if worst > maxMB {
		return fmt.Errorf("chromium peaked at %d MiB, over -max-chromium-mb %d", worst, maxMB)
	}
	return nil
}

func renderMany(ctx context.Context, pool *render.Pool, workers, count int) ([]time.Duration, map[string]int) {
	var mu sync.Mutex
	var lat []time.Duration
	errs := map[string]int{}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(count); i = next.Add(1) {
				start := time.Now()
				res, err := pool.Render(ctx, render.Request{URL: fmt.Sprintf("http://shop.test/p/%d", i)})
				d := time.Since(start)
				mu.Lock()
				switch e := errcode.As(err); {
				case e != nil:
					errs[string(e.Code)+"/"+e.Detail]++
				case err != nil:
					errs[err.Error()]++
				case !strings.Contains(string(res.HTML), "19.99"):
					errs["no price"]++
				default:
					lat = append(lat, d)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return lat, errs
}

func pct(sorted []time.Duration, p int) string {
	if len(sorted) == 0 {
		return "-"
	}
	i := min(len(sorted)-1, (len(sorted)*p+99)/100-1)
	return sorted[max(i, 0)].Round(time.Millisecond).String()
}

// sampleRSS adds up the memory of pid and its descendants every 50 ms, keeping the peak. It is the
// proportional set size (PSS): summing RSS would count the libraries and shared memory every
// renderer maps once per process.
func sampleRSS(pid int, peak *atomic.Int64, stop <-chan struct{}) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if v := treeRSS(pid); v > peak.Load() {
			peak.Store(v)
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

// treeRSS is the summed PSS of pid and every process descending from it (/proc).
func treeRSS(root int) int64 {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		children[ppid] = append(children[ppid], pid)
	}
	var total int64
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		total += fieldKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:") << 10
		queue = append(queue, children[pid]...)
	}
	return total
}

// selfHWM is this process's peak RSS (VmHWM), in bytes.
func selfHWM() int64 { return fieldKB(fmt.Sprintf("/proc/%d/status", os.Getpid()), "VmHWM:") << 10 }

// fieldKB reads "key value kB" from a /proc file.
func fieldKB(file, key string) int64 {
	f, err := os.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), key); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
