// Package apikey owns the format of asa API keys (design decision 2): generation, the cheap
// validation that runs before any database work, and the derived values that are safe to store or
// show (the SHA-256 hash and the 12-character short prefix).
//
// A key reads
//
//	asa_live_<30 random base62 characters><6 base62 characters of CRC32-IEEE over everything before>
//
// or asa_test_ for a sandbox key. The checksum is integrity, not authenticity: it lets Parse refuse
// a mistyped or made-up key without touching the database, and nothing more.
//
// The package depends on the standard library only, so a client, the CLI and the server all share
// one definition of what a well-formed key is.
package apikey
