package api

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"asa/api/apikey"
	"asa/store"
)

// StoreBackend adapts the SQLite store to the server's Authenticator and Ledger.
type StoreBackend struct {
	db  *store.DB
	now func() time.Time

	mu      sync.Mutex
	touched map[int64]time.Time
}

// NewStoreBackend returns the adapter.
func NewStoreBackend(db *store.DB, now func() time.Time) *StoreBackend {
	if now == nil {
		now = time.Now
	}
	return &StoreBackend{db: db, now: now, touched: map[int64]time.Time{}}
}

// touchEvery bounds last_used_at writes: one per key per minute, so authentication is not a write on
// the single SQLite writer for every request.
const touchEvery = time.Minute

// Authenticate looks the key's hash up on every request, so a revocation is effective at once on
// this node (there is no cache to expire).
func (b *StoreBackend) Authenticate(ctx context.Context, key apikey.Key) (Principal, error) {
	rec, ws, used, err := b.db.KeyByHash(ctx, key.Hash(), b.now())
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, ErrUnknownKey
	}
	if err != nil {
		return Principal{}, storeErr(err)
	}
	if rec.State == store.KeyRevoked {
		return Principal{}, ErrRevokedKey
	}
	if rec.Test != key.Test() {
		// The mode comes from the row; a prefix that disagrees is not a key we issued.
		return Principal{}, ErrUnknownKey
	}
	now := b.now()
	b.mu.Lock()
	due := now.Sub(b.touched[rec.ID]) >= touchEvery
	if due {
		b.touched[rec.ID] = now
	}
	b.mu.Unlock()
	if due {
		// Written with the request log, in the background: a request never waits for it.
		b.db.NoteKeyUsed(rec.ID, now)
	}
	l := ws.Limits()
	return Principal{
		KeyID: rec.ID, Short: rec.ShortPrefix, WorkspaceID: ws.ID, Plan: ws.Plan, Test: rec.Test, MonthlyCredits: ws.MonthlyCredits,
		CreditsUsed: used, UsageKnown: true,
		Limits: Limits{Concurrency: l.Concurrency, RPS: float64(l.RPS), Burst: l.Burst},
	}, nil
}

// CreditsUsed returns the credits charged in the workspace's current month (UTC).
func (b *StoreBackend) CreditsUsed(ctx context.Context, workspaceID int64) (int, error) {
	used, err := b.db.CreditsUsed(ctx, workspaceID, b.now())
	return used, storeErr(err)
}

// Charge bills one request and logs it in one transaction.
func (b *StoreBackend) Charge(ctx context.Context, ch Charge, log RequestLog) error {
	err := b.db.Charge(ctx, store.Charge{ID: ch.ID, WorkspaceID: ch.WorkspaceID, KeyID: ch.KeyID, Endpoint: ch.Endpoint, Credits: ch.Credits, At: log.At},
		toStoreLog(log))
	if errors.Is(err, store.ErrInsufficientCredits) {
		return ErrInsufficientCredits
	}
	return storeErr(err)
}

// Log records an unbilled request (in memory: the store writes it within about a second).
func (b *StoreBackend) Log(ctx context.Context, log RequestLog) error {
	return storeErr(b.db.LogRequest(ctx, toStoreLog(log)))
}

// Ping checks the store answers and takes writes: not ready while it is locked or full.
func (b *StoreBackend) Ping(ctx context.Context) error {
	return storeErr(b.db.Ping(ctx))
}

// storeErr marks the store's unavailability with the server's ErrUnavailable.
func storeErr(err error) error {
	if errors.Is(err, store.ErrUnavailable) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

func toStoreLog(l RequestLog) store.RequestLog {
	return store.RequestLog{RequestID: l.RequestID, WorkspaceID: l.WorkspaceID, KeyID: l.KeyID, Endpoint: l.Endpoint,
		Status: l.Status, ErrorCode: l.ErrorCode, Cost: l.Cost, AddOnCredits: l.AddOnCredits, Duration: l.Duration, At: l.At}
}
