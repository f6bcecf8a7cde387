package api

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"asa/engine/errcode"
	"asa/engine/fetch"
	"asa/store"
)

// WebhookSender posts webhooks. FetchWebhooks is the production one.
type WebhookSender interface {
	// CheckURL applies the parse-time rules of user-supplied URLs and returns the canonical URL.
	CheckURL(raw string) (string, error)
	// Post sends one attempt: no redirects, the answer read up to a cap, the SSRF guard at dial time.
	Post(ctx context.Context, url string, body []byte, header http.Header) (WebhookReply, error)
}

// WebhookReply is the receiver's answer to one attempt.
type WebhookReply struct {
	Status int
	Header http.Header
	Body   []byte // capped
}

// FetchWebhooks sends webhooks through the project's outbound client: fetch.Client.PostWebhook checks
// the URL, resolves and checks every address, re-checks at dial time, follows no redirect (a 3xx is
// a failure), gives up after fetch.WebhookTimeout and reads at most fetch.WebhookMaxBodyBytes of the
// answer.
type FetchWebhooks struct{ Client *fetch.Client }

// CheckURL implements WebhookSender.
func (f FetchWebhooks) CheckURL(raw string) (string, error) { return f.Client.CheckURL(raw) }

// Post implements WebhookSender.
func (f FetchWebhooks) Post(ctx context.Context, url string, body []byte, header http.Header) (WebhookReply, error) {
	r, err := f.Client.PostWebhook(ctx, url, body, header)
	if err != nil {
		return WebhookReply{}, err
	}
	return WebhookReply{Status: r.Status, Header: r.Header, Body: r.Body}, nil
}

// Webhook headers (spec 6, and Standard Webhooks v1).
const (
	HeaderBatchID   = "X-ASA-Batch-Id"
	HeaderEvent     = "X-ASA-Event"
	HeaderSignature = "X-ASA-Signature"
	HeaderAttempt   = "X-ASA-Attempt"
	// Standard Webhooks: the event id (the same on every attempt), the attempt's Unix time, and
	// "v1,<base64 HMAC-SHA256 of id.timestamp.body>".
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
	// EventBatchCompleted is the only event (spec 6).
	EventBatchCompleted = "batch.completed"
	// WebhookSecretPrefix starts every webhook_signature_secret.
	WebhookSecretPrefix = "whsec_"
)

// WebhookRetrySchedule is how long a failed delivery waits before each retry, counted from the
// attempt that failed (spec 6: "delays 1 min, 2 min, 5 min, 15 min, 1 h" between attempts): the
// first attempt is made at once, the retries at +1, +3, +8, +23 and +83 minutes when every attempt
// fails at once (WebhookAttemptOffsets). After the last retry fails the delivery is failed. A
// receiver's Retry-After can only push a retry later, never earlier; a 410 Gone ends the retries.
var WebhookRetrySchedule = []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}

// nextWebhookAttempt is when to retry after attempt number attempt (1-based) failed at at; ok is
// false when that was the last attempt.
func nextWebhookAttempt(attempt int, at time.Time) (next time.Time, ok bool) {
	if attempt < 1 || attempt > len(WebhookRetrySchedule) {
		return time.Time{}, false
	}
	return at.Add(WebhookRetrySchedule[attempt-1]), true
}

// WebhookAttemptOffsets returns when every attempt of a delivery is made, counted from the first,
// when each fails at once and no Retry-After pushes one: 0, 1, 3, 8, 23 and 83 minutes.
func WebhookAttemptOffsets() []time.Duration {
	out := []time.Duration{0}
	at := time.Time{}
	for n := 1; ; n++ {
		next, ok := nextWebhookAttempt(n, at)
		if !ok {
			return out
		}
		at = next
		out = append(out, next.Sub(time.Time{}))
	}
}

// maxRetryAfter caps how far a receiver's Retry-After may push the next attempt.
const maxRetryAfter = time.Hour

// MaxWebhookBody is the largest body a webhook carries (the outbound client's cap on request
// bodies). A batch record over it is sent with fewer results (see renderWebhook).
const MaxWebhookBody = fetch.MaxRequestBody

// SignWebhook returns the two signatures of body: X-ASA-Signature ("sha256=" and the lowercase hex
// HMAC-SHA256 of the raw body, keyed with the secret string as issued) and webhook-signature
// ("v1," and the base64 HMAC-SHA256 of "id.timestamp.body", keyed with the bytes the secret's
// base64 part decodes to, as Standard Webhooks specifies).
func SignWebhook(secret, id string, ts int64, body []byte) (asaSig, stdSig string) {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	asaSig = "sha256=" + hex.EncodeToString(m.Sum(nil))
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, WebhookSecretPrefix))
	if err != nil {
		key = []byte(secret)
	}
	m = hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s.%d.", id, ts)
	m.Write(body)
	stdSig = "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
	return asaSig, stdSig
}

// VerifyWebhookSignature reports whether header (the X-ASA-Signature value) is body's signature
// under secret, comparing in constant time.
func VerifyWebhookSignature(secret string, body []byte, header string) bool {
	got, err := hex.DecodeString(strings.TrimPrefix(header, "sha256="))
	if err != nil || !strings.HasPrefix(header, "sha256=") {
		return false
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal(got, m.Sum(nil))
}

// webhookHeaders are the headers of one attempt.
func webhookHeaders(secret, eventID, batchID string, attempt int, at time.Time, body []byte) http.Header {
	ts := at.Unix()
	asaSig, stdSig := SignWebhook(secret, eventID, ts, body)
	h := http.Header{}
	h.Set(HeaderBatchID, batchID)
	h.Set(HeaderEvent, EventBatchCompleted)
	h.Set(HeaderSignature, asaSig)
	h.Set(HeaderAttempt, strconv.Itoa(attempt))
	h.Set(HeaderWebhookID, eventID)
	h.Set(HeaderWebhookTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderWebhookSignature, stdSig)
	return h
}

// runHooks is the delivery loop: due deliveries are sent when a batch ends and on every poll tick
// (retries fall due with the clock).
func (w *worker) runHooks(ctx context.Context) {
	poll := time.NewTicker(w.cfg.Poll)
	defer poll.Stop()
	for {
		for w.deliverDue(ctx) > 0 && ctx.Err() == nil {
		}
		select {
		case <-ctx.Done():
			return
		case <-w.hooks:
		case <-poll.C:
		}
	}
}

// deliverDue sends the deliveries due now (up to WebhookConcurrency at once) and returns how many
// it attempted.
func (w *worker) deliverDue(ctx context.Context) int {
	if w.s.deps.Webhooks == nil {
		return 0
	}
	now := w.now()
	next, ok, err := w.db.NextDeliveryAt(ctx)
	if err != nil || !ok || next.After(now) {
		return 0
	}
	ds, err := w.db.ClaimDeliveries(ctx, w.cfg.Owner, w.cfg.WebhookConcurrency, now, w.cfg.Lease)
	if err != nil {
		if ctx.Err() == nil {
			w.s.log.Error("webhooks: claiming deliveries", "err", err)
		}
		return 0
	}
	var wg sync.WaitGroup
	for _, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.deliver(ctx, d)
		}()
	}
	wg.Wait()
	return len(ds)
}

// deliver makes one attempt of d and records it.
func (w *worker) deliver(ctx context.Context, d store.Delivery) {
	log := w.s.log.With("batch", d.BatchID, "event", d.ID, "attempt", d.Attempts+1)
	bg := context.WithoutCancel(ctx)
	body := d.Body
	if body == nil {
		// The first attempt freezes the body: every retry sends (and signs) the same bytes.
		b, err := w.renderWebhook(ctx, d)
		if err == nil {
			body, err = w.db.FreezeDeliveryBody(bg, d.ID, b)
		}
		if err != nil {
			log.Error("webhooks: rendering the body", "err", err)
			return // the lease expires and the next tick tries again
		}
	}
	at := w.now()
	attempt := d.Attempts + 1
	reply, err := w.s.deps.Webhooks.Post(ctx, d.URL, body, webhookHeaders(d.Secret, d.ID, d.BatchID, attempt, at, body))
	a := store.DeliveryAttempt{ID: d.ID, Owner: w.cfg.Owner, At: at, Duration: w.now().Sub(at)}
	if err == nil {
		a.Status, a.Response = reply.Status, truncateUTF8(reply.Body, 1024)
	}
	switch {
	case err != nil:
		a.Error = webhookError(err)
	case reply.Status >= 200 && reply.Status <= 299:
		a.OK = true
	case reply.Status >= 300 && reply.Status <= 399:
		a.Error = fmt.Sprintf("the receiver answered %d; redirects are not followed", reply.Status)
	case reply.Status == http.StatusGone:
		a.Error = "the receiver answered 410 Gone: it no longer accepts this webhook; not retried"
	default:
		a.Error = fmt.Sprintf("the receiver answered %d", reply.Status)
	}
	gone := err == nil && reply.Status == http.StatusGone
	if next, retry := nextWebhookAttempt(attempt, at); !a.OK && !gone && retry {
		if err == nil && (reply.Status == http.StatusTooManyRequests || reply.Status == http.StatusServiceUnavailable) {
			if ra, ok := parseRetryAfter(reply.Header.Get("Retry-After"), at); ok {
				next = maxTime(next, at.Add(min(ra, maxRetryAfter)))
			}
		}
		a.NextAt = next
	}
	if ctx.Err() != nil && !a.OK {
		return // shutting down: the attempt did not really happen; the next start makes it
	}
	state, rerr := w.db.RecordDeliveryAttempt(bg, a)
	if rerr != nil {
		log.Error("webhooks: recording an attempt", "err", rerr)
		return
	}
	if w.onHook != nil {
		w.onHook(d.BatchID, state)
	}
	switch state {
	case store.WebhookDelivered:
		log.Info("webhook delivered", "status", a.Status)
	case store.WebhookRetrying:
		log.Warn("webhook attempt failed; will retry", "error", a.Error, "next", a.NextAt)
	default:
		log.Warn("webhook failed; no more retries", "error", a.Error)
	}
}

// renderWebhook is the batch record as the poll answers it with default pagination; results are
// left out (from the last) until the body fits MaxWebhookBody, and results_limit says how many it
// holds, so the receiver knows where to page on.
func (w *worker) renderWebhook(ctx context.Context, d store.Delivery) ([]byte, error) {
	b, res, err := w.db.BatchPage(ctx, d.WorkspaceID, d.BatchID, 0, DefaultResultsLimit)
	if err != nil {
		return nil, err
	}
	limit := DefaultResultsLimit
	for {
		body, err := w.s.renderBatch(b, res, 0, limit)
		if err != nil || len(body) <= MaxWebhookBody || limit == 0 {
			return body, err
		}
		limit /= 2
		if len(res) > limit {
			res = res[:limit]
		}
	}
}

func webhookError(err error) string {
	if e := errcode.As(err); e != nil {
		msg := e.Message
		if msg == "" {
			msg = string(e.Code)
		}
		if e.Detail != "" && !strings.Contains(msg, e.Detail) {
			msg = e.Detail + ": " + msg
		}
		return msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return err.Error()
}

func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.Sub(now), true
	}
	return 0, false
}

func truncateUTF8(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.ToValidUTF8(string(b), "")
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
