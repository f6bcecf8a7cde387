package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"time"

	"asa/api"
	"asa/docs"
	"asa/engine/fixture"
	"asa/fixtures"
	"asa/store"
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
		// time scanning the stacks of every request in flight. 150 spends a few percent less CPU
		// for about 25 MB more at the peak of the farm load test; 200 saved a little more CPU but
		// peaked near 270 MB. GOGC in the environment still decides.
		debug.SetGCPercent(150)
	}
	if cfg.AllowPrivateNetwork {
		log.Warn("!!! --allow-private-network is on: fetches may reach loopback and private addresses. Never run a public service like this.")
	}
	reg, diags := loadRegistry(cfg.Sitedefs, stderr)
	if diags.HasErrors() {
		log.Error("sitedefs have errors; refusing to start")
		return 1
	}
	db, err := store.OpenWith(ctx, cfg.DB, store.Options{Timeout: cfg.StoreTimeout, Log: log})
	if err != nil {
		log.Error("opening the database", "path", cfg.DB, "err", err)
		return 1
	}
	defer db.Close()
	if err := firstRun(ctx, db, cfg, stdout); err != nil {
		log.Error("creating the first workspace", "err", err)
		return 1
	}
	if err := applyWorkspaces(ctx, db, cfg.Workspaces, log); err != nil {
		log.Error("applying the configured workspaces", "err", err)
		return 1
	}
	fixFS, fixSrc := sandboxFixtures(cfg)
	sandbox, err := fixture.NewSandbox(fixFS, reg)
	if err != nil {
		log.Error("loading the sandbox fixtures", "err", err)
		return 1
	}
	live, err := newLiveFetcher(cfg, log)
	if err != nil {
		log.Error("configuring outbound fetching", "err", err)
		return 1
	}
	defer live.Close()
	renderer, err := newRenderer(ctx, cfg, live, log)
	if err != nil {
		log.Error("starting the browser", "browser", cfg.Browser, "err", err)
		return 1
	}
	var rdr api.Renderer
	if renderer != nil {
		defer renderer.Close()
		rdr = renderer
		log.Info("browser on: render_js and screenshot are served", "browser", cfg.Browser, "pid", renderer.BrowserPID())
	}
	webhooks, err := newWebhookClient(cfg, log)
	if err != nil {
		log.Error("configuring webhook delivery", "err", err)
		return 1
	}
	defer webhooks.Close()
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{PublicURL: cfg.PublicURL, RequestTimeout: cfg.RequestTimeout, ShutdownTimeout: cfg.ShutdownTimeout,
		MetricsToken: cfg.MetricsToken, MetricsOwnListener: cfg.MetricsAddr != ""},
		api.Deps{Registry: reg, Live: live, Renderer: rdr, Sandbox: sandbox, Auth: backend, Ledger: backend, Log: log,
			Docs:      docs.FS,
			Dashboard: api.DashboardConfig{Store: db}, Fixtures: fixFS,
			Batches: db, Webhooks: api.FetchWebhooks{Client: webhooks},
			Batch: api.BatchConfig{Concurrency: cfg.BatchConcurrency, AllowHTTPWebhooks: cfg.AllowPrivateNetwork}})
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
	batches := make(chan error, 1)
	go func() { batches <- srv.RunBatches(ctx) }()
	defer func() { <-batches }() // before db.Close: running items finish or are released
	log.Info("asa serving", "addr", ln.Addr().String(), "db", cfg.DB, "endpoints", len(reg.IDs()), "sitedefs", sitedefSource(cfg.Sitedefs), "fixtures", fixSrc)
	if err := srv.Serve(ctx, ln); err != nil {
		log.Error("serving", "err", err)
		return 1
	}
	log.Info("stopped")
	return 0
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

`, ws.MonthlyCredits, live, test, base, test, base, cfg.DB)
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
