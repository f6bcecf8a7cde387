package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestCreateKeyOnce: a key form creates one key however often, and however concurrently, it is
// sent (from two handles: another process on SQLite, another node on PostgreSQL); a form refused
// for the key limit is not spent; spent forms are purged once expired.
func TestCreateKeyOnce(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	db2 := openAgain(t, path)
	ws := mustWorkspace(t, db, "acme", PlanPro, 0)
	other := mustWorkspace(t, db, "other", PlanFree, 0)
	expires := time.Now().Add(time.Hour)
	form := func(s string) KeyForm { return KeyForm{Hash: sha256.Sum256([]byte(s)), Expires: expires} }
	active := func(wsID int64) int {
		return count(t, db, `SELECT COUNT(*) FROM api_keys WHERE workspace_id = ? AND state = 'active'`, wsID)
	}

	key, rec, err := db.CreateKeyOnce(ctx, ws.ID, true, form("one"))
	if err != nil || key.Short() != rec.ShortPrefix || !rec.Test {
		t.Fatalf("first send: %v %+v, %v", key.Short(), rec, err)
	}
	for _, h := range []*DB{db, db2} {
		again, prev, err := h.CreateKeyOnce(ctx, ws.ID, false, form("one"))
		if !errors.Is(err, ErrFormUsed) || again.String() != "" || prev.ShortPrefix != rec.ShortPrefix || prev.ID != rec.ID {
			t.Fatalf("the same form again: %q %+v, %v; want ErrFormUsed naming %s", again.Short(), prev, err, rec.ShortPrefix)
		}
	}
	// A form spent in one workspace creates nothing in another, and names no key of it.
	if _, prev, err := db.CreateKeyOnce(ctx, other.ID, false, form("one")); !errors.Is(err, ErrFormUsed) || prev.ID != 0 {
		t.Fatalf("the form in another workspace: %+v, %v", prev, err)
	}
	if n := active(ws.ID) + active(other.ID); n != 1 {
		t.Fatalf("%d keys after one form sent 4 times, want 1", n)
	}

	// One form sent at once by many: one key.
	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		h := []*DB{db, db2}[i%2]
		wg.Go(func() { _, _, errs[i] = h.CreateKeyOnce(ctx, ws.ID, false, form("race")) })
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case !errors.Is(err, ErrFormUsed):
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if created != 1 || active(ws.ID) != 2 {
		t.Fatalf("%d of %d concurrent sends created a key (%d active), want 1", created, n, active(ws.ID))
	}

	// At the limit the form is refused and stays unspent: once a key is revoked it works.
	for active(ws.ID) < MaxActiveKeys {
		mustKey(t, db, ws.ID, false)
	}
	if _, _, err := db.CreateKeyOnce(ctx, ws.ID, false, form("full")); !errors.Is(err, ErrKeyLimit) {
		t.Fatalf("over the limit: %v, want ErrKeyLimit", err)
	}
	if err := db.RevokeKey(ctx, ws.ID, rec.ShortPrefix); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.CreateKeyOnce(ctx, ws.ID, false, form("full")); err != nil {
		t.Fatalf("the refused form after a revocation: %v", err)
	}

	// The spent forms are kept until they expire, then purged; the form id is never stored.
	if c := count(t, db, `SELECT COUNT(*) FROM key_forms`); c != 3 {
		t.Fatalf("%d spent forms, want 3", c)
	}
	if got, err := db.PurgeKeyForms(ctx, expires.Add(-time.Minute)); err != nil || got != 0 {
		t.Fatalf("PurgeKeyForms before expiry = %d, %v", got, err)
	}
	if got, err := db.PurgeKeyForms(ctx, expires); err != nil || got != 3 {
		t.Fatalf("PurgeKeyForms at expiry = %d, %v", got, err)
	}
}
