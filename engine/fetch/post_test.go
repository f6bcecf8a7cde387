package fetch

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"asa/engine/errcode"
)

// TestPostWebhookSendsOurHeaders: a webhook carries the X-ASA-* headers that Do strips from
// user-supplied requests, keeps Post's rules (no redirects, capped answer, user-URL ports), and still
// drops the other forbidden headers.
func TestPostWebhookSendsOurHeaders(t *testing.T) {
	f := newFarm(t)
	var got atomic.Value
	f.HandleFunc("hooks.example", "/hook", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(r.Header.Get("Content-Type") + "|" + r.Header.Get("X-Asa-Signature") + "|" + r.Header.Get("X-Asa-Batch-Id") + "|" +
			r.Header.Get("Webhook-Id") + "|" + r.Header.Get("X-Forwarded-For") + "|" + r.Header.Get("User-Agent") + "|" + string(b))
		w.WriteHeader(204)
	})
	c, _ := farmClient(t, f, Options{})
	h := http.Header{"X-ASA-Signature": {"sha256=ab"}, "X-Asa-Batch-Id": {"b1"}, "Webhook-Id": {"evt_1"}, "X-Forwarded-For": {"10.0.0.1"}}
	res, err := c.PostWebhook(context.Background(), "https://hooks.example/hook", []byte(`{"a":1}`), h)
	if err != nil || res.Status != 204 {
		t.Fatalf("%+v %v", res, err)
	}
	if s, _ := got.Load().(string); s != `application/json|sha256=ab|b1|evt_1||`+WebhookUserAgent+`|{"a":1}` {
		t.Fatalf("receiver saw %q", s)
	}
	res, err = c.PostWebhook(context.Background(), "https://hooks.example/hop/1", nil, nil)
	if err != nil || res.Status != 302 {
		t.Fatalf("redirect followed: %+v %v", res, err)
	}
	_, err = c.PostWebhook(context.Background(), "https://hooks.example:8443/hook", nil, nil)
	wantErr(t, err, errcode.InvalidParams, "")
	_, err = c.PostWebhook(context.Background(), "https://127.0.0.1/hook", nil, nil)
	wantErr(t, err, errcode.InvalidParams, "")
	_, err = c.PostWebhook(context.Background(), "https://hooks.example/hook", make([]byte, MaxRequestBody+1), nil)
	wantErr(t, err, errcode.InvalidParams, "")
}
