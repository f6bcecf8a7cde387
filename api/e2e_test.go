package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"asa/api"
	"asa/engine"
	"asa/engine/fetch"
	"asa/engine/fetch/farm"
	"asa/engine/fetch/fetchtest"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/store"
)

// farmEnv is asa's API with the real sitedefs and the real outbound client, whose every target host is
// answered by the target farm over TLS: the whole live path on loopback.
type farmEnv struct {
	*env
	farm *farm.Farm
	reg  *registry.Registry
}

// recordCase runs a fixture case once through a recording fetcher to learn the URL of each step's
// request, then serves the case's recorded responses at those URLs from the farm.
func recordCase(t *testing.T, f *farm.Farm, reg *registry.Registry, c *fixture.Case) (urls []string) {
	t.Helper()
	return recordCaseOn(t, f, reg.Runnable(c.Endpoint), fixture.Values(c.Params), c)
}

// onSite gives a family base's case parameters to a site that mounts the base: a URL parameter the
// site refuses (the bases' cases use example hosts) moves to the site's default host.
func onSite(plan *engine.Plan, q url.Values) url.Values {
	if _, err := plan.Params(q); err == nil {
		return q
	}
	d := plan.Site.Domains.Get(plan.Site.DefaultDomain)
	if d == nil {
		return q
	}
	out := url.Values{}
	for k, vs := range q {
		for _, v := range vs {
			if u, err := url.Parse(v); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
				u.Host = d.Host
				v = u.String()
			}
			out.Add(k, v)
		}
	}
	return out
}

// recordCaseOn runs case c's recorded responses through plan with q, serving each request it makes
// from the farm at the URL asked. Steps that ask one URL (innertube's browse, posted with another
// body) are answered in the order they asked it, and from the first again when a later run asks anew.
func recordCaseOn(t *testing.T, f *farm.Farm, plan *engine.Plan, q url.Values, c *fixture.Case) (urls []string) {
	t.Helper()
	rp, err := c.Replay()
	if err != nil {
		t.Fatal(err)
	}
	type reply struct {
		body   []byte
		status int
		header http.Header
	}
	var mu sync.Mutex
	replies, served := map[string][]reply{}, map[string]int{}
	rec := engine.FetcherFunc(func(ctx context.Context, req *engine.Request) (*engine.Response, error) {
		resp, err := rp.Fetch(ctx, req)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		urls = append(urls, req.URL)
		u := req.URL
		replies[u] = append(replies[u], reply{resp.Body, resp.Status, resp.Header.Clone()})
		if len(replies[u]) > 1 {
			return resp, nil // the URL's handler serves it in turn
		}
		if err := f.HandleURL(u, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			mu.Lock()
			rs := replies[u]
			r := rs[served[u]%len(rs)]
			served[u]++
			mu.Unlock()
			for k, v := range r.header {
				w.Header()[k] = v
			}
			w.WriteHeader(r.status)
			_, _ = w.Write(r.body)
		})); err != nil {
			t.Fatal(err)
		}
		return resp, nil
	})
	if out := fixture.Execute(context.Background(), plan, q, rec); out.Err != nil {
		t.Fatalf("recording %s: %v", c.ID(), out.Err)
	}
	return urls
}

func startFarm(t *testing.T, opts fetch.Options, plan string, requestTimeout time.Duration) *farmEnv {
	t.Helper()
	f, err := farm.New(farm.Options{ControlAddr: "off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	opts.Resolve, opts.RootCAs = f.Resolve, f.CertPool()
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	client, err := fetch.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	reg, _ := shipped(t)
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{logs: &syncBuffer{}, target: &target{hold: make(chan struct{})}, cancel: cancel, done: make(chan error, 1)}
	e.dbPath = filepath.Join(t.TempDir(), "asa.db")
	db, err := store.Open(ctx, e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if plan == store.PlanCustom {
		// The catalogue-wide tests send a request per endpoint back to back: the Custom plan's top
		// rate keeps the limiter out of what they test.
		e.ws, err = db.CreateWorkspacePlan(ctx, "acme", store.PlanSettings{Plan: store.PlanCustom, MonthlyCredits: 1_000_000, Concurrency: 1000, RPS: 500})
	} else {
		e.ws, err = db.CreateWorkspace(ctx, "acme", plan, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	if e.live, _, err = db.CreateKey(ctx, e.ws.ID, false); err != nil {
		t.Fatal(err)
	}
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{RequestTimeout: requestTimeout}, api.Deps{Registry: reg, Live: client, Auth: backend, Ledger: backend,
		Log: slog.New(slog.NewJSONHandler(e.logs, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.base = "http://" + ln.Addr().String()
	go func() { e.done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-e.done
		db.Close()
	})
	return &farmEnv{env: e, farm: f, reg: reg}
}

// TestEveryEndpointThroughProxy: every endpoint is fetched over TLS from the farm through a real
// proxy (tinyproxy), and a live key gets the same JSON as the fixture's golden output, billed.
func TestEveryEndpointThroughProxy(t *testing.T) {
	proxy, proxyLog := fetchtest.Tinyproxy(t)
	fe := startFarm(t, fetch.Options{Proxies: []fetch.Proxy{{URL: "http://" + proxy, Country: "us"}}}, store.PlanCustom, 20*time.Second)
	cases, err := fixture.LoadCases("../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]*fixture.Case{}
	for _, c := range cases {
		// one success case per endpoint, single-page, replayed as it was recorded
		if c.Expect.Output == "" || first[c.Endpoint] != nil || len(c.Expect.Loose) > 0 || strings.Contains(c.Name, "page") {
			continue
		}
		first[c.Endpoint] = c
	}
	ids := fe.reg.IDs()
	// An endpoint mounted from a family base with no case of its own is served the base's case; one
	// such endpoint per base goes over the farm (the others run the same plan code on other hosts).
	viaBase := map[string]bool{}
	for _, id := range ids {
		if first[id] != nil {
			continue
		}
		if b := fe.reg.BaseOf(id); b != "" && first[b] != nil {
			if !viaBase[b] {
				viaBase[b], first[id] = true, first[b]
			}
			continue
		}
		t.Errorf("%s has no single-page success case to serve from the farm", id)
	}
	credits := 0
	for _, id := range ids {
		c := first[id]
		if c == nil {
			continue
		}
		t.Run(id, func(t *testing.T) {
			plan := fe.reg.Plan(id)
			q := onSite(plan, fixture.Values(c.Params))
			recordCaseOn(t, fe.farm, plan, q, c)
			q.Set("api_key", fe.live.String())
			site, resource, _ := strings.Cut(id, ".")
			r := fe.get(t, "/api/v1/"+site+"/"+resource+"?"+q.Encode())
			if r.status != 200 {
				t.Fatalf("%s: %d %s", c.ID(), r.status, r.raw)
			}
			want, err := os.ReadFile(filepath.Join("../fixtures", filepath.FromSlash(c.Dir), c.Expect.Output))
			if err != nil {
				t.Fatal(err)
			}
			if c.Endpoint != id {
				// The base's case through the site's plan: its golden is the base's, so the site's
				// output replayed locally is what the farm must give.
				rp, err := c.Replay()
				if err != nil {
					t.Fatal(err)
				}
				out := fixture.Execute(context.Background(), plan, onSite(plan, fixture.Values(c.Params)), rp)
				if out.Err != nil {
					t.Fatalf("%s on %s replayed: %v", id, c.ID(), out.Err)
				}
				want = out.JSON
			}
			var wantV, gotV any
			_ = json.Unmarshal(want, &wantV)
			_ = json.Unmarshal([]byte(r.raw), &gotV)
			if d := fixture.Diff(gotV, wantV); len(d) > 0 {
				t.Errorf("%s over the farm differs from its golden:\n  %s", c.ID(), strings.Join(d, "\n  "))
			}
			// The resolved URL is the target's: https, unless the page asked for is an http URL (a few
			// article sites' examples are).
			scheme := "https://"
			for _, k := range []string{"query", "url"} {
				if strings.HasPrefix(q.Get(k), "http://") {
					scheme = "http://"
				}
			}
			if !strings.HasPrefix(r.header.Get("Asa-Resolved-Url"), scheme) {
				t.Errorf("Asa-Resolved-Url %q, want %s...", r.header.Get("Asa-Resolved-Url"), scheme)
			}
			n, _ := strconv.Atoi(r.header.Get("Asa-Cost"))
			credits += n
		})
	}
	if !strings.Contains(proxyLog(), "CONNECT") {
		t.Errorf("the proxy saw no CONNECT:\n%s", proxyLog())
	}
	if used, _ := fe.db.CreditsUsed(context.Background(), fe.ws.ID, time.Now()); used != credits || credits == 0 {
		t.Errorf("credits used %d, Asa-Cost summed %d", used, credits)
	}
}

// TestFaultTable: for each fault the farm injects, what the API client sees.
func TestFaultTable(t *testing.T) {
	fe := startFarm(t, fetch.Options{
		AttemptTimeout: 700 * time.Millisecond, IdleTimeout: 300 * time.Millisecond,
		Backoff: fetch.Backoff{Base: time.Millisecond, Max: 5 * time.Millisecond}, MaxRetryAfter: 10 * time.Millisecond,
		MaxBodyBytes: 4 << 20,
	}, store.PlanPro, 2*time.Second)
	cases, err := fixture.LoadCases("../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	var product, other *fixture.Case
	for _, c := range cases {
		switch c.ID() {
		case "amazon.product/com-in-stock":
			product = c
		case "amazon.product/de-core-price":
			other = c
		}
	}
	if product == nil || other == nil {
		t.Fatal("the amazon fixture cases this test serves are missing")
	}
	recordCase(t, fe.farm, fe.reg, product)
	otherURL := recordCase(t, fe.farm, fe.reg, other)[0]
	q := fixture.Values(product.Params)
	q.Set("api_key", fe.live.String())
	path := "/api/v1/amazon/product?" + q.Encode()
	host := "www.amazon.com"
	tests := []struct {
		name     string
		fault    *farm.Fault
		status   int
		code     string
		detail   string
		attempts string
		cost     string
	}{
		{"no fault", nil, 200, "", "", "1", "5"},
		{"500 twice, then the page", &farm.Fault{Kind: farm.Status, Status: 500, Times: 2}, 200, "", "", "3", "5"},
		{"503 every time", &farm.Fault{Kind: farm.Status, Status: 503}, 502, "target_unreachable", "blocked", "3", "0"},
		{"429 every time", &farm.Fault{Kind: farm.Status, Status: 429, RetryAfter: 1}, 502, "target_unreachable", "status", "3", "0"},
		{"404", &farm.Fault{Kind: farm.Status, Status: 404}, 404, "product_not_found", "", "1", "0"},
		{"captcha once, then the page", &farm.Fault{Kind: farm.Captcha, Times: 1}, 200, "", "", "2", "5"},
		{"captcha every time", &farm.Fault{Kind: farm.Captcha}, 502, "target_unreachable", "blocked", "3", "0"},
		{"redirect to another product", &farm.Fault{Kind: farm.Redirect, Location: otherURL, Path: "/dp/" + product.Params["query"].(string)}, 502, "id_mismatch", "", "1", "0"},
		{"slow first byte past the request deadline", &farm.Fault{Kind: farm.Slow, Delay: 5 * time.Second}, 502, "target_unreachable", "timeout", "1", "0"},
		{"drip", &farm.Fault{Kind: farm.Drip, BytesPerSec: 1}, 502, "target_unreachable", "timeout", "3", "0"},
		{"connection reset", &farm.Fault{Kind: farm.Reset}, 502, "target_unreachable", "connection", "3", "0"},
		{"gzip bomb", &farm.Fault{Kind: farm.Bomb}, 502, "target_unreachable", "too_large", "1", "0"},
	}
	var rows []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fe.farm.ClearFaults()
			if tt.fault != nil {
				ft := *tt.fault
				ft.Host = host
				if err := fe.farm.SetFault(ft); err != nil {
					t.Fatal(err)
				}
			}
			r := fe.get(t, path)
			code, _ := r.body["error"].(string)
			detail, _ := r.body["detail"].(string)
			rows = append(rows, strings.Join([]string{tt.name, strconv.Itoa(r.status), code, detail, r.header.Get("Asa-Attempts"), r.header.Get("Asa-Cost")}, " | "))
			if r.status != tt.status || code != tt.code || detail != tt.detail {
				t.Errorf("got %d %s/%s, want %d %s/%s: %s", r.status, code, detail, tt.status, tt.code, tt.detail, r.raw)
			}
			if got := r.header.Get("Asa-Attempts"); got != tt.attempts {
				t.Errorf("Asa-Attempts %s, want %s", got, tt.attempts)
			}
			if got := r.header.Get("Asa-Cost"); got != tt.cost {
				t.Errorf("Asa-Cost %s, want %s", got, tt.cost)
			}
		})
	}
	sort.Strings(rows)
	t.Logf("fault | status | error | detail | Asa-Attempts | Asa-Cost\n%s", strings.Join(rows, "\n"))
}
