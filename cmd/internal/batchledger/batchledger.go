// Package batchledger reads back what the store recorded of a measuring program's batches
// (crashtest, clustertest), to hold against what the batches answered.
package batchledger

import (
	"context"
	"time"

	"asa/store"
)

// Read returns the store's batch and ledger counts and the credits the named workspace has used
// this month.
func Read(ctx context.Context, db *store.DB, workspace string) (store.BatchStats, int, error) {
	st, err := db.BatchStats(ctx)
	if err != nil {
		return store.BatchStats{}, 0, err
	}
	ws, err := db.WorkspaceByName(ctx, workspace)
	if err != nil {
		return store.BatchStats{}, 0, err
	}
	used, err := db.CreditsUsed(ctx, ws.ID, time.Now())
	if err != nil {
		return store.BatchStats{}, 0, err
	}
	return st, used, nil
}
