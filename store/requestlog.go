package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// The unbilled request log is written in the background, in groups, as charges are. A refused
// request (a 429 most of all) costs the client nothing and us one row: a free key flooding
// refusals at thousands a second wrote thousands of autocommits a second, and the WAL grew by
// about 20 MB a second. So LogRequest only records the request in memory and returns; a
// goroutine commits what has accumulated every logFlushEvery (or sooner, once maxGroup rows are
// waiting) in one transaction. Refusals (any status other than 2xx) are not rows at all but counts
// per key, endpoint, minute, status and error code, added to one refusals row a minute; a
// successful unbilled request (a sandbox key's) keeps its own request_log row, and those are few
// because the key's rate limit admitted them. Billed requests are logged with their charge
// (groupcommit.go), never here.
//
// The price is durability: a crash loses what was not flushed yet, at most about a second of
// unbilled requests, which bill nothing. Close flushes.

const (
	logFlushEvery = time.Second
	// maxPendingRows bounds the rows held while the store cannot take them; past it new rows are
	// dropped and counted (Dropped). Refusal counts are bounded by keys x minutes and never dropped.
	maxPendingRows = 1 << 15
)

type refusalKey struct {
	workspace, key int64
	endpoint       string
	minute         int64
	status         int
	code           string
}

type refusalCount struct {
	n     int64
	first string // the first request id counted
}

// pendingLog is what is waiting to be written.
type pendingLog struct {
	rows     []RequestLog
	refusals map[refusalKey]*refusalCount
	touches  map[int64]int64 // key id -> last used, Unix ms
}

func (p *pendingLog) empty() bool {
	return len(p.rows) == 0 && len(p.refusals) == 0 && len(p.touches) == 0
}

// merge adds q (older, whose write failed) back in front of p.
func (p *pendingLog) merge(q *pendingLog) (dropped int) {
	if n := len(q.rows) + len(p.rows) - maxPendingRows; n > 0 {
		dropped = min(n, len(q.rows))
		q.rows = q.rows[dropped:]
	}
	p.rows = append(q.rows, p.rows...)
	for k, c := range q.refusals {
		if have := p.refusals[k]; have != nil {
			have.n += c.n
			have.first = c.first
		} else {
			p.refusals[k] = c
		}
	}
	for k, t := range q.touches {
		p.touches[k] = max(p.touches[k], t)
	}
	return dropped
}

type logWriter struct {
	mu      sync.Mutex
	pending pendingLog
	dropped int64
	// flushMu serialises flushes (the background one and Usage's).
	flushMu    sync.Mutex
	kick       chan struct{}
	stop, done chan struct{}
}

func newPending() pendingLog {
	return pendingLog{refusals: map[refusalKey]*refusalCount{}, touches: map[int64]int64{}}
}

func (db *DB) startLogWriter() {
	db.logs = &logWriter{pending: newPending(), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go db.logLoop()
}

func (db *DB) logLoop() {
	defer close(db.logs.done)
	t := time.NewTicker(logFlushEvery)
	defer t.Stop()
	for {
		select {
		case <-db.logs.stop:
			if err := db.flushLogs(context.Background()); err != nil {
				db.opts.Log.Error("request log: unwritten entries lost at close", "err", err)
			}
			return
		case <-t.C:
		case <-db.logs.kick:
		}
		_ = db.flushLogs(context.Background())
	}
}

func (db *DB) stopLogWriter() {
	if db.logs == nil {
		return
	}
	close(db.logs.stop)
	<-db.logs.done
}

// LogRequest records a request that is not billed: an error, a 429, a sandbox request. Requests
// without a known key (401 unauthorized) have no workspace and belong in the process log instead.
// It does not wait for the database: the request is written with others within about a second
// (see above), and Usage sees it at once. An error means it was not recorded.
func (db *DB) LogRequest(ctx context.Context, l RequestLog) error {
	if l.RequestID == "" || l.Cost < 0 || l.Status == 0 {
		return fmt.Errorf("logging request: %w: needs a request id, a status and cost >= 0", ErrInvalid)
	}
	l.At = orNow(l.At)
	w := db.logs
	w.mu.Lock()
	defer w.mu.Unlock()
	if l.Status < 200 || l.Status > 299 {
		k := refusalKey{l.WorkspaceID, l.KeyID, l.Endpoint, l.At.Unix() / 60, l.Status, l.ErrorCode}
		if c := w.pending.refusals[k]; c != nil {
			c.n++
		} else {
			w.pending.refusals[k] = &refusalCount{n: 1, first: l.RequestID}
		}
		return nil
	}
	if len(w.pending.rows) >= maxPendingRows {
		w.dropped++
		return fmt.Errorf("logging request %q: %w: %d log rows wait for the database", l.RequestID, ErrUnavailable, len(w.pending.rows))
	}
	w.pending.rows = append(w.pending.rows, l)
	if len(w.pending.rows) == maxGroup {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// NoteKeyUsed records that the key was used at t, written with the request log (TouchKey without
// waiting for the database).
func (db *DB) NoteKeyUsed(keyID int64, t time.Time) {
	w := db.logs
	w.mu.Lock()
	w.pending.touches[keyID] = max(w.pending.touches[keyID], ms(t))
	w.mu.Unlock()
}

// DroppedLogRows counts the unbilled request-log rows dropped because the database could not take
// them for too long.
func (db *DB) DroppedLogRows() int64 {
	db.logs.mu.Lock()
	defer db.logs.mu.Unlock()
	return db.logs.dropped
}

const refusalUpsert = `INSERT INTO refusals (workspace_id, key_id, endpoint, minute, status, error_code, count, first_request_id)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (key_id, minute, endpoint, status, error_code) DO UPDATE SET count = refusals.count + excluded.count`

const touchSQL = `UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`

// flushLogs writes what is pending in one transaction. When the database is unavailable the
// batch goes back in front of what arrived since, to be tried again. Any other failure is an item
// the database refuses (a key purged in between): the batch is then written one savepoint per
// item and the refused items are dropped, so one bad row cannot block the log for good.
func (db *DB) flushLogs(ctx context.Context) error {
	// The flush is everyone's, not the caller's: a caller that goes away must not cut it short (a
	// cancelled statement would look like an entry the database refuses).
	ctx = context.WithoutCancel(ctx)
	w := db.logs
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.mu.Lock()
	batch := w.pending
	w.pending = newPending()
	w.mu.Unlock()
	if batch.empty() {
		return nil
	}
	// While the store fails, a flush tries briefly: it must not hold the writer, which charges
	// wait for, through a whole busy timeout every second.
	wait := db.opts.Timeout
	if db.failing.Load() != nil {
		wait = min(wait, checkpointBusy)
	}
	deadline := time.Now().Add(wait)
	err := db.writeTxWithin(deadline, func(tx *sql.Tx) error { return writeLogs(ctx, tx, &batch, nil) })
	if err != nil && !unavailable(err) {
		var refused int
		err = db.writeTxWithin(deadline, func(tx *sql.Tx) error {
			refused = 0
			return writeLogs(ctx, tx, &batch, func() { refused++ })
		})
		if err == nil && refused > 0 {
			db.opts.Log.Warn("request log: the database refused some entries; dropped", "entries", refused)
			w.mu.Lock()
			w.dropped += int64(refused)
			w.mu.Unlock()
		}
	}
	if err != nil {
		w.mu.Lock()
		w.dropped += int64(w.pending.merge(&batch))
		w.mu.Unlock()
		return fmt.Errorf("writing the request log: %w", classify(err))
	}
	return nil
}

// writeLogs writes batch in tx: in bulk when refused is nil, else with one savepoint per item,
// calling refused for each item the database refuses.
func writeLogs(ctx context.Context, tx *sql.Tx, batch *pendingLog, refused func()) error {
	oneByOne := refused != nil
	// one runs a statement, inside its own savepoint when going one by one.
	one := func(q string, args ...any) error {
		if !oneByOne {
			_, err := tx.ExecContext(ctx, q, args...)
			return err
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT logitem"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			if unavailable(err) {
				return err
			}
			refused()
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO logitem"); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, "RELEASE logitem")
		return err
	}
	step := maxGroup
	if oneByOne {
		step = 1
	}
	for rows := batch.rows; len(rows) > 0; {
		n := min(step, len(rows))
		args := make([]any, 0, logCols*n)
		for _, l := range rows[:n] {
			args = append(args, logArgs(l)...)
		}
		if err := one(logInsert+rowMarks(n, logCols)+logKeepFirst, args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	// In key order, so that the writes are deterministic whatever the map's order.
	for _, k := range sortedRefusals(batch.refusals) {
		c := batch.refusals[k]
		if err := one(refusalUpsert, k.workspace, k.key, k.endpoint, k.minute, k.status, k.code, c.n, c.first); err != nil {
			return err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(batch.touches)) {
		t := batch.touches[id]
		if err := one(touchSQL, t, id, t); err != nil {
			return err
		}
	}
	return nil
}

func sortedRefusals(m map[refusalKey]*refusalCount) []refusalKey {
	return slices.SortedFunc(maps.Keys(m), func(a, b refusalKey) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.minute, b.minute), strings.Compare(a.endpoint, b.endpoint),
			cmp.Compare(a.status, b.status), strings.Compare(a.code, b.code))
	})
}

// RefusalCount is the count of one kind of refused request of one key in one minute.
type RefusalCount struct {
	KeyID     int64
	Endpoint  string
	Minute    time.Time // UTC
	Status    int
	ErrorCode string
	Count     int64
	// FirstRequestID is the first request counted.
	FirstRequestID string
}

// Refusals lists the workspace's refusal counts since since (whole minutes), oldest first. What is
// still buffered is written first, so the answer includes every request logged before the call.
func (db *DB) Refusals(ctx context.Context, workspaceID int64, since time.Time) ([]RefusalCount, error) {
	_ = db.flushLogs(ctx) // what the database cannot take yet is not reported yet
	rows, err := db.r.QueryContext(ctx, `SELECT key_id, endpoint, minute, status, error_code, count, first_request_id
		FROM refusals WHERE workspace_id = ? AND minute >= ? ORDER BY minute, key_id, endpoint, status, error_code`,
		workspaceID, sinceMinute(since))
	if err != nil {
		return nil, fmt.Errorf("listing refusals: %w", classify(err))
	}
	defer rows.Close()
	var out []RefusalCount
	for rows.Next() {
		var r RefusalCount
		var m int64
		if err := rows.Scan(&r.KeyID, &r.Endpoint, &m, &r.Status, &r.ErrorCode, &r.Count, &r.FirstRequestID); err != nil {
			return nil, fmt.Errorf("listing refusals: %w", err)
		}
		r.Minute = time.Unix(m*60, 0).UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing refusals: %w", err)
	}
	return out, nil
}

// sinceMinute is the first whole minute at or after since.
func sinceMinute(since time.Time) int64 {
	m := ms(since)
	q := m / 60000
	if m > 0 && m%60000 != 0 {
		q++
	}
	return q
}
