package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"asa/api/apikey"
	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fixture"
	"asa/engine/registry"
)

// Principal is an authenticated API key.
type Principal struct {
	KeyID       int64
	Short       string
	WorkspaceID int64
	Plan        string
	Test        bool
	Limits      Limits
	// MonthlyCredits is the workspace's allowance.
	MonthlyCredits int
	// CreditsUsed is what the workspace was billed this month when the key was looked up, if the
	// Authenticator read it (UsageKnown); otherwise the credit check asks the Ledger.
	CreditsUsed int
	UsageKnown  bool
}

// Errors an Authenticator returns.
var (
	ErrUnknownKey = errors.New("unknown api key")
	ErrRevokedKey = errors.New("revoked api key")
	// ErrInsufficientCredits is returned by Ledger.Charge when the allowance would be exceeded.
	ErrInsufficientCredits = errors.New("insufficient credits")
)

// Authenticator resolves a well-formed key to its principal.
type Authenticator interface {
	Authenticate(ctx context.Context, key apikey.Key) (Principal, error)
}

// Charge is one billed request (or batch item), keyed so it is written at most once.
type Charge struct {
	ID          string
	WorkspaceID int64
	KeyID       int64
	Endpoint    string
	Credits     int
}

// RequestLog is one served request, for usage reports.
type RequestLog struct {
	RequestID   string
	WorkspaceID int64
	KeyID       int64
	Endpoint    string
	Status      int
	ErrorCode   string
	Cost        int
	// AddOnCredits is the part of Cost that paid for add-ons (render_js, screenshot).
	AddOnCredits int
	Duration     time.Duration
	At           time.Time
}

// Ledger keeps credits and usage.
type Ledger interface {
	// CreditsUsed returns the workspace's credits charged this month.
	CreditsUsed(ctx context.Context, workspaceID int64) (int, error)
	// Charge writes the charge and its request log in one transaction; a repeated charge id is a no-op.
	Charge(ctx context.Context, ch Charge, log RequestLog) error
	// Log writes an unbilled request.
	Log(ctx context.Context, log RequestLog) error
	// Ping reports whether the store answers, for /readyz.
	Ping(ctx context.Context) error
}

// Sandbox answers sandbox keys: it picks the fixture case for validated parameters (or the case
// named by sandbox_case) and returns the parameters to run with and a fetcher replaying the case's
// pages (design decision 16).
type Sandbox interface {
	Resolve(plan *engine.Plan, params engine.Params, caseName string) (fixture.Resolution, error)
	// Cases lists an endpoint's cases, for the OpenAPI document.
	Cases(endpoint string) []fixture.CaseInfo
}

// Config are the server's settings.
type Config struct {
	// PublicURL is the base URL clients use; docs_url links are built on it.
	PublicURL string
	// RequestTimeout bounds one synchronous scrape.
	RequestTimeout time.Duration
	// ReadHeaderTimeout, IdleTimeout, MaxHeaderBytes and BodyLimit (bytes) harden the inbound side.
	ReadHeaderTimeout time.Duration
	IdleTimeout       time.Duration
	MaxHeaderBytes    int
	BodyLimit         int64
	// MetricsToken, when set, is the bearer token GET /metrics requires (Authorization: Bearer ...).
	MetricsToken string
	// MetricsOwnListener leaves /metrics off the API's listener: ServeMetrics serves it on another
	// (asa serve --metrics-addr), so that it can stay on a private interface.
	MetricsOwnListener bool
	// ShutdownTimeout is how long in-flight requests get to finish on SIGTERM.
	ShutdownTimeout time.Duration
	// DocsBaseURL is derived from PublicURL when empty.
	DocsBaseURL string
	// CacheMaxEntry and CacheMaxTotal bound the response cache (max_age): the body of one entry, and
	// of every entry together, oldest evicted first (defaults 1 MiB and 256 MiB).
	CacheMaxEntry int
	CacheMaxTotal int64
}

func (c *Config) defaults() {
	if c.PublicURL == "" {
		c.PublicURL = "http://localhost:8080"
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = 90 * time.Second
	}
	if c.ReadHeaderTimeout == 0 {
		c.ReadHeaderTimeout = 10 * time.Second
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = 120 * time.Second
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = 32 << 10
	}
	if c.BodyLimit == 0 {
		c.BodyLimit = DefaultBodyLimit
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = 30 * time.Second
	}
	if c.CacheMaxEntry <= 0 {
		c.CacheMaxEntry = DefaultCacheMaxEntry
	}
	if c.CacheMaxTotal <= 0 {
		c.CacheMaxTotal = DefaultCacheMaxTotal
	}
	if c.DocsBaseURL == "" {
		c.DocsBaseURL = strings.TrimSuffix(c.PublicURL, "/") + "/docs/api.md"
	}
}

// DefaultBodyLimit is the documented cap on a request body: 8 MiB.
const DefaultBodyLimit = 8 << 20

// Deps are what the server is built on.
type Deps struct {
	Registry *registry.Registry
	// Live fetches real targets; Sandbox answers test keys from fixture pages.
	Live    engine.Fetcher
	Sandbox Sandbox
	// Renderer is the headless browser of render_js and screenshot (and sitedef steps with render:
	// true); nil answers those parameters 501 and fetches render steps as they are.
	Renderer Renderer
	Auth     Authenticator
	Ledger   Ledger
	Log      *slog.Logger
	// Now is the clock (tests inject one).
	Now func() time.Time
	// Docs are the Markdown pages (docs/*.md) served rendered at /docs/<name>.md, where docs_url
	// links point (?raw=1 gives the Markdown), when set.
	Docs fs.FS
	// Timing, when set, receives each scrape's total handler time and the part spent running the
	// plan (fetch and extraction): the difference is the service's own overhead (make loadtest).
	Timing func(endpoint string, total, run time.Duration)
	// OnAdmit, when set, receives the limiter's time of every admission (make loadtest checks the
	// burst window against it, not against when responses happened to arrive).
	OnAdmit func(keyID int64, at time.Time)
	// Batches stores batches and their queue (POST/GET .../batch); nil leaves the batch endpoints out.
	Batches BatchStore
	// Cache keeps responses for max_age (*store.DB); nil: every max_age request is a miss and
	// nothing is kept.
	Cache ResponseCache
	// Webhooks sends batch webhooks (FetchWebhooks); nil refuses webhook_url.
	Webhooks WebhookSender
	// ItemRunners adds batch item runners by endpoint id; sitedef endpoints and universal.get have theirs.
	ItemRunners map[string]ItemRunner
	// Batch configures the batch worker.
	Batch BatchConfig
	// Dashboard configures the web dashboard (/dashboard); /docs, /catalogue and
	// /api/v1/openapi.json are served whatever it holds.
	Dashboard DashboardConfig
	// Fixtures is the fixture tree whose corpus/*.yaml the catalogue counts (nil: the embedded one).
	Fixtures fs.FS
	// Limiter enforces the per-key limits (nil: this node's memory; RedisLimiter shares them
	// between nodes).
	Limiter Limiter
	// Revocations, when set, tells every node of a revocation made on one (an AuthCache as Auth
	// forgets the key at once; RunRevocations listens).
	Revocations Revocations
	// Usage answers GET /api/v1/usage and /api/v1/account; nil takes Dashboard.Store, and
	// without either both routes are left out.
	Usage UsageReader
	// Health configures extractor health (fill rates and error mix of live runs, alerts); without
	// a Health.Store it is off.
	Health HealthConfig
}

// Server is the API service.
type Server struct {
	cfg     Config
	deps    Deps
	log     *slog.Logger
	echo    *echo.Echo
	obs     *echo.Echo // serves /metrics alone, on the listener of ServeMetrics
	limits  Limiter
	metrics *metrics
	now     func() time.Time
	batch   *worker
	// rules caches compiled extract_rules by their hash (rules.go).
	rules *rulesCache
	// refusals bounds the log lines of requests refused before any fetch (refusallog.go).
	refusals *refusalLog
	// usage reads the usage API's reports (account.go); nil leaves the usage API out.
	usage UsageReader
	// health counts live runs for extractor health (health.go); nil when it is off.
	health *healthMonitor
	// counts are the catalogue's real pages per endpoint, counted from the fixtures on first use.
	countsOnce sync.Once
	counts     map[string]fixture.CorpusCount
	// openapi is the OpenAPI document and mcp the /mcp handler, both built on first use.
	openapi openAPIDoc
	mcp     mcpState
}

// CostPerRequest is the credits of one standard scrape (design decision 5).
const CostPerRequest = 5

// New builds the server and its routes.
func New(cfg Config, deps Deps) *Server {
	cfg.defaults()
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Log == nil {
		deps.Log = slog.Default()
	}
	if deps.Limiter == nil {
		deps.Limiter = newLimiter(deps.Now)
	}
	s := &Server{cfg: cfg, deps: deps, log: deps.Log, limits: deps.Limiter, metrics: newMetrics(), now: deps.Now}
	s.refusals = newRefusalLog(s.log, s.now)
	if deps.Health.Store != nil {
		plans := map[string]*engine.Plan{}
		for _, id := range deps.Registry.IDs() {
			plans[id] = deps.Registry.Plan(id)
		}
		s.health = newHealthMonitor(deps.Health, plans, s.log, s.now)
	}
	s.rules = newRulesCache(rulesCacheSize, &s.metrics.rulesCompiled)
	e := s.newEcho()
	e.Use(s.bodyLimit)
	e.GET("/healthz", func(c echo.Context) error { return c.JSON(http.StatusOK, map[string]string{"status": "ok"}) })
	e.GET("/readyz", s.readyz)
	if cfg.MetricsOwnListener {
		s.obs = s.newEcho()
		s.obs.GET("/metrics", s.metricsHandler)
	} else {
		e.GET("/metrics", s.metricsHandler)
	}
	for _, id := range deps.Registry.IDs() {
		plan := deps.Registry.Plan(id)
		site, resource, _ := strings.Cut(id, ".")
		h := s.scrapeHandler(plan)
		e.GET("/api/v1/"+site+"/"+resource, h)
		// A site's aliases (x for twitter) answer the same handler: usage and headers name the site.
		for _, alias := range deps.Registry.Aliases(site) {
			e.GET("/api/v1/"+alias+"/"+resource, h)
		}
	}
	e.GET("/api/v1/universal/get", s.universalHandler)
	s.usage = deps.Usage
	if s.usage == nil && deps.Dashboard.Store != nil {
		s.usage = deps.Dashboard.Store
	}
	s.registerAccount(e)
	s.registerBatches(e)
	s.registerMCP(e)
	s.registerWeb(e)
	s.echo = e
	return s
}

// newEcho returns an echo with the request id, the panic guard and the JSON error envelope.
func (s *Server) newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.httpErrorHandler
	e.Use(s.requestIDMiddleware, s.recoverMiddleware)
	return e
}

// Handler returns the HTTP handler.
func (s *Server) Handler() http.Handler { return s.echo }

// Serve serves on ln until ctx is done, then lets in-flight requests finish (up to ShutdownTimeout).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return s.serve(ctx, ln, s.echo)
}

// ServeMetrics serves GET /metrics alone on ln until ctx is done; it needs MetricsOwnListener.
func (s *Server) ServeMetrics(ctx context.Context, ln net.Listener) error {
	if s.obs == nil {
		return errors.New("ServeMetrics needs Config.MetricsOwnListener")
	}
	return s.serve(ctx, ln, s.obs)
}

func (s *Server) serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.RequestTimeout,
		WriteTimeout:      s.cfg.RequestTimeout + 10*time.Second,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(jsonErrorListener{Listener: ln, s: s}) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down: letting in-flight requests finish", "timeout", s.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	s.refusals.flush(sctx)
	if err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// metricsHandler writes the Prometheus metrics, behind the bearer token when one is configured.
func (s *Server) metricsHandler(c echo.Context) error {
	if s.cfg.MetricsToken != "" && !bearerMatches(c.Request().Header.Get("Authorization"), s.cfg.MetricsToken) {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
		return s.writeError(c, errcode.New(errcode.Unauthorized, "/metrics needs Authorization: Bearer <the metrics token>"))
	}
	c.Response().Header().Set(echo.HeaderContentType, "text/plain; version=0.0.4; charset=utf-8")
	c.Response().WriteHeader(http.StatusOK)
	s.metrics.write(c.Response())
	if m, ok := s.limits.(metricsWriter); ok {
		m.writeMetrics(c.Response())
	}
	if s.health != nil {
		s.health.writeMetrics(c.Response(), s.health.current(c.Request().Context()))
	}
	return nil
}

func (s *Server) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := s.deps.Ledger.Ping(ctx); err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "store unavailable"})
	}
	return c.JSON(http.StatusOK, map[string]any{"status": "ok", "endpoints": len(s.deps.Registry.IDs())})
}

// HeaderRequestID carries the request id on every response.
const HeaderRequestID = "Asa-Request-Id"

// The Asa-* headers of spec 4.2 and 8.1.
const (
	HeaderCost             = "Asa-Cost"
	HeaderResolvedURL      = "Asa-Resolved-Url"
	HeaderSourceStatus     = "Asa-Source-Status"
	HeaderAttempts         = "Asa-Attempts"
	HeaderExtractorVersion = "Asa-Extractor-Version"
	HeaderConcurrency      = "Asa-Concurrency"
	HeaderRPS              = "Asa-Rps"
)

// newRequestID returns a fresh request id: the time in milliseconds (6 bytes), then 6 random
// bytes, in hex. A billed request's id is its charge id, and both are unique keys of the ledger and
// the request log: random ids put every row of a charge group on another leaf of those two
// indexes, each page one more WAL frame to write and to checkpoint. Ids that grow with time are
// added at the indexes' right edge, a few pages a group. 48 random bits keep ids made in the same
// millisecond, on any node, apart.
func newRequestID() string {
	var b [12]byte
	ms := uint64(time.Now().UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	_, _ = rand.Read(b[6:])
	return "req_" + hex.EncodeToString(b[:])
}

func (s *Server) requestIDMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := newRequestID()
		c.Set("request_id", id)
		c.Response().Header().Set(HeaderRequestID, id)
		return next(c)
	}
}

func requestID(c echo.Context) string {
	if id, ok := c.Get("request_id").(string); ok {
		return id
	}
	return ""
}

// recoverMiddleware turns a panic into a logged 500 internal_error; the stack goes to the log only.
func (s *Server) recoverMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				s.log.ErrorContext(c.Request().Context(), "panic", "request_id", requestID(c), "path", c.Request().URL.Path, "panic", fmt.Sprint(r))
				err = &errcode.Error{Code: errcode.InternalError, Cause: fmt.Errorf("panic: %v", r)}
			}
		}()
		return next(c)
	}
}
