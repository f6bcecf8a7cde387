package redislimit_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"asa/store/redislimit"
	"asa/store/redistest"
)

var srv = redistest.Shared()

func TestMain(m *testing.M) {
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

var seq atomic.Int64

// nodes returns n limiters on one Redis and one prefix: the nodes of one deployment.
func nodes(t testing.TB, n int, o redislimit.Options) []*redislimit.Limiter {
	t.Helper()
	url := srv.Get(t).URL
	if o.Prefix == "" {
		o.Prefix = fmt.Sprintf("test%d:", seq.Add(1))
	}
	var ls []*redislimit.Limiter
	for range n {
		l, err := redislimit.Open(url, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		ls = append(ls, l)
	}
	return ls
}

var free = redislimit.Limits{Concurrency: 10, RPS: 2, Burst: 10, Window: 10, WindowLength: 3 * time.Second}

// TestLimitsHoldAcrossNodes: three nodes admitting one key's requests in turn admit what one node
// would, and every node's answer counts every node's requests.
func TestLimitsHoldAcrossNodes(t *testing.T) {
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	ls := nodes(t, 3, redislimit.Options{Now: func() time.Time { return now }})
	ctx := context.Background()
	var leases []string
	for i := range 12 {
		r, err := ls[i%3].Acquire(ctx, 7, free)
		if err != nil {
			t.Fatal(err)
		}
		if i < 10 {
			if !r.OK || r.InFlight != i+1 || r.Recent != i+1 {
				t.Fatalf("request %d on node %d: %+v", i+1, i%3, r)
			}
			leases = append(leases, r.Lease)
			continue
		}
		// The 11th and 12th find the burst, the bucket and the slots spent by the other nodes.
		if r.OK || r.Reason != redislimit.ReasonConcurrency || r.InFlight != 10 {
			t.Fatalf("request %d: %+v", i+1, r)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(leases)))) != 10 {
		t.Fatal("leases are not unique")
	}
	// Node 0 releases its slots; node 2 sees them free (and the burst window still full).
	for i := 0; i < 10; i += 3 {
		if err := ls[0].Release(ctx, 7, leases[i]); err != nil {
			t.Fatal(err)
		}
	}
	r, err := ls[2].Acquire(ctx, 7, free)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK || r.Reason != redislimit.ReasonBurst || r.InFlight != 6 || r.RetryAfter != 3*time.Second {
		t.Fatalf("after releases: %+v", r)
	}
	// Another key is untouched.
	if r, _ := ls[1].Acquire(ctx, 8, free); !r.OK || r.InFlight != 1 {
		t.Fatalf("another key: %+v", r)
	}
}

// TestDeadNodesSlotsTimeOut: a node that stops renewing (SIGKILLed) holds its slots only until
// their lease expires; a live node's renewed slots stay held.
func TestDeadNodesSlotsTimeOut(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	ls := nodes(t, 2, redislimit.Options{Now: clock, LeaseTTL: 30 * time.Second})
	live, dead := ls[0], ls[1]
	ctx := context.Background()
	lim := free
	lim.Concurrency = 4
	for i := range 4 {
		node := []*redislimit.Limiter{live, dead}[i%2]
		if r, err := node.Acquire(ctx, 9, lim); err != nil || !r.OK {
			t.Fatalf("acquire %d: %+v %v", i, r, err)
		}
	}
	if live.Held() != 2 || dead.Held() != 2 {
		t.Fatalf("held: %d and %d", live.Held(), dead.Held())
	}
	// 20 s on: the live node renews, the dead one does not; 20 s more and the dead node's leases
	// (30 s) are past, the live node's (renewed at 20 s) are not.
	advance(20 * time.Second)
	if err := live.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	advance(20 * time.Second)
	r, err := live.Acquire(ctx, 9, lim)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK || r.InFlight != 3 {
		t.Fatalf("after the dead node's leases expired: %+v (want admitted with 3 in flight: 2 live + this one)", r)
	}
}

// TestUnreachable: an admission against a Redis that is not there is an error, promptly, and
// never a panic.
func TestUnreachable(t *testing.T) {
	l, err := redislimit.Open("redis://127.0.0.1:1/0", redislimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Acquire(context.Background(), 1, free); err == nil {
		t.Fatal("no error")
	}
	if _, err := redislimit.Open("http://nowhere", redislimit.Options{}); err == nil {
		t.Fatal("a URL that is not redis:// is accepted")
	}
}

// BenchmarkAdmission: what a shared limiter adds to a request: one admission (the script's round
// trip) on a real redis-server over loopback, at a steady 500 a second spread over one node or
// three, all on one key (the worst case: every admission works on the same sorted sets). Each
// admission starts on schedule whether or not the earlier ones have finished; its slot is released
// after it, as a request's would be. Reported: p50 and p99 of Acquire, in microseconds.
//
//	go test ./store/redislimit -run '^$' -bench Admission -benchtime 2000x
func BenchmarkAdmission(b *testing.B) {
	const rate = 500 // admissions a second, all nodes together
	for _, n := range []int{1, 3} {
		b.Run(fmt.Sprintf("%dnodes", n), func(b *testing.B) {
			ls := nodes(b, n, redislimit.Options{})
			// Ceilings the benchmark never reaches: every admission does the whole work of one.
			lim := redislimit.Limits{Concurrency: 5000, RPS: 1e6, Burst: 1e6, Window: 1e6, WindowLength: 3 * time.Second}
			ctx := context.Background()
			lat := make([]time.Duration, b.N)
			var failed atomic.Int64
			var wg sync.WaitGroup
			tick := time.NewTicker(time.Second / rate)
			defer tick.Stop()
			b.ResetTimer()
			for i := range b.N {
				<-tick.C
				l := ls[i%n]
				wg.Go(func() {
					start := time.Now()
					r, err := l.Acquire(ctx, 1, lim)
					lat[i] = time.Since(start)
					if err != nil || !r.OK {
						failed.Add(1)
						return
					}
					if err := l.Release(ctx, 1, r.Lease); err != nil {
						failed.Add(1)
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			if f := failed.Load(); f > 0 {
				b.Fatalf("%d admissions failed", f)
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
