package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Charge is one billable unit of work.
type Charge struct {
	// ID makes the charge idempotent: the request id, or the batch item id. A second Charge with
	// the same ID, for whatever reason (retry, replay after a crash), bills nothing.
	ID          string
	WorkspaceID int64
	KeyID       int64
	Endpoint    string // site.resource
	Credits     int
	At          time.Time // zero means now; decides the calendar month charged
}

// RequestLog is one line of the request log behind usage reports.
type RequestLog struct {
	RequestID   string
	WorkspaceID int64
	KeyID       int64
	Endpoint    string
	Status      int    // our HTTP status
	ErrorCode   string // "" on success
	Cost        int
	// AddOnCredits is the part of Cost that paid for add-ons (render_js, screenshot).
	AddOnCredits int
	Duration     time.Duration
	At           time.Time // zero means now
}

// Charge bills c and logs the request in one transaction. The workspace's allowance for the
// calendar month (UTC) of c.At must cover c.Credits, else it returns ErrInsufficientCredits and
// writes nothing. A charge ID seen before is a no-op that returns nil, even when the allowance has
// since run out: the work was billed already.
//
// log describes the same request; its workspace, key and cost are taken from c so the ledger and
// the log cannot disagree, and its request id defaults to c.ID. Only 2xx responses are billed
// (design decision 5), so a log with another status is ErrInvalid. Charges to sandbox keys are
// ErrInvalid too: catching that here keeps a bug upstream from billing a sandbox request.
func (db *DB) Charge(ctx context.Context, c Charge, log RequestLog) error {
	if c.ID == "" || c.Credits < 0 || c.Endpoint == "" {
		return fmt.Errorf("charging %q: %w: needs an id, an endpoint and credits >= 0", c.ID, ErrInvalid)
	}
	if log.Status == 0 {
		log.Status = 200
	}
	if log.Status < 200 || log.Status > 299 {
		return fmt.Errorf("charging %q: %w: status %d is not billed", c.ID, ErrInvalid, log.Status)
	}
	at := orNow(c.At)
	if log.RequestID == "" {
		log.RequestID = c.ID
	}
	if log.Endpoint == "" {
		log.Endpoint = c.Endpoint
	}
	if log.At.IsZero() {
		log.At = at
	}
	log.WorkspaceID, log.KeyID, log.Cost = c.WorkspaceID, c.KeyID, c.Credits

	r := &chargeReq{ctx: context.WithoutCancel(ctx), c: c, log: log, at: at, done: make(chan error, 1), queued: time.Now()}
	db.chargeMu.RLock()
	if db.chargeClosed {
		db.chargeMu.RUnlock()
		return fmt.Errorf("charging %q: %w", c.ID, ErrClosed)
	}
	select {
	case db.chargeQ <- r:
	case <-ctx.Done():
		db.chargeMu.RUnlock()
		return fmt.Errorf("charging %q: %w", c.ID, ctx.Err())
	}
	db.chargeMu.RUnlock()
	// Once queued, the charge commits (or fails) whatever the caller's context does: the work was
	// done, and the answer must say whether it was billed.
	return <-r.done
}

// The statements of a charge. chargeSQLCheck reads, in one statement, what decides the charge: the
// allowance, whether the key is a sandbox key, and the month's total so far.
const (
	chargeSQLCheck = `SELECT w.monthly_credits, k.test,
	        COALESCE((SELECT credits FROM credit_months m WHERE m.workspace_id = w.id AND m.month = ?), 0)
	 FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
	 WHERE k.id = ? AND k.workspace_id = ?`
	usageInsert    = `INSERT INTO usage (charge_id, workspace_id, key_id, endpoint, credits, created_at) VALUES `
	chargeSQLUsage = usageInsert + `(?, ?, ?, ?, ?, ?) ON CONFLICT (charge_id) DO NOTHING`
	chargeSQLMonth = `INSERT INTO credit_months (workspace_id, month, credits) VALUES (?, ?, ?)
	 ON CONFLICT (workspace_id, month) DO UPDATE SET credits = credit_months.credits + excluded.credits`
	chargeSQLReplay = `SELECT 1 FROM usage WHERE charge_id = ?`
	logInsert       = `INSERT INTO request_log (request_id, workspace_id, key_id, endpoint, status, error_code, cost, addon_credits, duration_ms, created_at) VALUES `
	logKeepFirst    = ` ON CONFLICT (request_id) DO NOTHING`
	logSQL          = logInsert + `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)` + logKeepFirst
	// logCols is the number of values of one request_log row.
	logCols = 10
)

// chargeTx is Charge inside tx (c and log already completed by Charge's rules, at the charge time).
// charged is false for a replayed id. A charge
// that is refused (insufficient credits, a sandbox key, an unknown key) writes nothing, so the
// transaction goes on; any other error may leave part of the charge written, and tx must be
// rolled back.
func (db *DB) chargeTx(ctx context.Context, tx *sql.Tx, c Charge, log RequestLog, at time.Time) (charged bool, err error) {
	if err := db.lockWorkspace(ctx, tx, c.WorkspaceID); err != nil {
		return false, err
	}
	var allowance, used int
	var test bool
	err = tx.QueryRowContext(ctx, chargeSQLCheck, monthKey(at), c.KeyID, c.WorkspaceID).Scan(&allowance, &test, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("key %d of workspace %d: %w", c.KeyID, c.WorkspaceID, ErrNotFound)
	}
	if err != nil {
		return false, err
	}
	if test {
		return false, fmt.Errorf("%w: sandbox keys are never billed", ErrInvalid)
	}
	if used+c.Credits > allowance {
		// A replay of a charge that went through stands, spent allowance or not.
		var one int
		switch err := tx.QueryRowContext(ctx, chargeSQLReplay, c.ID).Scan(&one); {
		case err == nil:
			return false, nil
		case !errors.Is(err, sql.ErrNoRows):
			return false, err
		}
		return false, fmt.Errorf("%w: %d of %d used, %d more asked", ErrInsufficientCredits, used, allowance, c.Credits)
	}
	// The ledger insert comes first: if the id is known, stop before touching the balance.
	res, err := tx.ExecContext(ctx, chargeSQLUsage, c.ID, c.WorkspaceID, c.KeyID, c.Endpoint, c.Credits, ms(at))
	if err != nil {
		return false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return false, err // nil for a replay: nothing was written, and the first charge stands
	}
	if _, err := tx.ExecContext(ctx, chargeSQLMonth, c.WorkspaceID, monthKey(at), c.Credits); err != nil {
		return false, err
	}
	return true, insertLog(ctx, tx, log)
}

// refused reports whether a charge error is a refusal that wrote nothing (the transaction goes on).
func refused(err error) bool {
	return errors.Is(err, ErrInsufficientCredits) || errors.Is(err, ErrInvalid) || errors.Is(err, ErrNotFound)
}

// execer is what insertLog needs from a *sql.DB or a *sql.Tx.
type execer interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}

func insertLog(ctx context.Context, q execer, l RequestLog) error {
	// A request id logged before (a retried batch item, a replayed charge) keeps its first line.
	_, err := q.ExecContext(ctx, logSQL, logArgs(l)...)
	return err
}

func logArgs(l RequestLog) []any {
	return []any{l.RequestID, l.WorkspaceID, l.KeyID, l.Endpoint, l.Status, l.ErrorCode, l.Cost, min(max(l.AddOnCredits, 0), l.Cost), l.Duration.Milliseconds(), ms(orNow(l.At))}
}

const creditsUsedSQL = `SELECT credits FROM credit_months WHERE workspace_id = ? AND month = ?`

// CreditsUsed returns the credits the workspace was billed in the calendar month (UTC) containing
// month.
func (db *DB) CreditsUsed(ctx context.Context, workspaceID int64, month time.Time) (int, error) {
	var used int
	err := db.creditsUsed.QueryRowContext(ctx, workspaceID, monthKey(month)).Scan(&used)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("reading credits of workspace %d: %w", workspaceID, classify(err))
	}
	return used, nil
}

// UsageQuery selects a usage report.
type UsageQuery struct {
	WorkspaceID int64
	KeyShort    string    // "" for every key; an unknown short prefix gives ErrNotFound
	Since       time.Time // zero for all history
	Until       time.Time // exclusive; zero for no end
	Endpoint    string    // "" for every endpoint
}

// UsageRow is one day and endpoint of a usage report.
type UsageRow struct {
	Day      time.Time // midnight UTC
	Endpoint string
	Requests int // every logged request, billed or not
	Credits  int
	Errors   int // requests answered with a non-2xx status
	// AddOnCredits is the part of Credits that paid for add-ons (render_js, screenshot).
	AddOnCredits int
}

const day = 24 * time.Hour

// Usage reports requests, credits and errors per UTC day and endpoint, oldest day first, from the
// request log (which Charge writes with the ledger, so credits agree with billing) and the refusal
// counts. What LogRequest still buffers is written first, so the report includes every request
// logged before the call.
func (db *DB) Usage(ctx context.Context, q UsageQuery) ([]UsageRow, error) {
	_ = db.flushLogs(ctx) // what the database cannot take yet is not reported yet
	var keyFilter string
	var keyArg []any
	if q.KeyShort != "" {
		var keyID int64
		err := db.r.QueryRowContext(ctx,
			`SELECT id FROM api_keys WHERE workspace_id = ? AND short_prefix = ?`,
			q.WorkspaceID, q.KeyShort).Scan(&keyID)
		if errors.Is(err, sql.ErrNoRows) {
			err = ErrNotFound
		}
		if err != nil {
			return nil, fmt.Errorf("reporting usage of key %s: %w", q.KeyShort, classify(err))
		}
		keyFilter = ` AND key_id = ?`
		keyArg = []any{keyID}
	}
	// The request log is filtered by time in ms and the refusal counts by minute: the same filter
	// for both, written once with its arguments.
	logFilter, refusalFilter := keyFilter, keyFilter
	logArgs, refusalArgs := keyArg, keyArg
	if !q.Until.IsZero() {
		logFilter += ` AND created_at < ?`
		logArgs = append(slices.Clone(logArgs), ms(q.Until))
		refusalFilter += ` AND minute < ?`
		refusalArgs = append(slices.Clone(refusalArgs), sinceMinute(q.Until))
	}
	if q.Endpoint != "" {
		logFilter += ` AND endpoint = ?`
		logArgs = append(slices.Clone(logArgs), q.Endpoint)
		refusalFilter += ` AND endpoint = ?`
		refusalArgs = append(slices.Clone(refusalArgs), q.Endpoint)
	}
	const minutesPerDay = 24 * 60
	query := `SELECT day, endpoint, SUM(requests), SUM(credits), SUM(errors), SUM(addons) FROM (
	            SELECT created_at / ? AS day, endpoint, COUNT(*) AS requests, COALESCE(SUM(cost), 0) AS credits,
	                   COALESCE(SUM(CASE WHEN status < 200 OR status > 299 THEN 1 ELSE 0 END), 0) AS errors,
	                   COALESCE(SUM(addon_credits), 0) AS addons
	            FROM request_log WHERE workspace_id = ? AND created_at >= ?` + logFilter + `
	            GROUP BY day, endpoint
	          UNION ALL
	            SELECT minute / ? AS day, endpoint, SUM(count), 0, SUM(count), 0
	            FROM refusals WHERE workspace_id = ? AND minute >= ?` + refusalFilter + `
	            GROUP BY day, endpoint) AS t
	          GROUP BY day, endpoint ORDER BY day, endpoint`
	args := append([]any{day.Milliseconds(), q.WorkspaceID, ms(q.Since)}, logArgs...)
	args = append(args, minutesPerDay, q.WorkspaceID, sinceMinute(q.Since))
	args = append(args, refusalArgs...)
	rows, err := db.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("reporting usage: %w", err)
	}
	defer rows.Close()
	var out []UsageRow
	for rows.Next() {
		var r UsageRow
		var d int64
		if err := rows.Scan(&d, &r.Endpoint, &r.Requests, &r.Credits, &r.Errors, &r.AddOnCredits); err != nil {
			return nil, fmt.Errorf("reporting usage: %w", err)
		}
		r.Day = fromMS(d * day.Milliseconds())
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reporting usage: %w", err)
	}
	return out, nil
}
