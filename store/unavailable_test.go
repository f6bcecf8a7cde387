package store

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// holdLockEnv names the database the helper process locks (TestHelperHoldWriteLock).
const holdLockEnv = "ASA_TEST_HOLD_WRITE_LOCK"

// TestHelperHoldWriteLock is not a test: run by lockInOtherProcess as a separate process, it opens
// the database named by holdLockEnv with its own SQLite connection, begins an EXCLUSIVE
// transaction, says "locked" on stdout and holds the lock until its stdin closes.
func TestHelperHoldWriteLock(t *testing.T) {
	path := os.Getenv(holdLockEnv)
	if path == "" {
		t.Skip("helper process of TestChargeWhileLockedByAnotherProcess")
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	// A write inside the transaction, as a real writer would have.
	if _, err := conn.ExecContext(context.Background(), "UPDATE workspaces SET name = name"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_, _ = conn.ExecContext(context.Background(), "ROLLBACK")
}

// lockInOtherProcess starts a process holding the database's write lock; release ends it.
func lockInOtherProcess(t *testing.T, path string) (release func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldWriteLock$", "-test.count=1")
	cmd.Env = append(os.Environ(), holdLockEnv+"="+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		stdin.Close()
		_ = cmd.Wait()
		t.Fatalf("lock holder: %q, %v", line, err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			stdin.Close()
			go io.Copy(io.Discard, stdout)
			if err := cmd.Wait(); err != nil {
				t.Errorf("lock holder: %v", err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

func openWith(t *testing.T, opts Options) (*DB, string) {
	t.Helper()
	path := t.TempDir() + "/asa.db"
	db, err := OpenWith(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// chargeAll runs the charges at once and returns their errors.
func chargeAll(db *DB, cs []Charge) []error {
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() { errs[i] = db.Charge(context.Background(), c, okLog("")) })
	}
	wg.Wait()
	return errs
}

// TestChargeWhileLockedByAnotherProcess: while another process holds the write lock, charges fail
// with ErrUnavailable (after the configured busy timeout, not SQLite's default or ours times the
// queue), nothing of them is written, Ping reports the store unavailable, and the unbilled log
// waits in memory. Once the lock is released, Ping recovers, the same charge ids bill exactly
// once and the log is complete.
func TestChargeWhileLockedByAnotherProcess(t *testing.T) {
	ctx := context.Background()
	db, path := openWith(t, Options{Timeout: 200 * time.Millisecond})
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, rec := mustKey(t, db, ws.ID, false)
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping before the lock: %v", err)
	}
	var cs []Charge
	for i := range 40 {
		cs = append(cs, Charge{ID: fmt.Sprint("c", i), WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5})
	}

	release := lockInOtherProcess(t, path)
	for i, err := range chargeAll(db, cs) {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("charge %d while locked: %v, want ErrUnavailable", i, err)
		}
	}
	for i := range 3 {
		if err := db.LogRequest(ctx, RequestLog{RequestID: fmt.Sprint("r", i), WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Status: 429, ErrorCode: "rate_limited"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.flushLogs(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("flushing the log while locked: %v, want ErrUnavailable", err)
	}
	if err := db.Ping(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Ping while locked: %v, want ErrUnavailable", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM usage`); n != 0 {
		t.Fatalf("%d ledger rows written while locked", n)
	}

	release()
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping after the lock: %v", err)
	}
	// The clients retry: each id bills once, and a second retry bills nothing more.
	for range 2 {
		for i, err := range chargeAll(db, cs) {
			if err != nil {
				t.Fatalf("charge %d after the lock: %v", i, err)
			}
		}
	}
	if n := count(t, db, `SELECT COUNT(*) FROM usage`); n != len(cs) {
		t.Fatalf("%d ledger rows, want %d", n, len(cs))
	}
	if used, _ := db.CreditsUsed(ctx, ws.ID, time.Now()); used != 5*len(cs) {
		t.Fatalf("%d credits used, want %d", used, 5*len(cs))
	}
	refusals, err := db.Refusals(ctx, ws.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, r := range refusals {
		total += r.Count
	}
	if total != 3 {
		t.Fatalf("refusals %+v, want 3 counted", refusals)
	}
}

// TestChargeWhenDiskFull: SQLite's max_page_count makes the database full for real (SQLITE_FULL,
// as a full disk gives): the charge that needs a page fails with ErrUnavailable and writes nothing,
// those before it stand, Ping says unavailable, and once there is room again Ping recovers and the
// failed charge ids bill exactly once.
func TestChargeWhenDiskFull(t *testing.T) {
	ctx := context.Background()
	db, _ := openWith(t, Options{})
	ws := mustWorkspace(t, db, "acme", PlanCustom, 1_000_000)
	_, rec := mustKey(t, db, ws.ID, false)
	var pages int
	if err := db.r.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.w.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	ok, failed := 0, []Charge(nil)
	for i := 0; len(failed) < 5 && i < 100_000; i++ {
		c := Charge{ID: fmt.Sprint("c", i), WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5}
		switch err := db.Charge(ctx, c, okLog("")); {
		case err == nil:
			ok++
		case errors.Is(err, ErrUnavailable):
			failed = append(failed, c)
		default:
			t.Fatalf("charge %s: %v", c.ID, err)
		}
	}
	if len(failed) == 0 {
		t.Fatal("the full database took every charge")
	}
	if err := db.Ping(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Ping with the database full: %v, want ErrUnavailable", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM usage`); n != ok {
		t.Fatalf("%d ledger rows, want the %d charges that succeeded", n, ok)
	}
	if used, _ := db.CreditsUsed(ctx, ws.ID, time.Now()); used != 5*ok {
		t.Fatalf("%d credits used, want %d", used, 5*ok)
	}

	if _, err := db.w.ExecContext(ctx, `PRAGMA max_page_count = 1000000`); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping with room again: %v", err)
	}
	for range 2 {
		for i, err := range chargeAll(db, failed) {
			if err != nil {
				t.Fatalf("retried charge %d: %v", i, err)
			}
		}
	}
	want := ok + len(failed)
	if n := count(t, db, `SELECT COUNT(*) FROM usage`); n != want {
		t.Fatalf("%d ledger rows, want %d", n, want)
	}
	if used, _ := db.CreditsUsed(ctx, ws.ID, time.Now()); used != 5*want {
		t.Fatalf("%d credits used, want %d", used, 5*want)
	}
}

// TestWALTruncatedPastLimit: while a reader pins the WAL it grows past twice WALLimit (no
// checkpoint may copy what the reader still needs); once the reader is gone, one checkpoint cuts
// it back under the limit.
func TestWALTruncatedPastLimit(t *testing.T) {
	ctx := context.Background()
	const limit = 64 << 10
	db, path := openWith(t, Options{WALLimit: limit, Timeout: 200 * time.Millisecond})
	ws := mustWorkspace(t, db, "acme", PlanCustom, 1_000_000)
	_, rec := mustKey(t, db, ws.ID, false)
	reader, err := db.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM usage`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	for i := 0; walSize() <= 2*limit; i++ {
		if i == 10_000 {
			t.Fatalf("the WAL did not grow: %d bytes", walSize())
		}
		c := Charge{ID: fmt.Sprint("c", i), WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5}
		if err := db.Charge(ctx, c, okLog("")); err != nil {
			t.Fatal(err)
		}
	}
	db.checkpoint() // the reader is still there: nothing can be cut
	if s := walSize(); s <= 2*limit {
		t.Fatalf("WAL %d bytes with a reader pinning it, want more than %d", s, 2*limit)
	}
	if err := reader.Rollback(); err != nil {
		t.Fatal(err)
	}
	db.checkpoint()
	if s := walSize(); s > limit {
		t.Fatalf("WAL %d bytes after the checkpoint, want at most %d", s, limit)
	}
}
