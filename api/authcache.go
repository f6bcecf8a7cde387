package api

import (
	"context"
	"sync"
	"time"

	"asa/api/apikey"
)

// AuthCache keeps the principals of keys recently authenticated, so that a node of a busy
// deployment does not look every request's key up in the database. An entry lives TTL at most:
// that bounds how long a revocation, a plan change or another node's charges can go unseen when
// nothing else tells the node. Revocations tell it at once (Forget, from Revocations): a key
// revoked on any node is refused on every node within a round trip of Redis pub/sub, and within
// TTL when the message is lost.
//
// A cached principal carries the workspace's credits used when it was looked up; the credit check
// before a run may be up to TTL stale, the charge after it never is (the ledger refuses a charge
// past the allowance).
type AuthCache struct {
	next Authenticator
	ttl  time.Duration
	now  func() time.Time

	mu      sync.Mutex
	entries map[[32]byte]authEntry
}

type authEntry struct {
	p       Principal
	expires time.Time
}

// maxAuthEntries bounds the cache's memory; past it the cache starts over (a few thousand
// lookups, once).
const maxAuthEntries = 100_000

// NewAuthCache caches next's answers for ttl.
func NewAuthCache(next Authenticator, ttl time.Duration, now func() time.Time) *AuthCache {
	if now == nil {
		now = time.Now
	}
	return &AuthCache{next: next, ttl: ttl, now: now, entries: map[[32]byte]authEntry{}}
}

// Authenticate answers from the cache, or asks the Authenticator behind it and keeps a success.
// Unknown and revoked keys are not cached: a new key works at once, and a flood of made-up keys
// cannot fill the memory.
func (a *AuthCache) Authenticate(ctx context.Context, key apikey.Key) (Principal, error) {
	h := key.Hash()
	now := a.now()
	a.mu.Lock()
	e, ok := a.entries[h]
	a.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.p, nil
	}
	p, err := a.next.Authenticate(ctx, key)
	if err != nil {
		return p, err
	}
	a.mu.Lock()
	if len(a.entries) >= maxAuthEntries {
		clear(a.entries)
	}
	a.entries[h] = authEntry{p: p, expires: now.Add(a.ttl)}
	a.mu.Unlock()
	return p, nil
}

// Forget drops the entries of the key with this short prefix, or every entry when short is "".
func (a *AuthCache) Forget(short string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if short == "" {
		clear(a.entries)
		return
	}
	for h, e := range a.entries {
		if e.p.Short == short {
			delete(a.entries, h)
		}
	}
}

// Revocations carries key revocations between the nodes of a deployment (store/redisrevoke over
// Redis pub/sub), so that every node's AuthCache forgets a revoked key at once.
type Revocations interface {
	// Publish tells every node (this one included) that the key of this short prefix is revoked.
	Publish(ctx context.Context, short string) error
	// Subscribe calls fn for every revocation published, and with "" when messages may have been
	// missed (at every (re)connection), until ctx is done; errors go to onErr.
	Subscribe(ctx context.Context, fn func(short string), onErr func(error))
}

// forgetter is an Authenticator that caches (AuthCache).
type forgetter interface {
	Forget(short string)
}

// keyRevoked makes a revocation done on this node effective on every node: this node's cache
// forgets the key at once, the others when the message reaches them.
func (s *Server) keyRevoked(ctx context.Context, short string) {
	if f, ok := s.deps.Auth.(forgetter); ok {
		f.Forget(short)
	}
	if s.deps.Revocations == nil {
		return
	}
	if err := s.deps.Revocations.Publish(ctx, short); err != nil {
		s.log.WarnContext(ctx, "revocation not published: other nodes refuse the key when their cache expires", "key", short, "err", err)
	}
}

// RunRevocations applies the revocations other nodes publish to this node's auth cache until ctx
// is done. Without Deps.Revocations it returns at once.
func (s *Server) RunRevocations(ctx context.Context) {
	if s.deps.Revocations == nil {
		return
	}
	f, ok := s.deps.Auth.(forgetter)
	if !ok {
		return
	}
	var lastErr time.Time
	s.deps.Revocations.Subscribe(ctx, f.Forget, func(err error) {
		if time.Since(lastErr) >= 10*time.Second {
			lastErr = time.Now()
			s.log.Warn("revocations: redis unreachable; cached keys expire on their own", "err", err)
		}
	})
}
