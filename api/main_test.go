package api_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"asa/api"
)

// TestMain fails the package's tests when a goroutine outlives them: every server, worker,
// checkpointer and connection a test starts must be stopped by the test. No library goroutine
// is ignored: database/sql's connection opener ends when a test closes its DB, and net/http's
// connection loops when it closes its server and its client's idle connections; an option to
// ignore one would hide exactly the leak this is for. The package's redis-server (started by the
// first test that needs it) is stopped before the check.
func TestMain(m *testing.M) {
	code := m.Run()
	api.RedisForTests.Stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}
