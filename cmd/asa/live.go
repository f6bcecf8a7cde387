package main

import (
	"fmt"
	"log/slog"
	"net"

	"asa/engine"
	"asa/engine/fetch"
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
