// Package fetch is the one outbound HTTP client of the project: sitedef steps (engine.Fetcher), the
// universal endpoint, and webhooks (Client.PostWebhook) all go through a Client built by New.
//
// # What a request goes through
//
//  1. Parse-time guard (no DNS): http and https only, no userinfo, no IPv6 zone, IDNA mapping as
//     net/http applies it, numeric-looking hosts that are not a canonical dotted quad refused
//     (127.1, 2130706433, 0x7f000001, 0177.0.0.1, 169.254.169.254.), IP literals in refused space
//     refused, localhost/.internal/.local and metadata names refused, our own DenyHosts refused, and for
//     user-supplied URLs (Options.GuardUserURLs or WithUserURL) ports other than 80, 443 and
//     Options.AllowPorts refused.
//  2. Resolution: every address a name resolves to is checked; one refused answer refuses the name.
//     The checked addresses are dialled directly (the name is never resolved twice, so DNS rebinding
//     between check and use is impossible), and through proxies the tunnel is opened to the checked
//     address, never to the name (CONNECT ip:port; SOCKS5 with an address).
//  3. Dial time, the boundary: net.Dialer.Control re-checks the address the socket really reaches,
//     right before connect(2): private, loopback, link-local, CGNAT, multicast, reserved, all IPv6
//     outside 2000::/3, the metadata addresses (169.254.169.254, fd00:ec2::254, 100.100.100.200,
//     168.63.129.16) and Options.DenyAddrs. Options.AllowPrivateNetwork lifts it (tests, local
//     development; DenyAddrs still apply); Options.AllowAddrs makes exceptions; Options.Resolve answers
//     and the configured proxies are trusted operator configuration.
//  4. Redirects: at most Options.MaxRedirects hops (5); every hop goes through 1 to 3 again;
//     Authorization, Cookie and Proxy-Authorization are dropped when the host changes; the final URL
//     is Response.URL. A fresh cookie jar per attempt carries cookies from hop to hop.
//  5. Body: Content-Encoding gzip, deflate, br or zstd (one layer) decoded by us, with the wire and the
//     decoded size capped at Options.MaxBodyBytes (10 MiB); the body is returned as bytes, not
//     converted to UTF-8 (dom.ToUTF8 does that from Content-Type).
//  6. Deadlines: each attempt is bounded by engine.Request.Timeout (else Options.AttemptTimeout), the
//     whole Fetch by ctx; a body that stops progressing for Options.IdleTimeout ends the attempt; a
//     proxy that does not answer CONNECT (or the SOCKS5 handshake) within Options.ProxyTimeout (10s)
//     fails the attempt and the tunnels kept idle through it are closed (a proxy at its cap on
//     clients answers nothing).
//  7. Retries inside Fetch on connection errors, timeouts, 5xx and 429: Options.MaxAttempts attempts,
//     exponential backoff with full jitter, Retry-After honoured up to Options.MaxRetryAfter, a
//     different proxy each time; never past the request's deadline, and not for a name that does not
//     exist. Blocked pages (captcha) are retried by the engine calling Fetch again.
//
// Connections are pooled per egress (direct, or one transport per proxy), HTTP/2 where the target
// offers it, at most Options.MaxConnsPerHost per host. Webhooks use Client.PostWebhook (no redirects, no
// keep-alive, a 64 KiB body read, 15 s); other callers use Client.Do with Limits. The headless
// browser (engine/render) gets bare TCP connections from Client.DialTarget: the same parse-time rules
// of user URLs, resolution checks, dial-time guard and country proxies, no HTTP layer (the browser
// speaks it end to end). A farm run by
// `asa farm` is reached with Options{Resolve: StaticResolve(addr), RootCAs: CertPoolFromFile(ca)}.
//
// Appendix A of the reliability study is TestSSRFAppendixA: every input is refused at parse time
// (invalid_params) or at resolve/dial time (target_unreachable, detail forbidden), except two that are
// not attacks once parsed by Go: http://evil.example#@127.0.0.1/ is a request to evil.example, and a
// percent-encoded CR LF stays encoded in the path. Neither reaches 127.0.0.1.
//
// Default headers imitate a desktop Chrome navigation (DefaultUserAgent, Accept, Accept-Language,
// Accept-Encoding, sec-ch-ua, Sec-Fetch-*); the request's own headers override them one by one;
// ForbiddenHeader names are never sent.
//
// # Proxies and countries
//
// Options.Proxies are http://, https:// or socks5:// proxies (with optional credentials, never
// logged: url.Redacted) tagged with a country. A request asks for a country with WithCountry(ctx,
// "de") (a context value, so plans never see it; the API wraps the context it passes to Plan.Run);
// an unconfigured country is invalid_params naming "country" (Client.CheckCountry checks early).
// Without a country any proxy is used; without proxies, egress is direct. Each attempt takes the next
// healthy proxy round-robin, preferring one this Fetch has not used yet; Options.ProxyFailures
// consecutive connection failures rest a proxy for Options.ProxyCooldown. Every target, http or https,
// is tunnelled (CONNECT ip:port, or SOCKS5), so an HTTP proxy must allow CONNECT to the target's port
// (tinyproxy: no ConnectPort line at all, or ConnectPort 80 and 443). A request cannot name a proxy:
// the proxy dialers reach only the configured proxies.
//
// # Errors
//
// Fetch and Do return *errcode.Error; the sentinels below are in its Cause (errors.Is).
//
//	situation                                          code                detail              sentinel
//	URL malformed, not http(s), userinfo               invalid_params url  -                   ErrInvalidURL
//	IP literal / numeric host / name / port refused    invalid_params url  -                   ErrForbiddenAddress
//	country not configured                             invalid_params country -                ErrUnknownCountry
//	name resolves to refused space, dial refused       target_unreachable  forbidden           ErrForbiddenAddress
//	redirect hop refused (scheme, address, port)       target_unreachable  forbidden           ErrForbiddenAddress/ErrInvalidURL
//	more than MaxRedirects hops                        target_unreachable  too_many_redirects  ErrTooManyRedirects
//	decoded (or wire) body over MaxBodyBytes           target_unreachable  too_large           ErrTooLarge
//	unknown Content-Encoding, or two layers            target_unreachable  encoding            ErrUnsupportedEncoding
//	timeout after the last attempt, or ctx done        target_unreachable  timeout             -
//	connection error after the last attempt            target_unreachable  connection          -
//	5xx or 429 after the last attempt                  no error: the Response keeps the status (Asa-Source-Status)
//
// forbidden, too_many_redirects, too_large and encoding are not retried (the answer would be the same).
// too_large is target_unreachable rather than extraction_failed: the target sent what we refuse to
// read, nothing was extracted. When Fetch fails it still returns a Response with Attempts set.
package fetch
