package api_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"asa/api"
)

// TestDashboardKeyModeRefusesUnknown: only live and sandbox create a key; any other kind is a 400
// that creates nothing (it used to create a live, billed key).
func TestDashboardKeyModeRefusesUnknown(t *testing.T) {
	e := startDashboard(t, "", nil)
	b := e.browser(t)
	mustStatus(t, "sign-up", b.signUp("mode@example.com", "a long password"), http.StatusSeeOther)
	u, err := e.db.UserByEmail(context.Background(), "mode@example.com")
	if err != nil {
		t.Fatal(err)
	}
	keys := func() int {
		ks, err := e.db.Keys(context.Background(), u.WorkspaceID)
		if err != nil {
			t.Fatal(err)
		}
		return len(ks)
	}
	before := keys()
	for _, mode := range []string{"", "test", "Live", "sandbox ", "production"} {
		tok := csrfOf(t, b.get("/dashboard/keys").body)
		p := b.post("/dashboard/keys", url.Values{"csrf_token": {tok}, "mode": {mode}})
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, "No key was created") || newKeyRe.MatchString(p.body) {
			t.Fatalf("mode %q: %d\n%s", mode, p.status, p.body)
		}
	}
	if n := keys(); n != before {
		t.Fatalf("%d keys after unknown modes, want %d", n, before)
	}
	if k := b.createKey("live"); !strings.HasPrefix(k, "asa_live_") {
		t.Fatalf("live: %s", k)
	}
	if k := b.createKey("sandbox"); !strings.HasPrefix(k, "asa_test_") {
		t.Fatalf("sandbox: %s", k)
	}
}

// TestDashboardLockoutPerAddress: failed sign-ins lock an email out from the address they came
// from only; the owner signs in from another address. (127.0.0.2 is loopback too.)
func TestDashboardLockoutPerAddress(t *testing.T) {
	e := startDashboard(t, "", func(c *api.DashboardConfig) {
		c.SignInPerEmail, c.SignInPerIP, c.SignInWindow = 3, 50, 10*time.Minute
	})
	mustStatus(t, "sign-up", e.browser(t).signUp("victim@example.com", "the right password"), http.StatusSeeOther)
	attacker := e.browser(t)
	for i := range 3 {
		mustStatus(t, "attacker "+strconv.Itoa(i), attacker.signIn("victim@example.com", "guess "+strconv.Itoa(i)), http.StatusUnauthorized)
	}
	mustStatus(t, "attacker locked out", attacker.signIn("victim@example.com", "the right password"), http.StatusTooManyRequests)

	owner := e.browser(t)
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}
	if c, err := (&net.Dialer{LocalAddr: local}).Dial("tcp", strings.TrimPrefix(e.base, "http://")); err != nil {
		t.Skipf("cannot connect from 127.0.0.2: %v", err)
	} else {
		c.Close()
	}
	owner.transport = &http.Transport{DialContext: (&net.Dialer{LocalAddr: local}).DialContext}
	// The owner's own mistakes count for the owner's address, apart from the attacker's.
	mustStatus(t, "owner's typo", owner.signIn("victim@example.com", "the rigth password"), http.StatusUnauthorized)
	mustStatus(t, "owner from elsewhere", owner.signIn("victim@example.com", "the right password"), http.StatusSeeOther)
	mustStatus(t, "attacker still locked out", attacker.signIn("victim@example.com", "the right password"), http.StatusTooManyRequests)
	if !strings.Contains(e.logs.String(), "client=127.0.0.2") {
		t.Fatalf("the server did not see the second address:\n%s", e.logs.String())
	}
}
