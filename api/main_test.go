package api_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when a goroutine outlives them: every server, worker,
// checkpointer and connection a test starts must be stopped by the test. No library goroutine
// is ignored: database/sql's connection opener ends when a test closes its DB, and net/http's
// connection loops when it closes its server and its client's idle connections; an option to
// ignore one would hide exactly the leak this is for.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(closingShared{m})
}

// closingShared stops what tests share across the package (the browser) before goleak looks.
type closingShared struct{ m *testing.M }

func (c closingShared) Run() int {
	defer closeBrowserShared()
	return c.m.Run()
}
