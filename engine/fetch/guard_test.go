package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"asa/engine"
	"asa/engine/errcode"
)

func TestPrivateAddr(t *testing.T) {
	for _, s := range []string{
		"127.0.0.1", "127.255.0.1", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"100.64.0.1", "100.100.100.200", "169.254.169.254", "169.254.170.2", "168.63.129.16",
		"224.0.0.1", "255.255.255.255", "198.18.0.1", "192.0.2.1", "240.0.0.1",
		"::1", "::", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1", "64:ff9b::7f00:1",
		"2002:7f00:1::", "fd00:ec2::254", "fe80::1", "fc00::1", "ff02::1", "2001:db8::1", "2001::1",
	} {
		if !PrivateAddr(netip.MustParseAddr(s)) {
			t.Errorf("PrivateAddr(%s) = false", s)
		}
	}
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8", "168.63.129.17"} {
		if PrivateAddr(netip.MustParseAddr(s)) {
			t.Errorf("PrivateAddr(%s) = true", s)
		}
	}
}

func TestCheckURLCanonical(t *testing.T) {
	g := &guard{ports: []uint16{80, 443}}
	for in, want := range map[string]string{
		"HTTPS://WWW.Amazon.COM/dp/B0?x=1":  "https://www.amazon.com/dp/B0?x=1",
		"http://bücher.de/":                 "http://xn--bcher-kva.de/",
		"http://8.8.8.8:80/":                "http://8.8.8.8:80/",
		"https://[2606:4700:0::1111]/":      "https://[2606:4700::1111]/",
		"https://example.com./x":            "https://example.com./x",
		"http://example.com/%0d%0aHost:%20": "http://example.com/%0d%0aHost:%20",
	} {
		u, err := g.checkURL(in, true)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if u.String() != want {
			t.Errorf("%s → %s, want %s", in, u, want)
		}
	}
}

func TestControlIsTheBoundary(t *testing.T) {
	g := &guard{}
	for _, a := range []string{"127.0.0.1:80", "[::1]:80", "169.254.169.254:80", "10.0.0.5:443", "[fd00:ec2::254]:80"} {
		nw := "tcp4"
		if strings.HasPrefix(a, "[") {
			nw = "tcp6"
		}
		if err := g.control(nw, a, nil); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("control(%s) = %v", a, err)
		}
	}
	if err := g.control("udp4", "8.8.8.8:53", nil); !errors.Is(err, ErrForbiddenAddress) {
		t.Errorf("udp allowed: %v", err)
	}
	if err := g.control("tcp4", "8.8.8.8:443", nil); err != nil {
		t.Errorf("public refused: %v", err)
	}
	// The dialer refuses at Control even when called directly, past every earlier check.
	can := newCanary(t, "127.0.0.1:0", nil)
	c, _ := newTestClient(t, Options{})
	_, err := c.rawDial(context.Background(), can.ln.Addr().String(), true)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("rawDial to loopback = %v", err)
	}
	if can.hits.Load() != 0 {
		t.Fatal("canary hit")
	}
}

// TestSSRFAppendixA runs every input of Appendix A of the design study (reliability-security.md)
// against a guarded client. Nothing may reach either canary, and no dial may even be attempted.
func TestSSRFAppendixA(t *testing.T) {
	dns := newFakeDNS(t)
	var redirectTo string
	var redirectStatus int
	pub, internal := canaryPair(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/redirect":
			w.Header().Set("Location", redirectTo)
			w.WriteHeader(redirectStatus)
		case r.URL.Path == "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			fmt.Fprint(w, "public")
		}
	})
	P := internal.port()
	dns.set("127.0.0.1.nip.io", "127.0.0.1")
	dns.set("localtest.me", "127.0.0.1")
	dns.set("7f000001.c0a80001.rbndr.us", "127.0.0.1", "192.168.0.1")
	dns.set("dual.test", publicStandIn+",::1")
	dns.set("public.test", publicStandIn)
	dns.set("api-ip.test", "127.0.0.20")
	c, lo := newTestClient(t, Options{
		Resolver:      dns.resolver(),
		GuardUserURLs: true,
		AllowPorts:    []int{P},
		AllowAddrs:    []string{publicStandIn + "/32"},
		DenyHosts:     []string{"api.asa.test"},
		DenyAddrs:     []string{"127.0.0.20"},
		MaxAttempts:   1,
	})

	IP, TU := errcode.InvalidParams, errcode.TargetUnreachable
	type row struct {
		n      string // Appendix A number
		url    string
		code   errcode.Code
		detail string
		is     error
	}
	p := func(s string) string { return strings.ReplaceAll(s, "P", fmt.Sprint(P)) }
	rows := []row{
		{"1", "file:///etc/passwd", IP, "", ErrInvalidURL},
		{"2", "gopher://127.0.0.1:6379/_FLUSHALL%0d%0a", IP, "", ErrInvalidURL},
		{"3", "dict://127.0.0.1:11211/stats", IP, "", ErrInvalidURL},
		{"4", "ftp://127.0.0.1/", IP, "", ErrInvalidURL},
		{"5", "//127.0.0.1/", IP, "", ErrInvalidURL},
		{"6", "http://127.0.0.1/", IP, "", ErrForbiddenAddress},
		{"6p", p("http://127.0.0.1:P/"), IP, "", ErrForbiddenAddress},
		{"7", "http://127.0.0.2:80/", IP, "", ErrForbiddenAddress},
		{"8", p("http://0.0.0.0:P/"), IP, "", ErrForbiddenAddress},
		{"9", "http://0/", IP, "", ErrForbiddenAddress},
		{"10", p("http://127.1:P/"), IP, "", ErrForbiddenAddress},
		{"11", "http://2130706433/", IP, "", ErrForbiddenAddress},
		{"12", "http://0x7f000001/", IP, "", ErrForbiddenAddress},
		{"13", "http://0x7f.0x0.0x0.0x1/", IP, "", ErrForbiddenAddress},
		{"14", "http://0177.0.0.1/", IP, "", ErrForbiddenAddress},
		{"15", "http://017700000001/", IP, "", ErrForbiddenAddress},
		{"16", "http://127.000.000.001/", IP, "", ErrForbiddenAddress},
		{"17a", p("http://localhost:P/"), IP, "", ErrForbiddenAddress},
		{"17b", "http://LOCALHOST./", IP, "", ErrForbiddenAddress},
		{"17c", "http://localhost.localdomain/", IP, "", ErrForbiddenAddress},
		{"18a", p("http://[::1]:P/"), IP, "", ErrForbiddenAddress},
		{"18b", "http://[0:0:0:0:0:0:0:1]/", IP, "", ErrForbiddenAddress},
		{"19", "http://[::]/", IP, "", ErrForbiddenAddress},
		{"20a", p("http://[::ffff:127.0.0.1]:P/"), IP, "", ErrForbiddenAddress},
		{"20b", "http://[::ffff:7f00:1]/", IP, "", ErrForbiddenAddress},
		{"21", "http://[::127.0.0.1]/", IP, "", ErrForbiddenAddress},
		{"22", "http://[64:ff9b::7f00:1]/", IP, "", ErrForbiddenAddress},
		{"23", "http://[2002:7f00:1::]/", IP, "", ErrForbiddenAddress},
		{"24", "http://[fe80::1%25eth0]/", IP, "", ErrForbiddenAddress},
		{"25", p("http://①②⑦.⓪.⓪.①:P/"), IP, "", ErrForbiddenAddress},
		{"26", p("http://１２７.０.０.１:P/"), IP, "", ErrForbiddenAddress},
		{"27", p("http://127。0。0。1:P/"), IP, "", ErrForbiddenAddress},
		{"28a", p("http://127.0.0.1.nip.io:P/"), TU, "forbidden", ErrForbiddenAddress},
		{"28b", p("http://localtest.me:P/"), TU, "forbidden", ErrForbiddenAddress},
		{"29", p("http://7f000001.c0a80001.rbndr.us:P/"), TU, "forbidden", ErrForbiddenAddress},
		{"30", p("http://dual.test:P/"), TU, "forbidden", ErrForbiddenAddress},
		{"31a", "http://10.0.0.1/", IP, "", ErrForbiddenAddress},
		{"31b", "http://172.16.0.1/", IP, "", ErrForbiddenAddress},
		{"31c", "http://192.168.1.1/", IP, "", ErrForbiddenAddress},
		{"32", "http://100.64.0.1/", IP, "", ErrForbiddenAddress},
		{"33", "http://169.254.169.254/latest/meta-data/iam/security-credentials/", IP, "", ErrForbiddenAddress},
		{"34", "http://[fd00:ec2::254]/latest/meta-data/", IP, "", ErrForbiddenAddress},
		{"35a", "http://[::ffff:169.254.169.254]/", IP, "", ErrForbiddenAddress},
		{"35b", "http://[::ffff:a9fe:a9fe]/", IP, "", ErrForbiddenAddress},
		{"36a", "http://2852039166/", IP, "", ErrForbiddenAddress},
		{"36b", "http://0xa9fea9fe/", IP, "", ErrForbiddenAddress},
		{"36c", "http://0251.0376.0251.0376/", IP, "", ErrForbiddenAddress},
		{"37", "http://169.254.169.254./", IP, "", ErrForbiddenAddress},
		{"38", "http://metadata.google.internal/computeMetadata/v1/", IP, "", ErrForbiddenAddress},
		{"39", "http://169.254.170.2/v2/credentials", IP, "", ErrForbiddenAddress},
		{"40", "http://100.100.100.200/latest/meta-data/", IP, "", ErrForbiddenAddress},
		{"41", "http://168.63.129.16/", IP, "", ErrForbiddenAddress},
		{"42a", "http://224.0.0.1/", IP, "", ErrForbiddenAddress},
		{"42b", "http://255.255.255.255/", IP, "", ErrForbiddenAddress},
		{"43", "http://198.18.0.1/", IP, "", ErrForbiddenAddress},
		{"44", p("http://evil.example@127.0.0.1:P/"), IP, "", ErrInvalidURL},
		{"45", "http://user:pw@127.0.0.1:80@evil.example/", IP, "", ErrInvalidURL},
		// 46: Go reads the host as evil.example; it must not reach 127.0.0.1 (the fake DNS has no
		// such name, so it fails to connect).
		{"46", p("http://evil.example:P#@127.0.0.1/"), TU, "connection", nil},
		{"47", `http://127.0.0.1\@evil.example/`, IP, "", ErrInvalidURL},
		{"48a", "http://example.com:22/", IP, "", ErrForbiddenAddress},
		{"48b", "http://example.com:6379/", IP, "", ErrForbiddenAddress},
		{"48c", "http://example.com:0/", IP, "", ErrInvalidURL},
		{"48d", "http://example.com:65536/", IP, "", ErrInvalidURL},
		{"52a", "http://example.com/\r\nHost: 169.254.169.254", IP, "", ErrInvalidURL},
		{"52b", p("http://public.test:P/%0d%0aHost:%20169.254.169.254"), "", "", nil}, // harmless: stays encoded in the path
		{"54a", "http://api.asa.test/v1/scrape?url=x", IP, "", ErrForbiddenAddress},
		{"54b", p("http://api-ip.test:P/v1/scrape"), TU, "forbidden", ErrForbiddenAddress},
	}
	for _, r := range rows {
		t.Run(r.n, func(t *testing.T) {
			resp, err := c.Fetch(context.Background(), &engine.Request{URL: r.url})
			if r.code == "" {
				if err != nil || resp.Status != 200 {
					t.Fatalf("%s: %v", r.url, err)
				}
				return
			}
			e := wantErr(t, err, r.code, r.detail)
			if r.is != nil && !errors.Is(err, r.is) {
				t.Errorf("%s: %v does not wrap %v", r.url, err, r.is)
			}
			if r.code == IP && (len(e.Params) != 1 || e.Params[0] != "url") {
				t.Errorf("params = %v", e.Params)
			}
			t.Logf("%-55q → %s %s: %s", r.url, e.Code, e.Detail, e.Message)
		})
	}

	// 49, 50, 51: redirects from an allowed server.
	for _, r := range []struct {
		n, to  string
		status int
		method string
		detail string
	}{
		{"49a", "http://169.254.169.254/latest/meta-data/", 302, "GET", "forbidden"},
		{"49b", "http://169.254.169.254/latest/api/token", 307, "PUT", "forbidden"},
		{"49c", p("http://127.0.0.1:P/"), 308, "POST", "forbidden"},
		{"49d", p("http://localtest.me:P/"), 302, "GET", "forbidden"},
		{"50a", "file:///etc/passwd", 302, "GET", "forbidden"},
		{"50b", "gopher://127.0.0.1:6379/_x", 302, "GET", "forbidden"},
	} {
		t.Run(r.n, func(t *testing.T) {
			redirectTo, redirectStatus = r.to, r.status
			_, err := c.Fetch(context.Background(), &engine.Request{Method: r.method, URL: p("http://public.test:P/redirect"), Body: []byte("x")})
			wantErr(t, err, TU, r.detail)
		})
	}
	t.Run("51", func(t *testing.T) {
		_, err := c.Fetch(context.Background(), &engine.Request{URL: p("http://public.test:P/loop")})
		wantErr(t, err, TU, "too_many_redirects")
		if !errors.Is(err, ErrTooManyRedirects) {
			t.Error(err)
		}
	})
	// 53: headers that address metadata services are never sent.
	t.Run("53", func(t *testing.T) {
		before := pub.hits.Load()
		h := http.Header{"Host": {"169.254.169.254"}, "Metadata-Flavor": {"Google"}, "X-Forwarded-For": {"127.0.0.1"}, "X-Aws-Ec2-Metadata-Token": {"x"}}
		if _, err := c.Fetch(context.Background(), &engine.Request{URL: p("http://public.test:P/"), Header: h}); err != nil {
			t.Fatal(err)
		}
		pub.mu.Lock()
		got := pub.reqs[len(pub.reqs)-1]
		pub.mu.Unlock()
		if pub.hits.Load() != before+1 || got.Host != p("public.test:P") || got.Header.Get("Metadata-Flavor") != "" ||
			got.Header.Get("X-Forwarded-For") != "" || got.Header.Get("X-Aws-Ec2-Metadata-Token") != "" {
			t.Fatalf("host %q headers %v", got.Host, got.Header)
		}
	})
	// 55: a webhook URL checked at registration, and a name re-pointed before delivery.
	t.Run("55", func(t *testing.T) {
		_, err := c.PostWebhook(context.Background(), "http://127.0.0.1/hook", []byte("{}"), nil)
		wantErr(t, err, IP, "")
		dns.set("hooks.example", publicStandIn, "10.0.0.5")
		u := p("http://hooks.example:P/hook")
		if _, err := c.CheckURL(u); err != nil {
			t.Fatal(err)
		}
		res, err := c.PostWebhook(context.Background(), u, []byte("{}"), nil)
		if err != nil || res.Status != 200 {
			t.Fatalf("first delivery: %v", err)
		}
		_, err = c.PostWebhook(context.Background(), u, []byte("{}"), nil)
		wantErr(t, err, TU, "forbidden")
	})

	if n := internal.hits.Load(); n != 0 {
		t.Errorf("internal canary hit %d times", n)
	}
	for _, a := range lo.connected() {
		if !strings.HasPrefix(a, publicStandIn+":") {
			t.Errorf("connected to %s", a)
		}
	}
}

// TestDNSRebinding: the name answers the allowed address first and 127.0.0.1 next (TTL 0). The
// first hop is fine; the redirect to the same name resolves again and is refused.
func TestDNSRebinding(t *testing.T) {
	dns := newFakeDNS(t)
	_, internal := canaryPair(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close") // force a new dial, hence a new lookup
		http.Redirect(w, r, "/next", http.StatusFound)
	})
	P := internal.port()
	dns.set("rebind.test", publicStandIn, "127.0.0.1")
	c, lo := newTestClient(t, Options{Resolver: dns.resolver(), AllowAddrs: []string{publicStandIn}, MaxAttempts: 1})
	_, err := c.Fetch(context.Background(), &engine.Request{URL: fmt.Sprintf("http://rebind.test:%d/", P)})
	wantErr(t, err, errcode.TargetUnreachable, "forbidden")
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatal(err)
	}
	if dns.queries("rebind.test") < 2 {
		t.Fatalf("asked DNS %d times", dns.queries("rebind.test"))
	}
	if internal.hits.Load() != 0 {
		t.Fatal("internal canary hit")
	}
	if got := lo.connected(); len(got) != 1 {
		t.Fatalf("connected to %v", got)
	}
}

// TestAllowPrivateNetwork: the switch for tests and local development lifts the address rules, not
// DenyAddrs.
func TestAllowPrivateNetwork(t *testing.T) {
	can := newCanary(t, "127.0.0.1:0", nil)
	own := newCanary(t, "127.0.0.1:0", nil)
	c, _ := newTestClient(t, Options{AllowPrivateNetwork: true, DenyAddrs: []string{own.ln.Addr().String()}})
	resp, err := c.Fetch(context.Background(), &engine.Request{URL: "http://" + can.ln.Addr().String() + "/"})
	if err != nil || resp.Status != 200 || string(resp.Body) != "canary" {
		t.Fatalf("%v %v", resp, err)
	}
	resp, err = c.Fetch(context.Background(), &engine.Request{URL: fmt.Sprintf("http://localhost:%d/", can.port())})
	if err != nil || resp.Status != 200 {
		t.Fatalf("localhost: %v", err)
	}
	_, err = c.Fetch(context.Background(), &engine.Request{URL: "http://" + own.ln.Addr().String() + "/"})
	wantErr(t, err, errcode.InvalidParams, "")
	if own.hits.Load() != 0 {
		t.Fatal("own address hit")
	}
}

// FuzzGuardURL: parsing and guarding never panic, and a URL the guard accepts never names an IP in
// refused space, in any spelling net/http would dial.
func FuzzGuardURL(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1/", "http://0x7f.1/", "http://①②⑦.⓪.⓪.①/", "http://[::ffff:127.0.0.1]/",
		"https://www.amazon.com/dp/B0", "http://[fe80::1%25eth0]/", "http://169.254.169.254./",
		"http://a@b@c/", "http://example.com:65536/", "HTTP://EXAMPLE.COM:443", "http://xn--bcher-kva.de/",
		"http://127。0。0。1/", "http://[::]:80/", "http://1.2.3.4.5/", "http://0/", "http://./",
	} {
		f.Add(s, true)
	}
	g := &guard{ports: []uint16{80, 443}}
	f.Fuzz(func(t *testing.T, raw string, user bool) {
		u, err := g.checkURL(raw, user)
		if err != nil {
			if !errors.Is(err, ErrInvalidURL) && !errors.Is(err, ErrForbiddenAddress) {
				t.Fatalf("%q: unclassified error %v", raw, err)
			}
			return
		}
		host := u.Hostname()
		if a, err := netip.ParseAddr(host); err == nil && PrivateAddr(a) {
			t.Fatalf("%q accepted with private host %s", raw, a)
		}
		if numericLooking(host) {
			if a, err := netip.ParseAddr(host); err != nil || !a.Is4() {
				t.Fatalf("%q accepted with numeric host %q", raw, host)
			}
		}
		// The canonical form is stable.
		u2, err := g.checkURL(u.String(), user)
		if err != nil || u2.Host != u.Host {
			t.Fatalf("%q: canonical %q re-checks as %v %v", raw, u, u2, err)
		}
	})
}
