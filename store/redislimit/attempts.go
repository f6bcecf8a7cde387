package redislimit

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

//go:embed attempts.lua
var attemptsSrc string

var attemptsScript = script(attemptsSrc)

// Attempts counts attempts per subject (the dashboard's failed sign-ins per email, sign-ins and
// sign-ups per client address) in a sliding window shared by every node: without it each node
// counts alone, and N nodes let N times the limit through. A subject is stored as a hash, never
// as the email or address itself.
type Attempts struct {
	rdb    redis.UniversalClient
	prefix string
	now    func() time.Time
	node   string
	seq    atomic.Uint64
}

// AttemptsOptions configure Attempts.
type AttemptsOptions struct {
	// Prefix starts every key (default "asa:at:").
	Prefix string
	// Now, when set, is the clock (tests); by default Redis's TIME, shared by every node.
	Now func() time.Time
}

// NewAttempts returns attempt counters on rdb.
func NewAttempts(rdb redis.UniversalClient, o AttemptsOptions) *Attempts {
	if o.Prefix == "" {
		o.Prefix = "asa:at:"
	}
	return &Attempts{rdb: rdb, prefix: o.Prefix, now: o.Now, node: nodeID()}
}

// Attempts on the limiter's connection, for the same deployment.
func (l *Limiter) Attempts(o AttemptsOptions) *Attempts { return NewAttempts(l.rdb, o) }

// key is the Redis key of kind's subject: a hash of both, so that no email is written to Redis.
func (a *Attempts) key(kind, subject string) string {
	h := sha256.Sum256([]byte(kind + "\x00" + subject))
	return a.prefix + kind + ":" + hex.EncodeToString(h[:16])
}

func (a *Attempts) run(ctx context.Context, kind, subject string, max int, window time.Duration, add bool) (bool, time.Duration, error) {
	now, addArg := "", "0"
	if a.now != nil {
		now = strconv.FormatInt(a.now().UnixMicro(), 10)
	}
	member := ""
	if add {
		addArg = "1"
		member = a.node + strconv.FormatUint(a.seq.Add(1), 36)
	}
	v, err := attemptsScript.Run(ctx, a.rdb, []string{a.key(kind, subject)}, now, window.Microseconds(), max, addArg, member).Int64Slice()
	if err != nil {
		return false, 0, fmt.Errorf("redis attempts: %w", err)
	}
	if len(v) != 3 {
		return false, 0, fmt.Errorf("redis attempts: %d values from the script, want 3", len(v))
	}
	return v[0] == 1, time.Duration(v[1]) * time.Microsecond, nil
}

// Allowed reports whether subject may make another attempt of kind (fewer than max in the last
// window), and if not, how long until it may.
func (a *Attempts) Allowed(ctx context.Context, kind, subject string, max int, window time.Duration) (bool, time.Duration, error) {
	return a.run(ctx, kind, subject, max, window, false)
}

// Add records an attempt of kind by subject, remembered for window.
func (a *Attempts) Add(ctx context.Context, kind, subject string, window time.Duration) error {
	// max only shapes the answer, which Add does not return.
	_, _, err := a.run(ctx, kind, subject, 1, window, true)
	return err
}

// Reset forgets subject's attempts of kind (a successful sign-in clears the email's failures).
func (a *Attempts) Reset(ctx context.Context, kind, subject string) error {
	if err := a.rdb.Del(ctx, a.key(kind, subject)).Err(); err != nil {
		return fmt.Errorf("redis attempts: %w", err)
	}
	return nil
}
