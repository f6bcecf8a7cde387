package store

import (
	"context"
	"fmt"
)

// WorkspaceBatches lists the workspace's batches, newest first, at most limit of them: the
// dashboard's batch list. Other workspaces' batches are never read.
func (db *DB) WorkspaceBatches(ctx context.Context, workspaceID int64, limit int) ([]Batch, error) {
	if limit <= 0 {
		limit = 100
	}
	rows, err := db.r.QueryContext(ctx,
		`SELECT `+batchCols+` FROM batches b WHERE b.workspace_id = ? ORDER BY b.created_at DESC, b.id LIMIT ?`,
		workspaceID, limit)
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
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing batches: %w", err)
	}
	return out, nil
}
