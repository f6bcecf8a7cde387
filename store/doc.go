// Package store owns asa's persistent state on SQLite: workspaces and their plans, users, API keys
// (by hash only), the usage ledger that bills each request or batch item exactly once, and the
// request log behind usage reports. It is the only package that imports the SQLite driver; callers
// see plain Go types and the sentinel errors below, and define the small interfaces they need on
// their side so a PostgreSQL store can satisfy them later.
//
// Concurrency model: one *sql.DB with a single connection does every write, with BEGIN IMMEDIATE,
// and a second pool of read-only connections serves reads. Writers therefore queue in Go instead of
// spinning on SQLITE_BUSY, every read-then-write decision (the 20-key cap, the credit allowance)
// runs under the write lock, and WAL lets readers proceed while a write is in progress. The
// busy_timeout only matters when another process (the asa CLI) writes to the same file.
//
// Times are stored as Unix milliseconds in UTC: an integer compares, indexes and groups by day the
// same way in SQLite and PostgreSQL, with no format to keep consistent.
package store
