package fetch

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/net/idna"
)

// Sentinel errors, found with errors.Is in the Cause of the *errcode.Error that Fetch and Do return.
var (
	// ErrForbiddenAddress: the URL names, or its host resolves to, an address the guard refuses
	// (private, loopback, link-local, CGNAT, multicast, reserved, cloud metadata, our own), a
	// numeric-looking non-canonical host, a refused host name, or (user URLs) a port off the allow-list.
	ErrForbiddenAddress = errors.New("forbidden address")
	// ErrInvalidURL: not an absolute http(s) URL, userinfo present, bad host or port, too long.
	ErrInvalidURL = errors.New("invalid URL")
	// ErrTooLarge: the decoded body is over the cap.
	ErrTooLarge = errors.New("response body over the size cap")
	// ErrTooManyRedirects: more redirect hops than allowed.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrUnsupportedEncoding: a Content-Encoding we do not decode, or more than one layer.
	ErrUnsupportedEncoding = errors.New("unsupported content encoding")
	// ErrUnknownCountry: no configured proxy has the requested country.
	ErrUnknownCountry = errors.New("no proxy for the country")
)

// MaxURLLength is the longest URL accepted.
const MaxURLLength = 8 << 10

// Built-in refused ranges: the IANA special-purpose registries, plus the cloud metadata addresses
// that are not in them. IPv6 outside global unicast 2000::/3 is refused wholesale (this covers ::1,
// ::, IPv4-mapped and -compatible forms that are not unmapped, fc00::/7 with fd00:ec2::254, fe80::/10,
// multicast and NAT64 64:ff9b::/96).
var (
	deniedV4 = prefixes(
		"0.0.0.0/8",          // "this network"; Linux connects 0.0.0.0 to localhost
		"10.0.0.0/8",         // RFC 1918
		"100.64.0.0/10",      // CGNAT, includes Alibaba metadata 100.100.100.200
		"127.0.0.0/8",        // loopback
		"169.254.0.0/16",     // link-local, includes 169.254.169.254 and ECS 169.254.170.2
		"172.16.0.0/12",      // RFC 1918
		"192.0.0.0/24",       // IETF protocol assignments
		"192.0.2.0/24",       // TEST-NET-1
		"192.88.99.0/24",     // 6to4 relay anycast
		"192.168.0.0/16",     // RFC 1918
		"198.18.0.0/15",      // benchmarking
		"198.51.100.0/24",    // TEST-NET-2
		"203.0.113.0/24",     // TEST-NET-3
		"224.0.0.0/4",        // multicast
		"240.0.0.0/4",        // reserved, includes 255.255.255.255
		"168.63.129.16/32",   // Azure wireserver: a public address
		"100.100.100.200/32", // Alibaba metadata (also in CGNAT; listed for the record)
	)
	globalV6 = netip.MustParsePrefix("2000::/3")
	deniedV6 = prefixes(
		"2001::/23",         // IETF protocol assignments, includes Teredo 2001::/32
		"2001:db8::/32",     // documentation
		"2002::/16",         // 6to4: embeds IPv4 addresses
		"3fff::/20",         // documentation
		"2620:4f:8000::/48", // AS112
		"fd00:ec2::254/128", // AWS IMDS (outside 2000::/3 already; listed for the record)
		"64:ff9b::/96",      // NAT64 (idem)
		"64:ff9b:1::/48",    // local-use NAT64 (idem)
		"::ffff:0:0/96",     // IPv4-mapped that was not unmapped (idem)
		"ff00::/8",          // multicast (idem)
		"fe80::/10",         // link-local (idem)
		"fc00::/7",          // unique local (idem)
		"::/128", "::1/128", // unspecified, loopback (idem)
	)
	// deniedNames are refused at parse time (they resolve to private space where they resolve at all).
	deniedNames    = []string{"localhost", "metadata.google.internal", "metadata.goog", "metadata", "instance-data"}
	deniedSuffixes = []string{".localhost", ".internal", ".local", ".localdomain", ".home.arpa"}
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// PrivateAddr reports whether a is in space the guard refuses by default (see ErrForbiddenAddress).
func PrivateAddr(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	if !a.IsValid() {
		return true
	}
	if a.Is4() {
		for _, p := range deniedV4 {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	if !globalV6.Contains(a) {
		return true
	}
	for _, p := range deniedV6 {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// guard holds the address policy of a Client.
type guard struct {
	allowPrivate bool
	allow        addrSet
	deny         addrSet
	denyHosts    []string
	ports        []uint16 // the user-URL port allow-list
}

// addrSet is a list of prefixes and of exact ip:port pairs.
type addrSet struct {
	prefixes []netip.Prefix
	addrs    []netip.AddrPort
}

func (s addrSet) contains(ap netip.AddrPort) bool {
	a := ap.Addr()
	for _, p := range s.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return slices.Contains(s.addrs, ap)
}

// parseAddrSet reads "CIDR", "IP" or "IP:port" entries.
func parseAddrSet(field string, entries []string) (addrSet, error) {
	var s addrSet
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if p, err := netip.ParsePrefix(e); err == nil {
			s.prefixes = append(s.prefixes, p.Masked())
			continue
		}
		if a, err := netip.ParseAddr(e); err == nil {
			a = a.Unmap()
			s.prefixes = append(s.prefixes, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		if ap, err := netip.ParseAddrPort(e); err == nil {
			s.addrs = append(s.addrs, netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()))
			continue
		}
		return s, fmt.Errorf("fetch: %s: %q is not a CIDR, an IP or an IP:port", field, e)
	}
	return s, nil
}

// checkAddr is the dial-time decision on the address a socket is about to reach.
func (g *guard) checkAddr(ap netip.AddrPort) error {
	ap = netip.AddrPortFrom(ap.Addr().WithZone("").Unmap(), ap.Port())
	if g.deny.contains(ap) {
		return fmt.Errorf("%w: %s is one of our own addresses", ErrForbiddenAddress, ap)
	}
	if g.allow.contains(ap) || g.allowPrivate {
		return nil
	}
	if PrivateAddr(ap.Addr()) {
		return fmt.Errorf("%w: %s is in private or reserved space", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}

// control is the net.Dialer.Control hook: it runs after DNS, right before connect(2), on the address
// the socket will really reach.
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: network %s", ErrForbiddenAddress, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: unparsable dial address %q", ErrForbiddenAddress, address)
	}
	return g.checkAddr(ap)
}

// checkURL parses and canonicalises raw (IDNA mapping as net/http applies it, lower-case host) and
// applies the parse-time rules. user selects the strict rules of user-supplied URLs (port allow-list).
// Every refusal wraps ErrInvalidURL or ErrForbiddenAddress. No DNS is done here.
func (g *guard) checkURL(raw string, user bool) (*url.URL, error) {
	if len(raw) > MaxURLLength {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrInvalidURL, MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidURL, stripURLErr(err))
	}
	return g.checkParsed(u, user)
}

func stripURLErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func (g *guard) checkParsed(u *url.URL, user bool) (*url.URL, error) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		if scheme == "" {
			return nil, fmt.Errorf("%w: not an absolute URL (http or https)", ErrInvalidURL)
		}
		return nil, fmt.Errorf("%w: scheme %q (only http and https)", ErrInvalidURL, scheme)
	}
	if u.Opaque != "" {
		return nil, fmt.Errorf("%w: opaque URL", ErrInvalidURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: credentials in the URL", ErrInvalidURL)
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	if strings.Contains(host, "%") {
		return nil, fmt.Errorf("%w: IPv6 zone in the host", ErrForbiddenAddress)
	}
	port := u.Port()
	if strings.HasSuffix(u.Host, ":") {
		return nil, fmt.Errorf("%w: empty port", ErrInvalidURL)
	}
	var portNum uint16
	if port == "" {
		portNum = 80
		if scheme == "https" {
			portNum = 443
		}
	} else {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%w: port %q", ErrInvalidURL, port)
		}
		portNum = uint16(n)
	}
	if user && !slices.Contains(g.ports, portNum) {
		return nil, fmt.Errorf("%w: port %d is not allowed", ErrForbiddenAddress, portNum)
	}

	bracketed := strings.HasPrefix(u.Host, "[")
	var canon string
	if bracketed {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() {
			return nil, fmt.Errorf("%w: bad IPv6 literal %q", ErrInvalidURL, host)
		}
		if err := g.checkLiteral(a, portNum); err != nil {
			return nil, err
		}
		canon = "[" + a.String() + "]"
	} else {
		h, err := canonicalHost(host)
		if err != nil {
			return nil, err
		}
		if a, err := netip.ParseAddr(h); err == nil {
			if !a.Is4() {
				return nil, fmt.Errorf("%w: bad host %q", ErrInvalidURL, host)
			}
			if err := g.checkLiteral(a, portNum); err != nil {
				return nil, err
			}
			canon = a.String()
		} else {
			if numericLooking(h) {
				return nil, fmt.Errorf("%w: numeric host %q is not a canonical dotted quad", ErrForbiddenAddress, host)
			}
			if err := g.checkName(h); err != nil {
				return nil, err
			}
			canon = h
		}
	}
	out := *u
	out.Scheme = scheme
	if port != "" {
		canon += ":" + port
	}
	out.Host = canon
	return &out, nil
}

func (g *guard) checkLiteral(a netip.Addr, port uint16) error {
	if err := g.checkAddr(netip.AddrPortFrom(a, port)); err != nil {
		return err
	}
	return nil
}

// checkName refuses the names that mean private space, and our own names.
func (g *guard) checkName(h string) error {
	name := strings.TrimSuffix(h, ".")
	for _, d := range g.denyHosts {
		if name == d || strings.HasSuffix(name, "."+d) {
			return fmt.Errorf("%w: %s is one of our own hosts", ErrForbiddenAddress, name)
		}
	}
	if g.allowPrivate {
		return nil
	}
	if slices.Contains(deniedNames, name) {
		return fmt.Errorf("%w: host %s", ErrForbiddenAddress, name)
	}
	for _, s := range deniedSuffixes {
		if strings.HasSuffix(name, s) {
			return fmt.Errorf("%w: host %s", ErrForbiddenAddress, name)
		}
	}
	return nil
}

// canonicalHost applies the IDNA mapping net/http applies before dialing (so that full-width digits
// and ideographic full stops become what will really be dialed), then lower-cases.
func canonicalHost(host string) (string, error) {
	h := host
	if !isASCII(h) {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("%w: host %q: %v", ErrInvalidURL, host, err)
		}
		h = a
	}
	h = strings.ToLower(h)
	if h == "" || h == "." {
		return "", fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", fmt.Errorf("%w: character %q in host", ErrInvalidURL, c)
		}
	}
	if strings.Contains(h, "..") {
		return "", fmt.Errorf("%w: empty label in host", ErrInvalidURL)
	}
	return h, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// numericLooking is the WHATWG "ends in a number" test: the last label (ignoring one trailing dot) is
// all decimal digits, or 0x followed by hex digits. Such hosts are IPv4 in some parser; only the
// canonical dotted quad is accepted, and it never reaches here.
func numericLooking(h string) bool {
	h = strings.TrimSuffix(h, ".")
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if allIn(last, "0123456789") {
		return true
	}
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		return allIn(last[2:], "0123456789abcdefABCDEF")
	}
	return false
}

func allIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(set, rune(s[i])) {
			return false
		}
	}
	return true
}
