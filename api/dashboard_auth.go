package api

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/argon2"
)

// Argon2Params are the cost of password hashing (argon2id, RFC 9106). The defaults are OWASP's
// minimum for argon2id: 19 MiB, 2 passes, 1 lane. Each stored hash carries its own parameters, so
// raising them later only affects new passwords.
type Argon2Params struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// DefaultArgon2 is the production cost.
var DefaultArgon2 = Argon2Params{MemoryKiB: 19 * 1024, Time: 2, Threads: 1}

const (
	argonSaltLen = 16
	argonKeyLen  = 32
)

// passwordHasher hashes and verifies passwords. At most slots hashes run at once: each takes
// MemoryKiB of memory, and a burst of sign-ins must not take the process's memory with it.
type passwordHasher struct {
	p     Argon2Params
	slots chan struct{}
	// dummy is verified against when the email is unknown, so an unknown email costs the same time
	// as a wrong password and does not tell which accounts exist.
	dummy string
}

func newPasswordHasher(p Argon2Params, slots int) *passwordHasher {
	if p.MemoryKiB == 0 {
		p = DefaultArgon2
	}
	if p.Threads == 0 {
		p.Threads = 1
	}
	if p.Time == 0 {
		p.Time = 1
	}
	h := &passwordHasher{p: p, slots: make(chan struct{}, max(slots, 1))}
	h.dummy, _ = h.hash("not a password: only spends the time a real check spends")
	return h
}

// hash returns the PHC string $argon2id$v=19$m=...,t=...,p=...$salt$hash (unpadded base64).
func (h *passwordHasher) hash(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	h.slots <- struct{}{}
	key := argon2.IDKey([]byte(password), salt, h.p.Time, h.p.MemoryKiB, h.p.Threads, argonKeyLen)
	<-h.slots
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.p.MemoryKiB, h.p.Time, h.p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

var errBadHash = errors.New("malformed password hash")

// verify reports whether password matches the PHC string, in constant time over the hash.
func (h *passwordHasher) verify(password, phc string) (bool, error) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false, errBadHash
	}
	// Bounds keep a corrupted row from asking for gigabytes.
	if m == 0 || m > 1<<20 || t == 0 || t > 16 || p == 0 || p > 16 {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return false, errBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) < 16 || len(want) > 64 {
		return false, errBadHash
	}
	h.slots <- struct{}{}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	<-h.slots
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// spend runs one verification that always fails, for unknown emails.
func (h *passwordHasher) spend(password string) { _, _ = h.verify(password, h.dummy) }

// SharedAttempts counts the dashboard's attempts (failed sign-ins, sign-ups) per kind and subject
// in a sliding window shared by every node; store/redislimit.Attempts is one, on Redis.
type SharedAttempts interface {
	Allowed(ctx context.Context, kind, subject string, max int, window time.Duration) (bool, time.Duration, error)
	Add(ctx context.Context, kind, subject string, window time.Duration) error
	Reset(ctx context.Context, kind, subject string) error
}

// attemptCounter is one of the dashboard's limits: shared by the nodes when SharedAttempts is
// configured, else this node's memory. The memory count is kept either way, so that while the
// shared store fails each node still enforces the limit alone (a security limit falls back to the
// node, never open); after a failure the shared store is left alone for sharedRetry, so that an
// outage does not add a connection timeout to every sign-in.
type attemptCounter struct {
	kind   string
	local  *attemptLimiter
	shared SharedAttempts
	log    *slog.Logger
	// retryAt (unix nanoseconds) is when the shared store is tried again after a failure; 0 while
	// it answers.
	retryAt atomic.Int64
}

// sharedRetry is how long a failed shared store is left alone.
const sharedRetry = 10 * time.Second

func newAttemptCounter(kind string, max int, window time.Duration, now func() time.Time, shared SharedAttempts, log *slog.Logger) *attemptCounter {
	return &attemptCounter{kind: kind, local: newAttemptLimiter(max, window, now), shared: shared, log: log}
}

// useShared reports whether to ask the shared store now.
func (c *attemptCounter) useShared() bool {
	if c.shared == nil {
		return false
	}
	at := c.retryAt.Load()
	return at == 0 || c.local.now().UnixNano() >= at
}

// result records the shared store's answer (subjects are emails and addresses: never logged).
func (c *attemptCounter) result(ctx context.Context, err error) {
	if err == nil {
		if c.retryAt.Swap(0) != 0 {
			c.log.InfoContext(ctx, "dashboard attempt limits shared again", "limit", c.kind)
		}
		return
	}
	if c.retryAt.Swap(c.local.now().Add(sharedRetry).UnixNano()) == 0 {
		c.log.WarnContext(ctx, "dashboard attempt limits: the shared store fails, counting on this node alone", "limit", c.kind, "err", err)
	}
}

func (c *attemptCounter) allowed(ctx context.Context, subject string) (bool, time.Duration) {
	if c.useShared() {
		ok, wait, err := c.shared.Allowed(ctx, c.kind, subject, c.local.max, c.local.window)
		c.result(ctx, err)
		if err == nil {
			return ok, wait
		}
	}
	return c.local.allowed(subject)
}

func (c *attemptCounter) add(ctx context.Context, subject string) {
	c.local.add(subject)
	if c.useShared() {
		c.result(ctx, c.shared.Add(ctx, c.kind, subject, c.local.window))
	}
}

func (c *attemptCounter) reset(ctx context.Context, subject string) {
	c.local.reset(subject)
	if c.useShared() {
		c.result(ctx, c.shared.Reset(ctx, c.kind, subject))
	}
}

// attemptLimiter counts attempts per key (an email, an IP) in a sliding window.
type attemptLimiter struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	now    func() time.Time
	hits   map[string][]time.Time
}

// maxLimiterKeys bounds the limiter's memory: past it, keys with no recent attempt are dropped,
// then the oldest.
const maxLimiterKeys = 50_000

func newAttemptLimiter(max int, window time.Duration, now func() time.Time) *attemptLimiter {
	return &attemptLimiter{max: max, window: window, now: now, hits: map[string][]time.Time{}}
}

// recent returns key's attempts still in the window; l.mu is held.
func (l *attemptLimiter) recent(key string, now time.Time) []time.Time {
	hs := l.hits[key]
	i := 0
	for i < len(hs) && now.Sub(hs[i]) >= l.window {
		i++
	}
	if i > 0 {
		hs = append([]time.Time(nil), hs[i:]...)
		if len(hs) == 0 {
			delete(l.hits, key)
		} else {
			l.hits[key] = hs
		}
	}
	return hs
}

// allowed reports whether key may make another attempt, and if not, when it may.
func (l *attemptLimiter) allowed(key string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	hs := l.recent(key, now)
	if len(hs) < l.max {
		return true, 0
	}
	return false, hs[len(hs)-l.max].Add(l.window).Sub(now)
}

// add records an attempt.
func (l *attemptLimiter) add(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.hits) >= maxLimiterKeys {
		l.prune(now)
	}
	l.hits[key] = append(l.recent(key, now), now)
}

// reset forgets key's attempts (a successful sign-in clears the email's failures).
func (l *attemptLimiter) reset(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.hits, key)
}

func (l *attemptLimiter) prune(now time.Time) {
	var oldestKey string
	var oldest time.Time
	for k := range l.hits {
		hs := l.recent(k, now)
		if len(hs) > 0 && (oldestKey == "" || hs[len(hs)-1].Before(oldest)) {
			oldestKey, oldest = k, hs[len(hs)-1]
		}
	}
	if len(l.hits) >= maxLimiterKeys && oldestKey != "" {
		delete(l.hits, oldestKey)
	}
}
