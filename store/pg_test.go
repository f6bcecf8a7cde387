package store

import (
	"context"
	"strings"
	"testing"

	"asa/store/pgtest"
)

// The store's tests run on both databases: each test below runs as itself on SQLite, and again as
// a subtest of TestPostgres on a PostgreSQL server the harness starts (store/pgtest), on its own
// database. openTest tells the two apart by the test's name. Outside CI a machine without
// PostgreSQL skips TestPostgres; in CI it fails.
//
// The tests that are not here are about SQLite itself: its pragmas, its file (TestKeyNeverStored
// reads it), the WAL, another process holding its write lock, a full disk under it.
var onBothDatabases = []struct {
	name string
	fn   func(*testing.T)
}{
	{"TestWorkspaceBatchesStayInTheirWorkspace", TestWorkspaceBatchesStayInTheirWorkspace},
	{"TestCreateBatchIdempotency", TestCreateBatchIdempotency},
	{"TestClaimIsFairAcrossBatches", TestClaimIsFairAcrossBatches},
	{"TestCompleteItemBillsOnceAndEndsTheBatch", TestCompleteItemBillsOnceAndEndsTheBatch},
	{"TestEveryItemFailedFailsTheBatch", TestEveryItemFailedFailsTheBatch},
	{"TestCompleteItemOverAllowanceWritesNothing", TestCompleteItemOverAllowanceWritesNothing},
	{"TestRequeueAfterCrashAndLeaseExpiry", TestRequeueAfterCrashAndLeaseExpiry},
	{"TestBatchPageIsScopedAndPaginated", TestBatchPageIsScopedAndPaginated},
	{"TestDeliveryLifecycle", TestDeliveryLifecycle},
	{"TestExtractorHealthAddsUp", TestExtractorHealthAddsUp},
	{"TestResponseCache", TestResponseCache},
	{"TestDeliveryAttemptKeepsAnyResponse", TestDeliveryAttemptKeepsAnyResponse},
	{"TestRevokedKeyStopsItsBatch", TestRevokedKeyStopsItsBatch},
	{"TestGroupCommitIsolation", TestGroupCommitIsolation},
	{"TestGroupCommitFailingStatement", TestGroupCommitFailingStatement},
	{"TestBulkChargeMatchesOneByOne", TestBulkChargeMatchesOneByOne},
	{"TestCustomWorkspaceLimits", TestCustomWorkspaceLimits},
	{"TestMigrationScopesIdempotencyKeys", TestMigrationScopesIdempotencyKeys},
	{"TestOpenMigratesOnce", TestOpenMigratesOnce},
	{"TestOpenRefusesNewerSchema", TestOpenRefusesNewerSchema},
	{"TestReadPoolIsReadOnly", TestReadPoolIsReadOnly},
	{"TestWorkspaces", TestWorkspaces},
	{"TestCreateKeyLimitUnderConcurrency", TestCreateKeyLimitUnderConcurrency},
	{"TestKeyLookupRevokeTouch", TestKeyLookupRevokeTouch},
	{"TestChargeExactlyOnce", TestChargeExactlyOnce},
	{"TestChargeAllowance", TestChargeAllowance},
	{"TestChargeRefusesWhatIsNeverBilled", TestChargeRefusesWhatIsNeverBilled},
	{"TestUsageReport", TestUsageReport},
	{"TestPurgeRevoked", TestPurgeRevoked},
	{"TestKeyByHashCredits", TestKeyByHashCredits},
	{"TestSignUpAndSessions", TestSignUpAndSessions},
	{"TestCreateKeyOnce", TestCreateKeyOnce},
	// Several nodes on one database (pgnodes_test.go): PostgreSQL only.
	{"TestPGNodesMigrateOnce", TestPGNodesMigrateOnce},
	{"TestPGNodesChargeOnceWithinAllowance", TestPGNodesChargeOnceWithinAllowance},
	{"TestPGNodesClaimEachItemOnce", TestPGNodesClaimEachItemOnce},
	{"TestPGNodesTakeOverAfterLease", TestPGNodesTakeOverAfterLease},
}

func TestPostgres(t *testing.T) {
	pgtest.DB(t) // skips (or fails in CI) without a server, before any subtest starts
	for _, tc := range onBothDatabases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t)
		})
	}
}

// onPostgres reports whether t runs under TestPostgres.
func onPostgres(t testing.TB) bool { return strings.HasPrefix(t.Name(), "TestPostgres/") }

// openTestPG opens a new PostgreSQL database for t.
func openTestPG(t testing.TB) (*DB, string) {
	t.Helper()
	dsn := pgtest.DB(t)
	db, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}
