package api

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"asa/store/redislimit"
	"asa/store/redistest"
)

// RedisForTests is the package's redis-server, started on first use (store/redistest) and stopped
// by TestMain.
var RedisForTests = redistest.Shared()

// clone copies a limiter's state, so that "what if a request came at t" can be asked without
// changing the original.
func (l *limiter) clone() *limiter {
	c := newLimiter(l.now)
	for k, st := range l.keys {
		cp := *st
		cp.ring = slices.Clone(st.ring)
		c.keys[k] = &cp
	}
	return c
}

// testLimiter is a Limiter under test with a way to ask what-if questions on a copy of its state.
type testLimiter struct {
	Limiter
	fork func(key int64) testLimiter
}

func (l testLimiter) acquire(t testing.TB, key int64, lim Limits) Decision {
	t.Helper()
	d, err := l.Acquire(context.Background(), key, lim)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var prefixSeq atomic.Int64

// limiterKinds are the two implementations every limit test runs against: this node's memory and
// Redis (a real redis-server; skipped outside CI when it is not installed). Both decide by clock.
var limiterKinds = []struct {
	name string
	new  func(t testing.TB, clock func() time.Time) testLimiter
}{
	{"memory", func(t testing.TB, clock func() time.Time) testLimiter {
		var wrap func(l *limiter) testLimiter
		wrap = func(l *limiter) testLimiter {
			return testLimiter{Limiter: l, fork: func(int64) testLimiter { return wrap(l.clone()) }}
		}
		return wrap(newLimiter(clock))
	}},
	{"redis", func(t testing.TB, clock func() time.Time) testLimiter {
		// A nil clock is Redis's own TIME.
		rl, err := redislimit.Open(RedisForTests.Get(t).URL, redislimit.Options{Prefix: fmt.Sprintf("t%d:", prefixSeq.Add(1)), Now: clock})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rl.Close() })
		var wrap func(rl *redislimit.Limiter) testLimiter
		wrap = func(rl *redislimit.Limiter) testLimiter {
			return testLimiter{Limiter: NewRedisLimiter(rl, RedisLimiterOptions{Now: clock}), fork: func(key int64) testLimiter {
				f, err := rl.Fork(context.Background(), key, fmt.Sprintf("fork%d:", prefixSeq.Add(1)))
				if err != nil {
					t.Fatal(err)
				}
				return wrap(f)
			}}
		}
		return wrap(rl)
	}},
}

// TestRetryAfterIsEnough drives each plan's limits with random traffic on a virtual clock. After
// every refusal it asks a copy of the limiter whether a request arriving exactly retryAfter later
// (and nothing in between) is admitted, and whether one arriving a millisecond earlier is refused: the
// wait is enough, and not longer than the limits demand.
func TestRetryAfterIsEnough(t *testing.T) {
	plans := []struct {
		name string
		lim  Limits
	}{
		{"free", Limits{Concurrency: 10, RPS: 2, Burst: 10}},
		{"vibe", Limits{Concurrency: 30, RPS: 10, Burst: 40}},
		{"pro", Limits{Concurrency: 50, RPS: 25, Burst: 60}},
		{"custom", Limits{Concurrency: 100, RPS: 50, Burst: 100}},
		{"custom fractional", Limits{Concurrency: 5, RPS: 0.7, Burst: 3}},
	}
	for _, kind := range limiterKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			// Redis answers over a socket: fewer requests, the same traffic shape.
			requests := 4000
			if kind.name == "redis" {
				requests = 600
			}
			seen, ran := map[string]int{}, 0
			for _, pl := range plans {
				t.Run(pl.name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(1, uint64(len(pl.name))))
					now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
					clock := func() time.Time { return now }
					l := kind.new(t, clock) // skips when the limiter's server is not installed (outside CI)
					ran++
					refusals, byReason := 0, map[string]int{}

					for i := 0; i < requests; i++ {
						// Gaps from none (a burst) to a few request intervals, so every limit gets its turn.
						interval := float64(time.Second) / pl.lim.RPS
						switch rng.IntN(4) {
						case 0:
						case 1:
							now = now.Add(time.Duration(rng.Float64() * 0.3 * interval))
						case 2:
							now = now.Add(time.Duration(rng.Float64() * 1.2 * interval))
						default:
							now = now.Add(time.Duration(rng.Float64() * 4 * interval))
						}
						d := l.acquire(t, 1, pl.lim)
						if d.OK {
							l.Release(1, d.Lease) // concurrency is not what this test is about
							continue
						}
						refusals++
						byReason[d.Reason]++
						if d.RetryAfter <= 0 {
							t.Fatalf("refused (%s) with no wait", d.Reason)
						}
						saved := now
						what := l.fork(1)
						// A refusal changes nothing, so one copy answers both questions, the refusal first.
						if d.RetryAfter > time.Millisecond {
							now = saved.Add(d.RetryAfter - time.Millisecond)
							if got := what.acquire(t, 1, pl.lim); got.OK {
								t.Fatalf("refusal %d (%s): told to wait %v, but admitted a millisecond sooner", refusals, d.Reason, d.RetryAfter)
							}
						}
						now = saved.Add(d.RetryAfter)
						if got := what.acquire(t, 1, pl.lim); !got.OK {
							t.Fatalf("refusal %d (%s): told to wait %v, refused again after exactly that (%s, wait %v)", refusals, d.Reason, d.RetryAfter, got.Reason, got.RetryAfter)
						}
						// The whole-second header rounds up, so waiting it is enough too.
						now = saved.Add(time.Duration(retryAfterSeconds(d.RetryAfter)) * time.Second)
						if got := l.fork(1).acquire(t, 1, pl.lim); !got.OK {
							t.Fatalf("refusal %d: Retry-After %d s is not enough", refusals, retryAfterSeconds(d.RetryAfter))
						}
						now = saved
					}
					if refusals < requests/40 {
						t.Errorf("only %d refusals: the traffic did not test much", refusals)
					}
					for r, n := range byReason {
						seen[r] += n
					}
				})
			}
			if ran > 0 && (seen[limitRate] == 0 || seen[limitBurst] == 0) {
				t.Errorf("the traffic did not make each limit bind longest at least once: %v", seen)
			}
		})
	}
}

// TestRetryAfterWhenTheWindowBinds is the case the old limiter got wrong: the bucket has a token
// again after half a second, but the burst window is still full, so the wait is the window's.
func TestRetryAfterWhenTheWindowBinds(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
			l := kind.new(t, func() time.Time { return now })
			lim := Limits{Concurrency: 10, RPS: 2, Burst: 10}
			for i := range 10 {
				d := l.acquire(t, 1, lim)
				if !d.OK {
					t.Fatal("the first ten are within the burst")
				}
				if d.Recent != i+1 || d.InFlight != 1 {
					t.Errorf("admission %d: recent %d, in flight %d", i+1, d.Recent, d.InFlight)
				}
				l.Release(1, d.Lease)
			}
			now = now.Add(100 * time.Millisecond)
			d := l.acquire(t, 1, lim)
			if d.OK || d.Reason != limitBurst || d.RetryAfter != 2900*time.Millisecond {
				t.Fatalf("got ok=%v reason=%s wait=%v; want a burst refusal of 2.9s", d.OK, d.Reason, d.RetryAfter)
			}
			if d.RateLeft != 0 || d.WindowLeft != 0 {
				t.Errorf("left: rate %d window %d", d.RateLeft, d.WindowLeft)
			}
		})
	}
}

func TestConcurrencyRefusalWaitsForTheOtherLimitsToo(t *testing.T) {
	for _, kind := range limiterKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
			l := kind.new(t, func() time.Time { return now })
			lim := Limits{Concurrency: 2, RPS: 0.5, Burst: 2}
			l.acquire(t, 1, lim)
			second := l.acquire(t, 1, lim)
			d := l.acquire(t, 1, lim)
			if d.OK || d.Reason != limitConcurrency || d.InFlight != 2 {
				t.Fatalf("want a concurrency refusal: %+v", d)
			}
			// A slot may free at once, but the bucket has a token in 2 s (0.5 RPS) and the window has
			// room in 3 s: the longest of the three.
			if d.RetryAfter != 3*time.Second {
				t.Errorf("wait %v, want 3s", d.RetryAfter)
			}
			// A released slot is free for the next admission once the other limits allow one.
			l.Release(1, second.Lease)
			now = now.Add(3 * time.Second)
			if d := l.acquire(t, 1, lim); !d.OK || d.InFlight != 2 {
				t.Errorf("after a release and 3 s: %+v", d)
			}
		})
	}
}

// BenchmarkAdmission: what deciding an admission adds to a request, this node's memory against
// Redis (one node), at a steady 500 admissions a second on one key, each released after it; p50
// and p99 of Acquire in microseconds. store/redislimit's BenchmarkAdmission compares one node with
// three.
//
//	go test ./api -run '^$' -bench Admission -benchtime 2000x
func BenchmarkAdmission(b *testing.B) {
	const rate = 500
	lim := Limits{Concurrency: 5000, RPS: 1e6, Burst: 1e6}
	for _, kind := range limiterKinds {
		b.Run(kind.name, func(b *testing.B) {
			clock := time.Now
			if kind.name == "redis" {
				clock = nil // Redis's own TIME, as in production
			}
			l := kind.new(b, clock)
			lat := make([]time.Duration, b.N)
			var failed atomic.Int64
			var wg sync.WaitGroup
			tick := time.NewTicker(time.Second / rate)
			defer tick.Stop()
			b.ResetTimer()
			for i := range b.N {
				<-tick.C
				wg.Go(func() {
					start := time.Now()
					d, err := l.Acquire(context.Background(), 1, lim)
					lat[i] = time.Since(start)
					if err != nil || !d.OK {
						failed.Add(1)
						return
					}
					l.Release(1, d.Lease)
				})
			}
			wg.Wait()
			b.StopTimer()
			if f := failed.Load(); f > 0 {
				b.Fatalf("%d admissions failed", f)
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
		})
	}
}
