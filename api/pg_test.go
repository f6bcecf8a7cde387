package api_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
