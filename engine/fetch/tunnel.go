package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"asa/engine/errcode"
)

// DialTarget opens a TCP connection to hostport ("host:port") through the same egress as Fetch: the
// parse-time rules of user-supplied URLs (names, numeric hosts, the port allow-list), every resolved
// address checked, the dial-time guard, and a proxy of WithCountry's country (or any configured proxy;
// direct without proxies). It is for the browser's forward proxy (engine/render), which relays what
// a page's scripts ask for: one tunnel per CONNECT or plain-HTTP connection, no retries.
//
// Errors are *errcode.Error target_unreachable with detail forbidden (the name, port or address is
// refused: wrapping ErrForbiddenAddress or ErrInvalidURL), timeout or connection; or invalid_params
// naming country for an unconfigured country.
func (c *Client) DialTarget(ctx context.Context, hostport string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, c.dialFailure(ctx, fmt.Errorf("%w: %v", ErrInvalidURL, err))
	}
	// The parse-time rules need a URL; the scheme only decides the default port, which is given.
	h := host
	if strings.Contains(h, ":") {
		h = "[" + h + "]"
	}
	u, err := c.guard.checkParsed(&url.URL{Scheme: "http", Host: h + ":" + port, Path: "/"}, true)
	if err != nil {
		return nil, c.dialFailure(ctx, err)
	}
	target := u.Host
	country := CountryFrom(ctx)
	if err := c.pool.check(country); err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, c.opts.DialTimeout+c.opts.DNSTimeout)
	defer cancel()
	p := c.pool.pick(country, nil)
	var conn net.Conn
	if p == nil {
		conn, err = c.dialDirect(dctx, "tcp", target)
	} else {
		conn, err = c.proxyDialer(p)(dctx, "tcp", target)
		var pe *proxyError
		c.pool.report(p, err != nil && errors.As(err, &pe))
	}
	if err != nil {
		return nil, c.dialFailure(ctx, err)
	}
	return conn, nil
}

// dialFailure classifies a DialTarget error as Fetch classifies an attempt's.
func (c *Client) dialFailure(ctx context.Context, err error) *errcode.Error {
	f := c.classify(ctx, ctx, err)
	if f.detail == "timeout" && ctx.Err() == nil {
		f.err = err
	}
	return f.errcode(&spec{})
}
