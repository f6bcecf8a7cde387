package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"asa/api"
	"asa/docs"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/fixtures"
	"asa/store"
	"asa/store/redislimit"
	"asa/store/redisrevoke"
)

func newLogger(cfg serveConfig, w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: lvl}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// cmdServe runs the API service until SIGTERM or SIGINT.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := loadServeConfig(args, os.Getenv, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "asa serve: %v\n", err)
		return 2
	}
	log := newLogger(cfg, stderr)
	if path := os.Getenv("ASA_CPUPROFILE"); path != "" {
		// For performance work: a CPU profile of the whole run, written at shutdown.
		if f, err := os.Create(path); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				defer func() { pprof.StopCPUProfile(); f.Close() }()
			}
		}
	}
	if os.Getenv("GOGC") == "" {
		// Each request allocates many times what it keeps (a parsed page is garbage once its JSON
		// is out), so the live heap is small and the default GOGC of 100 collects very often, each
		// time scanning the stacks of every request in flight. 150 spends about 10% less CPU than
		// 100 on the farm load test, for a peak about 60 MB higher (docs/configuration.md, "Memory
		// and garbage collection"). GOGC in the environment still decides.
		debug.SetGCPercent(150)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// GOGC grows the heap in proportion to the live heap, the compiled catalogue's 50 MB
		// included; a soft limit caps it where the machine says (docs/configuration.md, "Memory
		// and garbage collection"). GOMEMLIMIT in the environment still decides.
		limit, from, err := memoryLimit(cfg.MemoryLimit, os.DirFS("/"))
		if err != nil {
			fmt.Fprintf(stderr, "asa serve: %v\n", err)
			return 2
		}
		if limit > 0 {
			debug.SetMemoryLimit(limit)
			log.Info("memory limit", "bytes", limit, "from", from)
		}
	}
	if cfg.SecureCookies != nil && !*cfg.SecureCookies && strings.HasPrefix(strings.ToLower(cfg.PublicURL), "https://") {
		log.Warn("secure_cookies is off although public_url is https: the dashboard's session cookie may travel over plain http")
	}
	if cfg.AllowPrivateNetwork {
		log.Warn("!!! --allow-private-network is on: fetches may reach loopback and private addresses. Never run a public service like this.")
	}
	svc, ok := openService(ctx, cfg, log, stdout, stderr, true)
	if !ok {
		return 1
	}
	defer svc.close()
	srv, db, reg, fixSrc := svc.srv, svc.db, svc.reg, svc.fixSrc
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		log.Error("listening", "addr", cfg.Addr, "err", err)
		return 1
	}
	if cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", cfg.MetricsAddr)
		if err != nil {
			log.Error("listening for /metrics", "addr", cfg.MetricsAddr, "err", err)
			return 1
		}
		// Its own context: if the API's Serve fails, the metrics listener must stop too.
		mctx, stop := context.WithCancel(ctx)
		metricsDone := make(chan error, 1)
		go func() { metricsDone <- srv.ServeMetrics(mctx, mln) }()
		defer func() {
			stop()
			if err := <-metricsDone; err != nil {
				log.Error("serving /metrics", "err", err)
			}
		}()
		log.Info("serving /metrics", "addr", mln.Addr().String(), "token", cfg.MetricsToken != "")
	}
	go purgeRevoked(ctx, db, log)
	revCtx, stopRev := context.WithCancel(ctx)
	revDone := make(chan struct{})
	go func() { srv.RunRevocations(revCtx); close(revDone) }()
	defer func() { stopRev(); <-revDone }()
	batches := make(chan error, 1)
	go func() { batches <- srv.RunBatches(ctx) }()
	defer func() { <-batches }() // before db.Close: running items finish or are released
	health := make(chan error, 1)
	go func() { health <- srv.RunHealth(ctx) }()
	defer func() { <-health }() // before db.Close: the last counts are added
	log.Info("asa serving", "addr", ln.Addr().String(), "db", store.RedactDSN(cfg.DB), "store", db.Dialect(), "endpoints", len(reg.IDs()), "sitedefs", sitedefSource(cfg.Sitedefs), "fixtures", fixSrc)
	if err := srv.Serve(ctx, ln); err != nil {
		log.Error("serving", "err", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// service is the API server on its database, as asa serve runs it and asa mcp runs it in process.
type service struct {
	srv     *api.Server
	db      *store.DB
	reg     *registry.Registry
	fixSrc  string
	closers []func()
}

// close releases what openService opened, in reverse order.
func (s *service) close() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// openService opens the database (creating the first workspace and its keys on an empty one, printed
// to keysOut), the sandbox, the outbound clients and the API server; web adds the dashboard and
// the rendered docs, which only a listening server needs. Failures are logged; false means the
// caller exits 1.
func openService(ctx context.Context, cfg serveConfig, log *slog.Logger, keysOut, stderr io.Writer, web bool) (*service, bool) {
	svc := &service{}
	ok := false
	defer func() {
		if !ok {
			svc.close()
		}
	}()
	reg, diags := loadRegistry(cfg.Sitedefs, stderr)
	if diags.HasErrors() {
		log.Error("sitedefs have errors; refusing to start")
		return nil, false
	}
	// Compiling the catalogue allocates several hundred MB for the fifty or so it keeps; the Go
	// runtime would hand the rest back to the system over minutes. Handing it back now makes the
	// idle RSS the catalogue's, not the compiler's high-water mark.
	reg.DropPositions()
	debug.FreeOSMemory()
	db, err := store.OpenWith(ctx, cfg.DB, store.Options{Timeout: cfg.StoreTimeout, Log: log, PoolSize: cfg.DBPoolSize})
	if err != nil {
		log.Error("opening the database", "db", store.RedactDSN(cfg.DB), "err", err)
		return nil, false
	}
	svc.closers = append(svc.closers, func() { db.Close() })
	if err := firstRun(ctx, db, cfg, keysOut); err != nil {
		log.Error("creating the first workspace", "err", err)
		return nil, false
	}
	if err := applyWorkspaces(ctx, db, cfg.Workspaces, log); err != nil {
		log.Error("applying the configured workspaces", "err", err)
		return nil, false
	}
	fixFS, fixSrc := sandboxFixtures(cfg)
	sandbox, err := fixture.NewSandbox(fixFS, reg)
	if err != nil {
		log.Error("loading the sandbox fixtures", "err", err)
		return nil, false
	}
	live, err := newLiveFetcher(cfg, log)
	if err != nil {
		log.Error("configuring outbound fetching", "err", err)
		return nil, false
	}
	svc.closers = append(svc.closers, live.Close)
	var rdr api.Renderer
	if web {
		// asa mcp's tools take no browser parameter, so only a listening server starts one.
		renderer, err := newRenderer(ctx, cfg, live, log)
		if err != nil {
			log.Error("starting the browser", "browser", cfg.Browser, "err", err)
			return nil, false
		}
		if renderer != nil {
			svc.closers = append(svc.closers, func() { renderer.Close() })
			rdr = renderer
			log.Info("browser on: render_js and screenshot are served", "browser", cfg.Browser, "pid", renderer.BrowserPID())
		}
	}
	webhooks, err := newWebhookClient(cfg, log)
	if err != nil {
		log.Error("configuring webhook delivery", "err", err)
		return nil, false
	}
	svc.closers = append(svc.closers, webhooks.Close)
	backend := api.NewStoreBackend(db, nil)
	limiter, attempts, closeLimiter, err := newLimiter(ctx, cfg, log)
	if err != nil {
		log.Error("--redis", "err", err)
		return nil, false
	}
	svc.closers = append(svc.closers, closeLimiter)
	var auth api.Authenticator = backend
	if cfg.AuthCacheTTL > 0 {
		auth = api.NewAuthCache(backend, cfg.AuthCacheTTL, nil)
	}
	var revocations api.Revocations
	if cfg.Redis != "" {
		bus, err := redisrevoke.Open(cfg.Redis)
		if err != nil {
			log.Error("--redis", "err", err)
			return nil, false
		}
		svc.closers = append(svc.closers, func() { bus.Close() })
		revocations = bus
	}
	deps := api.Deps{Registry: reg, Live: live, Renderer: rdr, Sandbox: sandbox, Auth: auth, Ledger: backend, Log: log,
		Docs:      docs.FS,
		Dashboard: dashboardConfig(cfg, db, attempts), Fixtures: fixFS,
		Health:  api.HealthConfig{Store: db},
		Batches: db, Webhooks: api.FetchWebhooks{Client: webhooks}, Cache: db,
		Batch:   api.BatchConfig{Concurrency: cfg.BatchConcurrency, Lease: cfg.BatchLease, AllowHTTPWebhooks: cfg.AllowPrivateNetwork},
		Limiter: limiter, Revocations: revocations}
	if !web {
		// asa mcp in process: its calls never reach a page, and the dashboard's password hasher
		// and the rendered docs cost a start.
		deps.Docs, deps.Dashboard = nil, api.DashboardConfig{}
	}
	srv := api.New(api.Config{PublicURL: cfg.PublicURL, RequestTimeout: cfg.RequestTimeout, ShutdownTimeout: cfg.ShutdownTimeout,
		MetricsToken: cfg.MetricsToken, MetricsOwnListener: cfg.MetricsAddr != "", CacheMaxTotal: cfg.CacheMaxBytes}, deps)
	svc.srv, svc.db, svc.reg, svc.fixSrc = srv, db, reg, fixSrc
	ok = true
	return svc, true
}

// dashboardConfig is the dashboard on db with the configured security settings, its attempt
// limits counted in attempts (Redis) when not nil.
func dashboardConfig(cfg serveConfig, db *store.DB, attempts api.SharedAttempts) api.DashboardConfig {
	return api.DashboardConfig{Store: db, SecureCookies: cfg.SecureCookies, SessionTTL: cfg.SessionTTL,
		SignInPerEmail: cfg.SignInPerEmail, SignInPerIP: cfg.SignInPerIP, SignInWindow: cfg.SignInWindow,
		SignUpPerIP: cfg.SignUpPerIP, SignUpWindow: cfg.SignUpWindow, Attempts: attempts}
}

// newLimiter returns the per-key limiter: nil (the server's default, this node's memory) without
// --redis, else the Redis one with its lease renewal running until ctx is done, and the dashboard's
// attempt counters on the same Redis. A Redis that does not answer at start is logged, not fatal:
// admissions fail open or closed until it does (the dashboard's limits count on each node alone).
func newLimiter(ctx context.Context, cfg serveConfig, log *slog.Logger) (api.Limiter, api.SharedAttempts, func(), error) {
	if cfg.Redis == "" {
		return nil, nil, func() {}, nil
	}
	rl, err := redislimit.Open(cfg.Redis, redislimit.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	if err := rl.Ping(pctx); err != nil {
		log.Warn("redis does not answer yet: rate limits fail "+cfg.RedisFail+" until it does", "err", err)
	} else {
		log.Info("rate limits shared in redis", "fail", cfg.RedisFail)
	}
	cancel()
	lim := api.NewRedisLimiter(rl, api.RedisLimiterOptions{FailOpen: cfg.RedisFail == "open", Log: log})
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { lim.Run(rctx); close(done) }()
	return lim, rl.Attempts(redislimit.AttemptsOptions{}), func() { stop(); <-done; rl.Close() }, nil
}

// sandboxFixtures picks the fixtures the sandbox answers from: --fixtures, else the fixtures/ directory
// beside a --sitedefs directory (the repository's layout, so an author's new sitedef answers sandbox
// keys from its own cases without a rebuild), else the embedded set.
func sandboxFixtures(cfg serveConfig) (fs.FS, string) {
	dir := cfg.Fixtures
	if dir == "" && cfg.Sitedefs != "" {
		sib := filepath.Join(filepath.Dir(filepath.Clean(cfg.Sitedefs)), "fixtures")
		if st, err := os.Stat(sib); err == nil && st.IsDir() {
			dir = sib
		}
	}
	if dir == "" {
		return fixtures.FS, "embedded"
	}
	return os.DirFS(dir), dir
}

func sitedefSource(dir string) string {
	if dir == "" {
		return "embedded"
	}
	return dir
}

// firstRun creates a local workspace with one live and one sandbox key on an empty database and
// prints them once (design decision 14).
func firstRun(ctx context.Context, db *store.DB, cfg serveConfig, w io.Writer) error {
	wss, err := db.Workspaces(ctx)
	if err != nil || len(wss) > 0 {
		return err
	}
	ws, err := db.CreateWorkspace(ctx, "local", store.PlanFree, 0)
	if errors.Is(err, store.ErrDuplicate) {
		return nil // another node on the same PostgreSQL database, started at the same moment, made it
	}
	if err != nil {
		return err
	}
	live, _, err := db.CreateKey(ctx, ws.ID, false)
	if err != nil {
		return err
	}
	test, _, err := db.CreateKey(ctx, ws.ID, true)
	if err != nil {
		return err
	}
	base := cfg.PublicURL
	fmt.Fprintf(w, `
First run: created workspace "local" (plan free, %d credits a month) with two keys.
They are shown once; only their hashes are stored.

  live key:    %s
  sandbox key: %s

Try the sandbox (fixture pages, never billed, no network):
  curl '%s/api/v1/amazon/product?api_key=%s&query=B0TEST1234'

Docs: %s/docs/api.md    More keys: asa keys create --db %s --workspace local

`, ws.MonthlyCredits, live, test, base, test, base, store.RedactDSN(cfg.DB))
	return nil
}

// purgeRevoked deletes, at start and then daily, the usage of keys revoked more than 90 days ago
// (spec 5.8: their history stays visible 90 days).
func purgeRevoked(ctx context.Context, db *store.DB, log *slog.Logger) {
	t := time.NewTicker(24 * time.Hour)
	defer t.Stop()
	for {
		p, err := db.PurgeRevoked(ctx, time.Now())
		if err != nil && ctx.Err() == nil {
			log.Warn("purging revoked keys", "err", err)
		} else if p.Keys > 0 {
			log.Info("purged revoked keys older than 90 days", "keys", p.Keys, "usage_rows", p.Usage, "request_rows", p.Requests, "refusal_rows", p.Refusals)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
