package fetch

import (
	"crypto/x509"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
)

// StaticResolve returns an Options.Resolve that sends every host name to addr (an "ip:port", e.g.
// a farm started by `asa farm`), whatever the port asked for. IP literals and localhost names are
// never mapped, so the guard still sees them.
func StaticResolve(addr string) (func(hostport string) (string, bool), error) {
	if _, err := netip.ParseAddrPort(addr); err != nil {
		return nil, fmt.Errorf("fetch: StaticResolve: %q is not an ip:port", addr)
	}
	return func(hostport string) (string, bool) {
		host, _, err := net.SplitHostPort(hostport)
		if err != nil {
			host = hostport
		}
		host = strings.TrimSuffix(strings.ToLower(host), ".")
		if host == "" || host == "localhost" || strings.HasSuffix(host, ".localhost") {
			return "", false
		}
		if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
			return "", false
		}
		return addr, true
	}, nil
}

// CertPoolFromFile returns the system roots plus the PEM certificates of file (the farm's CA, as
// written by `asa farm --ca-out`), for Options.RootCAs.
func CertPoolFromFile(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("fetch: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("fetch: %s holds no PEM certificate", file)
	}
	return pool, nil
}
