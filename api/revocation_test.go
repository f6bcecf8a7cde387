package api_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"asa/api"
	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/store"
	"asa/store/redisrevoke"
)

// TestRevocationReachesEveryNode: two servers on one database and one Redis, each with an auth
// cache that would keep a key for an hour. A key both have cached, revoked on the first node's
// dashboard, is refused 401 revoked by the second as soon as the pub/sub message arrives: the cache
// is invalidated, not waited out.
func TestRevocationReachesEveryNode(t *testing.T) {
	redisURL := api.RedisForTests.Get(t).URL
	// The small test catalogue: the dashboard and one sandbox endpoint are all this needs.
	reg, diags := registry.Load(engine.New(), os.DirFS("../engine/testdata"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb, err := fixture.NewSandbox(os.DirFS("testdata/fixtures"), reg)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asa.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var bases []string
	var done []chan struct{}
	for i := range 2 {
		bus, err := redisrevoke.Open(redisURL)
		if err != nil {
			t.Fatal(err)
		}
		backend := api.NewStoreBackend(db, nil)
		deps := api.Deps{Registry: reg, Sandbox: sb, Auth: api.NewAuthCache(backend, time.Hour, nil), Ledger: backend,
			Log: slog.New(slog.NewTextHandler(&dashLog{}, nil)), Revocations: bus}
		if i == 0 {
			deps.Dashboard = api.DashboardConfig{Store: db, Argon2: api.Argon2Params{MemoryKiB: 256, Time: 1, Threads: 1}}
		}
		srv := api.New(api.Config{RequestTimeout: 10 * time.Second}, deps)
		hs := httptest.NewServer(srv.Handler())
		bases = append(bases, hs.URL)
		ch := make(chan struct{})
		go func() { srv.RunRevocations(ctx); close(ch) }()
		done = append(done, ch)
		t.Cleanup(func() { hs.Close(); bus.Close() })
	}
	t.Cleanup(func() {
		cancel()
		for _, ch := range done {
			<-ch
		}
		db.Close()
	})
	get := func(node int, key string) int {
		t.Helper()
		resp, err := http.Get(bases[node] + "/api/v1/shop/product?query=AB1234&api_key=" + url.QueryEscape(key))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}

	b := (&dashEnv{base: bases[0]}).browser(t)
	mustStatus(t, "sign-up", b.signUp("ada@example.com", "correct horse battery"), http.StatusSeeOther)
	key := b.createKey("sandbox")
	short := key[len("asa_test_") : len("asa_test_")+12]
	for node := range 2 {
		if got := get(node, key); got != http.StatusOK {
			t.Fatalf("node %d before the revocation: %d", node, got)
		}
	}
	tok := csrfOf(t, b.get("/dashboard/keys").body)
	mustStatus(t, "revoke", b.post("/dashboard/keys/"+short+"/revoke", url.Values{"csrf_token": {tok}}), http.StatusSeeOther)
	// The revoking node forgot the key itself, before answering the dashboard.
	if got := get(0, key); got != http.StatusUnauthorized {
		t.Fatalf("node 0 after its own revocation: %d", got)
	}
	// The other node learns it from Redis; its cache entry alone would last an hour.
	deadline := time.Now().Add(30 * time.Second) // a bound on a hang, not a measure
	for get(1, key) != http.StatusUnauthorized {
		if time.Now().After(deadline) {
			t.Fatal("node 1 still admits the revoked key: its cache was not invalidated")
		}
		time.Sleep(10 * time.Millisecond) // poll
	}
}

// TestAuthCacheExpires: without any message, a cached key is looked up again after the TTL, so a
// revocation made where nobody published it (a lost message, an operator's SQL) holds within it.
func TestAuthCacheExpires(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "asa.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws, err := db.CreateWorkspace(ctx, "acme", store.PlanFree, 0)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := db.CreateKey(ctx, ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	clock := &dashClock{t: time.Now()}
	cache := api.NewAuthCache(api.NewStoreBackend(db, nil), 5*time.Second, clock.now)
	if _, err := cache.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeKey(ctx, ws.ID, key.Short()); err != nil {
		t.Fatal(err)
	}
	clock.add(4 * time.Second)
	if _, err := cache.Authenticate(ctx, key); err != nil {
		t.Fatalf("within the TTL the cached key answers: %v", err)
	}
	clock.add(time.Second)
	if _, err := cache.Authenticate(ctx, key); err != api.ErrRevokedKey {
		t.Fatalf("after the TTL: %v, want the revocation", err)
	}
	// Forget drops an entry at once.
	other, _, err := db.CreateKey(ctx, ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Authenticate(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeKey(ctx, ws.ID, other.Short()); err != nil {
		t.Fatal(err)
	}
	cache.Forget(other.Short())
	if _, err := cache.Authenticate(ctx, other); err != api.ErrRevokedKey {
		t.Fatalf("after Forget: %v, want the revocation", err)
	}
}
