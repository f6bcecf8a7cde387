package main

import (
	"context"
	"testing"

	"asa/store"
	"asa/store/pgtest"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: every server, worker,
// checkpointer and connection a test starts must be stopped by the test. No library goroutine
// is ignored: database/sql's connection opener ends when a test closes its DB, and net/http's
// connection loops when it closes its server and its client's idle connections; an option to
// ignore one would hide exactly the leak this is for.
//
// The PostgreSQL server of TestPostgres and the redis-server of the revocation test, if a test
// started them, are stopped after the tests, before the check.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(pgtest.Wrap(redisForTests.Wrap(m), migrated))
}

// TestPostgres runs the commands that only use the store on a PostgreSQL database (a server
// store/pgtest starts; skipped without one outside CI). asa serve itself runs on PostgreSQL in
// the store and api packages' tests and in make crashtest-pg.
func TestPostgres(t *testing.T) {
	pgtest.DB(t)
	t.Run("TestKeysCommands", TestKeysCommands)
	t.Run("TestNodesStartTogether", TestNodesStartTogether)
}

// migrated applies the migrations to the template every PostgreSQL test database is copied from.
func migrated(ctx context.Context, dsn string) error {
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	return db.Close()
}
