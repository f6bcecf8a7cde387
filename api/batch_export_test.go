package api

import (
	"context"

	"asa/store"
)

// DeliverDueWebhooks sends the webhook deliveries due at the server's clock, as one tick of the
// delivery loop does, and returns how many it attempted.
func (s *Server) DeliverDueWebhooks(ctx context.Context) int { return s.batch.deliverDue(ctx) }

// RunQueuedItems claims and runs every queued item, one claim of the budget at a time, in the
// calling goroutine's sight (items of a claim run concurrently), as the item loop does.
func (s *Server) RunQueuedItems(ctx context.Context) int {
	n := 0
	for {
		items, err := s.batch.db.ClaimItems(ctx, s.batch.cfg.Owner, s.batch.cfg.Concurrency, s.now(), s.batch.cfg.Lease)
		if err != nil || len(items) == 0 {
			return n
		}
		done := make(chan struct{})
		for _, it := range items {
			go func() { s.batch.runItem(ctx, it); done <- struct{}{} }()
		}
		for range items {
			<-done
		}
		n += len(items)
	}
}

// OnItemDone registers f to be called after each item's outcome is committed, with the item's batch
// and whether it ended the batch. Call it before RunBatches.
func (s *Server) OnItemDone(f func(batchID string, ended bool)) {
	s.batch.onDone = func(it store.ClaimedItem, end store.BatchEnd) { f(it.BatchID, end.Ended) }
}

// OnWebhookRecorded registers f to be called after each webhook attempt is recorded, with the
// delivery's new state. Call it before RunBatches.
func (s *Server) OnWebhookRecorded(f func(batchID, state string)) { s.batch.onHook = f }
