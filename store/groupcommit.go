package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Charges are committed in groups. SQLite has one writer, and each commit costs about as much as
// everything else in a charge, so when many requests finish at once (a thousand in flight against
// a slow target) they would queue behind each other's commits. A single goroutine takes whatever
// charges are waiting, runs each in its own savepoint of one transaction, and commits once: every
// charge still commits together with its own usage and log rows, a failing charge rolls back
// alone, and a lone charge on an idle server is committed at once, without waiting for company.

// maxGroup bounds one group commit.
const maxGroup = 256

type chargeReq struct {
	ctx  context.Context
	c    Charge
	log  RequestLog
	at   time.Time
	done chan error
}

func (db *DB) startCharger() {
	db.chargeQ = make(chan *chargeReq, 4096)
	db.chargerDone = make(chan struct{})
	go db.charger()
}

func (db *DB) charger() {
	defer close(db.chargerDone)
	for first := range db.chargeQ {
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
		db.commitGroup(group)
	}
}

func (db *DB) commitGroup(group []*chargeReq) {
	errs := make([]error, len(group))
	err := db.writeTx(context.Background(), func(tx *sql.Tx) error {
		for i, r := range group {
			if _, err := tx.ExecContext(r.ctx, "SAVEPOINT charge"); err != nil {
				return err
			}
			if _, err := chargeTx(r.ctx, tx, r.c, r.log, r.at); err != nil {
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
}

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
