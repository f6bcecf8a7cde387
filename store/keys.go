package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"asa/api/apikey"
)

// MaxActiveKeys is the number of active keys a workspace may hold (spec 5.7).
const MaxActiveKeys = 20

// RevokedRetention is how long the usage history of a revoked key stays visible (spec 5.8).
const RevokedRetention = 90 * 24 * time.Hour

// Key states (spec 3.2).
const (
	KeyActive  = "active"
	KeyRevoked = "revoked"
)

// KeyRecord is a stored API key: everything but the key itself.
type KeyRecord struct {
	ID          int64
	WorkspaceID int64
	Hash        string // hex SHA-256 of the full key
	ShortPrefix string
	Test        bool
	State       string // KeyActive or KeyRevoked
	CreatedAt   time.Time
	LastUsedAt  time.Time // zero if never used
	RevokedAt   time.Time // zero unless revoked
}

// CreateKey generates a key for the workspace and stores its hash. The returned Key is the only
// copy of the secret: show it once. The active-key count and the insert share one write
// transaction, so concurrent calls can never pass MaxActiveKeys; the one over gets ErrKeyLimit.
func (db *DB) CreateKey(ctx context.Context, workspaceID int64, test bool) (apikey.Key, KeyRecord, error) {
	return db.createKey(ctx, workspaceID, test, nil)
}

// KeyForm is a form that may create one key: the SHA-256 of its single-use id (the id itself is
// not stored) and when its record may be forgotten, which must be after the form is refused as
// expired.
type KeyForm struct {
	Hash    [32]byte
	Expires time.Time
}

// CreateKeyOnce is CreateKey for a form that may create at most one key (the dashboard's "Generate
// new key"): the form is recorded as spent in the transaction that inserts the key, so a form sent
// again, or twice at once, or again after a crash, creates one key in all. A form already spent
// gives ErrFormUsed and the record of the key it created (zero if that key is gone); refused with
// ErrKeyLimit, the form is not spent.
func (db *DB) CreateKeyOnce(ctx context.Context, workspaceID int64, test bool, form KeyForm) (apikey.Key, KeyRecord, error) {
	return db.createKey(ctx, workspaceID, test, &form)
}

func (db *DB) createKey(ctx context.Context, workspaceID int64, test bool, form *KeyForm) (apikey.Key, KeyRecord, error) {
	key, err := apikey.Generate(test)
	if err != nil {
		return apikey.Key{}, KeyRecord{}, fmt.Errorf("creating key: %w", err)
	}
	rec := KeyRecord{
		WorkspaceID: workspaceID,
		Hash:        key.HashHex(),
		ShortPrefix: key.Short(),
		Test:        test,
		State:       KeyActive,
		CreatedAt:   fromMS(ms(time.Now())),
	}
	var spent KeyRecord
	err = db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := db.lockWorkspace(ctx, tx, workspaceID); err != nil {
			return err
		}
		if form != nil {
			// First, so that of two transactions sending one form the second finds it spent (on
			// PostgreSQL it waits on the first's unique index entry, then skips) and writes nothing.
			formHash := hex.EncodeToString(form.Hash[:])
			res, err := tx.ExecContext(ctx,
				`INSERT INTO key_forms (form_hash, workspace_id, short_prefix, created_at, expires_at)
				 VALUES (?, ?, ?, ?, ?) ON CONFLICT (form_hash) DO NOTHING`,
				formHash, workspaceID, rec.ShortPrefix, ms(rec.CreatedAt), ms(form.Expires))
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				if err != nil {
					return err
				}
				return db.spentForm(ctx, tx, workspaceID, formHash, &spent)
			}
		}
		var exists, active int
		err := tx.QueryRowContext(ctx,
			`SELECT (SELECT COUNT(*) FROM workspaces WHERE id = ?),
			        (SELECT COUNT(*) FROM api_keys WHERE workspace_id = ? AND state = 'active')`,
			workspaceID, workspaceID).Scan(&exists, &active)
		if err != nil {
			return err
		}
		if exists == 0 {
			return fmt.Errorf("workspace %d: %w", workspaceID, ErrNotFound)
		}
		if active >= MaxActiveKeys {
			return fmt.Errorf("workspace %d has %d: %w", workspaceID, active, ErrKeyLimit)
		}
		return tx.QueryRowContext(ctx,
			`INSERT INTO api_keys (workspace_id, hash, short_prefix, test, state, created_at)
			 VALUES (?, ?, ?, ?, 'active', ?) RETURNING id`,
			workspaceID, rec.Hash, rec.ShortPrefix, test, ms(rec.CreatedAt)).Scan(&rec.ID)
	})
	if errors.Is(err, ErrFormUsed) {
		return apikey.Key{}, spent, fmt.Errorf("creating key: %w", err)
	}
	if err != nil {
		return apikey.Key{}, KeyRecord{}, fmt.Errorf("creating key: %w", classify(err))
	}
	return key, rec, nil
}

// spentForm reads, into rec, the key that the spent form created, and returns ErrFormUsed. A form
// spent in another workspace (its id was made for another session) or whose key was purged leaves
// rec zero.
func (db *DB) spentForm(ctx context.Context, tx *sql.Tx, workspaceID int64, formHash string, rec *KeyRecord) error {
	var k keyRow
	err := tx.QueryRowContext(ctx,
		`SELECT `+keyCols+` FROM key_forms f JOIN api_keys k ON k.workspace_id = f.workspace_id AND k.short_prefix = f.short_prefix
		 WHERE f.form_hash = ? AND f.workspace_id = ?`, formHash, workspaceID).Scan(k.dest()...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	default:
		*rec = k.record()
	}
	return ErrFormUsed
}

// PurgeKeyForms deletes the records of key forms that expired at now and returns how many.
func (db *DB) PurgeKeyForms(ctx context.Context, now time.Time) (int64, error) {
	res, err := db.w.ExecContext(ctx, `DELETE FROM key_forms WHERE expires_at <= ?`, ms(now))
	if err != nil {
		return 0, fmt.Errorf("purging key forms: %w", err)
	}
	return res.RowsAffected()
}

const keyCols = `k.id, k.workspace_id, k.hash, k.short_prefix, k.test, k.state, k.created_at, k.last_used_at, k.revoked_at`

// keyRow holds a scanned api_keys row until its nullable times are converted.
type keyRow struct {
	rec           KeyRecord
	created       int64
	used, revoked sql.NullInt64
}

func (k *keyRow) dest() []any {
	return []any{&k.rec.ID, &k.rec.WorkspaceID, &k.rec.Hash, &k.rec.ShortPrefix, &k.rec.Test, &k.rec.State, &k.created, &k.used, &k.revoked}
}

func (k *keyRow) record() KeyRecord {
	r := k.rec
	r.CreatedAt, r.LastUsedAt, r.RevokedAt = fromMS(k.created), fromNullMS(k.used), fromNullMS(k.revoked)
	return r
}

const keyByHashSQL = `SELECT ` + keyCols + `, ` + workspaceCols + `,
	        COALESCE((SELECT credits FROM credit_months m WHERE m.workspace_id = w.id AND m.month = ?), 0)
	 FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
	 WHERE k.hash = ?`

// KeyByHash returns a key, revoked or not, with its workspace and the credits the workspace was
// billed in the calendar month (UTC) of at: what an API request needs before it fetches, in one
// statement. ErrNotFound if no key has that hash; the caller decides what a revoked key means (401
// revoked).
func (db *DB) KeyByHash(ctx context.Context, hash [32]byte, at time.Time) (KeyRecord, Workspace, int, error) {
	var k keyRow
	var ws Workspace
	wss := workspaceScan{ws: &ws}
	var used int
	dest := append(append(k.dest(), wss.dest()...), &used)
	err := db.keyByHash.QueryRowContext(ctx, monthKey(at), hex.EncodeToString(hash[:])).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return KeyRecord{}, Workspace{}, 0, fmt.Errorf("looking up key: %w", classify(err))
	}
	wss.finish()
	return k.record(), ws, used, nil
}

// TouchKey records that the key was used at t. It only moves last_used_at forward, so late or
// reordered calls are harmless. It still takes the write lock: callers on the request path should
// coalesce (say, once a minute per key) rather than call it per request.
func (db *DB) TouchKey(ctx context.Context, keyID int64, t time.Time) error {
	_, err := db.w.ExecContext(ctx,
		`UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
		ms(t), keyID, ms(t))
	if err != nil {
		return fmt.Errorf("touching key %d: %w", keyID, err)
	}
	return nil
}

// RevokeKey revokes the workspace's key with that short prefix. Revoking a revoked key is a no-op
// that keeps the first revocation time; an unknown prefix gives ErrNotFound.
func (db *DB) RevokeKey(ctx context.Context, workspaceID int64, shortPrefix string) error {
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		var state string
		err := tx.QueryRowContext(ctx,
			`SELECT state FROM api_keys WHERE workspace_id = ? AND short_prefix = ?`,
			workspaceID, shortPrefix).Scan(&state)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil || state == KeyRevoked {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`UPDATE api_keys SET state = 'revoked', revoked_at = ? WHERE workspace_id = ? AND short_prefix = ? AND state = 'active'`,
			ms(time.Now()), workspaceID, shortPrefix)
		return err
	})
	if err != nil {
		return fmt.Errorf("revoking key %s: %w", shortPrefix, err)
	}
	return nil
}

// Keys lists the workspace's keys, active and revoked, oldest first.
func (db *DB) Keys(ctx context.Context, workspaceID int64) ([]KeyRecord, error) {
	_ = db.flushLogs(ctx) // last_used_at is written with the request log
	rows, err := db.r.QueryContext(ctx,
		`SELECT `+keyCols+` FROM api_keys k WHERE k.workspace_id = ? ORDER BY k.created_at, k.id`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("listing keys: %w", err)
	}
	defer rows.Close()
	var out []KeyRecord
	for rows.Next() {
		var k keyRow
		if err := rows.Scan(k.dest()...); err != nil {
			return nil, fmt.Errorf("listing keys: %w", err)
		}
		out = append(out, k.record())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing keys: %w", err)
	}
	return out, nil
}

// Purged counts what PurgeRevoked deleted.
type Purged struct {
	Keys, Usage, Requests int64
	// Refusals counts refusal rows (one per key, minute and kind of refusal).
	Refusals int64
}

// PurgeRevoked deletes keys revoked more than RevokedRetention before now, with their ledger and
// request log rows. Monthly credit totals stay: they are what was billed, whoever billed it.
func (db *DB) PurgeRevoked(ctx context.Context, now time.Time) (Purged, error) {
	var p Purged
	cutoff := ms(now.Add(-RevokedRetention))
	const expired = `SELECT id FROM api_keys WHERE state = 'revoked' AND revoked_at < ?`
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		for _, step := range []struct {
			n   *int64
			sql string
		}{
			{&p.Requests, `DELETE FROM request_log WHERE key_id IN (` + expired + `)`},
			{&p.Refusals, `DELETE FROM refusals WHERE key_id IN (` + expired + `)`},
			{&p.Usage, `DELETE FROM usage WHERE key_id IN (` + expired + `)`},
			{&p.Keys, `DELETE FROM api_keys WHERE id IN (` + expired + `)`},
		} {
			res, err := tx.ExecContext(ctx, step.sql, cutoff)
			if err != nil {
				return err
			}
			if *step.n, err = res.RowsAffected(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Purged{}, fmt.Errorf("purging revoked keys: %w", err)
	}
	return p, nil
}
