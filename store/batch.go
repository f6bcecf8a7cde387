package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Batch errors.
var (
	// ErrIdempotencyConflict: an idempotency key reused, within its window, with another request.
	ErrIdempotencyConflict = errors.New("idempotency key reused with another request")
	// ErrLeaseLost: a completion whose claim is no longer current (the item was requeued and
	// perhaps claimed again). The completion wrote nothing.
	ErrLeaseLost = errors.New("lease lost")
	// ErrKeyRevoked: a completion that would bill a key revoked (or purged) since its batch was
	// created. Nothing was written; complete the item again as failed.
	ErrKeyRevoked = errors.New("the batch's key is revoked")
)

// Batch states (spec 3.1, design decision 9).
const (
	BatchPending  = "pending"
	BatchRunning  = "running"
	BatchComplete = "complete"
	BatchFailed   = "failed"
)

// Item states. Queued and running are the queue; ok and failed are results.
const (
	ItemQueued  = "queued"
	ItemRunning = "running"
	ItemOK      = "ok"
	ItemFailed  = "failed"
)

// Webhook delivery states (design decision 10).
const (
	WebhookPending   = "pending"
	WebhookDelivered = "delivered"
	WebhookRetrying  = "retrying"
	WebhookFailed    = "failed"
)

// MaxBatchItems is the most items one batch holds (spec 8.2).
const MaxBatchItems = 1000

// NewBatch is a batch to create.
type NewBatch struct {
	ID          string // UUID, chosen by the caller
	WorkspaceID int64
	KeyID       int64
	Test        bool
	Endpoint    string
	// Items are the submitted items, each a JSON object, in order.
	Items         [][]byte
	WebhookURL    string // "" for none
	WebhookSecret string // set with WebhookURL
	CreatedAt     time.Time
	// IdempotencyKey, when set, makes CreateBatch return the batch created under the same key, in the
	// same workspace and mode (Test), within IdempotencyWindow, or ErrIdempotencyConflict when
	// RequestHash differs. A sandbox batch never answers a live request, nor the reverse.
	IdempotencyKey    string
	RequestHash       string
	IdempotencyWindow time.Duration
}

// Batch is a stored batch.
type Batch struct {
	ID                 string
	WorkspaceID        int64
	KeyID              int64
	Test               bool
	Endpoint           string
	Status             string
	Total              int
	Processed          int
	Succeeded          int
	Failed             int
	Credits            int
	CreatedAt          time.Time
	StartedAt          time.Time // zero until the first item is claimed
	CompletedAt        time.Time // zero until the batch ends
	WebhookURL         string
	WebhookSecret      string
	WebhookStatus      string // "" without a webhook
	WebhookLastError   string
	WebhookDeliveredAt time.Time
}

// ItemResult is a finished item.
type ItemResult struct {
	Index      int
	Input      []byte
	Status     string // ItemOK or ItemFailed
	HTTPStatus int
	ErrorCode  string
	Data       []byte
	Duration   time.Duration
	Credits    int
	FinishedAt time.Time
}

const batchCols = `b.id, b.workspace_id, b.key_id, b.test, b.endpoint, b.status, b.total_count, b.processed_count,
	b.success_count, b.failure_count, b.credits_charged, b.created_at, b.started_at, b.completed_at,
	b.webhook_url, b.webhook_secret, b.webhook_delivery_status, b.webhook_last_error, b.webhook_delivered_at`

func scanBatch(row interface{ Scan(...any) error }) (Batch, error) {
	var b Batch
	var created int64
	var started, completed, delivered sql.NullInt64
	var url, secret, whStatus, whErr sql.NullString
	err := row.Scan(&b.ID, &b.WorkspaceID, &b.KeyID, &b.Test, &b.Endpoint, &b.Status, &b.Total, &b.Processed,
		&b.Succeeded, &b.Failed, &b.Credits, &created, &started, &completed,
		&url, &secret, &whStatus, &whErr, &delivered)
	if err != nil {
		return Batch{}, err
	}
	b.CreatedAt, b.StartedAt, b.CompletedAt, b.WebhookDeliveredAt = fromMS(created), fromNullMS(started), fromNullMS(completed), fromNullMS(delivered)
	b.WebhookURL, b.WebhookSecret, b.WebhookStatus, b.WebhookLastError = url.String, secret.String, whStatus.String, whErr.String
	return b, nil
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// CreateBatch stores a batch and its items, all queued, in one transaction. With an idempotency key
// seen within its window it returns the earlier batch and replayed true (ErrIdempotencyConflict if
// the request hash differs); a key older than the window is forgotten and reused.
func (db *DB) CreateBatch(ctx context.Context, nb NewBatch) (b Batch, replayed bool, err error) {
	if nb.ID == "" || nb.Endpoint == "" || len(nb.Items) == 0 || len(nb.Items) > MaxBatchItems || (nb.WebhookURL == "") != (nb.WebhookSecret == "") {
		return Batch{}, false, fmt.Errorf("creating batch: %w: needs an id, an endpoint, 1 to %d items, and a secret with a webhook", ErrInvalid, MaxBatchItems)
	}
	created := orNow(nb.CreatedAt)
	err = db.writeTx(ctx, func(tx *sql.Tx) error {
		replayed = false
		if nb.IdempotencyKey != "" {
			// Two nodes given the same key at once: the second waits here for the first's batch.
			if err := db.lockWorkspace(ctx, tx, nb.WorkspaceID); err != nil {
				return err
			}
			var hash, id string
			var at int64
			err := tx.QueryRowContext(ctx,
				`SELECT request_hash, batch_id, created_at FROM batch_idempotency WHERE workspace_id = ? AND test = ? AND key = ?`,
				nb.WorkspaceID, nb.Test, nb.IdempotencyKey).Scan(&hash, &id, &at)
			switch {
			case errors.Is(err, sql.ErrNoRows):
			case err != nil:
				return err
			case ms(created)-at < nb.IdempotencyWindow.Milliseconds():
				if hash != nb.RequestHash {
					return ErrIdempotencyConflict
				}
				b, err = scanBatch(tx.QueryRowContext(ctx, `SELECT `+batchCols+` FROM batches b WHERE b.id = ?`, id))
				replayed = true
				return err
			default:
				if _, err := tx.ExecContext(ctx, `DELETE FROM batch_idempotency WHERE workspace_id = ? AND test = ? AND key = ?`,
					nb.WorkspaceID, nb.Test, nb.IdempotencyKey); err != nil {
					return err
				}
			}
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO batches (id, workspace_id, key_id, test, endpoint, status, total_count, queued_count, created_at, webhook_url, webhook_secret)
			 VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
			nb.ID, nb.WorkspaceID, nb.KeyID, nb.Test, nb.Endpoint, len(nb.Items), len(nb.Items), ms(created),
			nullString(nb.WebhookURL), nullString(nb.WebhookSecret))
		if err != nil {
			return err
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO batch_items (batch_id, idx, input, state) VALUES (?, ?, ?, 'queued')`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, in := range nb.Items {
			if _, err := stmt.ExecContext(ctx, nb.ID, i, string(in)); err != nil {
				return err
			}
		}
		if nb.IdempotencyKey != "" {
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO batch_idempotency (workspace_id, test, key, request_hash, batch_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
				nb.WorkspaceID, nb.Test, nb.IdempotencyKey, nb.RequestHash, nb.ID, ms(created)); err != nil {
				return err
			}
		}
		b, err = scanBatch(tx.QueryRowContext(ctx, `SELECT `+batchCols+` FROM batches b WHERE b.id = ?`, nb.ID))
		return err
	})
	if err != nil {
		return Batch{}, false, fmt.Errorf("creating batch: %w", classify(err))
	}
	return b, replayed, nil
}

// BatchPage returns the workspace's batch and its finished items whose index is in
// [offset, offset+limit), by index, read in one transaction so the counts and the results agree.
// Another workspace's batch is ErrNotFound, as is an unknown id.
func (db *DB) BatchPage(ctx context.Context, workspaceID int64, id string, offset, limit int) (Batch, []ItemResult, error) {
	tx, err := db.r.BeginTx(ctx, db.d.snapshot)
	if err != nil {
		return Batch{}, nil, fmt.Errorf("reading batch %s: %w", id, err)
	}
	defer tx.Rollback()
	b, err := scanBatch(tx.QueryRowContext(ctx, `SELECT `+batchCols+` FROM batches b WHERE b.id = ? AND b.workspace_id = ?`, id, workspaceID))
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return Batch{}, nil, fmt.Errorf("reading batch %s: %w", id, err)
	}
	rows, err := tx.QueryContext(ctx,
		`SELECT idx, input, state, http_status, error_code, data, duration_ms, credits_charged, finished_at
		 FROM batch_items WHERE batch_id = ? AND idx >= ? AND idx < ? AND state IN ('ok', 'failed') ORDER BY idx`,
		id, offset, int64(offset)+int64(limit))
	if err != nil {
		return Batch{}, nil, fmt.Errorf("reading batch %s: %w", id, err)
	}
	defer rows.Close()
	var out []ItemResult
	for rows.Next() {
		var r ItemResult
		var input string
		var code sql.NullString
		var dur, finished int64
		if err := rows.Scan(&r.Index, &input, &r.Status, &r.HTTPStatus, &code, &r.Data, &dur, &r.Credits, &finished); err != nil {
			return Batch{}, nil, fmt.Errorf("reading batch %s: %w", id, err)
		}
		r.Input, r.ErrorCode, r.Duration, r.FinishedAt = []byte(input), code.String, time.Duration(dur)*time.Millisecond, fromMS(finished)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return Batch{}, nil, fmt.Errorf("reading batch %s: %w", id, err)
	}
	return b, out, nil
}

// ClaimedItem is an item leased to a worker.
type ClaimedItem struct {
	ID       int64
	ChargeID string // the item's id for billing and the request log
	BatchID  string
	Index    int
	// Attempt is this claim's number (1 for the first); with the owner it fences the completion.
	Attempt        int
	Input          []byte
	Endpoint       string
	WorkspaceID    int64
	KeyID          int64
	Test           bool
	MonthlyCredits int
	// KeyRevoked: the key that created the batch was revoked (or purged) when the item was
	// claimed; the item must not run.
	KeyRevoked bool
}

// ItemChargeID is the charge (and request log) id of a batch item: one charge per item, ever.
func ItemChargeID(batchID string, index int) string {
	return "item_" + batchID + "_" + strconv.Itoa(index)
}

// ClaimItems leases up to n queued items to owner until now+lease, fairly across batches: the batch
// served longest ago (a new batch first) gets the first item, the next batch the second, and so on
// round-robin. A claimed batch that was pending becomes running, with started_at set: now, or
// created_at if now is earlier (now is read before the transaction waits for the write lock, so a
// batch created meanwhile can be younger than now; clocks of other nodes can lag).
func (db *DB) ClaimItems(ctx context.Context, owner string, n int, now time.Time, lease time.Duration) ([]ClaimedItem, error) {
	if n <= 0 {
		return nil, nil
	}
	if owner == "" || lease <= 0 {
		return nil, fmt.Errorf("claiming items: %w: needs an owner and a lease", ErrInvalid)
	}
	var out []ClaimedItem
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		type cand struct {
			id, endpoint         string
			ws, key              int64
			test, revoked        bool
			queued, take, credit int
		}
		rows, err := tx.QueryContext(ctx,
			`SELECT b.id, b.endpoint, b.workspace_id, b.key_id, b.test, b.queued_count, w.monthly_credits,
			        COALESCE(k.state, 'revoked') = 'revoked'
			 FROM batches b JOIN workspaces w ON w.id = b.workspace_id LEFT JOIN api_keys k ON k.id = b.key_id
			 WHERE b.queued_count > 0 ORDER BY b.claim_seq, b.created_at, b.id LIMIT ?`, n)
		if err != nil {
			return err
		}
		var cands []*cand
		for rows.Next() {
			c := &cand{}
			if err := rows.Scan(&c.id, &c.endpoint, &c.ws, &c.key, &c.test, &c.queued, &c.credit, &c.revoked); err != nil {
				rows.Close()
				return err
			}
			cands = append(cands, c)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		// Round-robin shares: one item per batch per round, until n or every batch is exhausted.
		for left := n; left > 0; {
			gave := false
			for _, c := range cands {
				if left > 0 && c.take < c.queued {
					c.take++
					left--
					gave = true
				}
			}
			if !gave {
				break
			}
		}
		until, at := ms(now.Add(lease)), ms(now)
		var seq int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(claim_seq), 0) FROM batches`).Scan(&seq); err != nil {
			return err
		}
		// Sequence numbers in the order of service; rows locked in the order of batch ids, the same
		// in every transaction that locks several batches, so that two nodes never wait on each other.
		seqs := map[*cand]int64{}
		for _, c := range cands {
			if c.take > 0 {
				seq++
				seqs[c] = seq
			}
		}
		slices.SortFunc(cands, func(a, b *cand) int { return strings.Compare(a.id, b.id) })
		for _, c := range cands {
			if c.take == 0 {
				continue
			}
			// On PostgreSQL, SKIP LOCKED: items another node is claiming right now are left to it.
			rows, err := tx.QueryContext(ctx,
				`UPDATE batch_items SET state = 'running', attempts = attempts + 1, lease_owner = ?, lease_expires_at = ?
				 WHERE id IN (SELECT id FROM batch_items WHERE batch_id = ? AND state = 'queued' ORDER BY idx LIMIT ?
				              /*pg: FOR UPDATE SKIP LOCKED*/)
				 RETURNING id, idx, attempts, input`, owner, until, c.id, c.take)
			if err != nil {
				return err
			}
			got, first := 0, len(out)
			for rows.Next() {
				it := ClaimedItem{BatchID: c.id, Endpoint: c.endpoint, WorkspaceID: c.ws, KeyID: c.key, Test: c.test, MonthlyCredits: c.credit, KeyRevoked: c.revoked}
				var input string
				if err := rows.Scan(&it.ID, &it.Index, &it.Attempt, &input); err != nil {
					rows.Close()
					return err
				}
				it.Input, it.ChargeID = []byte(input), ItemChargeID(c.id, it.Index)
				out = append(out, it)
				got++
			}
			if err := rows.Close(); err != nil {
				return err
			}
			// RETURNING's order is PostgreSQL's to choose: the items go out by index.
			slices.SortFunc(out[first:], func(a, b ClaimedItem) int { return a.Index - b.Index })
			if _, err := tx.ExecContext(ctx,
				`UPDATE batches SET queued_count = queued_count - ?, claim_seq = ?,
				        status = CASE status WHEN 'pending' THEN 'running' ELSE status END,
				        started_at = COALESCE(started_at, CASE WHEN created_at > ? THEN created_at ELSE ? END)
				 WHERE id = ?`, got, seqs[c], at, at, c.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claiming items: %w", classify(err))
	}
	return out, nil
}

// RenewItemLeases extends every lease owner holds to until.
func (db *DB) RenewItemLeases(ctx context.Context, owner string, until time.Time) error {
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`UPDATE batch_items SET lease_expires_at = ? WHERE state = 'running' AND lease_owner = ?`, ms(until), owner); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx,
			`UPDATE webhook_deliveries SET lease_expires_at = ? WHERE lease_owner = ?`, ms(until), owner)
		return err
	})
	if err != nil {
		return fmt.Errorf("renewing leases: %w", err)
	}
	return nil
}

// RequeueItems puts back in the queue the running items whose lease expired before now, and those of
// any owner but keep (a worker that died: at start, the previous process's items are requeued at
// once instead of after their lease). keep "" requeues only expired leases. Webhook deliveries
// leased the same way are released too. It returns the number of items requeued.
//
// On PostgreSQL other nodes share the queue and an owner that is not keep may well be alive, so
// keep is ignored there: only expired leases are requeued (a dead node's items wait out its lease).
func (db *DB) RequeueItems(ctx context.Context, keep string, now time.Time) (int, error) {
	if db.d.shared {
		keep = ""
	}
	n := 0
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		n = 0
		rows, err := tx.QueryContext(ctx,
			`UPDATE batch_items SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL
			 WHERE state = 'running' AND (lease_expires_at < ? OR (? != '' AND lease_owner != ?))
			 RETURNING batch_id`, ms(now), keep, keep)
		if err != nil {
			return err
		}
		per := map[string]int{}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			per[id]++
			n++
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := addQueued(ctx, tx, per); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL
			 WHERE lease_owner IS NOT NULL AND (lease_expires_at < ? OR (? != '' AND lease_owner != ?))`, ms(now), keep, keep)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("requeueing items: %w", err)
	}
	return n, nil
}

// ReleaseItems requeues every item owner holds (a graceful shutdown: the next start runs them at
// once) and releases its webhook leases.
func (db *DB) ReleaseItems(ctx context.Context, owner string) (int, error) {
	n := 0
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		n = 0
		rows, err := tx.QueryContext(ctx,
			`UPDATE batch_items SET state = 'queued', lease_owner = NULL, lease_expires_at = NULL,
			        attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END
			 WHERE state = 'running' AND lease_owner = ? RETURNING batch_id`, owner)
		if err != nil {
			return err
		}
		per := map[string]int{}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			per[id]++
			n++
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := addQueued(ctx, tx, per); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE webhook_deliveries SET lease_owner = NULL, lease_expires_at = NULL WHERE lease_owner = ?`, owner)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("releasing items: %w", err)
	}
	return n, nil
}

// ItemOutcome is how a claimed item ended.
type ItemOutcome struct {
	Item  ClaimedItem
	Owner string
	OK    bool
	// HTTPStatus is our status for the item, as the sync endpoint would have answered; ErrorCode is
	// "" on success.
	HTTPStatus int
	ErrorCode  string
	Data       []byte // JSON: the sync answer, or the error body
	Duration   time.Duration
	// Credits billed for a successful live item (0 for sandbox items and failures).
	Credits int
	At      time.Time
}

// BatchEnd says whether a completion ended its batch.
type BatchEnd struct {
	Ended   bool
	Status  string // the batch's status after the completion
	Webhook bool   // a webhook delivery was queued
}

// CompleteItem records an item's outcome in one transaction, fenced on the claim (owner and
// attempt): the result, its charge (keyed by the item's charge id, once ever), the request log
// line, the batch's counts, and, when it was the last item, the batch's end and its webhook
// delivery (the outbox row). ErrLeaseLost: the claim is stale and nothing was written.
// ErrKeyRevoked: the item would be billed to a key revoked since; nothing was written.
// ErrInsufficientCredits: the charge would pass the workspace's allowance and nothing was written;
// complete the item again as failed.
func (db *DB) CompleteItem(ctx context.Context, o ItemOutcome) (BatchEnd, error) {
	it := o.Item
	at := orNow(o.At)
	state := ItemFailed
	if o.OK {
		state = ItemOK
	} else {
		o.Credits = 0
	}
	if o.Credits < 0 || (o.OK && it.Test && o.Credits != 0) {
		return BatchEnd{}, fmt.Errorf("completing item %s: %w: credits %d", it.ChargeID, ErrInvalid, o.Credits)
	}
	var end BatchEnd
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		end = BatchEnd{}
		res, err := tx.ExecContext(ctx,
			`UPDATE batch_items SET state = ?, http_status = ?, error_code = ?, data = ?, duration_ms = ?, credits_charged = ?,
			        finished_at = ?, lease_owner = NULL, lease_expires_at = NULL
			 WHERE id = ? AND state = 'running' AND lease_owner = ? AND attempts = ?`,
			state, o.HTTPStatus, nullString(o.ErrorCode), o.Data, o.Duration.Milliseconds(), o.Credits, ms(at),
			it.ID, o.Owner, it.Attempt)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			if err == nil {
				err = ErrLeaseLost
			}
			return err
		}
		if o.OK && !it.Test && o.Credits > 0 {
			// A revocation stops the batch's billing at once, even of an item that was running.
			var state string
			err := tx.QueryRowContext(ctx, `SELECT state FROM api_keys WHERE id = ?`, it.KeyID).Scan(&state)
			if errors.Is(err, sql.ErrNoRows) || state == KeyRevoked {
				return ErrKeyRevoked
			}
			if err != nil {
				return err
			}
		}
		log := RequestLog{RequestID: it.ChargeID, WorkspaceID: it.WorkspaceID, KeyID: it.KeyID, Endpoint: it.Endpoint,
			Status: o.HTTPStatus, ErrorCode: o.ErrorCode, Duration: o.Duration, At: at}
		if o.OK && !it.Test && o.Credits > 0 {
			log.Cost = o.Credits
			c := Charge{ID: it.ChargeID, WorkspaceID: it.WorkspaceID, KeyID: it.KeyID, Endpoint: it.Endpoint, Credits: o.Credits, At: at}
			if _, err := db.chargeTx(ctx, tx, c, log, at); err != nil {
				return err
			}
		} else if err := insertLog(ctx, tx, log); err != nil {
			return err
		}
		ok, failed := 0, 1
		if o.OK {
			ok, failed = 1, 0
		}
		var processed, total, succeeded int
		var hasWebhook bool
		err = tx.QueryRowContext(ctx,
			`UPDATE batches SET processed_count = processed_count + 1, success_count = success_count + ?,
			        failure_count = failure_count + ?, credits_charged = credits_charged + ?
			 WHERE id = ? RETURNING processed_count, total_count, success_count, webhook_url IS NOT NULL, status`,
			ok, failed, o.Credits, it.BatchID).Scan(&processed, &total, &succeeded, &hasWebhook, &end.Status)
		if err != nil {
			return err
		}
		if processed < total {
			return nil
		}
		end.Ended, end.Status = true, BatchComplete
		if succeeded == 0 {
			end.Status = BatchFailed
		}
		whStatus := sql.NullString{}
		if hasWebhook {
			whStatus = sql.NullString{String: WebhookPending, Valid: true}
			end.Webhook = true
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE batches SET status = ?, webhook_delivery_status = ?,
			        completed_at = CASE WHEN COALESCE(started_at, created_at) > ? THEN COALESCE(started_at, created_at) ELSE ? END
			 WHERE id = ?`,
			end.Status, whStatus, ms(at), ms(at), it.BatchID); err != nil {
			return err
		}
		if hasWebhook {
			_, err = tx.ExecContext(ctx,
				`INSERT INTO webhook_deliveries (id, batch_id, url, state, next_attempt_at, created_at)
				 VALUES (?, ?, (SELECT webhook_url FROM batches WHERE id = ?), 'pending', ?, ?)`,
				EventID(it.BatchID), it.BatchID, it.BatchID, ms(at), ms(at))
		}
		return err
	})
	if err != nil {
		return BatchEnd{}, fmt.Errorf("completing item %s: %w", it.ChargeID, classify(err))
	}
	return end, nil
}

// EventID is the id of a batch's completion event: webhook-id, the same on every attempt.
func EventID(batchID string) string { return "evt_" + strings.ReplaceAll(batchID, "-", "") }

// Delivery is a webhook delivery leased to a sender.
type Delivery struct {
	ID          string // event id
	BatchID     string
	WorkspaceID int64
	URL         string
	Secret      string
	Body        []byte // nil until the first attempt freezes it
	Attempts    int    // attempts made before this one
	CreatedAt   time.Time
}

// ClaimDeliveries leases up to n deliveries due at now to owner until now+lease, the most overdue
// first.
func (db *DB) ClaimDeliveries(ctx context.Context, owner string, n int, now time.Time, lease time.Duration) ([]Delivery, error) {
	var out []Delivery
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx,
			`UPDATE webhook_deliveries SET lease_owner = ?, lease_expires_at = ?
			 WHERE id IN (SELECT id FROM webhook_deliveries
			              WHERE state IN ('pending', 'retrying') AND next_attempt_at <= ?
			                AND (lease_owner IS NULL OR lease_expires_at < ?)
			              ORDER BY next_attempt_at LIMIT ? /*pg: FOR UPDATE SKIP LOCKED*/)
			 RETURNING id, batch_id, url, body, attempts, created_at`,
			owner, ms(now.Add(lease)), ms(now), ms(now), n)
		if err != nil {
			return err
		}
		for rows.Next() {
			var d Delivery
			var created int64
			if err := rows.Scan(&d.ID, &d.BatchID, &d.URL, &d.Body, &d.Attempts, &created); err != nil {
				rows.Close()
				return err
			}
			d.CreatedAt = fromMS(created)
			out = append(out, d)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		for i := range out {
			if err := tx.QueryRowContext(ctx, `SELECT workspace_id, webhook_secret FROM batches WHERE id = ?`, out[i].BatchID).
				Scan(&out[i].WorkspaceID, &out[i].Secret); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claiming webhook deliveries: %w", err)
	}
	return out, nil
}

// FreezeDeliveryBody stores the body of a delivery that has none yet and returns the body that
// stands (the one stored first).
func (db *DB) FreezeDeliveryBody(ctx context.Context, id string, body []byte) ([]byte, error) {
	var out []byte
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET body = ? WHERE id = ? AND body IS NULL`, body, id); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT body FROM webhook_deliveries WHERE id = ?`, id).Scan(&out)
	})
	if err != nil {
		return nil, fmt.Errorf("storing the body of delivery %s: %w", id, err)
	}
	return out, nil
}

// DeliveryAttempt is the outcome of one attempt.
type DeliveryAttempt struct {
	ID       string
	Owner    string
	At       time.Time
	OK       bool
	Status   int    // the receiver's status, 0 when none came back
	Error    string // "" on success
	Duration time.Duration
	Response string // the first 1 KiB of the receiver's answer
	// NextAt is when to try again after a failure; zero means no more attempts (failed).
	NextAt time.Time
}

// RecordDeliveryAttempt logs an attempt and moves the delivery and its batch's webhook fields:
// delivered, retrying (next attempt at NextAt) or failed. Fenced on the lease: ErrLeaseLost if
// owner no longer holds it.
func (db *DB) RecordDeliveryAttempt(ctx context.Context, a DeliveryAttempt) (state string, err error) {
	at := orNow(a.At)
	switch {
	case a.OK:
		state = WebhookDelivered
	case a.NextAt.IsZero():
		state = WebhookFailed
	default:
		state = WebhookRetrying
	}
	// What the receiver answered is whatever bytes it sent; PostgreSQL's text holds valid UTF-8 only
	// (and no NUL), SQLite's anything: both store it as text the same way.
	a.Response, a.Error = textOf(a.Response), textOf(a.Error)
	err = db.writeTx(ctx, func(tx *sql.Tx) error {
		var next, delivered sql.NullInt64
		if state == WebhookRetrying {
			next = sql.NullInt64{Int64: ms(a.NextAt), Valid: true}
		}
		if a.OK {
			delivered = sql.NullInt64{Int64: ms(at), Valid: true}
		}
		var attempt int
		var batchID string
		err := tx.QueryRowContext(ctx,
			`UPDATE webhook_deliveries SET attempts = attempts + 1, state = ?, next_attempt_at = ?, last_status = ?, last_error = ?,
			        delivered_at = ?, lease_owner = NULL, lease_expires_at = NULL
			 WHERE id = ? AND lease_owner = ? AND state IN ('pending', 'retrying')
			 RETURNING attempts, batch_id`,
			state, next, a.Status, nullString(a.Error), delivered, a.ID, a.Owner).Scan(&attempt, &batchID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrLeaseLost
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms, response) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			a.ID, attempt, ms(at), a.Status, a.Error, a.Duration.Milliseconds(), a.Response); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`UPDATE batches SET webhook_delivery_status = ?, webhook_last_error = ?, webhook_delivered_at = ? WHERE id = ?`,
			state, nullString(a.Error), delivered, batchID)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("recording delivery %s: %w", a.ID, err)
	}
	return state, nil
}

// NextDeliveryAt returns when the earliest pending or retrying delivery falls due (ok false when
// none waits).
func (db *DB) NextDeliveryAt(ctx context.Context) (time.Time, bool, error) {
	var next sql.NullInt64
	err := db.r.QueryRowContext(ctx,
		`SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE state IN ('pending', 'retrying')`).Scan(&next)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("reading the next delivery: %w", err)
	}
	return fromNullMS(next), next.Valid, nil
}

// DeliveryStatus is where a batch's webhook delivery stands.
type DeliveryStatus struct {
	State    string
	Attempts int
	// NextAttemptAt is when the next attempt falls due; zero once delivered or failed.
	NextAttemptAt time.Time
}

// WebhookDelivery returns the state of a batch's webhook delivery; ErrNotFound when it has none
// (no webhook, or the batch has not ended).
func (db *DB) WebhookDelivery(ctx context.Context, batchID string) (DeliveryStatus, error) {
	var d DeliveryStatus
	var next sql.NullInt64
	err := db.r.QueryRowContext(ctx, `SELECT state, attempts, next_attempt_at FROM webhook_deliveries WHERE batch_id = ?`, batchID).
		Scan(&d.State, &d.Attempts, &next)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return DeliveryStatus{}, fmt.Errorf("reading the delivery of batch %s: %w", batchID, err)
	}
	d.NextAttemptAt = fromNullMS(next)
	return d, nil
}

// WebhookAttempt is one logged delivery attempt.
type WebhookAttempt struct {
	Attempt  int
	At       time.Time
	Status   int
	Error    string
	Duration time.Duration
	Response string
}

// WebhookAttempts lists the attempts of a batch's webhook, oldest first.
func (db *DB) WebhookAttempts(ctx context.Context, batchID string) ([]WebhookAttempt, error) {
	rows, err := db.r.QueryContext(ctx,
		`SELECT a.attempt, a.at, a.status, a.error, a.duration_ms, a.response
		 FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
		 WHERE d.batch_id = ? ORDER BY a.attempt`, batchID)
	if err != nil {
		return nil, fmt.Errorf("listing webhook attempts: %w", err)
	}
	defer rows.Close()
	var out []WebhookAttempt
	for rows.Next() {
		var a WebhookAttempt
		var at, dur int64
		if err := rows.Scan(&a.Attempt, &at, &a.Status, &a.Error, &dur, &a.Response); err != nil {
			return nil, fmt.Errorf("listing webhook attempts: %w", err)
		}
		a.At, a.Duration = fromMS(at), time.Duration(dur)*time.Millisecond
		out = append(out, a)
	}
	return out, rows.Err()
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict ("ok" when the file is sound).
// On PostgreSQL, where the files are the server's business, it checks that the server answers and
// that the schema is there.
func (db *DB) IntegrityCheck(ctx context.Context) (string, error) {
	if db.d.shared {
		var n int
		if err := db.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
			return "", fmt.Errorf("integrity check: %w", err)
		}
		return "ok", nil
	}
	rows, err := db.r.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "", fmt.Errorf("integrity check: %w", err)
		}
		lines = append(lines, s)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	return strings.Join(lines, "\n"), nil
}

// BatchStats are totals over every batch item, for crash tests and audits.
type BatchStats struct {
	Items, Finished, OK, Failed int
	ItemCredits                 int // credits recorded on items
	// LedgerCredits and LedgerRows are what the usage ledger holds for batch items.
	LedgerCredits, LedgerRows int
}

// BatchStats totals the items and their ledger rows.
func (db *DB) BatchStats(ctx context.Context) (BatchStats, error) {
	var s BatchStats
	err := db.r.QueryRowContext(ctx,
		`SELECT COUNT(*), COALESCE(SUM(CASE WHEN state IN ('ok', 'failed') THEN 1 ELSE 0 END), 0),
		        COALESCE(SUM(CASE WHEN state = 'ok' THEN 1 ELSE 0 END), 0),
		        COALESCE(SUM(CASE WHEN state = 'failed' THEN 1 ELSE 0 END), 0), COALESCE(SUM(credits_charged), 0)
		 FROM batch_items`).Scan(&s.Items, &s.Finished, &s.OK, &s.Failed, &s.ItemCredits)
	if err != nil {
		return s, fmt.Errorf("batch stats: %w", err)
	}
	err = db.r.QueryRowContext(ctx,
		`SELECT COUNT(*), COALESCE(SUM(credits), 0) FROM usage WHERE charge_id LIKE 'item\_%' ESCAPE '\'`).Scan(&s.LedgerRows, &s.LedgerCredits)
	if err != nil {
		return s, fmt.Errorf("batch stats: %w", err)
	}
	return s, nil
}

// ListBatches lists the workspace's batches, newest first: limit of them after skipping offset.
func (db *DB) ListBatches(ctx context.Context, workspaceID int64, offset, limit int) ([]Batch, error) {
	rows, err := db.r.QueryContext(ctx,
		`SELECT `+batchCols+` FROM batches b WHERE b.workspace_id = ? ORDER BY b.created_at DESC, b.id LIMIT ? OFFSET ?`,
		workspaceID, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("listing batches: %w", err)
	}
	defer rows.Close()
	var out []Batch
	for rows.Next() {
		b, err := scanBatch(rows)
		if err != nil {
			return nil, fmt.Errorf("listing batches: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// addQueued gives back to each batch the items requeued from it, in the order of batch ids (see
// ClaimItems).
func addQueued(ctx context.Context, tx *sql.Tx, per map[string]int) error {
	for _, id := range slices.Sorted(maps.Keys(per)) {
		if _, err := tx.ExecContext(ctx, `UPDATE batches SET queued_count = queued_count + ? WHERE id = ?`, per[id], id); err != nil {
			return err
		}
	}
	return nil
}

// lockWorkspace makes the rest of tx the only transaction deciding on the workspace's rows. SQLite's
// single writer does that already; on PostgreSQL it locks the workspace's row (NO KEY UPDATE, which
// inserts that only reference the workspace do not wait for). The lock is its own statement: under
// READ COMMITTED the statements after it read what the transaction it waited for committed.
func (db *DB) lockWorkspace(ctx context.Context, tx *sql.Tx, workspaceID int64) error {
	if !db.d.shared {
		return nil
	}
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM workspaces WHERE id = ? /*pg: FOR NO KEY UPDATE*/`, workspaceID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // the statements that follow say what a missing workspace means
	}
	return err
}

// textOf is s as text every database stores: invalid UTF-8 replaced, NUL bytes dropped.
func textOf(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
