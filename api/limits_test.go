package api

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

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
	seen := map[string]int{}
	for _, pl := range plans {
		t.Run(pl.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(pl.name))))
			now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
			clock := func() time.Time { return now }
			l := newLimiter(clock)
			refusals, byReason := 0, map[string]int{}

			for i := 0; i < 4000; i++ {
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
				d := l.acquire(1, pl.lim)
				if d.ok {
					l.release(1) // concurrency is not what this test is about
					continue
				}
				refusals++
				byReason[d.reason]++
				if d.retryAfter <= 0 {
					t.Fatalf("refused (%s) with no wait", d.reason)
				}
				saved := now
				now = saved.Add(d.retryAfter)
				if got := l.clone().acquire(1, pl.lim); !got.ok {
					t.Fatalf("refusal %d (%s): told to wait %v, refused again after exactly that (%s, wait %v)", refusals, d.reason, d.retryAfter, got.reason, got.retryAfter)
				}
				if d.retryAfter > time.Millisecond {
					now = saved.Add(d.retryAfter - time.Millisecond)
					if got := l.clone().acquire(1, pl.lim); got.ok {
						t.Fatalf("refusal %d (%s): told to wait %v, but admitted a millisecond sooner", refusals, d.reason, d.retryAfter)
					}
				}
				// The whole-second header rounds up, so waiting it is enough too.
				now = saved.Add(time.Duration(retryAfterSeconds(d.retryAfter)) * time.Second)
				if got := l.clone().acquire(1, pl.lim); !got.ok {
					t.Fatalf("refusal %d: Retry-After %d s is not enough", refusals, retryAfterSeconds(d.retryAfter))
				}
				now = saved
			}
			if refusals < 100 {
				t.Errorf("only %d refusals: the traffic did not test much", refusals)
			}
			for r, n := range byReason {
				seen[r] += n
			}
		})
	}
	if seen[limitRate] == 0 || seen[limitBurst] == 0 {
		t.Errorf("the traffic did not make each limit bind longest at least once: %v", seen)
	}
}

// TestRetryAfterWhenTheWindowBinds is the case the old limiter got wrong: the bucket has a token
// again after half a second, but the burst window is still full, so the wait is the window's.
func TestRetryAfterWhenTheWindowBinds(t *testing.T) {
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	l := newLimiter(func() time.Time { return now })
	lim := Limits{Concurrency: 10, RPS: 2, Burst: 10}
	for range 10 {
		if d := l.acquire(1, lim); !d.ok {
			t.Fatal("the first ten are within the burst")
		}
		l.release(1)
	}
	now = now.Add(100 * time.Millisecond)
	d := l.acquire(1, lim)
	if d.ok || d.reason != limitBurst || d.retryAfter != 2900*time.Millisecond {
		t.Fatalf("got ok=%v reason=%s wait=%v; want a burst refusal of 2.9s", d.ok, d.reason, d.retryAfter)
	}
	if d.rateLeft != 0 || d.windowLeft != 0 {
		t.Errorf("left: rate %d window %d", d.rateLeft, d.windowLeft)
	}
}

func TestConcurrencyRefusalWaitsForTheOtherLimitsToo(t *testing.T) {
	now := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	l := newLimiter(func() time.Time { return now })
	lim := Limits{Concurrency: 2, RPS: 0.5, Burst: 2}
	l.acquire(1, lim)
	l.acquire(1, lim)
	d := l.acquire(1, lim)
	if d.ok || d.reason != limitConcurrency {
		t.Fatalf("want a concurrency refusal: %+v", d)
	}
	// A slot may free at once, but the bucket has a token in 2 s (0.5 RPS) and the window has room in
	// 3 s: the longest of the three.
	if d.retryAfter != 3*time.Second {
		t.Errorf("wait %v, want 3s", d.retryAfter)
	}
}
