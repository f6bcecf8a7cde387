package fetch

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"asa/engine/errcode"
)

// DialTarget, the browser's egress, refuses what Fetch refuses, before any connection.
func TestDialTargetRefuses(t *testing.T) {
	dns := newFakeDNS(t)
	dns.set("internal.example", "127.0.0.1")
	dns.set("mixed.example", "93.184.216.34,10.0.0.7")
	c, lo := newTestClient(t, Options{Resolver: dns.resolver(), DenyHosts: []string{"asa.example"}})
	for _, target := range []string{
		"127.0.0.1:80", "127.0.0.1:8080", "169.254.169.254:80", "[::1]:443", "[fd00:ec2::254]:80", "10.1.2.3:443",
		"localhost:443", "metadata.google.internal:80", "internal.example:443", "mixed.example:443",
		"2130706433:80", "0x7f000001:443", "127.1:80", "asa.example:443", "api.asa.example:443",
		"public.example:25", "public.example:8080",
	} {
		t.Run(target, func(t *testing.T) {
			conn, err := c.DialTarget(context.Background(), target)
			if conn != nil {
				conn.Close()
			}
			e := wantErr(t, err, errcode.TargetUnreachable, "forbidden")
			if !errors.Is(e, ErrForbiddenAddress) && !errors.Is(e, ErrInvalidURL) {
				t.Errorf("%v wraps neither ErrForbiddenAddress nor ErrInvalidURL", e)
			}
		})
	}
	if got := lo.connected(); len(got) != 0 {
		t.Fatalf("connected to %v", got)
	}
	if _, err := c.DialTarget(context.Background(), "no-port"); err == nil {
		t.Fatal("a target without a port was dialled")
	}
}

// DialTarget reaches the farm (Options.Resolve) directly, and through a proxy of the context's country,
// asking the proxy for the checked address, never the name.
func TestDialTargetEgress(t *testing.T) {
	f := newFarm(t)
	socks := newSOCKS5(t, "", "")
	c, _ := farmClient(t, f, Options{Proxies: []Proxy{{URL: socks.url(), Country: "de"}}})
	direct, _ := farmClient(t, f, Options{})
	roundTrip := func(c *Client, ctx context.Context) error {
		conn, err := c.DialTarget(ctx, "www.amazon.de:80")
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, "GET /dp/B0TUNNEL HTTP/1.1\r\nHost: www.amazon.de\r\nConnection: close\r\n\r\n"); err != nil {
			return err
		}
		b, err := io.ReadAll(conn)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(string(b), "HTTP/1.1 200") {
			t.Errorf("answer %.60q", b)
		}
		return nil
	}
	if err := roundTrip(direct, context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(c, WithCountry(context.Background(), "de")); err != nil {
		t.Fatal(err)
	}
	if got := socks.seen(); len(got) != 1 || got[0] != f.Addr() {
		t.Fatalf("the proxy was asked for %v, want the farm's checked address %s", got, f.Addr())
	}
	_, err := c.DialTarget(WithCountry(context.Background(), "jp"), "www.amazon.co.jp:443")
	wantErr(t, err, errcode.InvalidParams, "")
}
