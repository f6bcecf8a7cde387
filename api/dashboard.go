package api

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"asa/api/apikey"
	"asa/store"
)

// DashboardStore is what the web dashboard needs from the store; *store.DB implements it.
type DashboardStore interface {
	SignUp(ctx context.Context, email, passwordHash, plan string) (store.User, store.Workspace, error)
	UserByEmail(ctx context.Context, email string) (store.User, error)
	CreateSession(ctx context.Context, userID int64, tokenHash [32]byte, expires time.Time) (store.Session, error)
	SessionByHash(ctx context.Context, tokenHash [32]byte, now time.Time) (store.Session, store.User, store.Workspace, error)
	DeleteSession(ctx context.Context, tokenHash [32]byte) error
	PurgeSessions(ctx context.Context, now time.Time) (int64, error)
	CreateKeyOnce(ctx context.Context, workspaceID int64, test bool, form store.KeyForm) (apikey.Key, store.KeyRecord, error)
	PurgeKeyForms(ctx context.Context, now time.Time) (int64, error)
	Keys(ctx context.Context, workspaceID int64) ([]store.KeyRecord, error)
	RevokeKey(ctx context.Context, workspaceID int64, shortPrefix string) error
	Usage(ctx context.Context, q store.UsageQuery) ([]store.UsageRow, error)
	CreditsUsed(ctx context.Context, workspaceID int64, month time.Time) (int, error)
}

// DashboardConfig configures the web dashboard at /dashboard (docs/dashboard.md). Zero values take
// the defaults.
type DashboardConfig struct {
	// Store backs accounts, sessions, keys and usage; nil leaves the dashboard out (/docs and
	// /catalogue are served either way).
	Store DashboardStore
	// SecureCookies marks the cookies Secure (and names them __Host-...). nil: Secure exactly when
	// PublicURL is https, since a browser never sends a Secure cookie back over plain http.
	SecureCookies *bool
	// SessionTTL is how long a sign-in lasts (default 7 days).
	SessionTTL time.Duration
	// Argon2 is the password hashing cost (default DefaultArgon2).
	Argon2 Argon2Params
	// SignInPerEmail failed sign-ins per email and client address (so nobody locks an account's
	// owner out from elsewhere), and SignInPerIP sign-in attempts per client address, are allowed
	// per SignInWindow (defaults 5, 20, 15 minutes); SignUpPerIP sign-ups per
	// address per SignUpWindow (defaults 10, 1 hour). Past them the answer is 429 with Retry-After.
	SignInPerEmail, SignInPerIP int
	SignInWindow                time.Duration
	SignUpPerIP                 int
	SignUpWindow                time.Duration
	// Attempts counts those attempts for every node of a deployment (Redis, store/redislimit);
	// nil counts them in this node's memory, so N nodes let N times the limits through.
	Attempts SharedAttempts
}

// WithDefaults returns c with every zero setting at its default: what the dashboard runs with.
func (c DashboardConfig) WithDefaults() DashboardConfig {
	c.defaults()
	return c
}

func (c *DashboardConfig) defaults() {
	if c.SessionTTL <= 0 {
		c.SessionTTL = 7 * 24 * time.Hour
	}
	if c.SignInPerEmail <= 0 {
		c.SignInPerEmail = 5
	}
	if c.SignInPerIP <= 0 {
		c.SignInPerIP = 20
	}
	if c.SignInWindow <= 0 {
		c.SignInWindow = 15 * time.Minute
	}
	if c.SignUpPerIP <= 0 {
		c.SignUpPerIP = 10
	}
	if c.SignUpWindow <= 0 {
		c.SignUpWindow = time.Hour
	}
}

// Password rules: NIST SP 800-63B's minimum length, and a maximum that bounds hashing work.
const (
	minPasswordLen = 8
	maxPasswordLen = 256
	maxEmailLen    = 254
)

// Form field and cookie names.
const (
	csrfField         = "csrf_token"
	keyFormField      = "form_id"
	sessionCookieBase = "asa_session"
	csrfCookieBase    = "asa_csrf"
)

type dashboard struct {
	s      *Server
	cfg    DashboardConfig
	store  DashboardStore
	hasher *passwordHasher
	secure bool
	origin string // the PublicURL's scheme://host, accepted as a form's Origin

	emailLimit, ipLimit, signUpLimit *attemptCounter
	lastPurge                        atomic.Int64
	// batchPages is set when the batch pages are served (dashboard_batches.go).
	batchPages bool
}

// dashboardExtension adds pages to the dashboard from another file of the package (the batch
// pages, which need the batch store).
type dashboardExtension struct {
	setup  func(d *dashboard)
	routes func(d *dashboard, g *echo.Group)
}

var dashboardExtensions []dashboardExtension

// registerWeb adds the human-facing pages: /docs, /catalogue, /api/v1/openapi.json, the shared
// assets, and the dashboard when a store is configured.
func (s *Server) registerWeb(e *echo.Echo) {
	if s.deps.Dashboard.Store == nil {
		s.registerDocs(e, nil)
		return
	}
	d := newDashboard(s)
	for _, ext := range dashboardExtensions {
		ext.setup(d)
	}
	s.registerDocs(e, d)
	g := e.Group("/dashboard", d.headers)
	g.GET("", d.requireViewer(d.overview))
	g.GET("/", d.requireViewer(d.overview))
	g.GET("/signup", d.signUpForm)
	g.POST("/signup", d.signUp)
	g.GET("/signin", d.signInForm)
	g.POST("/signin", d.signIn)
	g.POST("/signout", d.requireViewer(d.signOut))
	g.GET("/keys", d.requireViewer(d.keys))
	g.POST("/keys", d.requireViewer(d.createKey))
	g.POST("/keys/:short/revoke", d.requireViewer(d.revokeKey))
	g.GET("/usage", d.requireViewer(d.usage))
	for _, ext := range dashboardExtensions {
		ext.routes(d, g)
	}
	g.Any("/*", d.notFound)
}

func newDashboard(s *Server) *dashboard {
	cfg := s.deps.Dashboard
	cfg.defaults()
	secure := strings.HasPrefix(strings.ToLower(s.cfg.PublicURL), "https://")
	if cfg.SecureCookies != nil {
		secure = *cfg.SecureCookies
	}
	origin := ""
	if u, err := url.Parse(s.cfg.PublicURL); err == nil && u.Host != "" {
		origin = strings.ToLower(u.Scheme + "://" + u.Host)
	}
	return &dashboard{
		s: s, cfg: cfg, store: cfg.Store, secure: secure, origin: origin,
		hasher:      newPasswordHasher(cfg.Argon2, 4),
		emailLimit:  newAttemptCounter("signin-email", cfg.SignInPerEmail, cfg.SignInWindow, s.now, cfg.Attempts, s.log),
		ipLimit:     newAttemptCounter("signin-ip", cfg.SignInPerIP, cfg.SignInWindow, s.now, cfg.Attempts, s.log),
		signUpLimit: newAttemptCounter("signup-ip", cfg.SignUpPerIP, cfg.SignUpWindow, s.now, cfg.Attempts, s.log),
	}
}

// securityHeaders are sent with every HTML page: no framing, no inline script, no caching of pages
// that show keys and usage.
func securityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

func (d *dashboard) headers(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		securityHeaders(c.Response().Header())
		return next(c)
	}
}

// viewer is the signed-in user of a request.
type viewer struct {
	User      store.User
	Workspace store.Workspace
	CSRF      string
	token     string
}

func (d *dashboard) cookieName(base string) string {
	if d.secure {
		// __Host-: the browser only accepts it Secure, from this host, for path /, so a sibling
		// subdomain cannot plant or overwrite it.
		return "__Host-" + base
	}
	return base
}

func (d *dashboard) setCookie(c echo.Context, base, value string, maxAge time.Duration, sameSite http.SameSite) {
	ck := &http.Cookie{Name: d.cookieName(base), Value: value, Path: "/", HttpOnly: true, Secure: d.secure, SameSite: sameSite}
	if maxAge < 0 {
		ck.MaxAge = -1
		ck.Expires = time.Unix(1, 0)
	} else {
		ck.MaxAge = int(maxAge / time.Second)
		ck.Expires = d.s.now().Add(maxAge)
	}
	c.SetCookie(ck)
}

func tokenHash(token string) [32]byte { return sha256.Sum256([]byte(token)) }

// csrfFor is the session's synchronizer token: an HMAC of a constant keyed by the session token, so
// it needs no storage, changes with every sign-in, and cannot be computed without the cookie.
func csrfFor(token string) string {
	m := hmac.New(sha256.New, []byte(token))
	m.Write([]byte("asa dashboard csrf v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// keyFormGrace is how much longer than a key form's lifetime (the session's) its spent record is
// kept: the node that purges it and the node that checks a late resend against its lifetime may
// read different clocks.
const keyFormGrace = time.Hour

// keyFormID is a new single-use id for the generate-key form: when it was issued, a random nonce,
// and an HMAC of both keyed by the session token. Issuing it stores nothing (a page view costs no
// write); the POST that spends it records its hash with the key it creates, in one transaction
// (store.CreateKeyOnce), so a reload that sends the form again creates nothing. The MAC keeps out
// made-up ids and other sessions' ids, and makes the issue time trustworthy: a spent record may be
// forgotten once its form is refused as expired.
func keyFormID(sessionToken string, issued time.Time) string {
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	body := strconv.FormatInt(issued.Unix(), 10) + "." + base64.RawURLEncoding.EncodeToString(nonce[:])
	return body + "." + keyFormMAC(sessionToken, body)
}

func keyFormMAC(sessionToken, body string) string {
	m := hmac.New(sha256.New, []byte(sessionToken))
	m.Write([]byte("asa dashboard key form v1\x00" + body))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// parseKeyFormID checks that id was issued to this session and returns when.
func parseKeyFormID(sessionToken, id string) (time.Time, bool) {
	if sessionToken == "" || len(id) > 128 {
		return time.Time{}, false
	}
	i := strings.LastIndexByte(id, '.')
	if i < 0 || !hmac.Equal([]byte(id[i+1:]), []byte(keyFormMAC(sessionToken, id[:i]))) {
		return time.Time{}, false
	}
	body := id[:i]
	secs, _, _ := strings.Cut(body, ".")
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(n, 0), true
}

func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// viewerOf returns the request's signed-in user, or nil.
func (d *dashboard) viewerOf(c echo.Context) (*viewer, error) {
	ck, err := c.Cookie(d.cookieName(sessionCookieBase))
	if err != nil || ck.Value == "" || len(ck.Value) > 128 {
		return nil, nil
	}
	_, u, ws, err := d.store.SessionByHash(c.Request().Context(), tokenHash(ck.Value), d.s.now())
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &viewer{User: u, Workspace: ws, CSRF: csrfFor(ck.Value), token: ck.Value}, nil
}

type viewerHandler func(c echo.Context, v *viewer) error

// requireViewer sends anonymous requests to the sign-in page and checks the CSRF token of every
// state-changing request before the handler runs.
func (d *dashboard) requireViewer(h viewerHandler) echo.HandlerFunc {
	return func(c echo.Context) error {
		v, err := d.viewerOf(c)
		if err != nil {
			return d.fail(c, err)
		}
		if v == nil {
			next := ""
			if c.Request().Method == http.MethodGet {
				next = "?next=" + url.QueryEscape(c.Request().URL.RequestURI())
			}
			return c.Redirect(http.StatusSeeOther, "/dashboard/signin"+next)
		}
		if c.Request().Method != http.MethodGet && c.Request().Method != http.MethodHead {
			if !d.checkCSRF(c, v.CSRF) {
				return d.forbidden(c, v)
			}
		}
		return h(c, v)
	}
}

// checkCSRF accepts a form only with the expected token, and only from this site: a present Origin
// must be ours, and a browser's Sec-Fetch-Site must not say cross-site.
func (d *dashboard) checkCSRF(c echo.Context, want string) bool {
	r := c.Request()
	if o := r.Header.Get("Origin"); o != "" {
		o = strings.ToLower(o)
		host := strings.ToLower(r.Host)
		if o != d.origin && strings.TrimPrefix(strings.TrimPrefix(o, "http://"), "https://") != host {
			return false
		}
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	got := c.FormValue(csrfField)
	return want != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// anonCSRF returns the double-submit token of the sign-in and sign-up forms, setting its cookie
// when the browser has none.
func (d *dashboard) anonCSRF(c echo.Context) string {
	if ck, err := c.Cookie(d.cookieName(csrfCookieBase)); err == nil && len(ck.Value) >= 32 && len(ck.Value) <= 64 {
		return ck.Value
	}
	t := randomToken()
	d.setCookie(c, csrfCookieBase, t, 24*time.Hour, http.SameSiteStrictMode)
	return t
}

func (d *dashboard) checkAnonCSRF(c echo.Context) bool {
	ck, err := c.Cookie(d.cookieName(csrfCookieBase))
	if err != nil {
		return false
	}
	return d.checkCSRF(c, ck.Value)
}

// clientIP is the connection's address. Forwarded headers are not trusted: anyone can send them.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// ---- pages ----------------------------------------------------------------------------------

// view is what every page template gets.
type view struct {
	Title     string
	Nav       string
	Viewer    *viewer
	CSRF      string
	Dashboard bool
	Batches   bool
	// Health shows the extractor health page in the nav, with the count of firing alerts.
	Health       bool
	HealthAlerts int
	Notice       string
	Error        string
	Data         any
}

func (d *dashboard) render(c echo.Context, status int, page string, v *view) error {
	if v.Viewer != nil && v.CSRF == "" {
		v.CSRF = v.Viewer.CSRF
	}
	v.Dashboard, v.Batches = true, d.batchPages
	if h := d.s.health; h != nil {
		v.Health, v.HealthAlerts = true, len(h.last.Load().Alerts)
	}
	if err := renderPage(c, status, page, v); err != nil {
		return d.fail(c, err)
	}
	return nil
}

// fail logs err with the request id and shows a page without it.
func (d *dashboard) fail(c echo.Context, err error) error {
	d.s.log.ErrorContext(c.Request().Context(), "dashboard", "request_id", requestID(c), "path", c.Request().URL.Path, "err", err)
	var buf bytes.Buffer
	_ = mustParsePages()["error"].ExecuteTemplate(&buf, "layout", &view{Title: "Something went wrong", Dashboard: true,
		Error: "Something went wrong on our side. Quote request id " + requestID(c) + " when reporting it."})
	return c.HTMLBlob(http.StatusInternalServerError, buf.Bytes())
}

func (d *dashboard) forbidden(c echo.Context, v *viewer) error {
	return d.render(c, http.StatusForbidden, "error", &view{Title: "Form expired", Viewer: v,
		Error: "This form was not sent from the dashboard, or it expired. Go back, reload the page and try again."})
}

func (d *dashboard) notFound(c echo.Context) error {
	v, _ := d.viewerOf(c)
	return d.render(c, http.StatusNotFound, "error", &view{Title: "Not found", Viewer: v, Error: "There is no such page."})
}

func (d *dashboard) tooMany(c echo.Context, page string, v *view, wait time.Duration) error {
	secs := int(wait.Round(time.Second) / time.Second)
	c.Response().Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	v.Error = fmt.Sprintf("Too many attempts. Try again in %s.", humanDuration(wait))
	return d.render(c, http.StatusTooManyRequests, page, v)
}

func humanDuration(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return fmt.Sprintf("%d minutes", int((d+time.Minute-1)/time.Minute))
	default:
		return fmt.Sprintf("%d seconds", max(int((d+time.Second-1)/time.Second), 1))
	}
}

// authForm is the sign-in and sign-up pages' data. The password is never put back into a page.
type authForm struct {
	Email string
	Next  string
}

// safeNext keeps a post-sign-in redirect inside the dashboard.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/dashboard") && !strings.HasPrefix(next, "//") && !strings.Contains(next, "\\") {
		return next
	}
	return "/dashboard"
}

func (d *dashboard) signUpForm(c echo.Context) error {
	if v, _ := d.viewerOf(c); v != nil {
		return c.Redirect(http.StatusSeeOther, "/dashboard")
	}
	return d.render(c, http.StatusOK, "signup", &view{Title: "Sign up", CSRF: d.anonCSRF(c), Data: authForm{}})
}

func (d *dashboard) signInForm(c echo.Context) error {
	if v, _ := d.viewerOf(c); v != nil {
		return c.Redirect(http.StatusSeeOther, "/dashboard")
	}
	return d.render(c, http.StatusOK, "signin", &view{Title: "Sign in", CSRF: d.anonCSRF(c), Data: authForm{Next: safeNext(c.QueryParam("next"))}})
}

// checkEmail returns the normalized address or a message for the form.
func checkEmail(raw string) (string, string) {
	email := store.NormalizeEmail(raw)
	if email == "" || len(email) > maxEmailLen {
		return "", "Enter your email address."
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") {
		return "", "That does not look like an email address."
	}
	return email, ""
}

func (d *dashboard) signUp(c echo.Context) error {
	form := authForm{Email: strings.TrimSpace(c.FormValue("email"))}
	page := &view{Title: "Sign up", CSRF: d.anonCSRF(c), Data: &form}
	if !d.checkAnonCSRF(c) {
		return d.forbidden(c, nil)
	}
	ip := clientIP(c.Request())
	ctx := c.Request().Context()
	if ok, wait := d.signUpLimit.allowed(ctx, ip); !ok {
		return d.tooMany(c, "signup", page, wait)
	}
	email, msg := checkEmail(form.Email)
	password := c.FormValue("password")
	switch {
	case msg != "":
	case utf8.RuneCountInString(password) < minPasswordLen:
		msg = fmt.Sprintf("Choose a password of at least %d characters.", minPasswordLen)
	case len(password) > maxPasswordLen:
		msg = fmt.Sprintf("Choose a password of at most %d characters.", maxPasswordLen)
	case password != c.FormValue("password_confirm"):
		msg = "The two passwords differ."
	}
	if msg != "" {
		page.Error = msg
		return d.render(c, http.StatusUnprocessableEntity, "signup", page)
	}
	d.signUpLimit.add(ctx, ip)
	hash, err := d.hasher.hash(password)
	if err != nil {
		return d.fail(c, err)
	}
	u, ws, err := d.store.SignUp(c.Request().Context(), email, hash, store.PlanFree)
	if errors.Is(err, store.ErrDuplicate) {
		page.Error = "An account with this email exists. Sign in instead."
		return d.render(c, http.StatusConflict, "signup", page)
	}
	if err != nil {
		return d.fail(c, err)
	}
	d.s.log.InfoContext(c.Request().Context(), "dashboard sign-up", "request_id", requestID(c), "user_id", u.ID, "workspace_id", ws.ID)
	if err := d.startSession(c, u.ID); err != nil {
		return d.fail(c, err)
	}
	return c.Redirect(http.StatusSeeOther, "/dashboard/keys?welcome=1")
}

func (d *dashboard) signIn(c echo.Context) error {
	form := authForm{Email: strings.TrimSpace(c.FormValue("email")), Next: safeNext(c.FormValue("next"))}
	page := &view{Title: "Sign in", CSRF: d.anonCSRF(c), Data: &form}
	if !d.checkAnonCSRF(c) {
		return d.forbidden(c, nil)
	}
	ip := clientIP(c.Request())
	email := store.NormalizeEmail(form.Email)
	// Failures count per email AND client address: a wrong password from one address never locks
	// the account's owner out from another (the per-address limit bounds guessing across emails).
	emailAt := email + "\x00" + ip
	ctx := c.Request().Context()
	if ok, wait := d.ipLimit.allowed(ctx, ip); !ok {
		return d.tooMany(c, "signin", page, wait)
	}
	if ok, wait := d.emailLimit.allowed(ctx, emailAt); !ok {
		return d.tooMany(c, "signin", page, wait)
	}
	d.ipLimit.add(ctx, ip)
	password := c.FormValue("password")
	if len(password) > maxPasswordLen {
		password = password[:maxPasswordLen+1] // never matches; still costs one hash
	}
	u, err := d.store.UserByEmail(c.Request().Context(), email)
	ok := false
	switch {
	case errors.Is(err, store.ErrNotFound):
		d.hasher.spend(password)
	case err != nil:
		return d.fail(c, err)
	default:
		ok, err = d.hasher.verify(password, u.PasswordHash)
		if err != nil {
			return d.fail(c, fmt.Errorf("user %d: %w", u.ID, err))
		}
	}
	if !ok {
		d.emailLimit.add(ctx, emailAt)
		d.s.log.InfoContext(c.Request().Context(), "dashboard sign-in refused", "request_id", requestID(c), "client", ip)
		page.Error = "Wrong email or password."
		return d.render(c, http.StatusUnauthorized, "signin", page)
	}
	d.emailLimit.reset(ctx, emailAt)
	if err := d.startSession(c, u.ID); err != nil {
		return d.fail(c, err)
	}
	d.s.log.InfoContext(c.Request().Context(), "dashboard sign-in", "request_id", requestID(c), "user_id", u.ID)
	return c.Redirect(http.StatusSeeOther, form.Next)
}

// startSession issues a new session (a new token at every sign-in: no fixation) and its cookie.
func (d *dashboard) startSession(c echo.Context, userID int64) error {
	ctx := c.Request().Context()
	now := d.s.now()
	if last := d.lastPurge.Load(); now.Unix()-last > 3600 && d.lastPurge.CompareAndSwap(last, now.Unix()) {
		if _, err := d.store.PurgeSessions(context.WithoutCancel(ctx), now); err != nil {
			d.s.log.WarnContext(ctx, "purging expired sessions", "request_id", requestID(c), "err", err)
		}
		if _, err := d.store.PurgeKeyForms(context.WithoutCancel(ctx), now); err != nil {
			d.s.log.WarnContext(ctx, "purging expired key forms", "request_id", requestID(c), "err", err)
		}
	}
	token := randomToken()
	if _, err := d.store.CreateSession(ctx, userID, tokenHash(token), now.Add(d.cfg.SessionTTL)); err != nil {
		return err
	}
	d.setCookie(c, sessionCookieBase, token, d.cfg.SessionTTL, http.SameSiteLaxMode)
	return nil
}

func (d *dashboard) signOut(c echo.Context, v *viewer) error {
	if err := d.store.DeleteSession(c.Request().Context(), tokenHash(v.token)); err != nil {
		return d.fail(c, err)
	}
	d.setCookie(c, sessionCookieBase, "", -1, http.SameSiteLaxMode)
	return c.Redirect(http.StatusSeeOther, "/dashboard/signin")
}
