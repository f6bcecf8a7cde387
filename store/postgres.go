package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PostgreSQL: many nodes, one database. The store's methods and SQL are the same as on SQLite
// (dialect.go); what SQLite's single writer gave for free is given here by the database:
//
//   - A read-then-write decision (the credit allowance, the 20-key cap, an idempotency key) locks
//     the workspace's row first (SELECT ... FOR NO KEY UPDATE), so the nodes' transactions on one
//     workspace decide one after the other. NO KEY UPDATE does not block inserts that merely
//     reference the workspace (keys, batches, ledger rows).
//   - A charge is exactly once per charge id by the ledger's unique key (ON CONFLICT DO NOTHING),
//     whichever node sends it.
//   - Claims take items and webhook deliveries FOR UPDATE SKIP LOCKED: two nodes claiming at once
//     take different rows and neither waits. A lease (owner, expiry) marks a claimed row; a node
//     that dies stops renewing, and once the lease expires any node requeues the row.
//   - Transactions run at READ COMMITTED; one that loses a deadlock or a serialization conflict
//     is run again from the start (pgRetries).
//   - The group commit of charges (groupcommit.go) is kept: each commit costs PostgreSQL a WAL
//     flush as it costs SQLite an fsync, and a group pays it once for many charges; it also takes
//     each workspace's row lock once per group rather than once per charge.

// DefaultPoolSize is the default of Options.PoolSize.
const DefaultPoolSize = 10

// pgRetries bounds how often a transaction that lost a deadlock or a serialization conflict is
// run again.
const pgRetries = 5

// openPostgres opens the PostgreSQL database at dsn (a postgres:// URL) and applies any pending
// migrations under an advisory lock.
func openPostgres(ctx context.Context, dsn string, opts Options) (*DB, error) {
	w, err := openPGPool(dsn, opts, false)
	if err != nil {
		return nil, err
	}
	db := &DB{w: w, d: postgresDialect, opts: opts, path: RedactDSN(dsn)}
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("opening store %s: %w", db.path, classify(err))
	}
	if err := migrate(ctx, w, db.d); err != nil {
		w.Close()
		return nil, err
	}
	if db.r, err = openPGPool(dsn, opts, true); err != nil {
		w.Close()
		return nil, err
	}
	if err := db.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	db.startCharger()
	db.startLogWriter()
	return db, nil
}

// openPGPool opens a pool of pgx connections speaking the store's SQL; readOnly makes every
// transaction of the pool read-only, as SQLite's query_only readers are.
func openPGPool(dsn string, opts Options, readOnly bool) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message quotes the URL, password included: keep only what it says is wrong.
		var pe *pgconn.ParseConfigError
		if errors.As(err, &pe) && pe.Unwrap() != nil {
			err = pe.Unwrap()
		}
		return nil, fmt.Errorf("opening store %s: %w: %w", RedactDSN(dsn), ErrInvalid, err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = opts.Timeout
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "asa"
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	p := sql.OpenDB(pgConnector{stdlib.GetConnector(*cfg)})
	p.SetMaxOpenConns(opts.PoolSize)
	p.SetMaxIdleConns(opts.PoolSize)
	// A server restarted or a connection cut by a proxy is noticed by the next use anyway; closing
	// idle connections after a while keeps a quiet node from holding server slots for nothing.
	p.SetConnMaxIdleTime(5 * time.Minute)
	return p, nil
}

// RedactDSN returns a database name fit for logs: a PostgreSQL URL without its password, a file
// path as it is.
func RedactDSN(dsn string) string {
	if !IsPostgres(dsn) {
		return dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://(unparsable URL)"
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// pgTxWithin runs fn in a transaction whose every wait (for a pool connection, for a row lock, for
// a statement) ends by deadline; running out of time is ErrUnavailable and nothing is written. A
// transaction that lost a deadlock or a serialization conflict is run again while time is left.
func (db *DB) pgTxWithin(deadline time.Time, fn func(*sql.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := db.pgTxOnce(deadline, fn)
		if !pgRetryable(err) || attempt == pgRetries || time.Until(deadline) <= 0 {
			return err
		}
	}
}

func (db *DB) pgTxOnce(deadline time.Time, fn func(*sql.Tx) error) error {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("%w: waiting for a connection: %w", ErrUnavailable, err)
	}
	defer conn.Close()
	left := time.Until(deadline).Milliseconds()
	if left < 1 {
		return fmt.Errorf("%w: no time left to wait for the database", ErrUnavailable)
	}
	// Not ctx: once begun, the transaction runs to its end (a context expiring half way would make
	// database/sql roll back under fn's feet); the server's own timeouts bound its waits instead.
	bg := context.Background()
	tx, err := conn.BeginTx(bg, nil)
	if err != nil {
		return err
	}
	ms := strconv.FormatInt(left, 10) + "ms"
	if _, err := tx.ExecContext(bg, `SELECT set_config('lock_timeout', ?, true), set_config('statement_timeout', ?, true)`, ms, ms); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// pgTx runs fn in a transaction, run again after a deadlock or a serialization conflict.
func pgTx(ctx context.Context, w *sql.DB, fn func(*sql.Tx) error) error {
	for attempt := 1; ; attempt++ {
		err := inTx(ctx, w, fn)
		if !pgRetryable(err) || attempt == pgRetries || ctx.Err() != nil {
			return err
		}
	}
}

// PostgreSQL's error codes the store maps (https://www.postgresql.org/docs/current/errcodes-appendix.html).
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
	pgCheckViolation      = "23514"
	pgNotNullViolation    = "23502"
	pgBadText             = "22021" // invalid UTF-8 or a NUL byte in text
	pgUntranslatable      = "22P05"
	pgSerializationFail   = "40001"
	pgDeadlock            = "40P01"
)

func pgRetryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == pgSerializationFail || pe.Code == pgDeadlock)
}

// classifyPG is classify for PostgreSQL's errors; ok is false for an error that is not the
// server's or the connection's.
func classifyPG(err error) (error, bool) {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case pgUniqueViolation:
			return fmt.Errorf("%w: %w", ErrDuplicate, err), true
		case pgForeignKeyViolation:
			return fmt.Errorf("%w: %w", ErrNotFound, err), true
		case pgCheckViolation, pgNotNullViolation, pgBadText, pgUntranslatable:
			return fmt.Errorf("%w: %w", ErrInvalid, err), true
		}
		switch {
		case len(pe.Code) == 5 && (pe.Code[:2] == "08" || pe.Code[:2] == "53" || pe.Code[:2] == "58"),
			// The server shutting down or starting, a lock or statement that timed out, a read-only
			// server (a standby after a failover), a conflict that kept coming back.
			pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", pe.Code == "55P03", pe.Code == "57014",
			pe.Code == "25006", pe.Code == pgSerializationFail, pe.Code == pgDeadlock:
			return fmt.Errorf("%w: %w", ErrUnavailable, err), true
		}
		return err, true
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || pgconn.SafeToRetry(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err), true
	}
	return err, false
}
