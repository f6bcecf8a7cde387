package api_test

import (
	"context"
	"testing"

	"asa/store"
	"go.uber.org/goleak"

	"asa/api"
	"asa/store/pgtest"
)

// TestMain fails the package's tests when a goroutine outlives them: every server, worker,
// checkpointer and connection a test starts must be stopped by the test. No library goroutine
// is ignored: database/sql's connection opener ends when a test closes its DB, and net/http's
// connection loops when it closes its server and its client's idle connections; an option to
// ignore one would hide exactly the leak this is for.
//
// The PostgreSQL server of TestPostgres and the redis-server of the limit tests, if a test started
// them, are stopped after the tests, before the check.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(closingShared{pgtest.Wrap(api.RedisForTests.Wrap(m), migrated)})
}

// migrated applies the migrations to the template every PostgreSQL test database is copied from.
func migrated(ctx context.Context, dsn string) error {
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	return db.Close()
}

// closingShared stops what tests share across the package (the browser) before goleak looks.
type closingShared struct{ m interface{ Run() int } }

func (c closingShared) Run() int {
	defer closeBrowserShared()
	return c.m.Run()
}
