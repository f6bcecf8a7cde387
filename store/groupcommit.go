package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Charges are committed in groups. SQLite has one writer, and each commit costs about as much as
// everything else in a charge, so when many requests finish at once (a thousand in flight against
// a slow target) they would queue behind each other's commits. A single goroutine takes whatever
// charges are waiting, runs them in one transaction, and commits once: every charge still commits
// together with its own usage and log rows, a refused or failing charge does not take the others
// with it, and a lone charge on an idle server is committed at once, without waiting for company.

// maxGroup bounds one group commit; from bulkFrom charges on, a group is written in bulk.
const (
	maxGroup = 256
	bulkFrom = 4
)

type chargeReq struct {
	ctx  context.Context
	c    Charge
	log  RequestLog
	at   time.Time
	done chan error
	// queued is when Charge queued it (monotonic): refuseQueued refuses only the charges queued
	// before a failed attempt ended.
	queued time.Time
}

func (db *DB) startCharger() {
	db.chargeQ = make(chan *chargeReq, 4096)
	db.chargerDone = make(chan struct{})
	go db.charger()
}

func (db *DB) charger() {
	defer close(db.chargerDone)
	var next *chargeReq // the first charge of the next group, when refuseQueued met it
	for {
		first := next
		if first == nil {
			r, ok := <-db.chargeQ
			if !ok {
				return
			}
			first = r
		}
		group := []*chargeReq{first}
	drain:
		for len(group) < maxGroup {
			select {
			case r, ok := <-db.chargeQ:
				if !ok {
					break drain
				}
				group = append(group, r)
			default:
				break drain
			}
		}
		next = nil
		if ended, err := db.commitGroup(group); unavailable(err) {
			next = db.refuseQueued(err, ended)
		}
	}
}

// refuseQueued answers the charges queued while a group's attempt failed for want of the database
// (locked by another process past the timeout, disk full) with that failure, without trying them:
// they have waited through the failed attempt already, and trying each group again would make the
// last of them wait a timeout per group before them. Nothing of them was written. The first charge
// queued after the attempt ended is returned, to be tried: the database may be back.
func (db *DB) refuseQueued(cause error, ended time.Time) *chargeReq {
	for {
		select {
		case r, ok := <-db.chargeQ:
			if !ok {
				return nil
			}
			if r.queued.After(ended) {
				return r
			}
			r.done <- fmt.Errorf("charging %q: not tried, the store failed the charges before it: %w", r.c.ID, classify(cause))
		default:
			return nil
		}
	}
}

// commitGroup commits the group and answers each charge; it returns the error that failed the
// whole group, if one did, and when the attempt ended (before any charge was answered).
func (db *DB) commitGroup(group []*chargeReq) (ended time.Time, err error) {
	if db.d.shared {
		// Workspaces' rows are locked in id order by every group (bulkCharge), one by one too, so
		// two nodes' groups never wait on each other. A workspace's own charges keep their order.
		group = slices.Clone(group)
		slices.SortStableFunc(group, func(a, b *chargeReq) int { return cmp.Compare(a.c.WorkspaceID, b.c.WorkspaceID) })
	}
	errs := make([]error, len(group))
	// The fast path: one transaction, no savepoints. A refused charge writes nothing, so only a
	// failing statement can leave a charge half written; then the whole group is rolled back and
	// redone with a savepoint around each charge. A few charges run one by one; more are decided
	// together and written with one statement per table (bulkCharge). Both attempts together wait
	// at most Timeout for the database: a charge is answered within about that, committed or not.
	deadline := time.Now().Add(db.opts.Timeout)
	err = db.writeTxWithin(deadline, func(tx *sql.Tx) error {
		clear(errs) // a transaction run again (PostgreSQL, after a deadlock) decides again
		if len(group) >= bulkFrom {
			if err := db.bulkCharge(context.Background(), tx, group, errs); err != nil {
				return errFallback{err}
			}
			return nil
		}
		for i, r := range group {
			if _, err := db.chargeTx(r.ctx, tx, r.c, r.log, r.at); err != nil {
				if !refused(err) {
					return errFallback{err}
				}
				errs[i] = err
			}
		}
		return nil
	})
	var fb errFallback
	// A statement that failed for want of the database (disk full) would fail again one charge at
	// a time: the group fails as a whole instead.
	if errors.As(err, &fb) && !unavailable(fb.err) {
		db.groupFallbacks.Add(1)
		clear(errs)
		err = db.writeTxWithin(deadline, func(tx *sql.Tx) error {
			for i, r := range group {
				if _, err := tx.ExecContext(r.ctx, "SAVEPOINT charge"); err != nil {
					return err
				}
				if _, err := db.chargeTx(r.ctx, tx, r.c, r.log, r.at); err != nil {
					errs[i] = err
					if _, err := tx.ExecContext(r.ctx, "ROLLBACK TO charge"); err != nil {
						return err
					}
				}
				if _, err := tx.ExecContext(r.ctx, "RELEASE charge"); err != nil {
					return err
				}
			}
			return nil
		})
	}
	ended = time.Now()
	for i, r := range group {
		e := errs[i]
		if err != nil {
			e = err // the commit failed: nothing of the group was written
		}
		if e != nil {
			e = fmt.Errorf("charging %q: %w", r.c.ID, classify(e))
		}
		r.done <- e
	}
	return ended, err
}

// errFallback marks a statement that failed inside the fast path of a group commit.
type errFallback struct{ err error }

func (e errFallback) Error() string { return e.err.Error() }
func (e errFallback) Unwrap() error { return e.err }

// stopCharger finishes the queued charges and stops the goroutine.
func (db *DB) stopCharger() {
	if db.chargeQ == nil {
		return
	}
	db.chargeMu.Lock()
	db.chargeClosed = true
	close(db.chargeQ)
	db.chargeMu.Unlock()
	<-db.chargerDone
}

// ErrClosed is returned by Charge once the store is closing.
var ErrClosed = errors.New("store closed")
