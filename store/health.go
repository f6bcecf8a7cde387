package store

import (
	"context"
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
// on a write lock held elsewhere, as charges would. SQLite's busy wait does not heed ctx, so the
// probe lowers the writer's busy timeout to what is left of ctx for its own transaction.
func (db *DB) probe(ctx context.Context) (err error) {
	var page int
	if err := db.r.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&page); err != nil {
		return err
	}
	wait := db.opts.Timeout
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)*3/4)
	}
	conn, err := db.w.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA busy_timeout = %d", max(wait.Milliseconds(), 1))); err != nil {
		return err
	}
	defer func() {
		if _, rerr := conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA busy_timeout = %d", db.opts.Timeout.Milliseconds())); rerr != nil {
			// A writer that would wait forever, or not at all, must not go back to the pool.
			err = errors.Join(err, rerr, conn.Raw(func(any) error { return driver.ErrBadConn }))
		}
	}()
	tx, err := conn.BeginTx(ctx, nil)
	if err == nil {
		if _, err = tx.ExecContext(ctx, `INSERT INTO store_probe (pad) VALUES (zeroblob(?))`, 3*page); err == nil {
			_, err = tx.ExecContext(ctx, `DELETE FROM store_probe`)
		}
		if err == nil {
			err = tx.Commit()
		} else {
			_ = tx.Rollback()
		}
	}
	db.observe(err)
	return err
}
