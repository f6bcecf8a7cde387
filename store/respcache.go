package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// CachedResponse is one stored successful response (table response_cache).
type CachedResponse struct {
	WorkspaceID int64
	// Key identifies the request (the API derives it); Endpoint is kept for operators.
	Key      string
	Endpoint string
	// Meta is what the API needs to answer from the entry besides the body (its headers), as JSON.
	Meta      []byte
	Body      []byte
	FetchedAt time.Time
}

// CacheLimits bound the response cache: an entry's body, the total of every body, and the age past
// which an entry can no longer be asked for.
type CacheLimits struct {
	MaxEntry int
	MaxTotal int64
	MaxAge   time.Duration
}

// evictBatch bounds the rows one write evicts: a write adds at most MaxEntry bytes, so a few old rows
// make room, and the cost of one write stays bounded whatever the table holds.
const evictBatch = 64

// CachedResponse returns the workspace's entry for key, or false. It reads without a lock, from
// the read pool.
func (db *DB) CachedResponse(ctx context.Context, workspaceID int64, key string) (CachedResponse, bool, error) {
	r := CachedResponse{WorkspaceID: workspaceID, Key: key}
	var at int64
	err := db.r.QueryRowContext(ctx,
		`SELECT endpoint, fetched_at, meta, body FROM response_cache WHERE workspace_id = ? AND cache_key = ?`,
		workspaceID, key).Scan(&r.Endpoint, &at, &r.Meta, &r.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return CachedResponse{}, false, nil
	}
	if err != nil {
		return CachedResponse{}, false, fmt.Errorf("reading cached response: %w", classify(err))
	}
	r.FetchedAt = fromMS(at)
	return r, true, nil
}

// StoreResponse writes (or replaces) an entry, then drops entries older than lim.MaxAge and evicts
// the oldest while the total passes lim.MaxTotal, at most evictBatch rows each, in the same
// transaction. A body over lim.MaxEntry is not stored (ErrInvalid).
func (db *DB) StoreResponse(ctx context.Context, r CachedResponse, lim CacheLimits) error {
	if len(r.Body) > lim.MaxEntry || int64(len(r.Body)) > lim.MaxTotal {
		return fmt.Errorf("storing cached response: %w: %d bytes, over the entry limit", ErrInvalid, len(r.Body))
	}
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		// A delete then an insert rather than an upsert: portable, and the row moves to its new age.
		if _, err := tx.ExecContext(ctx, `DELETE FROM response_cache WHERE workspace_id = ? AND cache_key = ?`, r.WorkspaceID, r.Key); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO response_cache (workspace_id, cache_key, endpoint, fetched_at, size, meta, body) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			r.WorkspaceID, r.Key, r.Endpoint, ms(r.FetchedAt), len(r.Body), string(r.Meta), r.Body); err != nil {
			return err
		}
		if lim.MaxAge > 0 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM response_cache WHERE (workspace_id, cache_key) IN (
				SELECT workspace_id, cache_key FROM response_cache WHERE fetched_at < ? ORDER BY fetched_at LIMIT ?)`,
				ms(r.FetchedAt.Add(-lim.MaxAge)), evictBatch); err != nil {
				return err
			}
		}
		return evictOldest(ctx, tx, lim.MaxTotal)
	})
	if err != nil {
		return fmt.Errorf("storing cached response: %w", classify(err))
	}
	return nil
}

// evictOldest deletes the oldest entries until the total size is at most max (at most evictBatch).
func evictOldest(ctx context.Context, tx *sql.Tx, max int64) error {
	var total int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(size), 0) FROM response_cache`).Scan(&total); err != nil {
		return err
	}
	if total <= max {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT workspace_id, cache_key, size FROM response_cache ORDER BY fetched_at LIMIT ?`, evictBatch)
	if err != nil {
		return err
	}
	type victim struct {
		ws  int64
		key string
	}
	var out []victim
	for rows.Next() && total > max {
		var v victim
		var size int64
		if err := rows.Scan(&v.ws, &v.key, &size); err != nil {
			rows.Close()
			return err
		}
		out = append(out, v)
		total -= size
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, v := range out {
		if _, err := tx.ExecContext(ctx, `DELETE FROM response_cache WHERE workspace_id = ? AND cache_key = ?`, v.ws, v.key); err != nil {
			return err
		}
	}
	return nil
}

// CacheSize returns the number of entries and the bytes of their bodies, for tests and operators.
func (db *DB) CacheSize(ctx context.Context) (entries int, bytes int64, err error) {
	err = db.r.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(size), 0) FROM response_cache`).Scan(&entries, &bytes)
	if err != nil {
		return 0, 0, fmt.Errorf("reading cache size: %w", classify(err))
	}
	return entries, bytes, nil
}
