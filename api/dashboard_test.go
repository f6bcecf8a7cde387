package api_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/html"

	"asa/api"
	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/fixtures"
	"asa/sitedefs"
	"asa/store"
)

// dashEnv is the server with its dashboard on a real SQLite file, the embedded sitedefs and the
// sandbox, a settable clock and a log buffer.
type dashEnv struct {
	base   string
	db     *store.DB
	dbPath string
	logs   *dashLog
	clock  *dashClock
}

type dashLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *dashLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *dashLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type dashClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *dashClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *dashClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var (
	shippedOnce    sync.Once
	shippedReg     *registry.Registry
	shippedSandbox *fixture.Sandbox
	shippedErr     error
)

// shipped is the embedded catalogue and its sandbox, compiled once for every test of the package
// that serves it: a registry is read-only once loaded (a server shares one between all its
// requests), and compiling the whole catalogue is seconds under -race, each time.
func shipped(t testing.TB) (*registry.Registry, *fixture.Sandbox) {
	t.Helper()
	shippedOnce.Do(func() {
		reg, diags := registry.Load(engine.New(), sitedefs.FS)
		if diags.HasErrors() {
			shippedErr = diags
			return
		}
		shippedReg = reg
		shippedSandbox, shippedErr = fixture.NewSandbox(fixtures.FS, reg)
	})
	if shippedErr != nil {
		t.Fatal(shippedErr)
	}
	return shippedReg, shippedSandbox
}

func startDashboard(t *testing.T, publicURL string, tune func(*api.DashboardConfig)) *dashEnv {
	t.Helper()
	return startDash(t, publicURL, tune, false)
}

// startDash starts the server; with batches, the batch endpoints and their worker run too.
func startDash(t *testing.T, publicURL string, tune func(*api.DashboardConfig), batches bool) *dashEnv {
	t.Helper()
	dashReg, dashSandbox := shipped(t)
	e := &dashEnv{logs: &dashLog{}, clock: &dashClock{t: time.Now()}}
	// A SQLite file, or under TestPostgres a PostgreSQL database (dbPath its URL).
	db, path, err := openStore(context.Background(), t)
	e.dbPath = path
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	cfg := api.DashboardConfig{Store: db, Argon2: api.Argon2Params{MemoryKiB: 256, Time: 1, Threads: 1}}
	if tune != nil {
		tune(&cfg)
	}
	backend := api.NewStoreBackend(db, nil)
	deps := api.Deps{Registry: dashReg, Sandbox: dashSandbox, Auth: backend, Ledger: backend, Now: e.clock.now,
		Log: slog.New(slog.NewTextHandler(e.logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Dashboard: cfg}
	if batches {
		deps.Batches = db
	}
	srv := api.New(api.Config{PublicURL: publicURL, RequestTimeout: 10 * time.Second}, deps)
	hs := httptest.NewServer(srv.Handler())
	e.base = hs.URL
	ctx, cancel := context.WithCancel(context.Background())
	worker := make(chan error, 1)
	if batches {
		go func() { worker <- srv.RunBatches(ctx) }()
	} else {
		worker <- nil
	}
	t.Cleanup(func() {
		cancel()
		<-worker
		hs.Close()
		db.Close()
	})
	return e
}

// browser keeps cookies as a browser on the site's own origin would, Secure ones included (the test
// server is plain http; what the Secure flag says is checked on the Set-Cookie headers).
type browser struct {
	t       *testing.T
	e       *dashEnv
	cookies map[string]string
	origin  string // sent as Origin on POST, like a browser; "" sends none
	set     []*http.Cookie
	// transport, when set, carries the requests (a browser on another client address).
	transport http.RoundTripper
}

func (e *dashEnv) browser(t *testing.T) *browser {
	return &browser{t: t, e: e, cookies: map[string]string{}, origin: e.base}
}

type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(method, path string, form url.Values, hdr ...string) page {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, b.e.base+path, body)
	if err != nil {
		b.t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if b.origin != "" {
			req.Header.Set("Origin", b.origin)
		}
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	names := make([]string, 0, len(b.cookies))
	for n := range b.cookies {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		req.AddCookie(&http.Cookie{Name: n, Value: b.cookies[n]})
	}
	client := &http.Client{Transport: b.transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	b.set = resp.Cookies()
	for _, c := range b.set {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c.Value
		}
	}
	return page{status: resp.StatusCode, header: resp.Header, body: string(raw)}
}

func (b *browser) get(path string) page { return b.do(http.MethodGet, path, nil) }

func (b *browser) post(path string, form url.Values) page { return b.do(http.MethodPost, path, form) }

// htmlForm is one <form> of a page.
type htmlForm struct {
	method, action string
	fields         url.Values
}

func formsOf(t *testing.T, body string) []htmlForm {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var out []htmlForm
	var cur *htmlForm
	var walk func(n *html.Node)
	attr := func(n *html.Node, k string) string {
		for _, a := range n.Attr {
			if a.Key == k {
				return a.Val
			}
		}
		return ""
	}
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "form" {
			out = append(out, htmlForm{method: strings.ToLower(attr(n, "method")), action: attr(n, "action"), fields: url.Values{}})
			cur = &out[len(out)-1]
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
			cur = nil
			return
		}
		if n.Type == html.ElementNode && (n.Data == "input" || n.Data == "select") && cur != nil {
			cur.fields.Set(attr(n, "name"), attr(n, "value"))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

var csrfRe = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// otherFirstByte is tok with its first byte changed: a token one byte off. ("x" + tok[1:] was tok
// itself whenever tok began with x, one run in 64, and the test then saw its "refused" forms obeyed.)
func otherFirstByte(tok string) string {
	if strings.HasPrefix(tok, "x") {
		return "y" + tok[1:]
	}
	return "x" + tok[1:]
}

func csrfOf(t *testing.T, body string) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no csrf_token in page:\n%s", body)
	}
	return m[1]
}

func (b *browser) signUp(email, password string) page {
	b.t.Helper()
	tok := csrfOf(b.t, b.get("/dashboard/signup").body)
	return b.post("/dashboard/signup", url.Values{"csrf_token": {tok}, "email": {email}, "password": {password}, "password_confirm": {password}})
}

func (b *browser) signIn(email, password string) page {
	b.t.Helper()
	tok := csrfOf(b.t, b.get("/dashboard/signin").body)
	return b.post("/dashboard/signin", url.Values{"csrf_token": {tok}, "email": {email}, "password": {password}})
}

var newKeyRe = regexp.MustCompile(`data-testid="new-key">(asa_(?:live|test)_[A-Za-z0-9]{36})<`)

// generateForm returns the fields of the page's generate-key form (its csrf_token and single-use
// form_id), with mode set, as a browser would send them.
func generateForm(t *testing.T, body, mode string) url.Values {
	t.Helper()
	for _, f := range formsOf(t, body) {
		if f.method == "post" && f.action == "/dashboard/keys" {
			f.fields.Set("mode", mode)
			return f.fields
		}
	}
	t.Fatalf("no generate form in page:\n%s", body)
	return nil
}

// createKey generates a key from the keys page and returns the full key shown once.
func (b *browser) createKey(mode string) string {
	b.t.Helper()
	p := b.post("/dashboard/keys", generateForm(b.t, b.get("/dashboard/keys").body, mode))
	m := newKeyRe.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || m == nil {
		b.t.Fatalf("generate key: %d\n%s", p.status, p.body)
	}
	return m[1]
}

func mustStatus(t *testing.T, what string, p page, want int) {
	t.Helper()
	if p.status != want {
		t.Fatalf("%s: status %d, want %d\n%s", what, p.status, want, p.body)
	}
}

func apiGet(t *testing.T, e *dashEnv, key string) int {
	t.Helper()
	resp, err := http.Get(e.base + "/api/v1/amazon/product?query=B0TEST1234&api_key=" + url.QueryEscape(key))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestDashboardKeyFlow is the user's path without a browser: sign up, generate a key (shown once),
// use it, see the usage, revoke it, see the next request refused.
func TestDashboardKeyFlow(t *testing.T) {
	e := startDashboard(t, "", nil)
	b := e.browser(t)
	p := b.signUp("Ada@Example.com", "correct horse battery")
	mustStatus(t, "sign-up", p, http.StatusSeeOther)
	if loc := p.header.Get("Location"); loc != "/dashboard/keys?welcome=1" {
		t.Fatalf("sign-up goes to %q", loc)
	}
	over := b.get("/dashboard")
	mustStatus(t, "overview", over, http.StatusOK)
	for _, want := range []string{`data-testid="plan">free<`, `data-testid="credits-used">0<`, `data-testid="credits-left">5000<`, "ada@example.com"} {
		if !strings.Contains(over.body, want) {
			t.Errorf("overview lacks %s", want)
		}
	}
	key := b.createKey("sandbox")
	short := key[len("asa_test_") : len("asa_test_")+12]
	keys := b.get("/dashboard/keys")
	if strings.Contains(keys.body, key) {
		t.Fatal("the keys page shows the full key again")
	}
	if !strings.Contains(keys.body, short) || !strings.Contains(keys.body, `data-testid="last-used">never<`) {
		t.Fatalf("keys page lacks %s or its last use:\n%s", short, keys.body)
	}
	if got := apiGet(t, e, key); got != http.StatusOK {
		t.Fatalf("sandbox request: %d", got)
	}
	usage := b.get("/dashboard/usage")
	if !regexp.MustCompile(`data-endpoint="amazon.product"><td>amazon.product</td><td data-testid="requests">1<`).MatchString(usage.body) {
		t.Fatalf("usage does not show the request:\n%s", usage.body)
	}
	if !strings.Contains(usage.body, `<td data-testid="addons">0</td>`) {
		t.Errorf("usage lacks the add-on credits column:\n%s", usage.body)
	}
	if !strings.Contains(usage.body, `data-requests="1"`) {
		t.Error("the chart has no bar for today's request")
	}
	filtered := b.get("/dashboard/usage?key=" + short + "&days=7")
	if !strings.Contains(filtered.body, `data-testid="total-requests">1<`) {
		t.Error("the usage filtered by the key lacks its request")
	}
	if keys := b.get("/dashboard/keys"); strings.Contains(keys.body, `data-testid="last-used">never<`) {
		t.Error("last used is still never after a request")
	}
	tok := csrfOf(t, b.get("/dashboard/keys").body)
	p = b.post("/dashboard/keys/"+short+"/revoke", url.Values{"csrf_token": {tok}})
	mustStatus(t, "revoke", p, http.StatusSeeOther)
	if got := apiGet(t, e, key); got != http.StatusUnauthorized {
		t.Fatalf("request with the revoked key: %d, want 401", got)
	}
	if keys := b.get("/dashboard/keys"); !strings.Contains(keys.body, `data-testid="key-state">revoked<`) {
		t.Error("the key is not listed as revoked")
	}
	// The failed request is usage too (an error, free).
	if u := b.get("/dashboard/usage"); !strings.Contains(u.body, `data-testid="total-requests">1<`) {
		// The 401 of a revoked key has no workspace to bill; only the first request counts.
		t.Errorf("usage after revocation:\n%s", u.body)
	}
	// Sign out ends the session on the server: the old cookie no longer works.
	old := map[string]string{}
	for k, v := range b.cookies {
		old[k] = v
	}
	tok = csrfOf(t, b.get("/dashboard").body)
	mustStatus(t, "sign-out", b.post("/dashboard/signout", url.Values{"csrf_token": {tok}}), http.StatusSeeOther)
	b.cookies = old
	if p := b.get("/dashboard"); p.status != http.StatusSeeOther || !strings.HasPrefix(p.header.Get("Location"), "/dashboard/signin") {
		t.Fatalf("the signed-out session still opens the dashboard: %d %s", p.status, p.header.Get("Location"))
	}
	// Sign in again.
	mustStatus(t, "sign-in", b.signIn("ada@example.com", "correct horse battery"), http.StatusSeeOther)
	mustStatus(t, "overview after sign-in", b.get("/dashboard"), http.StatusOK)
}

// TestDashboardCSRFOnEveryForm finds every form of every page: each POST form carries a token, and
// each POST route refuses a request without it, with a wrong one, with another session's, or from
// another origin, changing nothing.
func TestDashboardCSRFOnEveryForm(t *testing.T) {
	e := startDashboard(t, "", nil)
	anon := e.browser(t)
	posts := map[string]bool{}
	check := func(b *browser, path string) {
		p := b.get(path)
		mustStatus(t, path, p, http.StatusOK)
		for _, f := range formsOf(t, p.body) {
			if f.method != "post" {
				if f.method != "get" {
					t.Errorf("%s: form %s with method %q", path, f.action, f.method)
				}
				continue
			}
			if f.fields.Get("csrf_token") == "" {
				t.Errorf("%s: POST form %s has no csrf_token", path, f.action)
			}
			posts[regexp.MustCompile(`/keys/[A-Za-z0-9]{12}/`).ReplaceAllString(f.action, "/keys/SHORT/")] = true
		}
	}
	check(anon, "/dashboard/signup")
	check(anon, "/dashboard/signin")

	b := e.browser(t)
	mustStatus(t, "sign-up", b.signUp("csrf@example.com", "a long password"), http.StatusSeeOther)
	key := b.createKey("sandbox")
	short := key[9:21]
	for _, path := range []string{"/dashboard", "/dashboard/keys", "/dashboard/usage", "/docs", "/catalogue"} {
		check(b, path)
	}
	want := []string{"/dashboard/signup", "/dashboard/signin", "/dashboard/signout", "/dashboard/keys", "/dashboard/keys/SHORT/revoke"}
	for _, w := range want {
		if !posts[w] {
			t.Errorf("no form posts to %s (forms found: %v)", w, posts)
		}
	}

	other := e.browser(t)
	mustStatus(t, "second sign-up", other.signUp("other@example.com", "another password"), http.StatusSeeOther)
	otherTok := csrfOf(t, other.get("/dashboard").body)
	goodTok := csrfOf(t, b.get("/dashboard").body)
	signedIn := []struct {
		path string
		form url.Values
	}{
		{"/dashboard/keys", url.Values{"mode": {"live"}}},
		{"/dashboard/keys/" + short + "/revoke", url.Values{}},
		{"/dashboard/signout", url.Values{}},
	}
	for _, c := range signedIn {
		for name, tok := range map[string]string{"no token": "", "wrong token": otherFirstByte(goodTok), "another session's token": otherTok} {
			f := url.Values{}
			for k, v := range c.form {
				f[k] = v
			}
			if tok != "" {
				f.Set("csrf_token", tok)
			}
			if p := b.post(c.path, f); p.status != http.StatusForbidden {
				t.Errorf("POST %s with %s: %d, want 403", c.path, name, p.status)
			}
		}
		f := url.Values{"csrf_token": {goodTok}}
		for k, v := range c.form {
			f[k] = v
		}
		b.origin = "https://evil.example"
		if p := b.post(c.path, f); p.status != http.StatusForbidden {
			t.Errorf("POST %s with the right token from another origin: %d, want 403", c.path, p.status)
		}
		b.origin = e.base
		if p := b.do(http.MethodPost, c.path, f, "Sec-Fetch-Site", "cross-site"); p.status != http.StatusForbidden {
			t.Errorf("POST %s marked cross-site: %d, want 403", c.path, p.status)
		}
	}
	// Nothing changed: one key, still active, and the session still works.
	ws, err := e.db.WorkspaceByName(context.Background(), "csrf@example.com")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := e.db.Keys(context.Background(), ws.ID)
	if err != nil || len(ks) != 1 || ks[0].State != store.KeyActive {
		t.Fatalf("keys after refused forms: %+v, %v", ks, err)
	}
	mustStatus(t, "session after refused forms", b.get("/dashboard"), http.StatusOK)

	// The anonymous forms: a token that is not the browser's own cookie is refused.
	for _, path := range []string{"/dashboard/signup", "/dashboard/signin"} {
		fresh := e.browser(t)
		fresh.get(path)
		form := url.Values{"email": {"new@example.com"}, "password": {"a long password"}, "password_confirm": {"a long password"}}
		if p := fresh.post(path, form); p.status != http.StatusForbidden {
			t.Errorf("POST %s without token: %d, want 403", path, p.status)
		}
		form.Set("csrf_token", csrfOf(t, anon.get(path).body)) // someone else's token
		if p := fresh.post(path, form); p.status != http.StatusForbidden {
			t.Errorf("POST %s with another browser's token: %d, want 403", path, p.status)
		}
	}
	if _, err := e.db.UserByEmail(context.Background(), "new@example.com"); err == nil {
		t.Fatal("a sign-up without a valid token created an account")
	}
}

// TestDashboardCookies checks the session cookie: HttpOnly, Secure and SameSite, host-only under
// https; the session token is stored hashed.
func TestDashboardCookies(t *testing.T) {
	e := startDashboard(t, "https://asa.example", nil)
	b := e.browser(t)
	b.origin = "https://asa.example"
	b.get("/dashboard/signup")
	var csrfCookie *http.Cookie
	for _, c := range b.set {
		if c.Name == "__Host-asa_csrf" {
			csrfCookie = c
		}
	}
	if csrfCookie == nil || !csrfCookie.HttpOnly || !csrfCookie.Secure || csrfCookie.SameSite != http.SameSiteStrictMode || csrfCookie.Path != "/" || csrfCookie.Domain != "" {
		t.Fatalf("CSRF cookie %+v", csrfCookie)
	}
	p := b.signUp("cookie@example.com", "a long password")
	mustStatus(t, "sign-up", p, http.StatusSeeOther)
	var sess *http.Cookie
	for _, c := range b.set {
		if c.Name == "__Host-asa_session" {
			sess = c
		}
	}
	if sess == nil {
		t.Fatalf("no __Host-asa_session cookie in %v", b.set)
	}
	if !sess.HttpOnly || !sess.Secure || sess.SameSite != http.SameSiteLaxMode || sess.Path != "/" || sess.Domain != "" || sess.MaxAge <= 0 {
		t.Fatalf("session cookie %+v: want HttpOnly, Secure, SameSite=Lax, Path=/, no Domain, a lifetime", sess)
	}
	raw := p.header.Values("Set-Cookie")
	joined := strings.Join(raw, "\n")
	for _, want := range []string{"HttpOnly", "Secure", "SameSite=Lax"} {
		if !strings.Contains(joined, want) {
			t.Errorf("Set-Cookie lacks %s: %s", want, joined)
		}
	}
	// Only a hash of the token is stored.
	db, err := os.ReadFile(e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(e.dbPath + "-wal")
	if bytes.Contains(db, []byte(sess.Value)) || bytes.Contains(wal, []byte(sess.Value)) {
		t.Fatal("the session token is in the database file")
	}
	// Security headers on every page.
	for _, path := range []string{"/dashboard", "/dashboard/keys", "/docs", "/catalogue"} {
		h := b.get(path).header
		if !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") || h.Get("X-Frame-Options") != "DENY" || h.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v", path, h)
		}
	}

	// Over plain http the cookie cannot be Secure (the browser would never send it back), unless
	// configured: behind a TLS-terminating proxy, SecureCookies forces it.
	plain := startDashboard(t, "http://127.0.0.1:8080", nil)
	pb := plain.browser(t)
	mustStatus(t, "plain sign-up", pb.signUp("plain@example.com", "a long password"), http.StatusSeeOther)
	for _, c := range pb.set {
		if c.Name == "asa_session" && (!c.HttpOnly || c.Secure || c.SameSite != http.SameSiteLaxMode) {
			t.Fatalf("plain-http session cookie %+v", c)
		}
	}
	yes := true
	forced := startDashboard(t, "http://127.0.0.1:8080", func(c *api.DashboardConfig) { c.SecureCookies = &yes })
	fb := forced.browser(t)
	mustStatus(t, "forced sign-up", fb.signUp("forced@example.com", "a long password"), http.StatusSeeOther)
	found := false
	for _, c := range fb.set {
		if c.Name == "__Host-asa_session" && c.Secure && c.HttpOnly {
			found = true
		}
	}
	if !found {
		t.Fatalf("SecureCookies did not make the cookie Secure: %v", fb.set)
	}
}

// TestDashboardPasswordsNeverLogged runs every path a password takes (sign-up, mismatched
// confirmation, wrong and right sign-in, rate-limited sign-in) at debug level: no password reaches
// the log or the database.
func TestDashboardPasswordsNeverLogged(t *testing.T) {
	e := startDashboard(t, "", func(c *api.DashboardConfig) { c.SignInPerEmail = 2 })
	b := e.browser(t)
	secrets := []string{"Sekr3t-right-PASSWORD", "Sekr3t-wrong-PASSWORD", "Sekr3t-mismatch-PASSWORD", "Sekr3t-short"}
	tok := csrfOf(t, b.get("/dashboard/signup").body)
	b.post("/dashboard/signup", url.Values{"csrf_token": {tok}, "email": {"log@example.com"}, "password": {secrets[2]}, "password_confirm": {secrets[2] + "x"}})
	b.post("/dashboard/signup", url.Values{"csrf_token": {tok}, "email": {"log@example.com"}, "password": {"Sh0rtPw"}, "password_confirm": {"Sh0rtPw"}})
	mustStatus(t, "sign-up", b.signUp("log@example.com", secrets[0]), http.StatusSeeOther)
	c := e.browser(t)
	mustStatus(t, "wrong password", c.signIn("log@example.com", secrets[1]), http.StatusUnauthorized)
	mustStatus(t, "unknown email", c.signIn("nobody@example.com", secrets[3]), http.StatusUnauthorized)
	c.signIn("log@example.com", secrets[1])
	mustStatus(t, "rate-limited", c.signIn("log@example.com", secrets[0]), http.StatusTooManyRequests)
	logs := e.logs.String()
	if !strings.Contains(logs, "dashboard sign-up") || !strings.Contains(logs, "sign-in refused") {
		t.Fatalf("the log does not record the sign-up and refusals:\n%s", logs)
	}
	db, _ := os.ReadFile(e.dbPath)
	wal, _ := os.ReadFile(e.dbPath + "-wal")
	for _, s := range append(secrets, "Sh0rtPw") {
		if strings.Contains(logs, s) {
			t.Errorf("password %q in the log:\n%s", s, logs)
		}
		if bytes.Contains(db, []byte(s)) || bytes.Contains(wal, []byte(s)) {
			t.Errorf("password %q in the database", s)
		}
	}
	u, err := e.db.UserByEmail(context.Background(), "log@example.com")
	if err != nil || !strings.HasPrefix(u.PasswordHash, "$argon2id$v=19$") {
		t.Fatalf("stored hash %q, %v", u.PasswordHash, err)
	}
	// A page never echoes the password back.
	p := b.post("/dashboard/signup", url.Values{"csrf_token": {tok}, "email": {"x@example.com"}, "password": {secrets[2]}, "password_confirm": {"different"}})
	if strings.Contains(p.body, secrets[2]) {
		t.Fatal("the sign-up page echoes the password")
	}
}

// TestDashboardSignInRateLimited: failed sign-ins are limited per email (the right password is then
// refused too) and attempts per client address; both recover after the window.
func TestDashboardSignInRateLimited(t *testing.T) {
	e := startDashboard(t, "", func(c *api.DashboardConfig) {
		c.SignInPerEmail, c.SignInPerIP, c.SignInWindow = 3, 8, 10*time.Minute
	})
	mustStatus(t, "sign-up", e.browser(t).signUp("rate@example.com", "the right password"), http.StatusSeeOther)
	b := e.browser(t)
	for i := range 3 {
		mustStatus(t, "wrong password "+strconv.Itoa(i), b.signIn("rate@example.com", "wrong password"), http.StatusUnauthorized)
	}
	p := b.signIn("rate@example.com", "the right password")
	mustStatus(t, "4th attempt for the email", p, http.StatusTooManyRequests)
	if ra, _ := strconv.Atoi(p.header.Get("Retry-After")); ra <= 0 || ra > 600 {
		t.Fatalf("Retry-After %q", p.header.Get("Retry-After"))
	}
	if _, ok := b.cookies["asa_session"]; ok {
		t.Fatal("a rate-limited sign-in got a session")
	}
	// The email is limited whatever its case.
	mustStatus(t, "other case", b.signIn("RATE@example.com", "the right password"), http.StatusTooManyRequests)
	// Other emails from the same address still go, until the address's limit (8 attempts; 3 spent
	// and 2 refused before counting).
	for i := range 5 {
		mustStatus(t, "other email "+strconv.Itoa(i), b.signIn("other"+strconv.Itoa(i)+"@example.com", "whatever pw"), http.StatusUnauthorized)
	}
	mustStatus(t, "address limit", b.signIn("fresh@example.com", "whatever pw"), http.StatusTooManyRequests)
	e.clock.add(11 * time.Minute)
	mustStatus(t, "after the window", b.signIn("rate@example.com", "the right password"), http.StatusSeeOther)
}

// TestDashboardSignUpRateLimited: sign-ups are limited per client address.
func TestDashboardSignUpRateLimited(t *testing.T) {
	e := startDashboard(t, "", func(c *api.DashboardConfig) { c.SignUpPerIP, c.SignUpWindow = 2, time.Hour })
	for i := range 2 {
		mustStatus(t, "sign-up "+strconv.Itoa(i), e.browser(t).signUp("s"+strconv.Itoa(i)+"@example.com", "a long password"), http.StatusSeeOther)
	}
	p := e.browser(t).signUp("s2@example.com", "a long password")
	mustStatus(t, "third sign-up from the address", p, http.StatusTooManyRequests)
	if _, err := e.db.UserByEmail(context.Background(), "s2@example.com"); err == nil {
		t.Fatal("a rate-limited sign-up created an account")
	}
	e.clock.add(61 * time.Minute)
	mustStatus(t, "after the window", e.browser(t).signUp("s2@example.com", "a long password"), http.StatusSeeOther)
}

// TestDashboardWorkspaceIsolation: one workspace never sees another's keys or usage, and cannot
// revoke another's key or filter by it.
func TestDashboardWorkspaceIsolation(t *testing.T) {
	e := startDashboard(t, "", nil)
	a, bb := e.browser(t), e.browser(t)
	mustStatus(t, "sign-up a", a.signUp("a@example.com", "password of a"), http.StatusSeeOther)
	mustStatus(t, "sign-up b", bb.signUp("b@example.com", "password of b"), http.StatusSeeOther)
	ka := a.createKey("sandbox")
	shortA := ka[9:21]
	for range 3 {
		if got := apiGet(t, e, ka); got != http.StatusOK {
			t.Fatalf("a's request: %d", got)
		}
	}
	kb := bb.createKey("live")
	shortB := kb[9:21]
	for _, path := range []string{"/dashboard", "/dashboard/keys", "/dashboard/usage", "/dashboard/usage?days=90"} {
		p := bb.get(path)
		mustStatus(t, "b "+path, p, http.StatusOK)
		if strings.Contains(p.body, shortA) || strings.Contains(p.body, "amazon.product</td>") || strings.Contains(p.body, "a@example.com") {
			t.Errorf("b's %s shows a's key, usage or account", path)
		}
	}
	if p := bb.get("/dashboard/usage?key=" + shortA); p.status != http.StatusNotFound || strings.Contains(p.body, `data-testid="requests">3<`) {
		t.Errorf("b filtering by a's key: %d", p.status)
	}
	tok := csrfOf(t, bb.get("/dashboard/keys").body)
	mustStatus(t, "b revokes a's key", bb.post("/dashboard/keys/"+shortA+"/revoke", url.Values{"csrf_token": {tok}}), http.StatusNotFound)
	if got := apiGet(t, e, ka); got != http.StatusOK {
		t.Fatalf("a's key after b's attempt to revoke it: %d", got)
	}
	ap := a.get("/dashboard/keys")
	if strings.Contains(ap.body, shortB) {
		t.Error("a's keys page shows b's key")
	}
	if u := a.get("/dashboard/usage"); !strings.Contains(u.body, `data-testid="total-requests">4<`) {
		t.Errorf("a's usage lacks its 4 requests:\n%s", u.body)
	}
}

// TestDashboardRedirectsStayInside: the post-sign-in redirect never leaves the dashboard.
func TestDashboardRedirectsStayInside(t *testing.T) {
	e := startDashboard(t, "", nil)
	mustStatus(t, "sign-up", e.browser(t).signUp("next@example.com", "a long password"), http.StatusSeeOther)
	for next, want := range map[string]string{
		"/dashboard/usage?days=7": "/dashboard/usage?days=7",
		"//evil.example/":         "/dashboard",
		"https://evil.example/":   "/dashboard",
		"/dashboard\\@evil":       "/dashboard",
	} {
		b := e.browser(t)
		tok := csrfOf(t, b.get("/dashboard/signin?next="+url.QueryEscape(next)).body)
		p := b.post("/dashboard/signin", url.Values{"csrf_token": {tok}, "email": {"next@example.com"}, "password": {"a long password"}, "next": {next}})
		if p.status != http.StatusSeeOther || p.header.Get("Location") != want {
			t.Errorf("next=%q: %d to %q, want %q", next, p.status, p.header.Get("Location"), want)
		}
	}
	if p := e.browser(t).get("/dashboard/keys"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/dashboard/signin?next=%2Fdashboard%2Fkeys" {
		t.Errorf("anonymous /dashboard/keys: %d %q", p.status, p.header.Get("Location"))
	}
}

// TestDocsAndCatalogue: /api/v1/openapi.json, /docs and /catalogue are served from the loaded
// sitedefs, with the corpus counts.
func TestDocsAndCatalogue(t *testing.T) {
	e := startDashboard(t, "", nil)
	b := e.browser(t)
	doc := b.get("/api/v1/openapi.json")
	mustStatus(t, "openapi.json", doc, http.StatusOK)
	if !strings.HasPrefix(doc.header.Get("Content-Type"), "application/json") || !strings.Contains(doc.body, `"openapi": "3.1.0"`) || !strings.Contains(doc.body, `"version": "1.0.0"`) {
		t.Fatalf("openapi.json: %s %.200s", doc.header.Get("Content-Type"), doc.body)
	}
	docs := b.get("/docs")
	mustStatus(t, "/docs", docs, http.StatusOK)
	if !strings.Contains(docs.body, `src="/assets/docs.js"`) || !strings.Contains(docs.body, `data-spec="/api/v1/openapi.json"`) {
		t.Fatalf("/docs does not load the renderer:\n%s", docs.body)
	}
	if js := b.get("/assets/docs.js"); js.status != http.StatusOK || !strings.Contains(js.body, "openapi") {
		t.Fatalf("/assets/docs.js: %d", js.status)
	}
	if p := b.get("/assets/"); p.status != http.StatusNotFound {
		t.Errorf("/assets/ lists: %d", p.status)
	}
	cat := b.get("/catalogue")
	mustStatus(t, "/catalogue", cat, http.StatusOK)
	dashReg, _ := shipped(t)
	for _, id := range dashReg.IDs() {
		plan := dashReg.Plan(id)
		row := regexp.MustCompile(`(?s)<tr data-endpoint="` + regexp.QuoteMeta(id) + `">.*?</tr>`).FindString(cat.body)
		if row == "" {
			t.Errorf("catalogue lacks %s", id)
			continue
		}
		if !strings.Contains(row, plan.Version) || !regexp.MustCompile(`<b>\d+</b> real pages`).MatchString(row) {
			t.Errorf("catalogue row of %s lacks its version or page count:\n%s", id, row)
		}
	}
	for _, slug := range dashReg.Sites() {
		if !strings.Contains(cat.body, `data-category="`+dashReg.Site(slug).Category+`"`) {
			t.Errorf("catalogue lacks category of %s", slug)
		}
	}
	// The API docs (docs/api.md) stay where the error bodies point.
	if !strings.Contains(doc.body, "/docs/api.md#error-invalid-params") {
		t.Error("the error responses do not link docs/api.md")
	}
}
