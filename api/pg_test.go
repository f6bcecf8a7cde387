package api_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"asa/store"
	"asa/store/pgtest"
)

// The batch and webhook tests and the end-to-end suite of api_test.go run on SQLite as themselves,
// and again on PostgreSQL as subtests of TestPostgres (a server store/pgtest starts, one database
// per test): the same requests, the same answers, the same exactly-once billing. The tests of
// request validation, which never reach the store, run on SQLite only.
var onPostgresToo = []struct {
	name string
	fn   func(*testing.T)
}{
	// End to end: auth, billing, refusals, revocation, ceilings, health, shutdown.
	{"TestErrorsAndBilling", TestErrorsAndBilling},
	{"TestInsufficientCredits", TestInsufficientCredits},
	{"TestRevocationIsImmediate", TestRevocationIsImmediate},
	{"TestConcurrencyCeiling", TestConcurrencyCeiling},
	{"TestBurstCeiling", TestBurstCeiling},
	{"TestHealthReadyMetrics", TestHealthReadyMetrics},
	{"TestGracefulShutdown", TestGracefulShutdown},
	// Batches and webhooks.
	{"TestBatchLifecycleAndWebhook", TestBatchLifecycleAndWebhook},
	{"TestBatchVisibilityAndPagination", TestBatchVisibilityAndPagination},
	{"TestBatchIdempotencyKey", TestBatchIdempotencyKey},
	{"TestBatchIdempotencyScopedToKeyMode", TestBatchIdempotencyScopedToKeyMode},
	{"TestWebhookRetrySchedule", TestWebhookRetrySchedule},
	{"TestWebhookRetryAfterAndRedirects", TestWebhookRetryAfterAndRedirects},
	{"TestWebhookGoneStopsRetrying", TestWebhookGoneStopsRetrying},
	{"TestBatchFairness", TestBatchFairness},
	{"TestBatchRecoversAfterCrash", TestBatchRecoversAfterCrash},
	{"TestBatchShutdownReleasesItems", TestBatchShutdownReleasesItems},
	{"TestBatchOverAllowance", TestBatchOverAllowance},
	{"TestBatchAllFailed", TestBatchAllFailed},
	{"TestBatchRevokedKeyStopsItems", TestBatchRevokedKeyStopsItems},
	{"TestBatchStartedNotBeforeCreated", TestBatchStartedNotBeforeCreated},
	// The dashboard's key form: one key per form, however often and concurrently it is sent.
	{"TestDashboardKeyFormCreatesOneKey", TestDashboardKeyFormCreatesOneKey},
	// Two nodes on one database (PostgreSQL only).
	{"TestBatchAcrossNodes", TestBatchAcrossNodes},
}

func TestPostgres(t *testing.T) {
	pgtest.DB(t) // skips (or fails in CI) without a server, before any subtest starts
	for _, tc := range onPostgresToo {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t)
		})
	}
}

// onPostgres reports whether t runs under TestPostgres.
func onPostgres(t testing.TB) bool { return strings.HasPrefix(t.Name(), "TestPostgres/") }

// openStore opens the test's store: a SQLite file in a temporary directory, or under TestPostgres a
// new PostgreSQL database. It returns the store and its path or URL; the caller closes the store.
func openStore(ctx context.Context, t testing.TB) (*store.DB, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "asa.db")
	if onPostgres(t) {
		path = pgtest.DB(t)
	}
	db, err := store.Open(ctx, path)
	return db, path, err
}

// TestPostgresDownIsServiceUnavailable: while the PostgreSQL server is down every request that needs
// the store (all but the docs: even a sandbox key must be looked up) is answered 503
// service_unavailable with Retry-After and bills nothing, and /readyz says not ready; once the server
// is back the same node serves and bills again, without a restart. Its own server: halting the
// package's would fail the other tests.
func TestPostgresDownIsServiceUnavailable(t *testing.T) {
	srv, err := pgtest.Start()
	if err != nil {
		if !pgtest.InCI() && errors.Is(err, pgtest.ErrNoBinaries) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() }) // after the server's and the store's cleanups (LIFO)
	dsn, _, err := srv.CreateDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e := startStore(t, store.PlanPro, store.Options{Timeout: 500 * time.Millisecond}, dsn)
	billed := "/api/v1/shop/product?api_key=" + e.live.String() + "&query=AB1234"
	if r := e.get(t, billed); r.status != 200 {
		t.Fatalf("before: %d %s", r.status, r.raw)
	}
	if err := srv.Halt(); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{billed, "/api/v1/shop/product?api_key=" + e.test.String() + "&query=QQ1234"} {
		r := e.get(t, path)
		if r.status != 503 || r.body["error"] != "service_unavailable" || r.header.Get("Retry-After") == "" {
			t.Fatalf("%s while the database is down: %d %s", path, r.status, r.raw)
		}
	}
	if r := e.get(t, "/readyz"); r.status != 503 {
		t.Errorf("readyz while the database is down: %d %s", r.status, r.raw)
	}
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	// The pool's connections died with the server: the first uses find out and reconnect.
	for i := 0; ; i++ {
		r := e.get(t, billed)
		if r.status == 200 {
			break
		}
		if r.status != 503 || i == 50 {
			t.Fatalf("after the database came back: %d %s", r.status, r.raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r := e.get(t, "/readyz"); r.status != 200 {
		t.Errorf("readyz after the database came back: %d %s", r.status, r.raw)
	}
	if used, err := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now()); err != nil || used != 10 {
		t.Fatalf("credits used %d %v, want 10: the two 200s, nothing for the 503s", used, err)
	}
}
