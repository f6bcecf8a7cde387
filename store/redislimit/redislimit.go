// Package redislimit enforces per-key request limits shared by every node of a deployment: the
// sustained rate (a token bucket), the burst window (the admissions of the last few seconds) and the
// concurrency slots (leases that expire) of one key live in Redis, and one Lua script decides each
// admission atomically, as github.com/go-redis/redis_rate does.
//
// The decision is the one api's in-memory limiter makes on a single node, computed from the same
// state, so both answer the same headers and the same Retry-After.
package redislimit

import (
	"context"
	"crypto/rand"
	_ "embed"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limits are one key's ceilings.
type Limits struct {
	Concurrency int     // requests in flight at once
	RPS         float64 // sustained rate; the bucket refills at this rate
	Burst       int     // the bucket's capacity
	// Window admissions at most in any WindowLength.
	Window       int
	WindowLength time.Duration
}

// Why a request was refused.
const (
	ReasonConcurrency = "concurrency"
	ReasonRate        = "sustained"
	ReasonBurst       = "burst"
)

// Result is the outcome of an admission.
type Result struct {
	At       time.Time // the time the script decided by (Redis's clock, or Options.Now)
	OK       bool
	InFlight int // the key's leases in flight, on every node
	Recent   int // the key's admissions in the last second, on every node
	Reason   string
	// RetryAfter is the wait until every limit that binds now would admit (0 when admitted).
	RetryAfter time.Duration
	// What the sustained and burst policies have left after the decision, and when each gives more.
	RateLeft, WindowLeft int
	RateWait, WindowWait time.Duration
	// Lease names the concurrency slot an admission holds; Release frees it.
	Lease string
}

// Options configure a Limiter.
type Options struct {
	// Prefix starts every key this limiter writes (default "asa:rl:").
	Prefix string
	// LeaseTTL is how long a concurrency slot outlives its node: Run renews the slots in flight every
	// LeaseTTL/3, so a SIGKILLed node's slots are free again at most LeaseTTL later (default 30 s).
	LeaseTTL time.Duration
	// Now, when set, is the clock the script decides by (tests on a virtual clock). By default the
	// script reads Redis's own TIME, so that nodes whose clocks disagree still share one window.
	Now func() time.Time
}

//go:embed now.lua
var nowSrc string

//go:embed admit.lua
var admitSrc string

//go:embed renew.lua
var renewSrc string

// script is a Lua script of this package with now.lua in front: each reads its clock the same way.
func script(src string) *redis.Script { return redis.NewScript(nowSrc + src) }

var (
	admitScript = script(admitSrc)
	renewScript = script(renewSrc)
)

// Limiter admits requests against limits kept in Redis.
type Limiter struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
	now    func() time.Time
	node   string
	owned  bool
	seq    atomic.Uint64

	mu   sync.Mutex
	held map[string]int64 // lease -> key: the slots this node holds, renewed by Run
}

// New returns a limiter on rdb.
func New(rdb redis.UniversalClient, o Options) *Limiter {
	if o.Prefix == "" {
		o.Prefix = "asa:rl:"
	}
	if o.LeaseTTL <= 0 {
		o.LeaseTTL = 30 * time.Second
	}
	return &Limiter{rdb: rdb, prefix: o.Prefix, ttl: o.LeaseTTL, now: o.Now, node: nodeID(), held: map[string]int64{}}
}

// Keys names the three Redis keys of an API key: the bucket (a hash), the window (a sorted set of
// admission times) and the slots (a sorted set of leases scored by expiry). The hash tag puts them
// in one slot of a Redis Cluster, as a script touching them together needs.
func (l *Limiter) Keys(key int64) []string {
	tag := l.prefix + "{" + strconv.FormatInt(key, 10) + "}:"
	return []string{tag + "bucket", tag + "window", tag + "slots"}
}

// nowArg is the script's clock: empty asks Redis for TIME.
func (l *Limiter) nowArg() string {
	if l.now == nil {
		return ""
	}
	return strconv.FormatInt(l.now().UnixMicro(), 10)
}

// Acquire admits a request of key or says why not. An admitted request holds a lease that Release
// must free, on every exit path; until then Run renews it.
func (l *Limiter) Acquire(ctx context.Context, key int64, lim Limits) (Result, error) {
	lease := l.node + strconv.FormatUint(l.seq.Add(1), 36)
	keep := max(lim.WindowLength, l.ttl)
	if lim.RPS > 0 {
		keep = max(keep, time.Duration(float64(lim.Burst)/lim.RPS*float64(time.Second)))
	}
	// Keys outlive what they must remember by a minute: an idle key's state is then exactly what
	// a fresh key's would be (a full bucket, an empty window, no slots).
	keep += time.Minute
	v, err := admitScript.Run(ctx, l.rdb, l.Keys(key), l.nowArg(), lim.Concurrency, strconv.FormatFloat(lim.RPS, 'g', -1, 64),
		lim.Burst, lim.Window, lim.WindowLength.Microseconds(), l.ttl.Microseconds(), lease, keep.Milliseconds()).Slice()
	if err != nil {
		return Result{}, fmt.Errorf("redis admission: %w", err)
	}
	if len(v) != 10 {
		return Result{}, fmt.Errorf("redis admission: %d values from the script, want 10", len(v))
	}
	n := func(i int) int64 { x, _ := v[i].(int64); return x }
	us := func(i int) time.Duration { return time.Duration(n(i)) * time.Microsecond }
	reason, _ := v[3].(string)
	r := Result{
		At: time.UnixMicro(n(9)), OK: n(0) == 1, InFlight: int(n(1)), Recent: int(n(2)), Reason: reason,
		RetryAfter: us(4), RateWait: us(5), WindowWait: us(6), RateLeft: int(n(7)), WindowLeft: int(n(8)),
	}
	if r.OK {
		r.Lease = lease
		l.mu.Lock()
		l.held[lease] = key
		l.mu.Unlock()
	}
	return r, nil
}

// Release frees an admission's slot. If Redis cannot be reached the slot is freed when its lease
// expires (at most Options.LeaseTTL later).
func (l *Limiter) Release(ctx context.Context, key int64, lease string) error {
	l.mu.Lock()
	delete(l.held, lease)
	l.mu.Unlock()
	if err := l.rdb.ZRem(ctx, l.Keys(key)[2], lease).Err(); err != nil {
		return fmt.Errorf("redis release: %w", err)
	}
	return nil
}

// Held is the number of slots this node holds.
func (l *Limiter) Held() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.held)
}

// Run renews this node's leases every LeaseTTL/3 until ctx is done. Errors are returned through
// onErr (Redis unreachable: the slots expire, which is the point of leases).
func (l *Limiter) Run(ctx context.Context, onErr func(error)) {
	t := time.NewTicker(l.ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := l.Renew(ctx); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
	}
}

// Renew pushes back the expiry of every slot this node holds, in one round trip.
func (l *Limiter) Renew(ctx context.Context) error {
	byKey := map[int64][]any{}
	l.mu.Lock()
	for lease, key := range l.held {
		byKey[key] = append(byKey[key], lease)
	}
	l.mu.Unlock()
	if len(byKey) == 0 {
		return nil
	}
	pipe := l.rdb.Pipeline()
	for key, leases := range byKey {
		args := append([]any{l.nowArg(), l.ttl.Microseconds()}, leases...)
		// EVAL, not EVALSHA: a pipeline cannot fall back on NOSCRIPT, and this runs every few seconds.
		renewScript.Eval(ctx, pipe, l.Keys(key)[2:], args...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("redis lease renewal: %w", err)
	}
	return nil
}

// nodeID is a random prefix for this process's leases.
func nodeID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%x:", b)
}

// Open connects to the Redis at url (redis://[user:password@]host:port/db, rediss:// for TLS) and
// returns a limiter on it; Close closes the connection. It does not wait for Redis to answer: a
// node starts while Redis is down, and its admissions fail open or closed until it is up.
func Open(url string, o Options) (*Limiter, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	// An admission waits for Redis at most this long before it is a failure (fail open or closed),
	// rather than go-redis's 3 s: a request should not hang on a dead limiter.
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = time.Second, 500*time.Millisecond, 500*time.Millisecond
	// One retry (a pooled connection may have died with a restarted Redis), one dial attempt.
	opt.MaxRetries, opt.DialerRetries, opt.DialerRetryTimeout = 1, 1, 20*time.Millisecond
	rdb := redis.NewClient(opt)
	l := New(rdb, o)
	l.owned = true
	return l, nil
}

// Ping checks that Redis answers.
func (l *Limiter) Ping(ctx context.Context) error { return l.rdb.Ping(ctx).Err() }

// Close closes the connection Open made (a client passed to New is the caller's to close).
func (l *Limiter) Close() error {
	if l.owned {
		return l.rdb.Close()
	}
	return nil
}

// Fork copies key's state to a limiter under another prefix, so that "what if a request came now"
// can be asked without changing the original (tests of the limits ask it after every refusal).
func (l *Limiter) Fork(ctx context.Context, key int64, prefix string) (*Limiter, error) {
	f := New(l.rdb, Options{Prefix: prefix, LeaseTTL: l.ttl, Now: l.now})
	src, dst := l.Keys(key), f.Keys(key)
	pipe := l.rdb.Pipeline()
	for i := range src {
		pipe.Del(ctx, dst[i])
		pipe.Copy(ctx, src[i], dst[i], 0, true)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("redis fork: %w", err)
	}
	return f, nil
}
