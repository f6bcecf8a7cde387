package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"asa/api"
	"asa/store"
)

// TestBatchIdempotencyScopedToKeyMode: an Idempotency-Key is scoped to the workspace and the key's
// mode. A live key resubmitting a sandbox batch's key and body gets a live batch of its own (billed),
// never the sandbox one (fixture data, 0 credits); each mode replays its own batch, and another body
// under the key is a conflict in either mode.
func TestBatchIdempotencyScopedToKeyMode(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true})
	body := map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}
	sb := e.create(t, e.test, body, "Idempotency-Key", "nightly-1")
	live := e.create(t, e.live, body, "Idempotency-Key", "nightly-1")
	if sb.status != 201 || live.status != 201 || live.body["id"] == sb.body["id"] || live.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("a live key got the sandbox batch back: %d %s / %d %s", sb.status, sb.raw, live.status, live.raw)
	}
	for _, tt := range []struct {
		name, key, want string
	}{{"live", e.live, live.body["id"].(string)}, {"sandbox", e.test, sb.body["id"].(string)}} {
		again := e.create(t, tt.key, body, "Idempotency-Key", "nightly-1")
		if again.status != 200 || again.body["id"] != tt.want || again.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("%s replay: %d %s, want batch %s", tt.name, again.status, again.raw, tt.want)
		}
		other := e.create(t, tt.key, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB9999")}, "Idempotency-Key", "nightly-1")
		if other.status != 409 || other.body["error"] != "conflict" {
			t.Errorf("%s, another body: %d %s", tt.name, other.status, other.raw)
		}
	}
	if n := e.srv.RunQueuedItems(context.Background()); n != 2 {
		t.Fatalf("ran %d items, want 2", n)
	}
	lp, sp := e.poll(t, e.live, live.body["id"].(string)), e.poll(t, e.live, sb.body["id"].(string))
	if lp.body["credits_charged"] != 5.0 || sp.body["credits_charged"] != 0.0 || lp.body["status"] != "complete" {
		t.Fatalf("live batch %s\nsandbox batch %s", lp.raw, sp.raw)
	}
	if used, _ := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now()); used != 5 {
		t.Fatalf("ledger: %d credits, want 5 (the live item)", used)
	}
}

// TestBatchContentType: a batch is created only from a body sent as application/json; anything
// else is 415 unsupported_media_type, a JSON error, before the body is read.
func TestBatchContentType(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true})
	body := map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")}
	for _, tt := range []struct {
		ct     string
		status int
	}{
		{"application/json", 201},
		{"application/json; charset=utf-8", 201},
		{"Application/JSON", 201},
		{"", 415},
		{"text/plain", 415},
		{"application/x-www-form-urlencoded", 415},
		{"application/jsonx", 415},
		{"application/json; charset", 415},
	} {
		t.Run(tt.ct, func(t *testing.T) {
			r := e.create(t, e.live, body, "Content-Type", tt.ct)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.raw)
			}
			if tt.status == 415 && (r.body["error"] != "unsupported_media_type" || !strings.HasSuffix(fmt.Sprint(r.body["docs_url"]), "#error-unsupported-media-type") ||
				r.header.Get("Asa-Cost") != "0" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json")) {
				t.Fatalf("415 body %s, headers %v", r.raw, r.header)
			}
		})
	}
}

// TestBatchEndpointMatchesSite: the endpoint's site must be the {site} of the path (universal.get
// under /api/v1/universal/batch).
func TestBatchEndpointMatchesSite(t *testing.T) {
	e := startBatches(t, batchOpts{noLoop: true})
	uni := []any{map[string]any{"url": "https://shop.example.com/p/steel-kettle"}}
	for _, tt := range []struct {
		name, site, endpoint string
		items                any
		status               int
	}{
		{"shop under shop", "shop", "shop.product", itemsOf("AB1234"), 201},
		{"universal under universal", "universal", "universal.get", uni, 201},
		{"shop under universal", "universal", "shop.product", itemsOf("AB1234"), 400},
		{"universal under shop", "shop", "universal.get", uni, 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, http.MethodPost, "/api/v1/"+tt.site+"/batch?api_key="+e.test, map[string]any{"endpoint": tt.endpoint, "items": tt.items})
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.raw)
			}
			if tt.status == 400 && (r.body["error"] != "invalid_params" || fmt.Sprint(r.body["params"]) != "[endpoint]" ||
				!strings.Contains(fmt.Sprint(r.body["message"]), "/api/v1/"+strings.Split(tt.endpoint, ".")[0]+"/batch")) {
				t.Fatalf("error: %s", r.raw)
			}
		})
	}
}

// TestWebhookGoneStopsRetrying: a receiver answering 410 Gone is not tried again; the delivery is
// failed at once and says why.
func TestWebhookGoneStopsRetrying(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)}
	e := startBatches(t, batchOpts{clock: clock, noLoop: true})
	e.hooks.status = func(n int) (int, http.Header) { return http.StatusGone, nil }
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234"), "webhook_url": e.hooks.srv.URL})
	id := r.body["id"].(string)
	ctx := context.Background()
	e.srv.RunQueuedItems(ctx)
	if n := e.srv.DeliverDueWebhooks(ctx); n != 1 {
		t.Fatalf("%d attempts, want 1", n)
	}
	<-e.hooks.ch
	p := e.poll(t, e.live, id)
	if p.body["webhook_delivery_status"] != "failed" || !strings.Contains(fmt.Sprint(p.body["webhook_last_error"]), "410 Gone") {
		t.Fatalf("after a 410: %s", p.raw)
	}
	if d, err := e.db.WebhookDelivery(ctx, id); err != nil || d.State != store.WebhookFailed || !d.NextAttemptAt.IsZero() || d.Attempts != 1 {
		t.Fatalf("stored delivery %+v %v", d, err)
	}
	for range 20 {
		clock.Advance(10 * time.Minute)
		if n := e.srv.DeliverDueWebhooks(ctx); n != 0 {
			t.Fatalf("retried after a 410")
		}
	}
	if n := e.hooks.count(); n != 1 {
		t.Fatalf("%d requests to the receiver, want 1", n)
	}
}

// TestBatchRevokedKeyStopsItems: once the batch's key is revoked, its remaining items stop failed
// with revoked (401) and unbilled, the one running at the revocation included; what finished
// before stays billed.
func TestBatchRevokedKeyStopsItems(t *testing.T) {
	e := startBatches(t, batchOpts{cfg: api.BatchConfig{Concurrency: 1}})
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234", "HOLD01", "AB1235")})
	id := r.body["id"].(string)
	e.waitFetches(t, 2) // AB1234 finished, HOLD01 is running
	ctx := context.Background()
	keys, err := e.db.Keys(ctx, e.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !k.Test {
			if err := e.db.RevokeKey(ctx, e.ws.ID, k.ShortPrefix); err != nil {
				t.Fatal(err)
			}
		}
	}
	e.target.hold <- struct{}{}
	final := e.waitEnd(t, e.test, id) // the workspace's sandbox key still reads it
	if final.body["status"] != "complete" || final.body["success_count"] != 1.0 || final.body["failure_count"] != 2.0 || final.body["credits_charged"] != 5.0 {
		t.Fatalf("final: %s", final.raw)
	}
	for i, x := range final.body["results"].([]any) {
		m := x.(map[string]any)
		if i == 0 {
			if m["status"] != "ok" || m["credits_charged"] != 5.0 {
				t.Errorf("item 0: %v", m)
			}
			continue
		}
		if m["status"] != "failed" || m["error"] != "revoked" || m["http_status"] != 401.0 || m["credits_charged"] != 0.0 ||
			m["data"].(map[string]any)["error"] != "revoked" {
			t.Errorf("item %d: %v", i, m)
		}
	}
	if used, _ := e.db.CreditsUsed(ctx, e.ws.ID, time.Now()); used != 5 {
		t.Fatalf("ledger: %d credits, want 5", used)
	}
	select {
	case u := <-e.fetched:
		t.Fatalf("an item of a revoked key was fetched: %s", u)
	default:
	}
}

// TestBatchStartedNotBeforeCreated: the worker reads its clock before its claim waits for the
// store's writer, so a batch created meanwhile is younger than the claim time (and another node's
// clock can lag). started_at is never before created_at, nor completed_at before started_at.
func TestBatchStartedNotBeforeCreated(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)}
	e := startBatches(t, batchOpts{clock: clock, noLoop: true})
	r := e.create(t, e.live, map[string]any{"endpoint": "shop.product", "items": itemsOf("AB1234")})
	clock.Advance(-1500 * time.Millisecond) // the claim's time was read before the batch was created
	if n := e.srv.RunQueuedItems(context.Background()); n != 1 {
		t.Fatalf("ran %d items", n)
	}
	p := e.poll(t, e.live, r.body["id"].(string))
	created, started, completed := fmt.Sprint(p.body["created_at"]), fmt.Sprint(p.body["started_at"]), fmt.Sprint(p.body["completed_at"])
	if p.body["status"] != "complete" || created != r.body["created_at"] || started < created || completed < started {
		t.Fatalf("created %s, started %s, completed %s: %s", created, started, completed, p.raw)
	}
}
