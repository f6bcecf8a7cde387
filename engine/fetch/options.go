package fetch

import (
	"context"
	"crypto/x509"
	"log/slog"
	"net"
	"strings"
	"time"
)

// Defaults of Options.
const (
	DefaultMaxBodyBytes    = 10 << 20
	DefaultAttemptTimeout  = 20 * time.Second
	DefaultIdleTimeout     = 15 * time.Second
	DefaultDialTimeout     = 5 * time.Second
	DefaultProxyTimeout    = 10 * time.Second
	DefaultDNSTimeout      = 3 * time.Second
	DefaultTLSTimeout      = 10 * time.Second
	DefaultMaxAttempts     = 3
	DefaultMaxRedirects    = 5
	DefaultMaxRetryAfter   = 10 * time.Second
	DefaultProxyFailures   = 3
	DefaultProxyCooldown   = time.Minute
	DefaultBackoffBase     = 250 * time.Millisecond
	DefaultBackoffMax      = 4 * time.Second
	DefaultMaxConnsPerHost = 32
)

// Options configures a Client. The zero value is usable: direct egress, guard on, defaults above.
type Options struct {
	// MaxBodyBytes caps the decoded body (and the wire body). Over it: target_unreachable, detail
	// too_large. Default 10 MiB.
	MaxBodyBytes int64
	// AttemptTimeout bounds one attempt (connect, TLS, headers and body) when the request has no
	// Timeout of its own. Default 20s. The request's context bounds the whole Fetch.
	AttemptTimeout time.Duration
	// IdleTimeout ends an attempt whose body makes no progress for this long (a drip slower than one
	// read per IdleTimeout). Default 15s; negative disables it.
	IdleTimeout time.Duration
	// DialTimeout bounds one TCP connect (default 5s); DNSTimeout one lookup (default 3s);
	// TLSHandshakeTimeout the handshake (default 10s).
	DialTimeout         time.Duration
	DNSTimeout          time.Duration
	TLSHandshakeTimeout time.Duration

	// MaxAttempts is how many attempts Fetch makes on connection errors, timeouts, 5xx and 429
	// (default 3; 1 disables retries).
	MaxAttempts int
	// MaxRedirects caps the redirect hops of one attempt (default 5; every hop is re-checked).
	MaxRedirects int
	// Backoff is the exponential backoff with full jitter between attempts.
	Backoff Backoff
	// MaxRetryAfter caps how long a Retry-After of a 429/503 is honoured (default 10s).
	MaxRetryAfter time.Duration

	// MaxConnsPerHost caps the connections to one host per egress (direct, or one proxy); requests
	// beyond it wait for a connection. HTTP/2 multiplexes many requests over each; for HTTP/1.1 it is
	// the per-host concurrency. Default 32; negative: no cap (a cold start of 1,000 concurrent
	// requests then pays 1,000 TLS handshakes).
	MaxConnsPerHost int

	// Proxies is the egress pool. Empty: direct egress.
	Proxies []Proxy
	// ProxyTimeout bounds an HTTP proxy's answer to CONNECT and a SOCKS5 proxy's handshake, its own
	// connection to the target included (default 10s). A proxy at its cap on clients (tinyproxy's MaxClients) accepts the
	// connection and never answers it; without a bound the attempt waits out its whole deadline.
	ProxyTimeout time.Duration
	// ProxyFailures consecutive connection failures rest a proxy for ProxyCooldown (defaults 3, 1m).
	ProxyFailures int
	ProxyCooldown time.Duration

	// GuardUserURLs applies the strict rules of user-supplied URLs to every request of this client
	// (as WithUserURL does per request): ports limited to 80, 443 and AllowPorts.
	GuardUserURLs bool
	// AllowPorts are ports user-supplied URLs may use besides 80 and 443.
	AllowPorts []int
	// AllowPrivateNetwork lifts the address guard (private, loopback, metadata space may be dialled).
	// For tests and local development only. DenyAddrs and DenyHosts still apply.
	AllowPrivateNetwork bool
	// AllowAddrs are exceptions to the private-space rule: "CIDR", "IP" or "IP:port" (tests use a
	// loopback alias as a stand-in for a public server).
	AllowAddrs []string
	// DenyAddrs are refused even when AllowPrivateNetwork is set: our own ingress and egress addresses
	// ("CIDR", "IP" or "IP:port"), so the universal endpoint cannot call us.
	DenyAddrs []string
	// DenyHosts are our own host names (a name or any subdomain of it is refused at parse time).
	DenyHosts []string

	// Resolve maps "host:port" to an "ip:port" to dial instead of resolving the host (the target farm
	// of tests and demos). It is trusted operator configuration: its answers skip the address guard.
	Resolve func(hostport string) (addr string, ok bool)
	// Resolver resolves host names (default net.DefaultResolver). Tests point it at a fake DNS.
	Resolver *net.Resolver
	// RootCAs verifies targets and https proxies (default: the system pool). The farm's CertPool.
	RootCAs *x509.CertPool

	// UserAgent replaces DefaultUserAgent in the browser-like default headers.
	UserAgent string
	// Logger receives proxy health events (credentials redacted). Default: discarded.
	Logger *slog.Logger
	// Now is the clock of proxy cool-downs (default time.Now).
	Now func() time.Time

	// dial replaces the last step of every dial (tests: refuse anything that is not loopback).
	dial func(ctx context.Context, d *net.Dialer, network, addr string) (net.Conn, error)
	// sleep replaces the backoff wait (tests record the waits).
	sleep func(ctx context.Context, d time.Duration) error
}

// Backoff is exponential backoff with full jitter: before retry n (1-based) the wait is uniform in
// [0, min(Max, Base·2^(n-1))].
type Backoff struct {
	Base time.Duration
	Max  time.Duration
}

// Proxy is one egress proxy.
type Proxy struct {
	// URL is http://, https:// or socks5:// (socks5h:// too), with optional user:password.
	URL string
	// Country is its ISO 3166-1 alpha-2 code (case-insensitive).
	Country string
}

func (o *Options) withDefaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	def(&o.AttemptTimeout, DefaultAttemptTimeout)
	def(&o.IdleTimeout, DefaultIdleTimeout)
	def(&o.DialTimeout, DefaultDialTimeout)
	def(&o.ProxyTimeout, DefaultProxyTimeout)
	def(&o.DNSTimeout, DefaultDNSTimeout)
	def(&o.TLSHandshakeTimeout, DefaultTLSTimeout)
	def(&o.MaxRetryAfter, DefaultMaxRetryAfter)
	def(&o.ProxyCooldown, DefaultProxyCooldown)
	def(&o.Backoff.Base, DefaultBackoffBase)
	def(&o.Backoff.Max, DefaultBackoffMax)
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	if o.MaxConnsPerHost == 0 {
		o.MaxConnsPerHost = DefaultMaxConnsPerHost
	} else if o.MaxConnsPerHost < 0 {
		o.MaxConnsPerHost = 0
	}
	if o.ProxyFailures <= 0 {
		o.ProxyFailures = DefaultProxyFailures
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
}

type ctxKey int

const (
	countryKey ctxKey = iota
	userURLKey
)

// WithCountry returns a context whose Fetch and Do calls egress through a proxy of country (ISO
// 3166-1 alpha-2, case-insensitive). An empty country means any proxy. The country rides on the
// context rather than on engine.Request so that plans and sitedefs never see it: the API wraps the
// context it passes to Plan.Run. A country no configured proxy has fails with invalid_params naming
// "country" (check it early with Client.CheckCountry).
func WithCountry(ctx context.Context, country string) context.Context {
	return context.WithValue(ctx, countryKey, strings.ToLower(strings.TrimSpace(country)))
}

// CountryFrom returns the country set by WithCountry, lower-case, or "".
func CountryFrom(ctx context.Context) string {
	c, _ := ctx.Value(countryKey).(string)
	return c
}

// WithUserURL marks the requests made with ctx as user-supplied (the universal endpoint, batch
// items, webhooks): the strict URL rules apply (see Options.GuardUserURLs).
func WithUserURL(ctx context.Context) context.Context {
	return context.WithValue(ctx, userURLKey, true)
}

func userURL(ctx context.Context) bool {
	v, _ := ctx.Value(userURLKey).(bool)
	return v
}
