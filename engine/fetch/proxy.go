package fetch

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"asa/engine/errcode"
)

// proxyState is one configured proxy, its transport and its health.
type proxyState struct {
	u        *url.URL
	hostport string
	redacted string
	country  string
	tr       *http.Transport

	mu        sync.Mutex
	fails     int
	restUntil time.Time
}

// pool picks proxies: round-robin among the healthy ones of a country, avoiding the ones this
// Fetch already used; a proxy with ProxyFailures consecutive failures rests for ProxyCooldown.
type pool struct {
	all       []*proxyState
	byCountry map[string][]*proxyState
	next      sync.Map // country → *atomic.Uint64
	c         *Client
}

func parseProxy(p Proxy) (*proxyState, error) {
	u, err := url.Parse(p.URL)
	if err != nil {
		return nil, fmt.Errorf("fetch: proxy %q: %v", redactRaw(p.URL), stripURLErr(err))
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("fetch: proxy %s: scheme %q (http, https, socks5)", u.Redacted(), u.Scheme)
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("fetch: proxy %s: no host", u.Redacted())
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	cc := strings.ToLower(strings.TrimSpace(p.Country))
	if !validCountry(cc) {
		return nil, fmt.Errorf("fetch: proxy %s: country %q is not an ISO 3166-1 alpha-2 code", u.Redacted(), p.Country)
	}
	return &proxyState{u: u, hostport: net.JoinHostPort(u.Hostname(), port), redacted: u.Redacted(), country: cc}, nil
}

func redactRaw(s string) string {
	if i := strings.Index(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "xxxxx" + s[i:]
		}
		return "xxxxx" + s[i:]
	}
	return s
}

func validCountry(cc string) bool {
	return len(cc) == 2 && cc[0] >= 'a' && cc[0] <= 'z' && cc[1] >= 'a' && cc[1] <= 'z'
}

// countries returns the configured countries, sorted.
func (pl *pool) countries() []string {
	out := make([]string, 0, len(pl.byCountry))
	for cc := range pl.byCountry {
		out = append(out, cc)
	}
	sort.Strings(out)
	return out
}

// check validates a requested country.
func (pl *pool) check(country string) error {
	if country == "" {
		return nil
	}
	if _, ok := pl.byCountry[country]; ok {
		return nil
	}
	msg := fmt.Sprintf("country %q is not available", country)
	if !validCountry(country) {
		msg = fmt.Sprintf("country %q is not an ISO 3166-1 alpha-2 code", country)
	}
	if len(pl.byCountry) == 0 {
		msg += "; no proxies are configured"
	} else if validCountry(country) {
		msg += "; available: " + strings.Join(pl.countries(), ", ")
	}
	return &errcode.Error{Code: errcode.InvalidParams, Message: msg, Params: []string{"country"}, Cause: ErrUnknownCountry}
}

// pick returns the proxy for the next attempt, nil for direct egress (no proxies configured).
func (pl *pool) pick(country string, used []*proxyState) *proxyState {
	list := pl.all
	if country != "" {
		list = pl.byCountry[country]
	}
	if len(list) == 0 {
		return nil
	}
	ctr, _ := pl.next.LoadOrStore(country, new(atomic.Uint64))
	start := int(ctr.(*atomic.Uint64).Add(1) - 1)
	now := pl.c.opts.Now()
	isUsed := func(p *proxyState) bool {
		for _, u := range used {
			if u == p {
				return true
			}
		}
		return false
	}
	// healthy and fresh for this Fetch, then healthy, then whichever rest ends first.
	for _, fresh := range []bool{true, false} {
		for i := range list {
			p := list[(start+i)%len(list)]
			if p.healthy(now) && (!fresh || !isUsed(p)) {
				return p
			}
		}
	}
	best := list[start%len(list)]
	for _, p := range list {
		if p.restEnd().Before(best.restEnd()) {
			best = p
		}
	}
	return best
}

func (p *proxyState) healthy(now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !now.Before(p.restUntil)
}

func (p *proxyState) restEnd() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restUntil
}

// report records the outcome of an attempt through p: failed means a connection error or timeout.
func (pl *pool) report(p *proxyState, failed bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !failed {
		p.fails = 0
		return
	}
	p.fails++
	if p.fails >= pl.c.opts.ProxyFailures {
		p.fails = 0
		p.restUntil = pl.c.opts.Now().Add(pl.c.opts.ProxyCooldown)
		pl.c.opts.Logger.Warn("fetch: proxy rested after consecutive failures",
			"proxy", p.redacted, "country", p.country, "failures", pl.c.opts.ProxyFailures, "until", p.restUntil)
	}
}
