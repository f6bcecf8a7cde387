// Package api is the HTTP service: routes generated from the loaded sitedefs, API-key authentication,
// per-key concurrency and rate limits, billing, the error envelope of the spec, the Asa-* headers,
// health and metrics. It is the only package that imports echo. Storage is reached through the small
// interfaces declared here (Authenticator, Ledger), which store satisfies through an adapter.
package api
