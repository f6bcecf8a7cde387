package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"
)

// unavailable reports whether err means the database could not do the work (locked, full, I/O)
// rather than that the work was wrong.
func unavailable(err error) bool {
	return err != nil && errors.Is(classify(err), ErrUnavailable)
}

// observe records the outcome of a write: an unavailability makes Ping fail until a write
// succeeds again. Other errors (a constraint, a refused charge) say nothing about the store.
func (db *DB) observe(err error) {
	switch {
	case err == nil:
		if prev := db.failing.Swap(nil); prev != nil {
			db.opts.Log.Info("store available again", "after", (*prev).Error())
		}
	case unavailable(err):
		e := classify(err)
		if prev := db.failing.Swap(&e); prev == nil {
			db.opts.Log.Warn("store unavailable", "err", e)
		}
	}
}

// Ping reports whether the store answers and takes writes: nil, or an error wrapping
// ErrUnavailable. While the last write failed for want of the database, Ping tries a small write
// of its own (which needs free pages, as a charge does), so readiness comes back as soon as the
// store does, with or without traffic.
func (db *DB) Ping(ctx context.Context) error {
	if db.failing.Load() == nil {
		var one int
		if err := db.r.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
			return fmt.Errorf("pinging store: %w", classify(err))
		}
		return nil
	}
	if err := db.probe(ctx); err != nil {
		if prev := db.failing.Load(); prev != nil && !unavailable(err) {
			err = *prev // the probe was cut short (ctx): the store is still as last seen
		}
		return fmt.Errorf("pinging store: %w", classify(err))
	}
	return nil
}

// probe commits a write that allocates pages and gives them back: it fails on a full database and
// on a write lock held elsewhere, as charges would. It waits at most Timeout, and less when ctx ends
// sooner.
func (db *DB) probe(ctx context.Context) error {
	wait := db.opts.Timeout
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)*3/4)
	}
	page := 8192 // PostgreSQL's
	if !db.d.shared {
		if err := db.r.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&page); err != nil {
			return err
		}
	}
	return db.writeTxWithin(time.Now().Add(wait), func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT INTO store_probe (pad) VALUES (?)`, make([]byte, 3*page)); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM store_probe`)
		return err
	})
}

// busySlack is how far past its deadline writeTxWithin may wait rather than change the writer's
// busy timeout for one transaction.
const busySlack = 50 * time.Millisecond

// writeTxWithin is writeTx with every wait for the database bounded by deadline: the wait for the
// writer connection (which another transaction may hold while SQLite makes it wait), then the wait
// for the write lock. SQLite's busy wait does not heed a context, so when less than the connection's
// busy timeout is left, the busy timeout is lowered for this transaction. Running out of time is
// ErrUnavailable, and nothing was written.
func (db *DB) writeTxWithin(deadline time.Time, fn func(*sql.Tx) error) (err error) {
	defer func() { db.observe(err) }()
	if db.d.shared {
		return db.pgTxWithin(deadline, fn)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return fmt.Errorf("%w: waiting for the writer: %w", ErrUnavailable, err)
	}
	defer conn.Close()
	if left := time.Until(deadline); left < db.opts.Timeout-busySlack {
		if left < time.Millisecond {
			return fmt.Errorf("%w: no time left to wait for the database", ErrUnavailable)
		}
		if _, err := conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA busy_timeout = %d", left.Milliseconds())); err != nil {
			return err
		}
		defer func() {
			if _, rerr := conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA busy_timeout = %d", db.opts.Timeout.Milliseconds())); rerr != nil {
				// A writer left with a shorter busy timeout must not go back to the pool.
				err = errors.Join(err, rerr, conn.Raw(func(any) error { return driver.ErrBadConn }))
			}
		}()
	}
	// Not ctx: once the transaction has begun, it runs to its end; a context expiring half way
	// would make database/sql roll back and drop the writer.
	tx, err := conn.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
