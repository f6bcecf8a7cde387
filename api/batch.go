package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"asa/engine/errcode"
	"asa/engine/fixture"
	"asa/engine/nearest"
	"asa/engine/universal"
	"asa/store"
)

// BatchStore persists batches, their items (a durable queue with leases) and webhook deliveries.
// *store.DB implements it.
type BatchStore interface {
	CreateBatch(ctx context.Context, nb store.NewBatch) (store.Batch, bool, error)
	BatchPage(ctx context.Context, workspaceID int64, id string, offset, limit int) (store.Batch, []store.ItemResult, error)
	ClaimItems(ctx context.Context, owner string, n int, now time.Time, lease time.Duration) ([]store.ClaimedItem, error)
	RenewItemLeases(ctx context.Context, owner string, until time.Time) error
	RequeueItems(ctx context.Context, keep string, now time.Time) (int, error)
	ReleaseItems(ctx context.Context, owner string) (int, error)
	CompleteItem(ctx context.Context, o store.ItemOutcome) (store.BatchEnd, error)
	ClaimDeliveries(ctx context.Context, owner string, n int, now time.Time, lease time.Duration) ([]store.Delivery, error)
	FreezeDeliveryBody(ctx context.Context, id string, body []byte) ([]byte, error)
	RecordDeliveryAttempt(ctx context.Context, a store.DeliveryAttempt) (string, error)
	NextDeliveryAt(ctx context.Context) (time.Time, bool, error)
}

// BatchConfig configures batches and their worker. Zero values take the defaults.
type BatchConfig struct {
	// Concurrency is the internal budget of batch items in flight on this node (default 64). It is
	// not counted against any key's limits (spec 8.1).
	Concurrency int
	// Lease is how long a claimed item (or webhook delivery) stays leased without renewal (default
	// 60s); leases are renewed every Lease/3 while the work runs, and expired ones are requeued.
	Lease time.Duration
	// Poll is how often the worker looks for requeued work and due webhooks when nothing else wakes
	// it (default 1s).
	Poll time.Duration
	// MaxAttempts bounds the claims of one item: one claimed that many times without completing (each
	// a crash or a lost lease) fails with internal_error (default 10).
	MaxAttempts int
	// WebhookConcurrency is how many webhook deliveries run at once (default 8).
	WebhookConcurrency int
	// AllowHTTPWebhooks accepts http:// webhook URLs (tests and local development; asa serve sets it
	// with --allow-private-network). Otherwise only https.
	AllowHTTPWebhooks bool
	// Owner names this process's leases (default: a random boot id).
	Owner string
	// DrainTimeout is how long running items get to finish on shutdown before they are released to
	// the next start (default 10s).
	DrainTimeout time.Duration
	// IdempotencyWindow is how long an Idempotency-Key returns the same batch (default 24h).
	IdempotencyWindow time.Duration
}

func (c *BatchConfig) defaults() {
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultBatchConcurrency
	}
	if c.Lease <= 0 {
		c.Lease = 60 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 10
	}
	if c.WebhookConcurrency <= 0 {
		c.WebhookConcurrency = 8
	}
	if c.Owner == "" {
		c.Owner = "boot_" + randomHex(8)
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 10 * time.Second
	}
	if c.IdempotencyWindow <= 0 {
		c.IdempotencyWindow = 24 * time.Hour
	}
}

// DefaultBatchConcurrency is the default internal budget of batch items in flight.
const DefaultBatchConcurrency = 64

// Results pagination of GET .../batch/{id}.
const (
	DefaultResultsLimit = 100
	MaxResultsLimit     = store.MaxBatchItems
)

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 255

// HeaderIdempotencyKey and HeaderIdempotentReplayed: a create repeated under the same key answers
// the first batch, marked as a replay.
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// registerBatches adds the batch routes and the worker when a BatchStore is configured.
func (s *Server) registerBatches(e *echo.Echo) {
	if s.deps.Batches == nil {
		return
	}
	s.deps.Batch.defaults()
	runners := map[string]ItemRunner{}
	for _, id := range s.deps.Registry.IDs() {
		runners[id] = planRunner{s: s, plan: s.deps.Registry.Plan(id)}
		site, resource, _ := strings.Cut(id, ".")
		for _, alias := range s.deps.Registry.Aliases(site) {
			runners[alias+"."+resource] = runners[id]
		}
	}
	runners[universal.Endpoint] = universalRunner{s: s}
	for id, r := range s.deps.ItemRunners {
		runners[id] = r
	}
	s.batch = newWorker(s, runners)
	e.POST("/api/v1/:site/batch", s.createBatch)
	e.GET("/api/v1/:site/batch/:id", s.getBatch)
}

// RunBatches runs the batch worker and the webhook sender until ctx is done, then lets running items
// finish (up to BatchConfig.DrainTimeout) and releases the rest to the next start. Without a
// BatchStore it waits for ctx.
func (s *Server) RunBatches(ctx context.Context) error {
	if s.batch == nil {
		<-ctx.Done()
		return nil
	}
	return s.batch.run(ctx)
}

// batchRequest is the body of POST .../batch (spec 4.6).
type batchRequest struct {
	Endpoint   *string           `json:"endpoint"`
	Items      []json.RawMessage `json:"items"`
	WebhookURL *string           `json:"webhook_url"`
}

// siteKnown says whether {site} names a loaded site or the site of a runner (universal).
func (s *Server) siteKnown(site string) bool {
	if s.deps.Registry.Site(site) != nil {
		return true
	}
	for id := range s.batch.runners {
		if strings.HasPrefix(id, site+".") {
			return true
		}
	}
	return false
}

// createBatch serves POST /api/v1/{site}/batch.
func (s *Server) createBatch(c echo.Context) error {
	start := s.now()
	status, code := http.StatusCreated, ""
	var p Principal
	authed := false
	defer func() {
		s.metrics.observe("batch", strconv.Itoa(status), s.now().Sub(start))
		// a batch is created without a fetch: every error is a refusal
		s.logRequestLine(c, p, "batch", status, code, status >= 400, "duration_ms", s.now().Sub(start).Milliseconds())
	}()
	fail := func(e *errcode.Error) error {
		e = clientError(e)
		status, code = e.Code.Status(), string(e.Code)
		if authed {
			s.logRequest(c, p, "batch", status, code, 0, start)
		}
		return s.writeError(c, e)
	}
	c.Response().Header().Set(HeaderCost, "0")
	p, aerr := s.authenticate(c)
	if aerr != nil {
		return fail(aerr)
	}
	authed = true
	release, lerr := s.admit(c, p)
	if lerr != nil {
		return fail(lerr)
	}
	defer release()
	if !s.siteKnown(c.Param("site")) {
		return fail(errcode.New(errcode.NotFound, "no such site: %s", c.Param("site")))
	}
	for k := range c.QueryParams() {
		if k != "api_key" {
			return fail(&errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("unknown parameter %s; the batch is described by the JSON body", k), Params: []string{k}})
		}
	}
	if ct := c.Request().Header.Get(echo.HeaderContentType); !isJSONMediaType(ct) {
		return fail(errcode.New(errcode.UnsupportedMedia, "the body must be JSON sent with Content-Type: application/json, not %q", ct))
	}
	idem := c.Request().Header.Get(HeaderIdempotencyKey)
	if len(idem) > maxIdempotencyKey || strings.IndexFunc(idem, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
		return fail(&errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("the Idempotency-Key header must be 1 to %d printable ASCII characters", maxIdempotencyKey), Params: []string{HeaderIdempotencyKey}})
	}
	nb, verr := s.parseBatch(c, p.Test)
	if verr != nil {
		return fail(verr)
	}
	if cerr := s.checkCredits(c.Request().Context(), p); cerr != nil {
		return fail(cerr)
	}
	nb.WorkspaceID, nb.KeyID, nb.Test, nb.CreatedAt = p.WorkspaceID, p.KeyID, p.Test, s.now()
	if idem != "" {
		nb.IdempotencyKey, nb.IdempotencyWindow = idem, s.deps.Batch.IdempotencyWindow
	}
	b, replayed, err := s.deps.Batches.CreateBatch(context.WithoutCancel(c.Request().Context()), nb)
	if errors.Is(err, store.ErrIdempotencyConflict) {
		return fail(errcode.New(errcode.Conflict, "the Idempotency-Key %q was used in the last %s with another request body", idem, window(s.deps.Batch.IdempotencyWindow)))
	}
	if err != nil {
		return fail(&errcode.Error{Code: errcode.InternalError, Cause: err})
	}
	answer := http.StatusCreated
	if replayed {
		// Nothing was created: the first batch is answered again.
		c.Response().Header().Set(HeaderIdempotentReplayed, "true")
		answer, status = http.StatusOK, http.StatusOK
	} else {
		s.batch.wake()
	}
	s.logRequest(c, p, "batch", status, "", 0, start)
	var secret *string
	if b.WebhookSecret != "" {
		secret = &b.WebhookSecret
	}
	return c.JSON(answer, struct {
		ID                     string  `json:"id"`
		Status                 string  `json:"status"`
		Endpoint               string  `json:"endpoint"`
		TotalCount             int     `json:"total_count"`
		CreatedAt              string  `json:"created_at"`
		WebhookSignatureSecret *string `json:"webhook_signature_secret"`
		PollURL                string  `json:"poll_url"`
	}{b.ID, b.Status, b.Endpoint, b.Total, timestamp(b.CreatedAt), secret, pollURL(b)})
}

// parseBatch decodes and validates the body: every rule a batch must pass before it is accepted.
// It fills the batch's id, endpoint, items, webhook and request hash.
func (s *Server) parseBatch(c echo.Context, test bool) (store.NewBatch, *errcode.Error) {
	bad := func(param, format string, args ...any) *errcode.Error {
		return &errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf(format, args...), Params: []string{param}}
	}
	raw, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return store.NewBatch{}, bad("body", "the request body is too large")
		}
		return store.NewBatch{}, bad("body", "the request body could not be read")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var req batchRequest
	if err := dec.Decode(&req); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return store.NewBatch{}, bad(te.Field, "%s: must be %s", te.Field, map[string]string{"endpoint": "a string", "items": "an array of objects", "webhook_url": "a string"}[te.Field])
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return store.NewBatch{}, bad(f, "unknown field %s; a batch takes endpoint, items and webhook_url", f)
		}
		return store.NewBatch{}, bad("body", "the body must be a JSON object with endpoint, items and optionally webhook_url")
	}
	if dec.More() {
		return store.NewBatch{}, bad("body", "the body must hold one JSON object")
	}
	if req.Endpoint == nil || *req.Endpoint == "" {
		return store.NewBatch{}, bad("endpoint", "endpoint: required, as site.resource (for example amazon.product or universal.get)")
	}
	endpoint := *req.Endpoint
	runner := s.batch.runners[endpoint]
	if runner == nil {
		if len(endpoint) <= 2*maxSuggestLen && s.deps.Registry != nil {
			if best := nearest.Name(endpoint, s.deps.Registry.IDs()); best != "" {
				return store.NewBatch{}, bad("endpoint", "endpoint: %q is not an endpoint of this API; did you mean %s?", endpoint, best)
			}
		}
		return store.NewBatch{}, bad("endpoint", "endpoint: %q is not an endpoint of this API (site.resource, for example amazon.product or universal.get)", endpoint)
	}
	if site, _, _ := strings.Cut(endpoint, "."); site != c.Param("site") {
		return store.NewBatch{}, bad("endpoint", "endpoint: %s is not an endpoint of %s; post it to /api/v1/%s/batch", endpoint, c.Param("site"), site)
	}
	if len(req.Items) < 1 || len(req.Items) > store.MaxBatchItems {
		return store.NewBatch{}, bad("items", "items: give 1 to %d items, not %d", store.MaxBatchItems, len(req.Items))
	}
	nb := store.NewBatch{ID: newUUID(), Endpoint: endpoint, Items: make([][]byte, len(req.Items))}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n", endpoint)
	for i, it := range req.Items {
		q, stored, res, err := parseItem(it)
		if err != nil {
			return store.NewBatch{}, &errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("items[%d]: %v", i, err), Params: []string{fmt.Sprintf("items[%d]", i)}}
		}
		if len(res) > 0 {
			sort.Strings(res)
			return store.NewBatch{}, &errcode.Error{Code: errcode.NotImplemented, Message: fmt.Sprintf("items[%d]: reserved parameters are not available yet", i), Params: prefixParams(i, res)}
		}
		if q.Has(ParamMaxAge) {
			// A batch is a job that fetches: the response cache serves synchronous requests only.
			return store.NewBatch{}, itemError(i, &errcode.Error{Code: errcode.InvalidParams, Params: []string{ParamMaxAge},
				Message: "max_age is for synchronous requests; batch items are always fetched"})
		}
		if !test && q.Has(fixture.CaseParam) {
			// A live key's item naming a sandbox case is refused with the batch, as its request would be.
			return store.NewBatch{}, itemError(i, sandboxCaseForLiveKey())
		}
		if err := runner.Check(q); err != nil {
			return store.NewBatch{}, itemError(i, asErrcode(err))
		}
		nb.Items[i] = stored
		h.Write(stored)
		h.Write([]byte{'\n'})
	}
	if req.WebhookURL != nil && *req.WebhookURL != "" {
		u, err := s.checkWebhookURL(*req.WebhookURL)
		if err != nil {
			return store.NewBatch{}, bad("webhook_url", "webhook_url: %v", err)
		}
		nb.WebhookURL, nb.WebhookSecret = u, newWebhookSecret()
	}
	fmt.Fprintf(h, "%s\n", nb.WebhookURL)
	nb.RequestHash = hex.EncodeToString(h.Sum(nil))
	return nb, nil
}

// isJSONMediaType reports whether a Content-Type names JSON: application/json, in any case, with
// or without parameters (charset=utf-8).
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// checkWebhookURL applies the rules of webhook URLs: https (http too when AllowHTTPWebhooks), and
// the outbound client's rules for user-supplied URLs (no private or loopback literal, no local
// names, usual ports) unless the network guard is lifted. Delivery checks again at dial time.
func (s *Server) checkWebhookURL(raw string) (string, error) {
	if s.deps.Webhooks == nil {
		return "", errors.New("webhooks are not configured on this server")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return "", errors.New("must be an absolute https URL")
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !s.deps.Batch.AllowHTTPWebhooks {
			return "", errors.New("must be https")
		}
	default:
		return "", errors.New("must be an https URL")
	}
	if u.Fragment != "" {
		return "", errors.New("must not have a fragment")
	}
	canon, err := s.deps.Webhooks.CheckURL(raw)
	if err != nil {
		if e := errcode.As(err); e != nil && e.Message != "" {
			return "", errors.New(e.Message)
		}
		return "", errors.New("is not a public URL")
	}
	return canon, nil
}

// getBatch serves GET /api/v1/{site}/batch/{id}.
func (s *Server) getBatch(c echo.Context) error {
	start := s.now()
	status := http.StatusOK
	defer func() { s.metrics.observe("batch", strconv.Itoa(status), s.now().Sub(start)) }()
	fail := func(e *errcode.Error) error {
		status = clientError(e).Code.Status()
		return s.writeError(c, e)
	}
	c.Response().Header().Set(HeaderCost, "0")
	p, aerr := s.authenticate(c)
	if aerr != nil {
		return fail(aerr)
	}
	release, lerr := s.admit(c, p)
	if lerr != nil {
		return fail(lerr)
	}
	defer release()
	offset, limit := 0, DefaultResultsLimit
	for k, v := range c.QueryParams() {
		var err error
		switch k {
		case "api_key":
		case "offset":
			offset, err = strconv.Atoi(v[0])
			if err != nil || offset < 0 || len(v) > 1 {
				return fail(&errcode.Error{Code: errcode.InvalidParams, Message: "offset: must be an integer >= 0", Params: []string{"offset"}})
			}
		case "limit":
			limit, err = strconv.Atoi(v[0])
			if err != nil || limit < 1 || limit > MaxResultsLimit || len(v) > 1 {
				return fail(&errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("limit: must be an integer from 1 to %d", MaxResultsLimit), Params: []string{"limit"}})
			}
		default:
			return fail(&errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("unknown parameter %s; a poll takes offset and limit", k), Params: []string{k}})
		}
	}
	b, res, err := s.deps.Batches.BatchPage(c.Request().Context(), p.WorkspaceID, c.Param("id"), offset, limit)
	if errors.Is(err, store.ErrNotFound) {
		return fail(errcode.New(errcode.NotFound, "no batch %s in this workspace", c.Param("id")))
	}
	if err != nil {
		return fail(&errcode.Error{Code: errcode.InternalError, Cause: err})
	}
	body, err := s.renderBatch(b, res, offset, limit)
	if err != nil {
		return fail(&errcode.Error{Code: errcode.InternalError, Cause: err})
	}
	return c.JSONBlob(http.StatusOK, body)
}

// batchJSON is the batch record of spec 2.6: the poll response, and the webhook body.
type batchJSON struct {
	ID                    string       `json:"id"`
	Status                string       `json:"status"`
	Endpoint              string       `json:"endpoint"`
	TotalCount            int          `json:"total_count"`
	ProcessedCount        int          `json:"processed_count"`
	SuccessCount          int          `json:"success_count"`
	FailureCount          int          `json:"failure_count"`
	CreditsCharged        int          `json:"credits_charged"`
	CreatedAt             string       `json:"created_at"`
	StartedAt             *string      `json:"started_at"`
	CompletedAt           *string      `json:"completed_at"`
	WebhookURL            *string      `json:"webhook_url"`
	WebhookDeliveryStatus *string      `json:"webhook_delivery_status"`
	WebhookLastError      *string      `json:"webhook_last_error"`
	WebhookDeliveredAt    *string      `json:"webhook_delivered_at"`
	PollURL               string       `json:"poll_url"`
	ResultsOffset         int          `json:"results_offset"`
	ResultsLimit          int          `json:"results_limit"`
	ResultsNextOffset     *int         `json:"results_next_offset"`
	Results               []resultJSON `json:"results"`
}

type resultJSON struct {
	Index          int             `json:"index"`
	Input          json.RawMessage `json:"input"`
	Status         string          `json:"status"`
	HTTPStatus     int             `json:"http_status"`
	Error          string          `json:"error,omitempty"`
	Data           json.RawMessage `json:"data"`
	DurationMS     int64           `json:"duration_ms"`
	CreditsCharged int             `json:"credits_charged"`
}

// renderBatch encodes the batch record with the results of finished items whose index is in
// [offset, offset+limit). results_next_offset is the offset of the next page while items remain
// past this one.
func (s *Server) renderBatch(b store.Batch, res []store.ItemResult, offset, limit int) ([]byte, error) {
	out := batchJSON{
		ID: b.ID, Status: b.Status, Endpoint: b.Endpoint, TotalCount: b.Total, ProcessedCount: b.Processed,
		SuccessCount: b.Succeeded, FailureCount: b.Failed, CreditsCharged: b.Credits,
		CreatedAt: timestamp(b.CreatedAt), StartedAt: optTimestamp(b.StartedAt), CompletedAt: optTimestamp(b.CompletedAt),
		WebhookURL: optString(b.WebhookURL), WebhookDeliveryStatus: optString(b.WebhookStatus),
		WebhookLastError: optString(b.WebhookLastError), WebhookDeliveredAt: optTimestamp(b.WebhookDeliveredAt),
		PollURL: pollURL(b), ResultsOffset: offset, ResultsLimit: limit, Results: make([]resultJSON, 0, len(res)),
	}
	if next := offset + limit; next < b.Total {
		out.ResultsNextOffset = &next
	}
	for _, r := range res {
		e := resultJSON{Index: r.Index, Input: r.Input, Status: r.Status, HTTPStatus: r.HTTPStatus, Error: r.ErrorCode,
			Data: r.Data, DurationMS: r.Duration.Milliseconds(), CreditsCharged: r.Credits}
		if len(e.Data) == 0 {
			e.Data = json.RawMessage("null")
		}
		out.Results = append(out.Results, e)
	}
	return marshalNoEscape(out)
}

// window says a duration the way a message should: "24 hours".
func window(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%d hours", d/time.Hour)
	}
	return d.String()
}

func pollURL(b store.Batch) string {
	site, _, _ := strings.Cut(b.Endpoint, ".")
	return "/api/v1/" + site + "/batch/" + b.ID
}

// timestamp is the API's ISO 8601 UTC form, to the millisecond.
func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func optTimestamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := timestamp(t)
	return &s
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// newWebhookSecret returns a signing secret in the Standard Webhooks form: whsec_ and 32 random
// bytes in base64.
func newWebhookSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b)
}
