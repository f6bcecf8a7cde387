package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"asa/api/apikey"
	"asa/engine/errcode"
	"asa/engine/universal"
	"asa/store"
)

// The usage API (docs/api.md#account-and-usage): GET /api/v1/account and GET /api/v1/usage answer
// about the caller's own workspace, keyed like every call and free (Asa-Cost: 0). They go through
// the key's rate limits, and are not in the usage they report.

// UsageReader is what the usage API needs from the store; *store.DB implements it. Usage is scoped
// by workspace: a key of another workspace is store.ErrNotFound.
type UsageReader interface {
	Usage(ctx context.Context, q store.UsageQuery) ([]store.UsageRow, error)
}

// MaxUsageDays bounds the range of one usage report.
const MaxUsageDays = 366

type accountJSON struct {
	Plan           string        `json:"plan"`
	Key            accountKey    `json:"key"`
	Limits         accountLimits `json:"limits"`
	Credits        creditsJSON   `json:"credits"`
	CostPerRequest int           `json:"cost_per_request"`
}

type accountKey struct {
	Prefix string `json:"prefix"`
	Mode   string `json:"mode"`
}

type accountLimits struct {
	Concurrency        int     `json:"concurrency"`
	RequestsPerSecond  float64 `json:"requests_per_second"`
	Burst              int     `json:"burst"`
	BurstWindowSeconds int     `json:"burst_window_seconds"`
}

type creditsJSON struct {
	Month    string    `json:"month"`
	Monthly  int       `json:"monthly"`
	Used     int       `json:"used"`
	Left     int       `json:"left"`
	ResetsAt time.Time `json:"resets_at"`
}

type usageCounts struct {
	Requests int `json:"requests"`
	Credits  int `json:"credits"`
	Errors   int `json:"errors"`
}

type usageEndpoint struct {
	Endpoint string `json:"endpoint"`
	usageCounts
}

type usageDay struct {
	Date string `json:"date"`
	usageCounts
	Endpoints []usageEndpoint `json:"endpoints"`
}

type usageJSON struct {
	From     string      `json:"from"`
	To       string      `json:"to"`
	Key      *string     `json:"key"`
	Endpoint *string     `json:"endpoint"`
	Days     []usageDay  `json:"days"`
	Total    usageCounts `json:"total"`
}

func (s *Server) registerAccount(e *echo.Echo) {
	if s.usage == nil {
		return
	}
	e.GET("/api/v1/account", s.accountHandler)
	e.GET("/api/v1/usage", s.usageHandler)
}

// freeCall authenticates and admits a call of the usage API that takes the allowed parameters.
// On a refusal it writes the error and returns done nil, with what the handler returns.
func (s *Server) freeCall(c echo.Context, name string, allowed ...string) (p Principal, done func(), werr error) {
	start := s.now()
	c.Response().Header().Set(HeaderCost, "0")
	// The status written, once the answer is out.
	observe := func() { s.metrics.observe(name, strconv.Itoa(c.Response().Status), s.now().Sub(start)) }
	fail := func(e *errcode.Error) (Principal, func(), error) {
		err := s.writeError(c, e)
		observe()
		return Principal{}, nil, err
	}
	p, aerr := s.authenticate(c)
	if aerr != nil {
		return fail(aerr)
	}
	release, lerr := s.admit(c, p)
	if lerr != nil {
		return fail(lerr)
	}
	for k, v := range c.QueryParams() {
		if k == "api_key" {
			continue
		}
		if !slices.Contains(allowed, k) {
			release()
			return fail(&errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("unknown parameter %s", k), Params: []string{k}})
		}
		if len(v) > 1 {
			release()
			return fail(&errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf("%s: given %d times; give it once", k, len(v)), Params: []string{k}})
		}
	}
	return p, func() { release(); observe() }, nil
}

// accountHandler serves GET /api/v1/account: the plan, the key's limits and this month's credits.
func (s *Server) accountHandler(c echo.Context) error {
	p, done, werr := s.freeCall(c, "account")
	if done == nil {
		return werr
	}
	defer done()
	used := p.CreditsUsed
	if !p.UsageKnown {
		var err error
		if used, err = s.deps.Ledger.CreditsUsed(c.Request().Context(), p.WorkspaceID); err != nil {
			return s.writeError(c, storeError(err))
		}
	}
	now := s.now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	mode := "live"
	if p.Test {
		mode = "sandbox"
	}
	prefix := apikey.LivePrefix
	if p.Test {
		prefix = apikey.TestPrefix
	}
	return c.JSON(http.StatusOK, accountJSON{
		Plan: p.Plan,
		Key:  accountKey{Prefix: prefix + p.Short, Mode: mode},
		Limits: accountLimits{Concurrency: p.Limits.Concurrency, RequestsPerSecond: p.Limits.RPS, Burst: WindowCeiling(p.Limits),
			BurstWindowSeconds: int(BurstWindow / time.Second)},
		Credits: creditsJSON{Month: month.Format("2006-01"), Monthly: p.MonthlyCredits, Used: used, Left: max(p.MonthlyCredits-used, 0),
			ResetsAt: month.AddDate(0, 1, 0)},
		CostPerRequest: CostPerRequest,
	})
}

// usageHandler serves GET /api/v1/usage: requests, credits and errors per UTC day, from..to
// inclusive (default: this month so far), optionally of one key (its short prefix or whole prefix)
// and one endpoint.
func (s *Server) usageHandler(c echo.Context) error {
	p, done, werr := s.freeCall(c, "usage", "from", "to", "key", "endpoint")
	if done == nil {
		return werr
	}
	defer done()
	bad := func(param, format string, args ...any) error {
		e := errcode.New(errcode.InvalidParams, format, args...)
		e.Params = []string{param}
		return s.writeError(c, e)
	}
	today := s.now().UTC().Truncate(24 * time.Hour)
	from, to := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC), today
	for _, d := range []struct {
		name string
		t    *time.Time
	}{{"from", &from}, {"to", &to}} {
		v := c.QueryParam(d.name)
		if v == "" {
			continue
		}
		t, err := time.Parse(time.DateOnly, v)
		if err != nil {
			return bad(d.name, "%s: want a date YYYY-MM-DD (UTC), got %q", d.name, v)
		}
		*d.t = t
	}
	switch {
	case to.Before(from):
		return bad("to", "to (%s) is before from (%s)", to.Format(time.DateOnly), from.Format(time.DateOnly))
	case to.Sub(from) >= MaxUsageDays*24*time.Hour:
		return bad("from", "at most %d days in one report: from %s to %s is %d", MaxUsageDays, from.Format(time.DateOnly), to.Format(time.DateOnly), int(to.Sub(from)/(24*time.Hour))+1)
	}
	q := store.UsageQuery{WorkspaceID: p.WorkspaceID, Since: from, Until: to.Add(24 * time.Hour)}
	out := usageJSON{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), Days: []usageDay{}}
	if k := c.QueryParam("key"); k != "" {
		short, ok := keyShort(k)
		if !ok {
			return bad("key", "key: want a key's short prefix (the %d characters after asa_live_ or asa_test_), with or without that prefix", apikey.ShortLen)
		}
		q.KeyShort = short
		out.Key = &short
	}
	if ep := c.QueryParam("endpoint"); ep != "" {
		switch plan := s.deps.Registry.Plan(ep); {
		case ep == universal.Endpoint:
			q.Endpoint = ep
		case plan != nil:
			q.Endpoint = plan.ID // an alias's calls are logged under the site's own name
		default:
			return bad("endpoint", "endpoint: no endpoint %q (site.resource, as docs/endpoints.md lists them)", ep)
		}
		out.Endpoint = &q.Endpoint
	}
	rows, err := s.usage.Usage(c.Request().Context(), q)
	if errors.Is(err, store.ErrNotFound) {
		// Another workspace's key is as unknown as one that never existed.
		e := errcode.New(errcode.NotFound, "no key %s in this workspace", q.KeyShort)
		e.Params = []string{"key"}
		return s.writeError(c, e)
	}
	if err != nil {
		return s.writeError(c, storeError(err))
	}
	byDay := map[string]*usageDay{}
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		out.Days = append(out.Days, usageDay{Date: d.Format(time.DateOnly), Endpoints: []usageEndpoint{}})
	}
	for i := range out.Days {
		byDay[out.Days[i].Date] = &out.Days[i]
	}
	for _, r := range rows {
		d := byDay[r.Day.Format(time.DateOnly)]
		if d == nil {
			continue
		}
		n := usageCounts{Requests: r.Requests, Credits: r.Credits, Errors: r.Errors}
		d.Endpoints = append(d.Endpoints, usageEndpoint{Endpoint: r.Endpoint, usageCounts: n})
		d.add(n)
		out.Total.add(n)
	}
	return c.JSON(http.StatusOK, out)
}

// keyShort takes a key's short prefix, given alone or after asa_live_ or asa_test_ (as
// /api/v1/account's key.prefix shows it).
func keyShort(k string) (string, bool) {
	k = strings.TrimPrefix(strings.TrimPrefix(k, apikey.LivePrefix), apikey.TestPrefix)
	if len(k) != apikey.ShortLen {
		return "", false
	}
	for _, r := range k {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return "", false
		}
	}
	return k, true
}

func (u *usageCounts) add(n usageCounts) {
	u.Requests += n.Requests
	u.Credits += n.Credits
	u.Errors += n.Errors
}
