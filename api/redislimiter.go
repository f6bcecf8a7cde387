package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"asa/store/redislimit"
)

// metricsWriter is a Limiter that exports series of its own on /metrics.
type metricsWriter interface {
	writeMetrics(w io.Writer)
}

// RedisLimiter is the Limiter of a deployment of many nodes: every key's rate, burst window and
// concurrency slots live in Redis (store/redislimit), one script per admission, so that a key's
// ceilings hold across nodes and Asa-Rps and Asa-Concurrency count every node's requests.
//
// When Redis cannot be reached, FailOpen decides: closed (the default) answers 503
// service_unavailable; open admits by this node's memory alone, so each node enforces the key's
// limits by itself (N nodes admit up to N times a ceiling until Redis is back). Either way the
// failure is counted (asa_limiter_redis_errors_total) and logged.
type RedisLimiter struct {
	rl       *redislimit.Limiter
	failOpen bool
	local    *limiter
	log      *slog.Logger

	errors   atomic.Uint64
	openUsed atomic.Uint64
	down     atomic.Bool
	lastLog  atomic.Int64 // unix nanoseconds of the last "still failing" line
}

// RedisLimiterOptions configure a RedisLimiter.
type RedisLimiterOptions struct {
	FailOpen bool
	Log      *slog.Logger
	// Now is the fail-open fallback's clock (nil: time.Now).
	Now func() time.Time
}

// NewRedisLimiter returns the limiter; Run must run beside it to renew the leases of slots held.
func NewRedisLimiter(rl *redislimit.Limiter, o RedisLimiterOptions) *RedisLimiter {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &RedisLimiter{rl: rl, failOpen: o.FailOpen, local: newLimiter(o.Now), log: o.Log}
}

// leaseLocal marks an admission decided by this node's memory while Redis was unreachable.
const leaseLocal = "local"

// Acquire decides in Redis; see RedisLimiter for when Redis cannot be reached.
func (r *RedisLimiter) Acquire(ctx context.Context, key int64, lim Limits) (Decision, error) {
	res, err := r.rl.Acquire(ctx, key, redislimit.Limits{Concurrency: lim.Concurrency, RPS: lim.RPS, Burst: lim.Burst,
		Window: WindowCeiling(lim), WindowLength: BurstWindow})
	if err != nil {
		r.failed(err)
		if !r.failOpen || ctx.Err() != nil {
			return Decision{}, fmt.Errorf("%w: rate limits: %w", ErrUnavailable, err)
		}
		r.openUsed.Add(1)
		d := r.local.acquire(key, lim)
		if d.OK {
			d.Lease = leaseLocal
		}
		return d, nil
	}
	if r.down.Swap(false) {
		r.log.Info("redis reachable again: admissions are decided cluster-wide")
	}
	return Decision{At: res.At, OK: res.OK, InFlight: res.InFlight, Recent: res.Recent, Reason: res.Reason,
		RetryAfter: res.RetryAfter, RateLeft: res.RateLeft, WindowLeft: res.WindowLeft, RateWait: res.RateWait,
		WindowWait: res.WindowWait, Lease: res.Lease}, nil
}

// Release frees the slot where it was taken. A slot Redis cannot free now expires with its lease.
func (r *RedisLimiter) Release(key int64, lease string) {
	if lease == leaseLocal {
		r.local.release(key)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := r.rl.Release(ctx, key, lease); err != nil {
		r.failed(err)
	}
}

// failed counts a Redis error and logs it: at once when Redis was answering, then at most every
// 10 s while it is not.
func (r *RedisLimiter) failed(err error) {
	r.errors.Add(1)
	mode := "closed: requests get 503 service_unavailable"
	if r.failOpen {
		mode = "open: each node enforces the limits alone"
	}
	now := time.Now().UnixNano()
	if !r.down.Swap(true) {
		r.lastLog.Store(now)
		r.log.Error("redis unreachable: rate limits fail "+mode, "err", err)
		return
	}
	if last := r.lastLog.Load(); now-last >= int64(10*time.Second) && r.lastLog.CompareAndSwap(last, now) {
		r.log.Error("redis still unreachable: rate limits fail "+mode, "err", err, "errors_total", r.errors.Load())
	}
}

// Run renews the leases of the slots this node holds until ctx is done.
func (r *RedisLimiter) Run(ctx context.Context) {
	r.rl.Run(ctx, r.failed)
}

func (r *RedisLimiter) writeMetrics(w io.Writer) {
	up := 1
	if r.down.Load() {
		up = 0
	}
	fmt.Fprintln(w, "# HELP asa_limiter_redis_up Whether the last call to Redis for rate limits succeeded.")
	fmt.Fprintln(w, "# TYPE asa_limiter_redis_up gauge")
	fmt.Fprintf(w, "asa_limiter_redis_up %d\n", up)
	fmt.Fprintln(w, "# HELP asa_limiter_redis_errors_total Calls to Redis for rate limits that failed.")
	fmt.Fprintln(w, "# TYPE asa_limiter_redis_errors_total counter")
	fmt.Fprintf(w, "asa_limiter_redis_errors_total %d\n", r.errors.Load())
	fmt.Fprintln(w, "# HELP asa_limiter_fail_open_total Admissions decided by this node alone because Redis was unreachable (--redis-fail open).")
	fmt.Fprintln(w, "# TYPE asa_limiter_fail_open_total counter")
	fmt.Fprintf(w, "asa_limiter_fail_open_total %d\n", r.openUsed.Load())
}
