package fetch

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/proxy"
)

// resolveTarget turns the "host:port" net/http wants to reach into the addresses to dial. Every
// address is checked; one refused answer refuses the whole name (a name answering a public and a
// private address is an attack, not a fallback). trusted is true for Options.Resolve answers.
func (c *Client) resolveTarget(ctx context.Context, addr string) (aps []netip.AddrPort, trusted bool, err error) {
	if c.opts.Resolve != nil {
		if to, ok := c.opts.Resolve(addr); ok {
			ap, err := netip.ParseAddrPort(to)
			if err != nil {
				return nil, false, fmt.Errorf("fetch: Options.Resolve(%q) = %q: not an ip:port", addr, to)
			}
			return []netip.AddrPort{ap}, true, nil
		}
	}
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %v", ErrInvalidURL, err)
	}
	port, err := net.LookupPort("tcp", portStr)
	if err != nil || port < 1 || port > 65535 {
		return nil, false, fmt.Errorf("%w: port %q", ErrInvalidURL, portStr)
	}
	var ips []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{a}
	} else {
		lctx, cancel := context.WithTimeout(ctx, c.opts.DNSTimeout)
		ips, err = c.opts.Resolver.LookupNetIP(lctx, "ip", host)
		cancel()
		if err != nil {
			return nil, false, err
		}
		if len(ips) == 0 {
			return nil, false, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	for _, ip := range ips {
		ap := netip.AddrPortFrom(ip.Unmap(), uint16(port))
		if err := c.guard.checkAddr(ap); err != nil {
			return nil, false, fmt.Errorf("%s resolves to a refused address: %w", host, err)
		}
		aps = append(aps, ap)
	}
	return aps, false, nil
}

// rawDial is the last step of every dial: a net.Dialer whose Control hook re-checks the address the
// socket really reaches (the boundary; trusted dials, to Resolve answers and configured proxies, skip it).
func (c *Client) rawDial(ctx context.Context, addr string, guarded bool) (net.Conn, error) {
	d := &net.Dialer{Timeout: c.opts.DialTimeout, KeepAlive: 30 * time.Second, Resolver: c.opts.Resolver}
	if guarded {
		d.Control = c.guard.control
	}
	if c.opts.dial != nil {
		return c.opts.dial(ctx, d, "tcp", addr)
	}
	return d.DialContext(ctx, "tcp", addr)
}

// dialDirect is the DialContext of the direct transport.
func (c *Client) dialDirect(ctx context.Context, _, addr string) (net.Conn, error) {
	aps, trusted, err := c.resolveTarget(ctx, addr)
	if err != nil {
		return nil, err
	}
	var firstErr error
	for _, ap := range aps {
		conn, err := c.rawDial(ctx, ap.String(), !trusted)
		if err == nil {
			return conn, nil
		}
		if errors.Is(err, ErrForbiddenAddress) {
			return nil, err
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// proxyDialer returns the DialContext of p's transport: it checks the target like a direct dial,
// then tunnels to the checked address (never to the name: the proxy must not resolve it again, which
// would reopen DNS rebinding). The dial to the proxy itself is trusted configuration.
func (c *Client) proxyDialer(p *proxyState) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, _, addr string) (net.Conn, error) {
		aps, _, err := c.resolveTarget(ctx, addr)
		if err != nil {
			return nil, err
		}
		target := aps[0].String()
		switch p.u.Scheme {
		case "socks5", "socks5h":
			var auth *proxy.Auth
			if p.u.User != nil {
				pw, _ := p.u.User.Password()
				auth = &proxy.Auth{User: p.u.User.Username(), Password: pw}
			}
			d, err := proxy.SOCKS5("tcp", p.hostport, auth, proxyForward{c})
			if err != nil {
				return nil, err
			}
			// The handshake, the proxy's connection to the target included, within ProxyTimeout
			// (as an HTTP proxy's CONNECT answer): the tunnel outlives hctx.
			hctx, cancel := context.WithTimeout(ctx, c.opts.ProxyTimeout)
			defer cancel()
			dl, ok := ctx.Deadline()
			proxyBound := !ok || !dl.Before(time.Now().Add(c.opts.ProxyTimeout))
			conn, err := d.(proxy.ContextDialer).DialContext(hctx, "tcp", target)
			if err != nil {
				// The handshake's deadline is hctx's: its read may time out before hctx says so.
				var ne net.Error
				if proxyBound && ctx.Err() == nil && (hctx.Err() != nil || errors.As(err, &ne) && ne.Timeout()) {
					p.freeIdle()
					err = fmt.Errorf("no SOCKS5 answer within %v: %w", c.opts.ProxyTimeout, err)
				}
				return nil, &proxyError{p: p, err: err}
			}
			return conn, nil
		default:
			return c.connectTunnel(ctx, p, target)
		}
	}
}

// proxyForward dials the proxy itself for the SOCKS5 client.
type proxyForward struct{ c *Client }

func (f proxyForward) Dial(network, addr string) (net.Conn, error) {
	return f.DialContext(context.Background(), network, addr)
}

func (f proxyForward) DialContext(ctx context.Context, _, addr string) (net.Conn, error) {
	return f.c.rawDial(ctx, addr, false)
}

// connectTunnel opens an HTTP CONNECT tunnel to target through an http or https proxy.
func (c *Client) connectTunnel(ctx context.Context, p *proxyState, target string) (conn net.Conn, err error) {
	raw, err := c.rawDial(ctx, p.hostport, false)
	if err != nil {
		return nil, &proxyError{p: p, err: err}
	}
	// raw, not conn: a failure returns a nil conn, and the connection must still be closed.
	defer func() {
		if err != nil {
			raw.Close()
		}
	}()
	conn = raw
	// The proxy's answer is due within ProxyTimeout, or by the attempt's deadline when that is sooner
	// (a timeout is then the attempt's, not the proxy's).
	answerBy, proxyBound := time.Now().Add(c.opts.ProxyTimeout), true
	if dl, ok := ctx.Deadline(); ok && dl.Before(answerBy) {
		answerBy, proxyBound = dl, false
	}
	conn.SetDeadline(answerBy)
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if p.u.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: p.u.Hostname(), RootCAs: c.opts.RootCAs, MinVersion: tls.VersionTLS12})
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, &proxyError{p: p, err: err}
		}
		conn = tc
	}
	req := &http.Request{
		Method: http.MethodConnect,
		URL:    &url.URL{Opaque: target},
		Host:   target,
		Header: http.Header{},
	}
	if p.u.User != nil {
		pw, _ := p.u.User.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(p.u.User.Username()+":"+pw)))
	}
	if err := req.Write(conn); err != nil {
		return nil, &proxyError{p: p, err: err}
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() && proxyBound && ctx.Err() == nil {
			p.freeIdle()
			err = fmt.Errorf("no answer to CONNECT within %v: %w", c.opts.ProxyTimeout, err)
		}
		return nil, &proxyError{p: p, err: err}
	}
	// The body of a 2xx CONNECT answer is the tunnel: never read or close it (Close would drain it).
	if resp.StatusCode != http.StatusOK {
		return nil, &proxyError{p: p, err: fmt.Errorf("CONNECT %s: %s", target, resp.Status)}
	}
	conn.SetDeadline(time.Time{})
	if br.Buffered() > 0 {
		return &bufferedConn{Conn: conn, r: br}, nil
	}
	return conn, nil
}

type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// freeIdle closes the tunnels kept idle through p. Silence until ProxyTimeout is how a proxy at its
// cap on clients behaves, and those tunnels (one per target host, HTTP/2 ones not capped by the
// transport) may be what fills it: the next attempt then finds room.
func (p *proxyState) freeIdle() {
	if p.tr != nil {
		p.tr.CloseIdleConnections()
	}
}

// proxyError is a failure of the proxy hop; its message names the proxy without credentials.
type proxyError struct {
	p   *proxyState
	err error
}

func (e *proxyError) Error() string {
	msg := e.err.Error()
	if pw, ok := e.p.u.User.Password(); ok && pw != "" {
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
	}
	return "proxy " + e.p.redacted + ": " + msg
}

func (e *proxyError) Unwrap() error { return e.err }
