package api

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Limits are one key's ceilings (spec 8.1).
type Limits struct {
	Concurrency int     // requests in flight at once
	RPS         float64 // sustained requests per second
	Burst       int     // most requests admitted in any 3-second window
}

// BurstWindow is the spec's burst window.
const BurstWindow = 3 * time.Second

// limiter enforces every key's limits on this node. Each key has a concurrency counter, a token bucket
// for the sustained rate (capacity Burst), and a ring of its last admission times so that no
// 3-second window admits more than the window ceiling: the bucket alone would allow Burst + 3*RPS in
// one window.
//
// The window ceiling is Burst, but never less than what the sustained rate itself admits in 3 s: the
// spec's table gives Pro 25 RPS sustained with a burst of 60 for 3 s, which read literally would cap
// Pro at 20 RPS. max(Burst, 3*RPS) keeps Free, Vibe and Custom-as-2x exactly as written and lets
// every plan reach its sustained rate.
type limiter struct {
	mu   sync.Mutex
	keys map[int64]*keyState
	now  func() time.Time
}

type keyState struct {
	inFlight int
	tokens   float64
	last     time.Time
	ring     []time.Time // admission times, oldest at head
	head     int
	count    int
	idleAt   time.Time
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{keys: map[int64]*keyState{}, now: now}
}

// Why a request was refused; also the policy names of the RateLimit headers.
const (
	limitConcurrency = "concurrency"
	limitRate        = "sustained"
	limitBurst       = "burst"
)

// Decision is the outcome of an admission.
type Decision struct {
	At       time.Time // when the limiter decided
	OK       bool
	InFlight int // the key's requests in flight (on every node, with a shared limiter)
	Recent   int // admissions in the last second, for Asa-Rps
	// Reason names the limit that binds longest when refused.
	Reason string
	// RetryAfter is the wait until every limit that binds now would admit one request, assuming no
	// other request of the key is admitted meanwhile. It is 0 when admitted.
	RetryAfter time.Duration
	// What each policy has left after this decision, and when it next gives more (RateLimit header).
	RateLeft, WindowLeft int
	RateWait, WindowWait time.Duration
	// Lease names an admission's concurrency slot for Release (a shared limiter's; "" in memory).
	Lease string
}

// Limiter enforces every key's limits. The default is this node's memory (newLimiter); a
// deployment of many nodes shares one in Redis (RedisLimiter), so that a key's ceilings hold across
// them. Acquire's error means the limiter cannot decide (its store is unreachable): the request is
// answered 503, never admitted unchecked.
type Limiter interface {
	Acquire(ctx context.Context, key int64, lim Limits) (Decision, error)
	// Release frees an admission's concurrency slot; it runs exactly once per admission.
	Release(key int64, lease string)
}

// Acquire is acquire; this node's memory never fails.
func (l *limiter) Acquire(_ context.Context, key int64, lim Limits) (Decision, error) {
	return l.acquire(key, lim), nil
}

// Release is release.
func (l *limiter) Release(key int64, _ string) { l.release(key) }

// tokenSlack absorbs the float error of a refill computed at exactly the announced instant: a
// client that waits exactly Retry-After must find its token there.
const tokenSlack = 1e-9

// acquire admits a request of key or says why not. On success the caller must call release exactly
// once, on every exit path.
func (l *limiter) acquire(key int64, lim Limits) Decision {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	window := WindowCeiling(lim)
	st := l.keys[key]
	if st == nil {
		st = &keyState{tokens: float64(lim.Burst), last: now, ring: make([]time.Time, window)}
		l.keys[key] = st
	}
	if len(st.ring) != window { // the plan changed
		st.ring, st.head, st.count = make([]time.Time, window), 0, 0
	}
	// Refill the bucket.
	if el := now.Sub(st.last); el > 0 {
		st.tokens = math.Min(float64(lim.Burst), st.tokens+el.Seconds()*lim.RPS)
		st.last = now
	}
	// Every limit is checked, not the first that binds: a client told to come back when the bucket
	// has a token must also find room in the burst window then, or its wait was a lie.
	d := Decision{At: now, InFlight: st.inFlight}
	var concWait time.Duration
	if st.inFlight >= lim.Concurrency {
		// Nobody knows when a slot frees; a second is the shortest wait worth announcing.
		concWait, d.Reason = time.Second, limitConcurrency
	}
	rateWait := st.tokenWait(lim)
	windowWait := st.windowWait(now)
	if rateWait > 0 || windowWait > 0 || concWait > 0 {
		d.RetryAfter = max(concWait, rateWait, windowWait)
		if d.Reason == "" {
			d.Reason = limitRate
			if windowWait > rateWait {
				d.Reason = limitBurst
			}
		}
		d.RateWait, d.WindowWait = rateWait, windowWait
		d.RateLeft, d.WindowLeft = st.rateLeft(lim), st.windowLeft(now, window)
		return d
	}
	st.tokens--
	st.inFlight++
	if st.count == len(st.ring) {
		st.ring[st.head] = now
		st.head = (st.head + 1) % len(st.ring)
	} else {
		st.ring[(st.head+st.count)%len(st.ring)] = now
		st.count++
	}
	d.OK, d.InFlight = true, st.inFlight
	d.Recent = st.admittedSince(now.Add(-time.Second))
	d.RateWait, d.WindowWait = st.tokenWait(lim), st.windowWait(now)
	d.RateLeft, d.WindowLeft = st.rateLeft(lim), st.windowLeft(now, window)
	return d
}

// tokenWait is how long until the bucket holds a whole token (0 if it does).
func (st *keyState) tokenWait(lim Limits) time.Duration {
	if st.tokens >= 1-tokenSlack {
		return 0
	}
	if lim.RPS <= 0 {
		return time.Hour
	}
	// Rounded up to the nanosecond so that the refill at now+wait reaches the token.
	return time.Duration(math.Ceil((1 - st.tokens) / lim.RPS * float64(time.Second)))
}

// windowWait is how long until the burst window has room (0 if it has): when the ring is full, until
// its oldest admission is BurstWindow old.
func (st *keyState) windowWait(now time.Time) time.Duration {
	if st.count < len(st.ring) {
		return 0
	}
	return max(0, st.ring[st.head].Add(BurstWindow).Sub(now))
}

// rateLeft is what the sustained policy announces as available now: the whole tokens, at most one
// second's worth (the policy is RPS a second; the bucket's reserve is the burst policy's business).
func (st *keyState) rateLeft(lim Limits) int {
	return max(0, min(int(st.tokens+tokenSlack), int(math.Ceil(lim.RPS))))
}

// windowLeft is the room left in the burst window now.
func (st *keyState) windowLeft(now time.Time, window int) int {
	return max(0, window-st.admittedSince(now.Add(-BurstWindow)))
}

// admittedSince counts the admissions after t. The ring is in time order, so a binary search finds
// the first one: no walk over a Custom plan's thousand entries on every request.
func (st *keyState) admittedSince(t time.Time) int {
	n := len(st.ring)
	first := sort.Search(st.count, func(i int) bool { return st.ring[(st.head+i)%n].After(t) })
	return st.count - first
}

// release frees the key's concurrency slot.
func (l *limiter) release(key int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.keys[key]; st != nil && st.inFlight > 0 {
		st.inFlight--
		st.idleAt = l.now()
	}
}

// WindowCeiling is the most requests a key may have admitted in any BurstWindow.
func WindowCeiling(lim Limits) int {
	return max(lim.Burst, int(math.Ceil(lim.RPS*BurstWindow.Seconds())), 1)
}

// retryAfterSeconds rounds a wait up to whole seconds, at least 1, for the Retry-After header.
func retryAfterSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// The IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers, structured-field form).
const (
	HeaderRateLimitPolicy = "RateLimit-Policy"
	HeaderRateLimit       = "RateLimit"
)

// setRateLimitHeaders announces the key's three policies and what each has left after d. A policy
// with nothing left says when it gives one more (t); one with room left says its window. The values
// are conservative: the sustained policy never announces more than one second's worth, though the
// bucket may hold more.
func setRateLimitHeaders(h interface{ Set(k, v string) }, lim Limits, d Decision) {
	h.Set(HeaderRateLimitPolicy, fmt.Sprintf(`"%s";q=%d;qu="concurrent-requests", "%s";q=%d;w=1, "%s";q=%d;w=%d`,
		limitConcurrency, lim.Concurrency, limitRate, int(math.Ceil(lim.RPS)), limitBurst, WindowCeiling(lim), int(BurstWindow.Seconds())))
	concLeft := max(0, lim.Concurrency-d.InFlight)
	rateT, burstT := 1, int(BurstWindow.Seconds())
	if d.RateLeft == 0 {
		rateT = retryAfterSeconds(d.RateWait)
	}
	if d.WindowLeft == 0 {
		burstT = retryAfterSeconds(d.WindowWait)
	}
	h.Set(HeaderRateLimit, fmt.Sprintf(`"%s";r=%d, "%s";r=%d;t=%d, "%s";r=%d;t=%d`,
		limitConcurrency, concLeft, limitRate, d.RateLeft, rateT, limitBurst, d.WindowLeft, burstT))
}

// formatRPS writes a rate without a needless fraction.
func formatRPS(rps float64) string { return strconv.FormatFloat(rps, 'f', -1, 64) }
