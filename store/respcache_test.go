package store

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestResponseCache(t *testing.T) {
	db, _ := openTest(t)
	ctx := context.Background()
	a := mustWorkspace(t, db, "a", PlanFree, 100)
	b := mustWorkspace(t, db, "b", PlanFree, 100)
	lim := CacheLimits{MaxEntry: 100, MaxTotal: 250, MaxAge: time.Hour}
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	put := func(ws int64, key string, size int, at time.Time) error {
		return db.StoreResponse(ctx, CachedResponse{WorkspaceID: ws, Key: key, Endpoint: "shop.product",
			Meta: []byte(`{"v":"shop@1"}`), Body: bytes.Repeat([]byte{'x'}, size), FetchedAt: at}, lim)
	}
	has := func(ws int64, key string) bool {
		_, ok, err := db.CachedResponse(ctx, ws, key)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if err := put(a.ID, "k1", 80, t0); err != nil {
		t.Fatal(err)
	}
	got, ok, err := db.CachedResponse(ctx, a.ID, "k1")
	if err != nil || !ok || len(got.Body) != 80 || string(got.Meta) != `{"v":"shop@1"}` || !got.FetchedAt.Equal(t0) || got.Endpoint != "shop.product" {
		t.Fatalf("read back: %+v %v %v", got, ok, err)
	}
	if has(b.ID, "k1") {
		t.Error("an entry of workspace a answered workspace b")
	}
	// Replacing an entry moves it to its new age.
	if err := put(a.ID, "k1", 90, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := db.CachedResponse(ctx, a.ID, "k1"); len(got.Body) != 90 || !got.FetchedAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("replaced: %d bytes at %v", len(got.Body), got.FetchedAt)
	}
	// Over the entry cap: refused, nothing stored.
	if err := put(a.ID, "big", 101, t0); !errors.Is(err, ErrInvalid) {
		t.Errorf("entry over the cap: %v", err)
	}
	// Over the total: the oldest go first.
	for i, k := range []string{"k2", "k3"} {
		if err := put(b.ID, k, 80, t0.Add(time.Duration(2+i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if n, size, _ := db.CacheSize(ctx); n != 3 || size != 250 {
		t.Fatalf("%d entries, %d bytes; want 3, 250", n, size)
	}
	if err := put(b.ID, "k4", 50, t0.Add(4*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if has(a.ID, "k1") || !has(b.ID, "k2") || !has(b.ID, "k3") || !has(b.ID, "k4") {
		t.Error("eviction did not take the oldest entry alone")
	}
	// Entries older than the longest max_age are dropped on a write.
	if err := put(a.ID, "k5", 10, t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := db.CacheSize(ctx); n != 1 || !has(a.ID, "k5") {
		t.Errorf("%d entries after expiry; want k5 alone", n)
	}
}

func TestResponseCacheMigrationIsPortable(t *testing.T) {
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.version != 6 {
			continue
		}
		for _, bad := range []string{"AUTOINCREMENT", "WITHOUT ROWID", "STRICT", "datetime(", "strftime("} {
			if strings.Contains(strings.ToUpper(m.sql), strings.ToUpper(bad)) {
				t.Errorf("%s uses %s", m.name, bad)
			}
		}
		return
	}
	t.Fatal("no migration 0006")
}
