package funcs

import (
	"encoding/base64"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr/ast"
)

// cleanURL drops what browsers drop before parsing an href: surrounding spaces and control
// characters, and tabs and line breaks anywhere (attribute values wrapped over lines).
func cleanURL(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' || isInvisible(r) || r == '\u00A0' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	}
	return s
}

func isHTTP(u *url.URL) bool {
	return (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// absURL resolves ref against base and returns it only if the result is an http(s) URL:
// javascript:, data:, mailto: and the like give false.
func absURL(ref, base string) (string, bool) { return absURLIn(ref, base, nil) }

// absURLIn is absURL with the run's parsed bases (nil: none). An absolute ref never looks at base.
func absURLIn(ref, base string, bs *Bases) (string, bool) {
	ref = cleanURL(ref)
	if ref == "" {
		return "", false
	}
	if PlainAbsURL(ref) {
		return ref, true
	}
	if len(ref) > 2 && ref[0] == '/' && ref[1] == '/' {
		// A protocol-relative reference takes the base's scheme (http or https, lower-cased by
		// url.Parse), or https without a base: either way the scheme and ref, when that is plain.
		scheme := "https"
		if b := bs.parse(base); b != nil {
			scheme = b.Scheme
		}
		if abs := scheme + ":" + ref; PlainAbsURL(abs) {
			return abs, true
		}
	}
	if len(ref) > 1 && ref[0] == '/' && ref[1] != '/' {
		// A path from the root (Amazon's product links) is the base's scheme and host and ref,
		// when that is plain and the base has no user (ResolveReference keeps the base's user).
		if b := bs.parse(base); b != nil && b.User == nil {
			if abs := b.Scheme + "://" + b.Host + ref; PlainAbsURL(abs) {
				return abs, true
			}
		}
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	if u.Scheme != "" {
		u.Scheme = strings.ToLower(u.Scheme)
		if !isHTTP(u) {
			return "", false
		}
		return u.String(), true
	}
	b := bs.parse(base)
	if b == nil {
		// A protocol-relative URL is absolute enough without a base: assume https.
		if strings.HasPrefix(ref, "//") {
			if u, err := url.Parse("https:" + ref); err == nil && isHTTP(u) {
				return u.String(), true
			}
		}
		return "", false
	}
	r := b.ResolveReference(u)
	if !isHTTP(r) {
		return "", false
	}
	return r.String(), true
}

// BasesVar is the environment name under which the engine passes a run's *Bases; '$' keeps a
// sitedef from naming it (the parser reads no identifier starting with it but $env).
const BasesVar = "$bases"

// hiddenAbsURLIn is absURL taking the run's *Bases as a third argument; BasesPatch produces the
// calls.
const hiddenAbsURLIn = "$absURLIn"

// Bases is the base URL a run last resolved against, parsed. A list page resolves hundreds of
// hrefs against the one page URL, and parsing it for each was up to an eighth of a search page's
// extraction. One entry is enough: a run's base changes once per step. A run is one goroutine:
// Bases is not safe for concurrent use.
type Bases struct {
	src  string
	u    *url.URL // nil: src is not an http(s) URL
	done bool
}

// NewBases returns an empty memo, for one run.
func NewBases() *Bases { return &Bases{} }

// parse is base parsed as absURL resolves against it: nil when it is not an http(s) URL. The
// result is shared: url.URL.ResolveReference does not change its receiver.
func (bs *Bases) parse(base string) *url.URL {
	if bs == nil {
		return parseBase(base)
	}
	if !bs.done || bs.src != base {
		bs.src, bs.u, bs.done = base, parseBase(base), true
	}
	return bs.u
}

func parseBase(base string) *url.URL {
	b, err := url.Parse(cleanURL(base))
	if err != nil || !isHTTP(b) {
		return nil
	}
	return b
}

// BasesPatch rewrites the calls absURL(ref, base) into their version that takes the run's Bases.
// The engine applies it to the expressions of an environment that declares BasesVar.
type BasesPatch struct{}

func (BasesPatch) Visit(n *ast.Node) {
	withRunArg(n, BasesVar, func(name string) string {
		if name == "absURL" {
			return hiddenAbsURLIn
		}
		return ""
	})
}

// parseLoose parses absolute, protocol-relative and relative URLs.
func parseLoose(s string) (*url.URL, bool) {
	u, err := url.Parse(cleanURL(s))
	if err != nil {
		return nil, false
	}
	return u, true
}

// queryOf returns the query parameters of u, also when the rest of u does not parse (an invalid
// %-escape in the path must not hide ?q=...).
func queryOf(u string) url.Values {
	u = cleanURL(u)
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	i := strings.IndexByte(u, '?')
	if i < 0 {
		return nil
	}
	q, _ := url.ParseQuery(u[i+1:])
	return q
}

func urlParam(u, name string) (string, bool) {
	vs, ok := queryOf(u)[name]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

func urlHost(u string) (string, bool) {
	p, ok := parseLoose(u)
	if !ok || p.Host == "" {
		return "", false
	}
	return strings.ToLower(p.Hostname()), true
}

func urlPath(u string) (string, bool) {
	p, ok := parseLoose(u)
	if !ok || p.Opaque != "" {
		return "", false
	}
	if p.Path == "" && p.Host != "" {
		return "/", true
	}
	return p.Path, true
}

// unwrapURL follows the redirectors search engines and social sites wrap outbound links in.
// Nested wrappers are unwrapped too, a few levels deep.
func unwrapURL(u string) string {
	for range 4 {
		t, ok := unwrapOnce(u)
		if !ok || t == u {
			break
		}
		u = t
	}
	return u
}

func unwrapOnce(raw string) (string, bool) {
	p, ok := parseLoose(raw)
	if !ok {
		return "", false
	}
	host := strings.ToLower(p.Hostname())
	path := p.Path
	q := p.Query()
	first := func(names ...string) string {
		for _, n := range names {
			if v := q.Get(n); v != "" {
				return v
			}
		}
		return ""
	}
	var t string
	relativeOK := false
	switch {
	case path == "/url" || strings.HasSuffix(path, "/url"): // Google web and news results
		t, relativeOK = first("q", "url"), true
	case path == "/imgres": // Google Images
		t = first("imgurl")
	case strings.HasSuffix(host, "bing.com") && isBingAdPath(path): // Bing ads (and Yahoo's, which are Bing's)
		t = decodeBingAd(first("u"))
	case strings.HasSuffix(host, "bing.com") && path == "/rebates/welcome": // Bing Rebates shops (US, 2020-2021)
		t = first("url")
	case path == "/aclk" || path == "/pagead/aclk": // Google Ads (about 2008-2010 the landing page in q=)
		t = first("adurl", "q")
	case strings.HasSuffix(path, "/l.php"): // Facebook, Instagram
		t = first("u")
	case strings.HasSuffix(host, "youtube.com") && path == "/redirect":
		t = first("q")
	case strings.HasSuffix(host, "duckduckgo.com") && (path == "/l/" || path == "/l"):
		t = first("uddg")
	case strings.HasSuffix(host, "duckduckgo.com") && path == "/y.js": // DuckDuckGo ads, around Bing's or Yahoo's
		t = first("u3")
	case strings.HasSuffix(host, "bing.com") && path == "/ck/a":
		t = decodeBing(first("u"))
	case strings.HasSuffix(host, "yahoo.com"):
		t = yahooTarget(raw)
	case host == "out.reddit.com":
		t = first("url")
	case strings.Contains(path, "/sspa/click") || strings.Contains(path, "/slredirect/"): // Amazon sponsored
		t, relativeOK = first("url"), true
	case path == "/redirect" || path == "/out" || path == "/away" || path == "/goto" || path == "/link":
		t = first("url", "u", "target", "to", "dest", "destination")
	}
	if t == "" {
		return "", false
	}
	tu, err := url.Parse(t)
	if err != nil {
		return "", false
	}
	if isHTTP(tu) || strings.HasPrefix(t, "//") || relativeOK && strings.HasPrefix(t, "/") {
		return t, true
	}
	return "", false
}

// isBingAdPath reports whether path is one of the paths of Bing's ad click redirector: /aclick on
// most pages, /aclk on some of 2019-2020 (which on a Google host is Google's), and the others Bing's
// own script lists as its ad links.
func isBingAdPath(path string) bool {
	switch path {
	case "/aclick", "/aclk", "/ac", "/ack", "/ck", "/clk", "/click":
		return true
	}
	return false
}

// decodeBing decodes Bing's "u=a1<base64url>" link parameter.
func decodeBing(v string) string {
	if !strings.HasPrefix(v, "a1") {
		return ""
	}
	return unbase64URL(v[2:])
}

// decodeBingAd decodes the u parameter of Bing's ad redirector: the base64 (URL or standard
// alphabet, sometimes after "a1", as in /ck/a) of the %-escaped target, "https%3a%2f%2fshop.example%2fp";
// until about 2018 the target itself, %-escaped as any query value (u=http%3a%2f%2fshop.example%2fp).
func decodeBingAd(v string) string {
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		return v
	}
	v = strings.NewReplacer("+", "-", "/", "_").Replace(v)
	if strings.HasPrefix(v, "a1aHR0") { // "a1" then "htt"
		v = v[2:]
	}
	t, err := url.PathUnescape(unbase64URL(v))
	if err != nil {
		return ""
	}
	return t
}

// unbase64URL decodes base64url with or without padding; "" when v is not.
func unbase64URL(v string) string {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(v, "="))
	if err != nil {
		return ""
	}
	return string(b)
}

// decodeBase64 decodes text a page carries as base64 (a script's state, a data attribute): the
// standard or the URL alphabet, with or without padding, the line breaks and spaces an encoder or a
// template may wrap it with ignored. ok is false when s is not base64 or decodes to bytes that are not
// UTF-8 text (an image, a compressed blob), which no field could use as a string.
func decodeBase64(s string) (string, bool) {
	s = strings.TrimRight(strings.Join(strings.Fields(s), ""), "=")
	if s == "" {
		return "", false
	}
	enc := base64.RawStdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.RawURLEncoding
	}
	b, err := enc.DecodeString(s)
	if err != nil || !utf8.Valid(b) {
		return "", false
	}
	return string(b), true
}

// yahooTarget extracts the escaped target Yahoo puts in the path: ".../RU=https%3a%2f%2f.../RK=2".
func yahooTarget(raw string) string {
	i := strings.Index(raw, "/RU=")
	if i < 0 {
		return yahooStarTarget(raw)
	}
	v := raw[i+4:]
	if j := strings.Index(v, "/R"); j >= 0 {
		v = v[:j]
	}
	t, err := url.QueryUnescape(v)
	if err != nil {
		return ""
	}
	return t
}

// yahooStarTarget reads the redirectors Yahoo used before RU= (about 2000-2008), which put the target
// after one or two stars at the end of the path: srd.yahoo.com/S=.../K=.../*-http://example.com/ as it
// is, rds.yahoo.com/_ylt=.../EXP=.../**http%3a//example.com/a%3fb=1 escaped (its scheme's colon too,
// which is how an escaped target is told from a plain one).
func yahooStarTarget(raw string) string {
	i := strings.IndexByte(raw, '*')
	if i < 0 {
		return ""
	}
	v := strings.TrimLeft(raw[i:], "*-")
	scheme := v
	if j := strings.IndexAny(v, ":%"); j >= 0 {
		scheme = v[:j]
	}
	if !strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https") {
		return ""
	}
	rest := v[len(scheme):]
	if len(rest) >= 3 && rest[0] == '%' && strings.EqualFold(rest[1:3], "3a") {
		t, err := url.PathUnescape(v)
		if err != nil {
			return ""
		}
		return t
	}
	return v
}
