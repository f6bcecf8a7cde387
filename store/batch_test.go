package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

func items(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = []byte(fmt.Sprintf(`{"query":"Q%04d"}`, i))
	}
	return out
}

func mustBatch(t *testing.T, db *DB, ws Workspace, key KeyRecord, id string, n int, webhook bool) Batch {
	t.Helper()
	nb := NewBatch{ID: id, WorkspaceID: ws.ID, KeyID: key.ID, Test: key.Test, Endpoint: "shop.product", Items: items(n), CreatedAt: t0}
	if webhook {
		nb.WebhookURL, nb.WebhookSecret = "https://hooks.example/in", "whsec_x"
	}
	b, replayed, err := db.CreateBatch(context.Background(), nb)
	if err != nil || replayed {
		t.Fatalf("CreateBatch: %v (replayed %v)", err, replayed)
	}
	return b
}

func claim(t *testing.T, db *DB, owner string, n int, now time.Time) []ClaimedItem {
	t.Helper()
	got, err := db.ClaimItems(context.Background(), owner, n, now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func complete(t *testing.T, db *DB, it ClaimedItem, owner string, ok bool, credits int) BatchEnd {
	t.Helper()
	o := ItemOutcome{Item: it, Owner: owner, OK: ok, HTTPStatus: 200, Data: []byte(`{"id":1}`), Credits: credits, At: t0.Add(time.Second)}
	if !ok {
		o.HTTPStatus, o.ErrorCode, o.Data = 502, "target_unreachable", []byte(`{"error":"target_unreachable"}`)
	}
	end, err := db.CompleteItem(context.Background(), o)
	if err != nil {
		t.Fatalf("CompleteItem(%s): %v", it.ChargeID, err)
	}
	return end
}

func TestCreateBatchIdempotency(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, key := mustKey(t, db, ws.ID, false)
	nb := NewBatch{ID: "b1", WorkspaceID: ws.ID, KeyID: key.ID, Endpoint: "shop.product", Items: items(3), CreatedAt: t0,
		IdempotencyKey: "k1", RequestHash: "h1", IdempotencyWindow: 24 * time.Hour}
	b, replayed, err := db.CreateBatch(ctx, nb)
	if err != nil || replayed || b.Status != BatchPending || b.Total != 3 || !b.CreatedAt.Equal(t0) {
		t.Fatalf("first: %+v replayed=%v err=%v", b, replayed, err)
	}
	same := nb
	same.ID, same.CreatedAt = "b2", t0.Add(23*time.Hour)
	b2, replayed, err := db.CreateBatch(ctx, same)
	if err != nil || !replayed || b2.ID != "b1" {
		t.Fatalf("replay: %+v replayed=%v err=%v", b2, replayed, err)
	}
	other := same
	other.RequestHash = "h2"
	if _, _, err := db.CreateBatch(ctx, other); !errors.Is(err, ErrIdempotencyConflict) {
		t.Fatalf("other body: %v, want ErrIdempotencyConflict", err)
	}
	// Another workspace may use the same key.
	ws2 := mustWorkspace(t, db, "beta", PlanFree, 0)
	_, key2 := mustKey(t, db, ws2.ID, false)
	o2 := other
	o2.ID, o2.WorkspaceID, o2.KeyID = "b3", ws2.ID, key2.ID
	if b, replayed, err := db.CreateBatch(ctx, o2); err != nil || replayed || b.ID != "b3" {
		t.Fatalf("other workspace: %+v %v %v", b, replayed, err)
	}
	// The same key and body from a sandbox key of the same workspace is another batch: a key is
	// scoped to the workspace and the mode, so a sandbox batch never answers a live request.
	_, testKey := mustKey(t, db, ws.ID, true)
	sb := same
	sb.ID, sb.KeyID, sb.Test = "b5", testKey.ID, true
	if b, replayed, err := db.CreateBatch(ctx, sb); err != nil || replayed || b.ID != "b5" || !b.Test {
		t.Fatalf("sandbox key: %+v %v %v", b, replayed, err)
	}
	sbAgain := sb
	sbAgain.ID = "b6"
	if b, replayed, err := db.CreateBatch(ctx, sbAgain); err != nil || !replayed || b.ID != "b5" {
		t.Fatalf("sandbox replay: %+v %v %v", b, replayed, err)
	}
	sbOther := sbAgain
	sbOther.RequestHash = "h9"
	if _, _, err := db.CreateBatch(ctx, sbOther); !errors.Is(err, ErrIdempotencyConflict) {
		t.Fatalf("sandbox key, other body: %v", err)
	}
	if b, replayed, err := db.CreateBatch(ctx, same); err != nil || !replayed || b.ID != "b1" {
		t.Fatalf("live replay after the sandbox batch: %+v %v %v", b, replayed, err)
	}
	// After the window the key is free again.
	late := other
	late.ID, late.CreatedAt = "b4", t0.Add(25*time.Hour)
	if b, replayed, err := db.CreateBatch(ctx, late); err != nil || replayed || b.ID != "b4" {
		t.Fatalf("after the window: %+v %v %v", b, replayed, err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM batch_items`); n != 12 {
		t.Fatalf("%d items stored, want 12 (4 batches of 3; the replays add none)", n)
	}
	if _, _, err := db.CreateBatch(ctx, NewBatch{ID: "x", WorkspaceID: ws.ID, KeyID: key.ID, Endpoint: "e", Items: items(MaxBatchItems + 1)}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("1001 items: %v", err)
	}
}

func TestClaimIsFairAcrossBatches(t *testing.T) {
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, key := mustKey(t, db, ws.ID, false)
	mustBatch(t, db, ws, key, "big", 1000, false)
	got := claim(t, db, "w1", 4, t0)
	if len(got) != 4 {
		t.Fatalf("claimed %d", len(got))
	}
	for i, it := range got {
		if it.BatchID != "big" || it.Index != i || it.Attempt != 1 || it.ChargeID != fmt.Sprintf("item_big_%d", i) {
			t.Fatalf("claim %d: %+v", i, it)
		}
	}
	// A one-item batch arriving while the big one holds every slot gets the next free slot.
	mustBatch(t, db, ws, key, "small", 1, false)
	if got := claim(t, db, "w1", 1, t0); len(got) != 1 || got[0].BatchID != "small" {
		t.Fatalf("next claim went to %+v, want the small batch", got)
	}
	// Two batches with work share claims round-robin.
	mustBatch(t, db, ws, key, "other", 10, false)
	per := map[string]int{}
	for range 6 {
		for _, it := range claim(t, db, "w1", 1, t0) {
			per[it.BatchID]++
		}
	}
	if per["big"] != 3 || per["other"] != 3 {
		t.Fatalf("one-at-a-time claims: %v, want 3 and 3", per)
	}
	per = map[string]int{}
	for _, it := range claim(t, db, "w1", 10, t0) {
		per[it.BatchID]++
	}
	if per["big"] != 5 || per["other"] != 5 {
		t.Fatalf("claim of 10: %v, want 5 and 5", per)
	}
	// The batch shows running with its start time; claims never exceed what is queued.
	b, _, err := db.BatchPage(context.Background(), ws.ID, "small", 0, 10)
	if err != nil || b.Status != BatchRunning || !b.StartedAt.Equal(t0) {
		t.Fatalf("small batch: %+v %v", b, err)
	}
	if n := count(t, db, `SELECT queued_count FROM batches WHERE id = 'other'`); n != 2 {
		t.Fatalf("other: %d queued, want 2", n)
	}
	rest := claim(t, db, "w1", 5000, t0)
	if len(rest) != 1000-4-3-5+2 {
		t.Fatalf("claimed the rest: %d", len(rest))
	}
	if got := claim(t, db, "w1", 5, t0); len(got) != 0 {
		t.Fatalf("claimed %d from an empty queue", len(got))
	}
}

func TestCompleteItemBillsOnceAndEndsTheBatch(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, key := mustKey(t, db, ws.ID, false)
	mustBatch(t, db, ws, key, "b", 3, true)
	got := claim(t, db, "w1", 3, t0)
	if end := complete(t, db, got[0], "w1", true, 5); end.Ended || end.Status != BatchRunning {
		t.Fatalf("after one item: %+v", end)
	}
	// A stale claim (another owner, or an older attempt) writes nothing.
	for _, bad := range []struct {
		owner   string
		attempt int
	}{{"w2", 1}, {"w1", 2}} {
		it := got[1]
		it.Attempt = bad.attempt
		_, err := db.CompleteItem(ctx, ItemOutcome{Item: it, Owner: bad.owner, OK: true, HTTPStatus: 200, Data: []byte(`{}`), Credits: 5})
		if !errors.Is(err, ErrLeaseLost) {
			t.Fatalf("stale completion %+v: %v", bad, err)
		}
	}
	// Completing the same claim twice: the second is stale too.
	if _, err := db.CompleteItem(ctx, ItemOutcome{Item: got[0], Owner: "w1", OK: true, HTTPStatus: 200, Credits: 5}); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("second completion: %v", err)
	}
	complete(t, db, got[1], "w1", false, 5) // a failure is never billed, whatever the caller says
	end := complete(t, db, got[2], "w1", true, 15)
	if !end.Ended || end.Status != BatchComplete || !end.Webhook {
		t.Fatalf("last item: %+v", end)
	}
	b, res, err := db.BatchPage(ctx, ws.ID, "b", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if b.Processed != 3 || b.Succeeded != 2 || b.Failed != 1 || b.Credits != 20 || b.Status != BatchComplete ||
		b.CompletedAt.IsZero() || b.WebhookStatus != WebhookPending {
		t.Fatalf("batch: %+v", b)
	}
	if len(res) != 3 || res[1].Status != ItemFailed || res[1].ErrorCode != "target_unreachable" || res[1].Credits != 0 || res[2].Credits != 15 {
		t.Fatalf("results: %+v", res)
	}
	if used, _ := db.CreditsUsed(ctx, ws.ID, t0); used != 20 {
		t.Fatalf("ledger: %d credits, want 20", used)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM request_log WHERE request_id LIKE 'item_b_%'`); n != 3 {
		t.Fatalf("%d request log lines, want 3", n)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM webhook_deliveries WHERE batch_id = 'b' AND state = 'pending'`); n != 1 {
		t.Fatalf("%d outbox rows, want 1", n)
	}
	st, err := db.BatchStats(ctx)
	if err != nil || st.Items != 3 || st.OK != 2 || st.ItemCredits != 20 || st.LedgerCredits != 20 || st.LedgerRows != 2 {
		t.Fatalf("stats %+v %v", st, err)
	}
}

func TestEveryItemFailedFailsTheBatch(t *testing.T) {
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, key := mustKey(t, db, ws.ID, true) // sandbox: never billed
	mustBatch(t, db, ws, key, "b", 2, false)
	got := claim(t, db, "w", 2, t0)
	complete(t, db, got[0], "w", false, 0)
	end := complete(t, db, got[1], "w", false, 0)
	if !end.Ended || end.Status != BatchFailed || end.Webhook {
		t.Fatalf("%+v", end)
	}
	if _, err := db.CompleteItem(context.Background(), ItemOutcome{Item: got[0], Owner: "w", OK: true, Credits: 5}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("billing a sandbox item: %v", err)
	}
}

func TestCompleteItemOverAllowanceWritesNothing(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanCustom, 7)
	_, key := mustKey(t, db, ws.ID, false)
	mustBatch(t, db, ws, key, "b", 2, false)
	got := claim(t, db, "w", 2, t0)
	complete(t, db, got[0], "w", true, 5)
	_, err := db.CompleteItem(ctx, ItemOutcome{Item: got[1], Owner: "w", OK: true, HTTPStatus: 200, Credits: 5, At: t0})
	if !errors.Is(err, ErrInsufficientCredits) {
		t.Fatalf("over the allowance: %v", err)
	}
	if n := count(t, db, `SELECT processed_count FROM batches`); n != 1 {
		t.Fatalf("processed %d after a refused charge", n)
	}
	// The worker then records the item as failed (402): the claim still holds.
	end, err := db.CompleteItem(ctx, ItemOutcome{Item: got[1], Owner: "w", HTTPStatus: 402, ErrorCode: "insufficient_credits", Data: []byte(`{}`), At: t0})
	if err != nil || !end.Ended || end.Status != BatchComplete {
		t.Fatalf("%+v %v", end, err)
	}
	if used, _ := db.CreditsUsed(ctx, ws.ID, t0); used != 5 {
		t.Fatalf("used %d", used)
	}
}

func TestRequeueAfterCrashAndLeaseExpiry(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, key := mustKey(t, db, ws.ID, false)
	mustBatch(t, db, ws, key, "b", 5, false)
	dead := claim(t, db, "old-boot", 2, t0)
	mine := claim(t, db, "new-boot", 2, t0)
	db.Close()
	db = openAgain(t, path)

	// Expired leases come back whoever owns them; unexpired ones of a live owner stay.
	if n, err := db.RequeueItems(ctx, "", t0.Add(30*time.Second)); err != nil || n != 0 {
		t.Fatalf("nothing expired yet: %d %v", n, err)
	}
	if onPostgres(t) {
		// Other nodes share the queue: an owner that is not us may be alive, so its items wait out
		// their lease, and a live owner's renewed leases stay.
		if n, err := db.RequeueItems(ctx, "new-boot", t0.Add(30*time.Second)); err != nil || n != 0 {
			t.Fatalf("requeued %d %v before the leases expired, want 0", n, err)
		}
		if err := db.RenewItemLeases(ctx, "new-boot", t0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n, err := db.RequeueItems(ctx, "new-boot", t0.Add(90*time.Second)); err != nil || n != 2 {
			t.Fatalf("requeued %d %v, want the dead owner's 2 once their lease expired", n, err)
		}
	} else if n, err := db.RequeueItems(ctx, "new-boot", t0.Add(30*time.Second)); err != nil || n != 2 {
		// At start, everything a previous process held comes back at once.
		t.Fatalf("requeued %d %v, want the dead owner's 2", n, err)
	}
	if _, err := db.CompleteItem(ctx, ItemOutcome{Item: dead[0], Owner: "old-boot", OK: true, Credits: 5}); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("completion by the dead owner: %v", err)
	}
	again := claim(t, db, "new-boot", 10, t0.Add(time.Minute))
	if len(again) != 3 || again[0].Index != 0 || again[0].Attempt != 2 {
		t.Fatalf("reclaimed %+v", again)
	}
	// Renewed leases survive the rescuer; expired ones do not.
	if err := db.RenewItemLeases(ctx, "new-boot", t0.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n, _ := db.RequeueItems(ctx, "", t0.Add(5*time.Minute)); n != 0 {
		t.Fatalf("renewed leases requeued: %d", n)
	}
	if n, _ := db.RequeueItems(ctx, "", t0.Add(11*time.Minute)); n != 5 {
		t.Fatalf("expired leases requeued: %d, want 5", n)
	}
	_ = mine
	got := claim(t, db, "x", 10, t0.Add(12*time.Minute))
	if n, err := db.ReleaseItems(ctx, "x"); err != nil || n != len(got) || n != 5 {
		t.Fatalf("released %d %v", n, err)
	}
	if n := count(t, db, `SELECT queued_count FROM batches`); n != 5 {
		t.Fatalf("queued_count %d", n)
	}
	if n := count(t, db, `SELECT MAX(attempts) FROM batch_items`); n != 2 {
		t.Fatalf("a release must not count as an attempt: max attempts %d", n)
	}
}

func TestBatchPageIsScopedAndPaginated(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	other := mustWorkspace(t, db, "beta", PlanFree, 0)
	_, key := mustKey(t, db, ws.ID, false)
	mustBatch(t, db, ws, key, "b", 10, false)
	for _, it := range claim(t, db, "w", 10, t0) {
		if it.Index%2 == 0 {
			complete(t, db, it, "w", true, 5)
		}
	}
	if got, err := db.ListBatches(ctx, ws.ID, 0, 10); err != nil || len(got) != 1 || got[0].ID != "b" || got[0].Processed != 5 {
		t.Fatalf("list: %+v %v", got, err)
	}
	if got, _ := db.ListBatches(ctx, other.ID, 0, 10); len(got) != 0 {
		t.Fatalf("another workspace lists %d batches", len(got))
	}
	if _, _, err := db.BatchPage(ctx, other.ID, "b", 0, 10); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another workspace: %v", err)
	}
	if _, _, err := db.BatchPage(ctx, ws.ID, "nope", 0, 10); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	b, res, err := db.BatchPage(ctx, ws.ID, "b", 3, 4)
	if err != nil || b.Processed != 5 || len(res) != 2 || res[0].Index != 4 || res[1].Index != 6 {
		t.Fatalf("page [3,7): %+v %+v %v", b, res, err)
	}
	if string(res[0].Input) != `{"query":"Q0004"}` || string(res[0].Data) != `{"id":1}` {
		t.Fatalf("result %+v", res[0])
	}
}

func TestDeliveryLifecycle(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, key := mustKey(t, db, ws.ID, false)
	mustBatch(t, db, ws, key, "b", 1, true)
	if _, ok, _ := db.NextDeliveryAt(ctx); ok {
		t.Fatal("a delivery before the batch ended")
	}
	complete(t, db, claim(t, db, "w", 1, t0)[0], "w", true, 5)
	end := t0.Add(time.Second)
	next, ok, err := db.NextDeliveryAt(ctx)
	if err != nil || !ok || !next.Equal(end) {
		t.Fatalf("next delivery %v %v %v", next, ok, err)
	}
	if got, _ := db.ClaimDeliveries(ctx, "w", 5, t0, time.Minute); len(got) != 0 {
		t.Fatal("claimed before it was due")
	}
	ds, err := db.ClaimDeliveries(ctx, "w", 5, end, time.Minute)
	if err != nil || len(ds) != 1 || ds[0].ID != EventID("b") || ds[0].Secret != "whsec_x" || ds[0].Body != nil || ds[0].Attempts != 0 {
		t.Fatalf("claim: %+v %v", ds, err)
	}
	if again, _ := db.ClaimDeliveries(ctx, "w2", 5, end, time.Minute); len(again) != 0 {
		t.Fatal("a leased delivery was claimed twice")
	}
	body, err := db.FreezeDeliveryBody(ctx, ds[0].ID, []byte(`{"a":1}`))
	if err != nil || string(body) != `{"a":1}` {
		t.Fatalf("freeze: %s %v", body, err)
	}
	if body, _ := db.FreezeDeliveryBody(ctx, ds[0].ID, []byte(`{"a":2}`)); string(body) != `{"a":1}` {
		t.Fatalf("the body changed: %s", body)
	}
	st, err := db.RecordDeliveryAttempt(ctx, DeliveryAttempt{ID: ds[0].ID, Owner: "w", At: end, Status: 500, Error: "status 500", NextAt: end.Add(time.Minute)})
	if err != nil || st != WebhookRetrying {
		t.Fatalf("record: %s %v", st, err)
	}
	if _, err := db.RecordDeliveryAttempt(ctx, DeliveryAttempt{ID: ds[0].ID, Owner: "w", OK: true}); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("record without the lease: %v", err)
	}
	b, _, _ := db.BatchPage(ctx, ws.ID, "b", 0, 1)
	if b.WebhookStatus != WebhookRetrying || b.WebhookLastError != "status 500" {
		t.Fatalf("batch after a failed attempt: %+v", b)
	}
	ds, _ = db.ClaimDeliveries(ctx, "w", 5, end.Add(time.Minute), time.Minute)
	if len(ds) != 1 || ds[0].Attempts != 1 || string(ds[0].Body) != `{"a":1}` {
		t.Fatalf("second claim %+v", ds)
	}
	if st, err := db.RecordDeliveryAttempt(ctx, DeliveryAttempt{ID: ds[0].ID, Owner: "w", At: end.Add(time.Minute), OK: true, Status: 204}); err != nil || st != WebhookDelivered {
		t.Fatalf("%s %v", st, err)
	}
	b, _, _ = db.BatchPage(ctx, ws.ID, "b", 0, 1)
	if b.WebhookStatus != WebhookDelivered || b.WebhookLastError != "" || !b.WebhookDeliveredAt.Equal(end.Add(time.Minute)) {
		t.Fatalf("batch after delivery: %+v", b)
	}
	atts, err := db.WebhookAttempts(ctx, "b")
	if err != nil || len(atts) != 2 || atts[0].Status != 500 || atts[1].Status != 204 {
		t.Fatalf("attempts %+v %v", atts, err)
	}
	if _, ok, _ := db.NextDeliveryAt(ctx); ok {
		t.Fatal("a delivered webhook is still due")
	}
	if v, err := db.IntegrityCheck(ctx); err != nil || v != "ok" {
		t.Fatalf("integrity %q %v", v, err)
	}
}

// TestRevokedKeyStopsItsBatch: after a revocation the claim says so, and a completion that would
// bill the key writes nothing (ErrKeyRevoked); the started_at of a claim read before the batch
// was created is the batch's created_at.
func TestRevokedKeyStopsItsBatch(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanPro, 0)
	_, key := mustKey(t, db, ws.ID, false)
	mustBatch(t, db, ws, key, "b1", 2, false)
	first := claim(t, db, "w1", 1, t0.Add(-time.Second))
	if len(first) != 1 || first[0].KeyRevoked {
		t.Fatalf("claim before the revocation: %+v", first)
	}
	if b, _, err := db.BatchPage(ctx, ws.ID, "b1", 0, 10); err != nil || !b.StartedAt.Equal(t0) {
		t.Fatalf("started_at %v, want created_at %v (%v)", b.StartedAt, t0, err)
	}
	if err := db.RevokeKey(ctx, ws.ID, key.ShortPrefix); err != nil {
		t.Fatal(err)
	}
	o := ItemOutcome{Item: first[0], Owner: "w1", OK: true, HTTPStatus: 200, Data: []byte(`{}`), Credits: 5, At: t0}
	if _, err := db.CompleteItem(ctx, o); !errors.Is(err, ErrKeyRevoked) {
		t.Fatalf("billing a revoked key: %v, want ErrKeyRevoked", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM usage`) + count(t, db, `SELECT COUNT(*) FROM batch_items WHERE state IN ('ok', 'failed')`); n != 0 {
		t.Fatalf("a refused completion wrote %d rows", n)
	}
	complete(t, db, first[0], "w1", false, 0)
	if rest := claim(t, db, "w1", 5, t0); len(rest) != 1 || !rest[0].KeyRevoked {
		t.Fatalf("claim after the revocation: %+v", rest)
	}
}

// TestDeliveryAttemptKeepsAnyResponse: a receiver's answer is whatever bytes it sent (binary, cut in
// the middle of a character, NUL bytes); the attempt is recorded all the same, as text.
func TestDeliveryAttemptKeepsAnyResponse(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, key := mustKey(t, db, ws.ID, false)
	mustBatch(t, db, ws, key, "b", 1, true)
	complete(t, db, claim(t, db, "w", 1, t0)[0], "w", true, 5)
	ds, err := db.ClaimDeliveries(ctx, "w", 1, t0.Add(time.Hour), time.Minute)
	if err != nil || len(ds) != 1 {
		t.Fatalf("claim: %v %v", ds, err)
	}
	a := DeliveryAttempt{ID: ds[0].ID, Owner: "w", At: t0.Add(time.Hour), Status: 500, Error: "status 500 \xff",
		Response: "ok\x00\xe2\x82", NextAt: t0.Add(2 * time.Hour)}
	if _, err := db.RecordDeliveryAttempt(ctx, a); err != nil {
		t.Fatal(err)
	}
	atts, err := db.WebhookAttempts(ctx, "b")
	if err != nil || len(atts) != 1 || atts[0].Response != "ok\uFFFD" || atts[0].Error != "status 500 \uFFFD" {
		t.Fatalf("attempts %+v %v", atts, err)
	}
}
