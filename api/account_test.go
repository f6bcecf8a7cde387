package api_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"asa/api/apikey"
	"asa/engine/fixture"
	"asa/store"
)

// TestUsageAPI: GET /api/v1/account and /api/v1/usage over real HTTP, for live and sandbox keys:
// free, scoped to the caller's workspace (another workspace's key is a 404, its requests never
// counted), with bad dates, ranges and parameters refused as invalid_params.
func TestUsageAPI(t *testing.T) {
	h := startHealth(t)
	ctx := context.Background()
	reg, _ := shipped(t)
	c := loadCase(t, "amazon/product/com-in-stock")
	h.servePageFile(t, reg.Plan("amazon.product"), c)
	sandboxKey, _, err := h.db.CreateKey(ctx, h.ws.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	other, err := h.db.CreateWorkspace(ctx, "other", store.PlanFree, 0)
	if err != nil {
		t.Fatal(err)
	}
	otherKey, _, err := h.db.CreateKey(ctx, other.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	r := &env{base: h.base}
	scrape := func(key apikey.Key, extra string, want int) {
		t.Helper()
		q := fixture.Values(c.Params)
		q.Set("api_key", key.String())
		if got := r.get(t, "/api/v1/amazon/product?"+q.Encode()+extra); got.status != want {
			t.Fatalf("scrape: %d %s, want %d", got.status, got.raw, want)
		}
	}
	for range 3 {
		scrape(h.live, "", 200)
	}
	scrape(h.live, "&domain=zz", 400)
	scrape(sandboxKey, "", 200)
	scrape(sandboxKey, "", 200)
	scrape(otherKey, "", 200)
	today := h.clock.now().UTC().Format(time.DateOnly)

	call := func(key apikey.Key, path string) reply {
		t.Helper()
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		got := r.get(t, path+sep+"api_key="+url.QueryEscape(key.String()))
		if got.header.Get("Asa-Cost") != "0" {
			t.Errorf("%s: Asa-Cost %q, want 0", path, got.header.Get("Asa-Cost"))
		}
		return got
	}
	num := func(m any, path ...string) float64 {
		for _, p := range path {
			m = m.(map[string]any)[p]
		}
		f, _ := m.(float64)
		return f
	}

	t.Run("account", func(t *testing.T) {
		for _, tc := range []struct {
			key  apikey.Key
			mode string
		}{{h.live, "live"}, {sandboxKey, "sandbox"}} {
			got := call(tc.key, "/api/v1/account")
			if got.status != 200 {
				t.Fatalf("%d %s", got.status, got.raw)
			}
			b := map[string]any(got.body)
			if b["plan"] != "custom" || num(b, "credits", "used") != 15 || num(b, "credits", "monthly") != 1_000_000 ||
				num(b, "credits", "left") != 1_000_000-15 || num(b, "limits", "requests_per_second") != 500 || num(b, "cost_per_request") != 5 {
				t.Errorf("%s key: %s", tc.mode, got.raw)
			}
			key := b["key"].(map[string]any)
			if key["mode"] != tc.mode || key["prefix"] != tc.key.String()[:len("asa_live_")+apikey.ShortLen] {
				t.Errorf("%s key: key %v", tc.mode, key)
			}
			if strings.Contains(got.raw, tc.key.String()) {
				t.Error("the account answer holds the whole key")
			}
		}
		if got := call(otherKey, "/api/v1/account"); got.body["plan"] != "free" || num(got.body, "credits", "used") != 5 {
			t.Errorf("other workspace: %s", got.raw)
		}
	})

	t.Run("usage", func(t *testing.T) {
		day := func(got reply) map[string]any {
			t.Helper()
			if got.status != 200 {
				t.Fatalf("%d %s", got.status, got.raw)
			}
			for _, d := range got.body["days"].([]any) {
				if d.(map[string]any)["date"] == today {
					return d.(map[string]any)
				}
			}
			t.Fatalf("no day %s in %s", today, got.raw)
			return nil
		}
		tests := []struct {
			name                      string
			key                       apikey.Key
			query                     string
			requests, credits, errors float64
		}{
			{"whole workspace, live key", h.live, "", 6, 15, 1},
			{"whole workspace, sandbox key", sandboxKey, "", 6, 15, 1},
			{"one live key", h.live, "?key=" + h.live.Short(), 4, 15, 1},
			{"one sandbox key, with its prefix", h.live, "?key=asa_test_" + sandboxKey.Short(), 2, 0, 0},
			{"one endpoint", h.live, "?endpoint=amazon.product&from=" + today + "&to=" + today, 6, 15, 1},
			{"another endpoint", h.live, "?endpoint=amazon.search", 0, 0, 0},
			{"the other workspace", otherKey, "", 1, 5, 0},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got := call(tc.key, "/api/v1/usage"+tc.query)
				d := day(got)
				if num(d, "requests") != tc.requests || num(d, "credits") != tc.credits || num(d, "errors") != tc.errors ||
					num(got.body, "total", "requests") != tc.requests {
					t.Errorf("got %s", got.raw)
				}
			})
		}
		got := call(h.live, "/api/v1/usage?from=2026-01-01&to=2026-01-03")
		if days := got.body["days"].([]any); got.status != 200 || len(days) != 3 || num(got.body, "total", "requests") != 0 {
			t.Errorf("an empty range: %s", got.raw)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		tests := []struct {
			name, query, code, param string
			status                   int
		}{
			{"another workspace's key", "?key=" + otherKey.Short(), "not_found", "key", http.StatusNotFound},
			{"a malformed key filter", "?key=abc", "invalid_params", "key", http.StatusBadRequest},
			{"a bad date", "?from=2026-13-01", "invalid_params", "from", http.StatusBadRequest},
			{"a time, not a date", "?to=2026-11-01T00:00:00Z", "invalid_params", "to", http.StatusBadRequest},
			{"to before from", "?from=2026-11-02&to=2026-11-01", "invalid_params", "to", http.StatusBadRequest},
			{"too long a range", "?from=2024-01-01&to=2026-01-01", "invalid_params", "from", http.StatusBadRequest},
			{"an unknown endpoint", "?endpoint=nope.nothing", "invalid_params", "endpoint", http.StatusBadRequest},
			{"an unknown parameter", "?since=2026-11-01", "invalid_params", "since", http.StatusBadRequest},
			{"a parameter twice", "?from=2026-11-01&from=2026-11-02", "invalid_params", "from", http.StatusBadRequest},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got := call(h.live, "/api/v1/usage"+tc.query)
				params, _ := got.body["params"].([]any)
				if got.status != tc.status || got.body["error"] != tc.code || len(params) != 1 || params[0] != tc.param {
					t.Errorf("got %d %s", got.status, got.raw)
				}
				if strings.Contains(got.raw, "other") {
					t.Errorf("the refusal names the other workspace: %s", got.raw)
				}
			})
		}
		if got := r.get(t, "/api/v1/account"); got.status != 401 || got.body["error"] != "unauthorized" {
			t.Errorf("no key: %d %s", got.status, got.raw)
		}
	})

	// The calls above were free and are not in the usage they report.
	if used, _ := h.db.CreditsUsed(ctx, h.ws.ID, h.clock.now()); used != 15 {
		t.Errorf("credits used %d after the usage calls, want 15", used)
	}
	if got := call(h.live, "/api/v1/usage"); num(got.body, "total", "requests") != 6 {
		t.Errorf("the usage calls counted themselves: %s", got.raw)
	}
}
