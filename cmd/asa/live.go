package main

import (
	"log/slog"

	"asa/engine"
	"asa/engine/fetch"
)

// newLiveFetcher builds the outbound client for live keys from the configuration.
func newLiveFetcher(cfg serveConfig, log *slog.Logger) (engine.Fetcher, error) {
	opts := fetch.Options{AllowPrivateNetwork: cfg.AllowPrivateNetwork, Logger: log}
	for _, p := range cfg.Proxies {
		opts.Proxies = append(opts.Proxies, fetch.Proxy{URL: p.URL, Country: p.Country})
	}
	return fetch.New(opts)
}
