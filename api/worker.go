package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"asa/engine/errcode"
	"asa/store"
)

// worker runs batch items from the durable queue in the store and sends the webhooks of ended
// batches.
//
// Items are claimed with a lease (BatchConfig.Lease) renewed every Lease/3 while they run; at start
// the items a previous process held are requeued at once, and any lease that expires (a stalled
// process) is requeued by the periodic rescue. Execution is therefore at least once, and the effects
// are exactly once: an item's result, its charge (keyed by the item id), its batch's counts and, for
// the last item, the batch's end and its webhook outbox row are one transaction, fenced on the claim
// (owner and attempt), so a stale run writes nothing.
//
// The budget (BatchConfig.Concurrency) is this node's, not any key's; claims are fair across
// batches (the store serves the batch served longest ago first).
type worker struct {
	s       *Server
	db      BatchStore
	cfg     BatchConfig
	runners map[string]ItemRunner
	kick    chan struct{} // new work: a batch was created
	hooks   chan struct{} // a webhook became due: a batch ended
	// onDone, when set (tests), is called after each item's outcome is committed.
	onDone func(it store.ClaimedItem, end store.BatchEnd)
	// onHook, when set (tests), is called after each webhook attempt is recorded.
	onHook func(batchID, state string)
}

func newWorker(s *Server, runners map[string]ItemRunner) *worker {
	return &worker{s: s, db: s.deps.Batches, cfg: s.deps.Batch, runners: runners,
		kick: make(chan struct{}, 1), hooks: make(chan struct{}, 1)}
}

func (w *worker) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *worker) wakeHooks() {
	select {
	case w.hooks <- struct{}{}:
	default:
	}
}

func (w *worker) now() time.Time { return w.s.now() }

func (w *worker) run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); w.runItems(ctx) }()
	go func() { defer wg.Done(); w.runHooks(ctx) }()
	wg.Wait()
	return nil
}

// runItems is the item loop: claim what the budget allows, run each in its goroutine, claim again
// as slots free up.
func (w *worker) runItems(ctx context.Context) {
	log := w.s.log
	if n, err := w.db.RequeueItems(ctx, w.cfg.Owner, w.now()); err != nil {
		log.Error("batch worker: requeueing the items of a previous process", "err", err)
	} else if n > 0 {
		log.Info("batch worker: requeued items a previous process left running", "items", n)
	}
	// Runs outlive ctx by up to DrainTimeout: a shutdown lets them finish.
	runCtx, cancelRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRuns()
	done := make(chan struct{}, w.cfg.Concurrency)
	inflight := 0
	maint := time.NewTicker(max(w.cfg.Lease/3, time.Millisecond))
	defer maint.Stop()
	poll := time.NewTicker(w.cfg.Poll)
	defer poll.Stop()
	more := true
	for {
		if free := w.cfg.Concurrency - inflight; more && free > 0 {
			items, err := w.db.ClaimItems(ctx, w.cfg.Owner, free, w.now(), w.cfg.Lease)
			if err != nil && ctx.Err() == nil {
				log.Error("batch worker: claiming items", "err", err)
			}
			for _, it := range items {
				inflight++
				go func() {
					defer func() { done <- struct{}{} }()
					w.runItem(runCtx, it)
				}()
			}
			more = err == nil && len(items) == free
		}
		select {
		case <-done:
			inflight--
		case <-w.kick:
			more = true
		case <-poll.C:
			more = true
		case <-maint.C:
			w.maintain(ctx)
		case <-ctx.Done():
			w.drain(runCtx, cancelRuns, done, inflight)
			return
		}
	}
}

// maintain renews this process's leases and requeues expired ones (of a process that stalled).
func (w *worker) maintain(ctx context.Context) {
	now := w.now()
	if err := w.db.RenewItemLeases(ctx, w.cfg.Owner, now.Add(w.cfg.Lease)); err != nil && ctx.Err() == nil {
		w.s.log.Error("batch worker: renewing leases", "err", err)
	}
	if n, err := w.db.RequeueItems(ctx, "", now); err != nil && ctx.Err() == nil {
		w.s.log.Error("batch worker: requeueing expired leases", "err", err)
	} else if n > 0 {
		w.s.log.Warn("batch worker: requeued items whose lease expired", "items", n)
		w.wake()
	}
}

// drain lets running items finish for up to DrainTimeout, keeping their leases renewed, then
// cancels the rest and releases their leases so the next start runs them at once.
func (w *worker) drain(runCtx context.Context, cancel context.CancelFunc, done chan struct{}, inflight int) {
	if inflight > 0 {
		w.s.log.Info("batch worker: letting running items finish", "items", inflight, "timeout", w.cfg.DrainTimeout)
	}
	bg := context.WithoutCancel(runCtx)
	timeout := time.NewTimer(w.cfg.DrainTimeout)
	defer timeout.Stop()
	renew := time.NewTicker(max(w.cfg.Lease/3, time.Millisecond))
	defer renew.Stop()
	for inflight > 0 {
		select {
		case <-done:
			inflight--
		case <-renew.C:
			_ = w.db.RenewItemLeases(bg, w.cfg.Owner, w.now().Add(w.cfg.Lease))
		case <-timeout.C:
			cancel()
			for ; inflight > 0; inflight-- {
				<-done
			}
		}
	}
	if n, err := w.db.ReleaseItems(bg, w.cfg.Owner); err != nil {
		w.s.log.Error("batch worker: releasing leases", "err", err)
	} else if n > 0 {
		w.s.log.Info("batch worker: released unfinished items to the next start", "items", n)
	}
}

// runItem runs one claimed item and records its outcome.
func (w *worker) runItem(ctx context.Context, it store.ClaimedItem) {
	start := w.now()
	res := w.execute(ctx, it)
	if ctx.Err() != nil {
		// Cancelled by a shutdown: the lease is released and the item runs again after the restart.
		return
	}
	o := store.ItemOutcome{Item: it, Owner: w.cfg.Owner, Duration: w.now().Sub(start), At: w.now()}
	// before the item is recorded, so a client that sees the batch end finds it in the log
	w.s.logWarnings(ctx, it.Endpoint, res.Warnings, "batch", it.BatchID, "item", it.ChargeID)
	if res.Err == nil {
		o.OK, o.HTTPStatus, o.Data = true, http.StatusOK, res.Body
		if !it.Test {
			o.Credits = CostPerRequest * max(res.Units, 1)
		}
	} else {
		o.HTTPStatus, o.Data = w.s.errorJSON(res.Err, it.ChargeID)
		o.ErrorCode = string(clientError(res.Err).Code)
	}
	bg := context.WithoutCancel(ctx)
	end, err := w.db.CompleteItem(bg, o)
	var refusal *errcode.Error
	switch {
	case errors.Is(err, store.ErrInsufficientCredits):
		refusal = errCreditsSpent()
	case errors.Is(err, store.ErrKeyRevoked):
		refusal = errRevokedItem()
	}
	if refusal != nil {
		o.OK, o.Credits, o.ErrorCode = false, 0, string(refusal.Code)
		o.HTTPStatus, o.Data = w.s.errorJSON(refusal, it.ChargeID)
		end, err = w.db.CompleteItem(bg, o)
	}
	switch {
	case errors.Is(err, store.ErrLeaseLost):
		w.s.log.Warn("batch worker: an item's lease was lost; its other run records the result", "item", it.ChargeID, "attempt", it.Attempt)
		return
	case err != nil:
		// The lease expires and the item runs again; its charge id keeps it billed once.
		w.s.log.Error("batch worker: recording an item", "item", it.ChargeID, "err", err)
		return
	}
	if o.Credits > 0 {
		w.s.metrics.credits.Add(uint64(o.Credits))
	}
	if res.Err != nil && res.Err.Code == errcode.InternalError {
		w.s.log.Error("batch item failed", "item", it.ChargeID, "endpoint", it.Endpoint, "err", res.Err.Cause)
	}
	if end.Ended {
		w.s.log.Info("batch ended", "batch", it.BatchID, "status", end.Status, "webhook", end.Webhook)
		if end.Webhook {
			w.wakeHooks()
		}
	}
	if w.onDone != nil {
		w.onDone(it, end)
	}
}

// execute runs the item through its endpoint's runner, turning a panic into internal_error.
func (w *worker) execute(ctx context.Context, it store.ClaimedItem) (res ItemResult) {
	defer func() {
		if r := recover(); r != nil {
			res = ItemResult{Err: &errcode.Error{Code: errcode.InternalError, Cause: fmt.Errorf("panic: %v", r)}}
		}
	}()
	if it.Attempt > w.cfg.MaxAttempts {
		return ItemResult{Err: &errcode.Error{Code: errcode.InternalError, Cause: fmt.Errorf("abandoned after %d attempts that never completed", it.Attempt-1)}}
	}
	if it.KeyRevoked {
		return ItemResult{Err: errRevokedItem()}
	}
	runner := w.runners[it.Endpoint]
	if runner == nil {
		return ItemResult{Err: errcode.New(errcode.NotFound, "the endpoint %s is no longer served", it.Endpoint)}
	}
	q, err := itemValues(it.Input)
	if err != nil {
		return ItemResult{Err: &errcode.Error{Code: errcode.InternalError, Cause: fmt.Errorf("stored item: %w", err)}}
	}
	p := Principal{KeyID: it.KeyID, WorkspaceID: it.WorkspaceID, Test: it.Test, MonthlyCredits: it.MonthlyCredits}
	if !it.Test {
		used, err := w.s.deps.Ledger.CreditsUsed(ctx, it.WorkspaceID)
		if err != nil {
			return ItemResult{Err: &errcode.Error{Code: errcode.InternalError, Cause: err}}
		}
		if it.MonthlyCredits-used < CostPerRequest {
			return ItemResult{Err: errCreditsSpent()}
		}
	}
	rctx, cancel := context.WithTimeout(ctx, w.s.cfg.RequestTimeout)
	defer cancel()
	return runner.Run(rctx, p, q)
}

// errRevokedItem is the error of a batch item whose key was revoked before it ran or completed: it
// stops, unbilled.
func errRevokedItem() *errcode.Error {
	return errcode.New(errcode.Revoked, "the API key that created this batch was revoked; its remaining items stop unbilled")
}
