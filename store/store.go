package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Sentinel errors. Every error a method returns wraps one of these when it applies, so callers map
// them with errors.Is (ErrNotFound to 404 or 401, ErrKeyLimit to 409, ErrInsufficientCredits to
// 402) without looking at driver errors.
var (
	ErrNotFound            = errors.New("not found")
	ErrDuplicate           = errors.New("already exists")
	ErrKeyLimit            = errors.New("active key limit reached")
	ErrInsufficientCredits = errors.New("insufficient credits")
	ErrInvalid             = errors.New("invalid argument")
)

const busyTimeout = 5 * time.Second

// DB is an open store. It is safe for concurrent use.
type DB struct {
	// w has exactly one connection and starts every transaction with BEGIN IMMEDIATE: SQLite
	// allows one writer anyway, and queueing writers on database/sql's pool instead of SQLite's
	// busy handler means no SQLITE_BUSY between our own goroutines, no sleeping retries, and a
	// read-then-write transaction that cannot be overtaken by another writer.
	w *sql.DB
	// r is read-only (query_only) and may have several connections, which WAL lets run while a
	// write is in progress. Each statement sees every transaction committed before it started.
	r *sql.DB
	// cp is the checkpointing connection; stop and done end its goroutine.
	cp         *sql.DB
	stop, done chan struct{}
	stopOnce   sync.Once
	// Statements every API request runs, prepared on the read pool once (the driver's statement
	// cache would also keep them; holding them skips its lookup and keeps them out of its LRU).
	keyByHash, creditsUsed *sql.Stmt
	// chargeQ feeds the group committer of Charge (groupcommit.go).
	chargeQ      chan *chargeReq
	chargerDone  chan struct{}
	chargeMu     sync.RWMutex
	chargeClosed bool
	// groupFallbacks counts the groups that had to be redone one savepoint per charge.
	groupFallbacks atomic.Int64
}

// Open opens (creating if needed) the SQLite database at path, checks its settings and applies any
// pending migrations.
func Open(ctx context.Context, path string) (*DB, error) {
	if path == "" || path == ":memory:" || strings.ContainsAny(path, "?#") || strings.HasPrefix(path, "file:") {
		// The driver reads options after '?', and a shared in-memory database would not be shared
		// between the two pools: require a plain file path.
		return nil, fmt.Errorf("opening store %q: %w: want a plain file path", path, ErrInvalid)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("opening store: %w", err)
	}
	// Creating the file ourselves makes it owner-only; SQLite gives the -wal and -shm files the
	// main file's mode. An existing file is left as it is.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening store: %w", err)
	}
	f.Close()
	w, err := openPool(path, true)
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	db := &DB{w: w}
	if err := db.checkPragmas(ctx); err != nil {
		w.Close()
		return nil, err
	}
	// Checkpoints copy the WAL back into the database file and fsync it: a few milliseconds that,
	// left to SQLite's automatic checkpoint, land on whichever commit crosses the threshold, so one
	// request in a few hundred waits for them. The writer never checkpoints; a background connection
	// does, passively (it never blocks the writer), every CheckpointEvery.
	if _, err := w.ExecContext(ctx, "PRAGMA wal_autocheckpoint=0"); err != nil {
		w.Close()
		return nil, fmt.Errorf("opening store: %w", err)
	}
	if err := migrate(ctx, w); err != nil {
		w.Close()
		return nil, err
	}
	// The read pool opens after the writer has switched the file to WAL, so no reader ever sees
	// the rollback-journal mode.
	r, err := openPool(path, false)
	if err != nil {
		w.Close()
		return nil, err
	}
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	db.r = r
	if err := r.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening store: %w", err)
	}
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{{&db.keyByHash, keyByHashSQL}, {&db.creditsUsed, creditsUsedSQL}} {
		if *p.dst, err = r.PrepareContext(ctx, p.sql); err != nil {
			break
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("opening store: preparing statements: %w", err)
	}
	cp, err := openPool(path, true)
	if err != nil {
		db.Close()
		return nil, err
	}
	cp.SetMaxOpenConns(1)
	db.cp = cp
	db.stop = make(chan struct{})
	db.done = make(chan struct{})
	go db.checkpointer()
	db.startCharger()
	return db, nil
}

// CheckpointEvery is how often the background checkpoint runs.
const CheckpointEvery = time.Second

func (db *DB) checkpointer() {
	defer close(db.done)
	t := time.NewTicker(CheckpointEvery)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
			// PASSIVE copies what it can without waiting for readers or the writer; errors (busy)
			// only mean the next tick does the work.
			_, _ = db.cp.Exec("PRAGMA wal_checkpoint(PASSIVE)")
		}
	}
}

func openPool(path string, write bool) (*sql.DB, error) {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_foreign_keys", "on")
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	// NORMAL in WAL mode: a commit survives a crash of the process (kill -9 included) and the
	// file never corrupts; only an OS crash or power loss can roll back the last commits. That
	// costs at most a few unbilled requests, where FULL would cost an fsync on every charge.
	q.Set("_synchronous", "NORMAL")
	// Statements are reused per connection: the hot path (auth, charge, log) runs the same few.
	q.Set("_stmt_cache_size", "32")
	if write {
		q.Set("_txlock", "immediate")
	} else {
		q.Set("_query_only", "1")
	}
	db, err := sql.Open("sqlite3", path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening store: %w", err)
	}
	return db, nil
}

// checkPragmas refuses to run on settings other than those asked for: a driver that silently
// ignored an option would otherwise turn off foreign keys or WAL without anyone noticing.
func (db *DB) checkPragmas(ctx context.Context) error {
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("opening store: %w", err)
	}
	defer conn.Close()
	want := []struct {
		pragma string
		value  string
	}{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", fmt.Sprint(busyTimeout.Milliseconds())},
		{"synchronous", "1"}, // NORMAL
	}
	for _, p := range want {
		var got string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+p.pragma).Scan(&got); err != nil {
			return fmt.Errorf("opening store: reading pragma %s: %w", p.pragma, err)
		}
		if !strings.EqualFold(got, p.value) {
			return fmt.Errorf("opening store: pragma %s is %q, want %q", p.pragma, got, p.value)
		}
	}
	return nil
}

// Close closes both pools. In-flight calls finish first; on the last close SQLite checkpoints the
// WAL into the main file.
func (db *DB) Close() error {
	var errs []error
	if db.stop != nil {
		db.stopOnce.Do(func() {
			db.stopCharger()
			close(db.stop)
			<-db.done
			errs = append(errs, db.cp.Close())
		})
	}
	for _, st := range []*sql.Stmt{db.keyByHash, db.creditsUsed} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	if db.r != nil {
		errs = append(errs, db.r.Close())
	}
	errs = append(errs, db.w.Close())
	return errors.Join(errs...)
}

// writeTx runs fn in a write transaction (BEGIN IMMEDIATE through the single writer) and commits
// if fn returns nil.
func (db *DB) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return inTx(ctx, db.w, fn)
}

func inTx(ctx context.Context, w *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// classify maps driver errors to the package's sentinels, keeping the driver's message for
// debugging. It is the one place that knows SQLite's error codes.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return err
	}
	switch se.ExtendedCode {
	case sqlite3.ErrConstraintUnique, sqlite3.ErrConstraintPrimaryKey:
		return fmt.Errorf("%w: %w", ErrDuplicate, err)
	case sqlite3.ErrConstraintForeignKey:
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	case sqlite3.ErrConstraintCheck, sqlite3.ErrConstraintNotNull:
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return err
}

// ms converts a time to the stored form. The zero time means "now" nowhere in this package:
// callers resolve defaults before converting.
func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func fromNullMS(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMS(v.Int64)
}

// orNow returns t, or the current time if t is zero, so callers and tests can pin time.
func orNow(t time.Time) time.Time {
	if t.IsZero() {
		return time.Now()
	}
	return t
}

// monthKey is the calendar month (UTC) of t as yyyymm, the key of credit_months.
func monthKey(t time.Time) int64 {
	t = t.UTC()
	return int64(t.Year())*100 + int64(t.Month())
}
