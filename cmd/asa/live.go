package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"asa/engine"
	"asa/engine/fetch"
	"asa/engine/render"
)

// newLiveFetcher builds the outbound client for live keys from the configuration.
func newLiveFetcher(cfg serveConfig, log *slog.Logger) (*fetch.Client, error) {
	opts := fetch.Options{AllowPrivateNetwork: cfg.AllowPrivateNetwork, Logger: log}
	for _, p := range cfg.Proxies {
		opts.Proxies = append(opts.Proxies, fetch.Proxy{URL: p.URL, Country: p.Country})
	}
	// Our own listening address is never a target, even with --allow-private-network: the
	// universal endpoint must not be able to call us.
	if host, port, err := net.SplitHostPort(cfg.Addr); err == nil {
		if ip := net.ParseIP(host); ip != nil && !ip.IsUnspecified() {
			opts.DenyAddrs = append(opts.DenyAddrs, net.JoinHostPort(host, port))
		}
	}
	if cfg.FarmAddr != "" {
		resolve, err := fetch.StaticResolve(cfg.FarmAddr)
		if err != nil {
			return nil, err
		}
		pool, err := fetch.CertPoolFromFile(cfg.FarmCA)
		if err != nil {
			return nil, fmt.Errorf("reading the farm CA: %w", err)
		}
		opts.Resolve, opts.RootCAs = resolve, pool
		log.Warn("target farm mode: every target host is answered by the farm, not the internet", "farm", cfg.FarmAddr)
	}
	return fetch.New(opts)
}

var _ engine.Fetcher = (*fetch.Client)(nil)

// newRenderer starts the browser pool of render_js and screenshot when --browser is given (nil
// otherwise). It renders through live's egress: the same guard, proxies and farm.
func newRenderer(ctx context.Context, cfg serveConfig, live *fetch.Client, log *slog.Logger) (*render.Pool, error) {
	if cfg.Browser == "" {
		return nil, nil
	}
	p, err := render.New(render.Options{ExecPath: cfg.Browser, MaxContexts: cfg.BrowserContexts, Timeout: cfg.BrowserTimeout,
		// the farm's certificates come from its own test CA, which Chromium does not know
		IgnoreCertErrors: cfg.FarmAddr != "", Logger: log}, live)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, render.DefaultStartTimeout)
	defer cancel()
	if err := p.Start(sctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("starting %s: %w", cfg.Browser, err)
	}
	return p, nil
}
