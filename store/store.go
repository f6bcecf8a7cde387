package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
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
	// ErrFormUsed means a single-use form (the dashboard's key form, CreateKeyOnce) was already
	// spent: what it asked for was done once and is not done again.
	ErrFormUsed = errors.New("form already used")
	// ErrUnavailable means the database cannot do the work now: locked by another process past
	// the timeout, disk full, an I/O error. It is not a bug; the same call may succeed later.
	ErrUnavailable = errors.New("store unavailable")
)

// Options tune Open. The zero value is the default of every field.
type Options struct {
	// Timeout bounds how long a write waits for the database: SQLite's busy timeout (another
	// process holding the write lock), and the group commit's queue (charges queued behind a
	// group that failed for want of the database are refused at once instead of trying again).
	// A charge therefore waits about Timeout at most before ErrUnavailable. Default 3 s.
	Timeout time.Duration
	// WALLimit is SQLite's journal_size_limit: what the WAL is truncated to when it restarts. The
	// checkpointer also truncates the WAL to nothing (a TRUNCATE checkpoint) whenever it has grown
	// past twice this size, so a flood of writes cannot grow it without bound. Default 16 MiB.
	WALLimit int64
	// Log receives what the store does on its own: request-log flushes that failed, and when the
	// store became unavailable or recovered. Nil discards.
	Log *slog.Logger
	// PoolSize is, on PostgreSQL, the most connections each of the store's two pools (writes and
	// reads) opens: a node holds at most twice this many. Default DefaultPoolSize. SQLite ignores
	// it (one writer, GOMAXPROCS readers).
	PoolSize int
}

// DefaultTimeout and DefaultWALLimit are the defaults of Options.
const (
	DefaultTimeout  = 3 * time.Second
	DefaultWALLimit = 16 << 20
)

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.WALLimit <= 0 {
		o.WALLimit = DefaultWALLimit
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.PoolSize <= 0 {
		o.PoolSize = DefaultPoolSize
	}
}

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
	// logs buffers the unbilled request log until the background writer commits it (requestlog.go).
	logs *logWriter
	// failing holds the last ErrUnavailable a write met, nil once a write succeeds again: what
	// Ping reports (health.go).
	failing atomic.Pointer[error]
	opts    Options
	// path is the SQLite file, or the PostgreSQL URL without its password.
	path string
	d    dialect
}

// Open opens (creating if needed) the database at path with the default Options: a SQLite file,
// or a PostgreSQL database when path is a postgres:// URL (IsPostgres).
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith opens the database at path: a PostgreSQL database when path is a postgres:// or
// postgresql:// URL (postgres.go), else the SQLite file at path, created if needed, its settings
// checked. Either way any pending migrations are applied.
func OpenWith(ctx context.Context, path string, opts Options) (*DB, error) {
	opts.defaults()
	if IsPostgres(path) {
		return openPostgres(ctx, path, opts)
	}
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
	w := openPool(path, true, opts, opts.Timeout)
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	db := &DB{w: w, opts: opts, path: path, d: sqliteDialect}
	if err := db.checkPragmas(ctx); err != nil {
		w.Close()
		return nil, err
	}
	if err := migrate(ctx, w, db.d); err != nil {
		w.Close()
		return nil, err
	}
	// The read pool opens after the writer has switched the file to WAL, so no reader ever sees
	// the rollback-journal mode.
	r := openPool(path, false, opts, opts.Timeout)
	n := max(4, runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	db.r = r
	if err := r.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening store: %w", err)
	}
	if err := db.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// A TRUNCATE checkpoint holds new writers back while it waits for the readers: it gives up
	// soon (the next tick tries again) rather than make charges wait for a long reader.
	cp := openPool(path, true, opts, min(opts.Timeout, checkpointBusy))
	cp.SetMaxOpenConns(1)
	db.cp = cp
	db.stop = make(chan struct{})
	db.done = make(chan struct{})
	go db.checkpointer()
	db.startCharger()
	db.startLogWriter()
	return db, nil
}

// prepare prepares the statements every API request runs on the read pool.
func (db *DB) prepare(ctx context.Context) error {
	for _, p := range []struct {
		dst **sql.Stmt
		sql string
	}{{&db.keyByHash, keyByHashSQL}, {&db.creditsUsed, creditsUsedSQL}} {
		var err error
		if *p.dst, err = db.r.PrepareContext(ctx, p.sql); err != nil {
			return fmt.Errorf("opening store: preparing statements: %w", err)
		}
	}
	return nil
}

// Dialect names the database the store runs on: "sqlite" or "postgres".
func (db *DB) Dialect() string { return db.d.name }

// CheckpointEvery is how often the checkpointer looks at the WAL's size; checkpointBusy is the most
// a checkpoint waits for the writer and the readers; autoCheckpointPages is SQLite's automatic
// checkpoint threshold, in WAL pages (see openPool).
const (
	CheckpointEvery     = time.Second
	checkpointBusy      = 100 * time.Millisecond
	autoCheckpointPages = 200
)

func (db *DB) checkpointer() {
	defer close(db.done)
	t := time.NewTicker(CheckpointEvery)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
			db.checkpoint()
		}
	}
}

// checkpoint truncates a WAL that grew past twice WALLimit. The commits' automatic checkpoints
// (PASSIVE) copy what they can without waiting for readers, and once everything is copied the next
// write starts the WAL over (cut back to WALLimit). Under a steady stream of commits, or with a
// reader holding an old snapshot, they may never catch up, and the WAL would grow for as long as
// that lasts; past twice WALLimit a TRUNCATE checkpoint waits for the writer and the readers (up
// to the busy timeout), copies everything and truncates the file to nothing. Errors (busy) only
// mean the next tick does the work.
func (db *DB) checkpoint() {
	if fi, err := os.Stat(db.path + "-wal"); err != nil || fi.Size() <= 2*db.opts.WALLimit {
		return
	}
	_, _ = db.cp.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
}

// connector opens connections through the driver with a hook that sets what the DSN cannot.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c connector) Driver() driver.Driver                        { return c.drv }

func openPool(path string, write bool, opts Options, busy time.Duration) *sql.DB {
	q := url.Values{}
	q.Set("_journal_mode", "WAL")
	q.Set("_foreign_keys", "on")
	q.Set("_busy_timeout", fmt.Sprint(busy.Milliseconds()))
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
	// Per-connection settings, on every connection the pool ever opens (it reopens one after a
	// driver.ErrBadConn). Checkpoints copy the WAL back into the database file and fsync it. Left
	// to SQLite's automatic checkpoint (every autoCheckpointPages of WAL), that lands on the commit
	// that crosses the threshold, so the charges of one group in a few hundred wait for it. A
	// checkpoint from another connection every second was worse: on a journaling file system the
	// commits made during its fsync wait for it too (their WAL writes need the journal it flushes),
	// so every second's charges waited, and the service overhead's p99 at 500 requests a second
	// was 40-60 ms against 9-11 ms this way (make loadtest, same machine; 1.8 ms with the database
	// on tmpfs either way). The threshold is 200 pages rather than SQLite's 1000: a checkpoint's
	// fsync grows with the pages it copies, so smaller ones more often keep the commit that pays
	// for one short; the overhead's p99 was 2.8-3.5 ms at 200 pages against 5.1-7.5 ms at 1000
	// (4.1 at 400) in alternated runs of go run ./cmd/loadtest -farm-requests 0. The checkpointer
	// only truncates a WAL that grew past twice journal_size_limit (checkpoint); journal_size_limit
	// cuts the WAL back whenever it starts over.
	pragmas := []string{
		fmt.Sprintf("PRAGMA wal_autocheckpoint=%d", autoCheckpointPages),
		fmt.Sprintf("PRAGMA journal_size_limit=%d", opts.WALLimit),
	}
	drv := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		for _, p := range pragmas {
			if _, err := c.Exec(p, nil); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
		}
		return nil
	}}
	return sql.OpenDB(connector{dsn: path + "?" + q.Encode(), drv: drv})
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
		{"busy_timeout", fmt.Sprint(db.opts.Timeout.Milliseconds())},
		{"synchronous", "1"}, // NORMAL
		{"wal_autocheckpoint", fmt.Sprint(autoCheckpointPages)},
		{"journal_size_limit", fmt.Sprint(db.opts.WALLimit)},
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
	db.stopOnce.Do(func() {
		db.stopCharger()
		// After the charger: what is still buffered of the request log is written before the
		// pools close.
		db.stopLogWriter()
		if db.stop != nil {
			close(db.stop)
			<-db.done
			errs = append(errs, db.cp.Close())
		}
	})
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

// writeTx runs fn in a write transaction (on SQLite BEGIN IMMEDIATE through the single writer; on
// PostgreSQL a transaction of the write pool, run again after a deadlock) and commits if fn returns
// nil. Its outcome tells Ping whether the store takes writes.
func (db *DB) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	var err error
	if db.d.shared {
		err = pgTx(ctx, db.w, fn)
	} else {
		err = inTx(ctx, db.w, fn)
	}
	db.observe(err)
	return err
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
// debugging. It is the one place that knows SQLite's error codes (classifyPG PostgreSQL's).
func classify(err error) error {
	if err == nil {
		return nil
	}
	var se sqlite3.Error
	if !errors.As(err, &se) {
		if e, ok := classifyPG(err); ok {
			return e
		}
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
	switch se.Code {
	case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrCantOpen,
		sqlite3.ErrReadonly, sqlite3.ErrProtocol, sqlite3.ErrNomem:
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
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
