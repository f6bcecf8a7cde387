// Package farm is the target farm: a local HTTPS server (HTTP/2 and HTTP/1.1, and plain HTTP on the
// same port) with its own test CA, generated at start, that impersonates target sites under their
// real host names and paths. A leaf certificate is minted on demand for whatever name the client's
// SNI asks for.
//
// Clients reach it through fetch.Options{Resolve: farm.Resolve, RootCAs: farm.CertPool()} (or a
// proxy that can reach the farm's loopback address); a farm run by `asa farm` is reached with
// fetch.StaticResolve(addr) and fetch.CertPoolFromFile(the --ca-out file). Content comes from handlers
// registered with Handle(host, pathPrefix, h), from recorded pages registered with HandleURL(url, h)
// (exact path, query parameters required: fixture pages), and from a directory (Options.Pages, served
// as DIR/<host>/<path>).
//
// Faults are switched per host and path prefix, from Go (SetFault, ClearFaults) or over the control
// endpoint on its own plain-HTTP port (/__farm/fault?kind=status&status=500&host=...&times=2, see
// Farm.control): captcha page, any status (404, 500, 429 with Retry-After), slow first byte, drip,
// redirect, connection reset, gzip bomb; Times limits any of them to the next N requests ("fail the
// first N, then succeed"). Every request is counted per host and path (Count, Counts).
//
// Main is `asa farm`.
package farm
