package api_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"asa/api"
)

// keyCounter returns a count of the keys (active or revoked) of the workspace of the user email.
func (e *dashEnv) keyCounter(t *testing.T, email string) func() int {
	t.Helper()
	u, err := e.db.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return func() int {
		ks, err := e.db.Keys(context.Background(), u.WorkspaceID)
		if err != nil {
			t.Fatal(err)
		}
		return len(ks)
	}
}

// TestDashboardKeyModeRefusesUnknown: only live and sandbox create a key; any other kind is a 400
// that creates nothing (it used to create a live, billed key).
func TestDashboardKeyModeRefusesUnknown(t *testing.T) {
	e := startDashboard(t, "", nil)
	b := e.browser(t)
	mustStatus(t, "sign-up", b.signUp("mode@example.com", "a long password"), http.StatusSeeOther)
	keys := e.keyCounter(t, "mode@example.com")
	before := keys()
	for _, mode := range []string{"", "test", "Live", "sandbox ", "production"} {
		p := b.post("/dashboard/keys", generateForm(t, b.get("/dashboard/keys").body, mode))
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

// TestDashboardKeyFormCreatesOneKey: a generate form creates at most one key. Sent again with the
// same body (what a browser's reload does after "Generate new key") it creates nothing and answers
// 200 with the keys page, the notice and the first key marked, never the key itself; sent many
// times at once it creates one key; a fresh form still works; a form without its id, or with
// another session's, is refused.
func TestDashboardKeyFormCreatesOneKey(t *testing.T) {
	e := startDashboard(t, "", nil)
	b := e.browser(t)
	mustStatus(t, "sign-up", b.signUp("once@example.com", "a long password"), http.StatusSeeOther)
	keys := e.keyCounter(t, "once@example.com")

	form := generateForm(t, b.get("/dashboard/keys").body, "sandbox")
	first := b.post("/dashboard/keys", form)
	m := newKeyRe.FindStringSubmatch(first.body)
	if first.status != http.StatusOK || m == nil {
		t.Fatalf("first submit: %d\n%s", first.status, first.body)
	}
	key := m[1]
	short := key[len("asa_test_") : len("asa_test_")+12]
	if n := keys(); n != 1 {
		t.Fatalf("%d keys after one submit, want 1", n)
	}
	for i := range 2 {
		again := b.post("/dashboard/keys", form)
		if again.status != http.StatusOK || !strings.Contains(again.body, resentNotice) {
			t.Fatalf("resubmit %d: %d, want 200 with the notice\n%s", i, again.status, again.body)
		}
		if newKeyRe.MatchString(again.body) || strings.Contains(again.body, key) {
			t.Fatalf("resubmit %d shows a key in full:\n%s", i, again.body)
		}
		if !strings.Contains(again.body, `<tr data-key="`+short+`" class="resent" data-testid="resent-key">`) {
			t.Errorf("resubmit %d does not mark the key the form created (%s):\n%s", i, short, again.body)
		}
		if n := keys(); n != 1 {
			t.Fatalf("%d keys after resubmit %d, want 1", n, i)
		}
	}

	// The notice page's own form is a fresh one.
	again := b.post("/dashboard/keys", form)
	if k := b.post("/dashboard/keys", generateForm(t, again.body, "live")); k.status != http.StatusOK || !newKeyRe.MatchString(k.body) {
		t.Fatalf("the fresh form of the notice page: %d\n%s", k.status, k.body)
	}
	if n := keys(); n != 2 {
		t.Fatalf("%d keys, want 2", n)
	}

	// One form sent many times at once: one key, the others the notice.
	race := generateForm(t, b.get("/dashboard/keys").body, "live")
	const n = 8
	statuses := make([]int, n)
	bodies := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { statuses[i], bodies[i], errs[i] = rawPost(e, b.cookies, "/dashboard/keys", race) })
	}
	wg.Wait()
	created := 0
	for i := range n {
		switch {
		case errs[i] != nil:
			t.Fatal(errs[i])
		case statuses[i] == http.StatusOK && newKeyRe.MatchString(bodies[i]):
			created++
		case statuses[i] == http.StatusOK && strings.Contains(bodies[i], resentNotice) && !newKeyRe.MatchString(bodies[i]):
		default:
			t.Fatalf("concurrent submit %d: %d\n%s", i, statuses[i], bodies[i])
		}
	}
	if created != 1 || keys() != 3 {
		t.Fatalf("%d of %d concurrent submits created a key (%d keys), want 1 (3 keys)", created, n, keys())
	}
	if k := b.createKey("sandbox"); !strings.HasPrefix(k, "asa_test_") || keys() != 4 {
		t.Fatalf("a fresh form after the race: %q, %d keys", k, keys())
	}

	// Refused, creating nothing: no form id, a made-up one, another session's.
	other := e.browser(t)
	mustStatus(t, "other sign-up", other.signUp("other-once@example.com", "a long password"), http.StatusSeeOther)
	otherForm := generateForm(t, other.get("/dashboard/keys").body, "live")
	mine := generateForm(t, b.get("/dashboard/keys").body, "live")
	for name, id := range map[string]string{"no form id": "", "made-up form id": "1700000000.AAAA.BBBB", "another session's form id": otherForm.Get("form_id")} {
		f := url.Values{"csrf_token": {mine.Get("csrf_token")}, "mode": {"live"}, "form_id": {id}}
		mustStatus(t, name, b.post("/dashboard/keys", f), http.StatusForbidden)
	}
	if got := keys(); got != 4 {
		t.Fatalf("%d keys after refused forms, want 4", got)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "dashboard key form sent again") || !strings.Contains(logs, "key="+short) {
		t.Errorf("the resubmission is not logged with the key's short prefix:\n%s", logs)
	}
	if strings.Contains(logs, key) {
		t.Error("a full key reached the log")
	}
}

// resentNotice is what a generate form sent again answers (docs/dashboard.md).
const resentNotice = "This form was already submitted: the key it created is listed below and was shown only once; generate another if you need one."

// rawPost sends form with the cookies, as a browser's second tab would: safe from many goroutines
// (the browser type is not).
func rawPost(e *dashEnv, cookies map[string]string, path string, form url.Values) (int, string, error) {
	req, err := http.NewRequest(http.MethodPost, e.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", e.base)
	for name, v := range cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: v})
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}
