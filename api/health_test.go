package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"asa/api"
	"asa/api/apikey"
	"asa/engine"
	"asa/engine/fetch"
	"asa/engine/fetch/farm"
	"asa/engine/fixture"
	"asa/store"
)

// healthEnv is the live path on loopback (the real outbound client, every target host answered by
// the farm over TLS) with extractor health on a real SQLite file, the dashboard, and a settable
// clock, which decides the hour each run is counted in.
type healthEnv struct {
	*dashEnv
	farm *farm.Farm
	ws   store.Workspace
	live apikey.Key
}

func startHealth(t *testing.T) *healthEnv {
	t.Helper()
	f, err := farm.New(farm.Options{ControlAddr: "off"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	client, err := fetch.New(fetch.Options{Resolve: f.Resolve, RootCAs: f.CertPool(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(client.Close)
	reg, sandbox := shipped(t)
	ctx, cancel := context.WithCancel(context.Background())
	// A fixed time 10 minutes into an hour: the runs of each phase fall in the hour the test means.
	start := time.Now().UTC().Truncate(time.Hour).Add(10 * time.Minute)
	e := &dashEnv{logs: &dashLog{}, clock: &dashClock{t: start}}
	e.dbPath = filepath.Join(t.TempDir(), "asa.db")
	db, err := store.Open(ctx, e.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	ws, err := db.CreateWorkspacePlan(ctx, "acme", store.PlanSettings{Plan: store.PlanCustom, MonthlyCredits: 1_000_000, Concurrency: 1000, RPS: 500})
	if err != nil {
		t.Fatal(err)
	}
	live, _, err := db.CreateKey(ctx, ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	backend := api.NewStoreBackend(db, e.clock.now)
	srv := api.New(api.Config{RequestTimeout: 10 * time.Second}, api.Deps{Registry: reg, Live: client, Sandbox: sandbox, Auth: backend, Ledger: backend,
		Now: e.clock.now, Log: slog.New(slog.NewJSONHandler(e.logs, nil)),
		Dashboard: api.DashboardConfig{Store: db, Argon2: api.Argon2Params{MemoryKiB: 256, Time: 1, Threads: 1}},
		Health:    api.HealthConfig{Store: db}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.base = "http://" + ln.Addr().String()
	served, health := make(chan error, 1), make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	go func() { health <- srv.RunHealth(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-served
		<-health
		db.Close()
	})
	return &healthEnv{dashEnv: e, farm: f, ws: ws, live: live}
}

// servePageFile serves the fixture case's page at the URL its endpoint asks for, read from a copy
// in a temporary directory on every request, so a test can change the markup the farm serves.
func (h *healthEnv) servePageFile(t *testing.T, plan *engine.Plan, c *fixture.Case) (path string) {
	t.Helper()
	rp, err := c.Replay()
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "page.html")
	var once sync.Once
	rec := engine.FetcherFunc(func(ctx context.Context, req *engine.Request) (*engine.Response, error) {
		resp, err := rp.Fetch(ctx, req)
		if err != nil {
			return nil, err
		}
		once.Do(func() {
			if err := os.WriteFile(path, resp.Body, 0o644); err != nil {
				t.Error(err)
			}
			ctype := resp.Header.Get("Content-Type")
			if err := h.farm.HandleURL(req.URL, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				b, err := os.ReadFile(path)
				if err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				w.Header().Set("Content-Type", ctype)
				_, _ = w.Write(b)
			})); err != nil {
				t.Error(err)
			}
		})
		return resp, nil
	})
	if out := fixture.Execute(context.Background(), plan, fixture.Values(c.Params), rec); out.Err != nil {
		t.Fatalf("recording %s: %v", c.ID(), out.Err)
	}
	return path
}

// loadCase loads the one fixture case in dir (site/resource/case under fixtures/), without
// reading every case of the tree.
func loadCase(t *testing.T, dir string) *fixture.Case {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join("../fixtures", dir))); err != nil {
		t.Fatal(err)
	}
	cases, err := fixture.LoadCases(root)
	if err != nil || len(cases) != 1 {
		t.Fatalf("loading the case %s: %d cases, %v", dir, len(cases), err)
	}
	return cases[0]
}

func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(b), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (h *healthEnv) metrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(h.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestExtractorHealthAlertOnMarkupChange: two days of good pages make the 7-day level; then the
// farm serves the same page with its price block renamed, and once the minimum sample is reached
// the fill_drop alert fires for amazon.product's price: a log line, a metric and the dashboard's
// banner. A renamed title (a required field) then makes runs fail with extraction_failed, and the
// endpoint's share alert fires too. Every run goes through real HTTP, the fetch over TLS from the farm.
func TestExtractorHealthAlertOnMarkupChange(t *testing.T) {
	h := startHealth(t)
	reg, _ := shipped(t)
	c := loadCase(t, "amazon/product/com-in-stock")
	page := h.servePageFile(t, reg.Plan("amazon.product"), c)
	q := fixture.Values(c.Params)
	q.Set("api_key", h.live.String())
	path := "/api/v1/amazon/product?" + q.Encode()
	scrape := func(n, status int, check func(reply)) {
		t.Helper()
		for _, got := range getMany(t, h.base+path, n) {
			if got.status != status {
				t.Fatalf("status %d, want %d: %s", got.status, status, got.raw)
			}
			if check != nil {
				check(got)
			}
		}
	}
	now := h.clock.now()
	alertSeries := func(field, kind string) string {
		return `asa_extractor_health_alert{endpoint="amazon.product",field="` + field + `",kind="` + kind + `"} 1`
	}

	// The 7-day level: good pages two days ago.
	h.clock.add(-48 * time.Hour)
	scrape(api.DefaultHealthMinResponses, 200, func(r reply) {
		if r.body["price"] == nil {
			t.Fatalf("the fixture page gives no price: %s", r.raw)
		}
	})
	if m := h.metrics(t); !strings.Contains(m, `asa_extractor_fill_ratio{endpoint="amazon.product",field="price"} 1`) {
		t.Errorf("no fill ratio of price on /metrics:\n%s", grepLines(m, "amazon.product"))
	}

	// Now: the price block is renamed. One response short of the minimum sample, nothing fires.
	h.clock.add(48 * time.Hour)
	editFile(t, page, `id="priceblock_ourprice"`, `id="priceblock_renamed"`)
	noPrice := func(r reply) {
		if r.body["price"] != nil {
			t.Fatalf("price %v after the markup change", r.body["price"])
		}
	}
	scrape(api.DefaultHealthMinResponses-1, 200, noPrice)
	if m := h.metrics(t); strings.Contains(m, "asa_extractor_health_alert{") {
		t.Fatalf("an alert below the minimum sample:\n%s", grepLines(m, "alert"))
	}
	scrape(1, 200, noPrice)
	m := h.metrics(t)
	for _, want := range []string{
		alertSeries("price", "fill_drop"),
		`asa_extractor_fill_ratio{endpoint="amazon.product",field="price"} 0`,
		`asa_extractor_fill_ratio_7d{endpoint="amazon.product",field="price"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(m, "asa_extractor"))
		}
	}
	// price_main and offers come from the same price block, and alert with it; the title did not
	// move: no alert for it.
	if strings.Contains(m, `field="title",kind="fill_drop"`) {
		t.Errorf("an alert for an unchanged field:\n%s", grepLines(m, "alert"))
	}
	logs := h.logs.String()
	if !regexp.MustCompile(`"msg":"extractor health alert".*"kind":"fill_drop","endpoint":"amazon.product","field":"price"`).MatchString(logs) {
		t.Errorf("no alert log line:\n%s", grepLines(logs, "extractor health"))
	}

	// The dashboard: a banner on the health page, the endpoint's chart and its field rows.
	b := h.browser(t)
	mustStatus(t, "sign-up", b.signUp("ops@example.com", "correct horse battery"), http.StatusSeeOther)
	p := b.get("/dashboard/health")
	mustStatus(t, "health page", p, http.StatusOK)
	for _, want := range []string{`data-testid="health-banner"`, "amazon.product: price is filled in 0% of 30 recent responses, against 100%",
		`data-testid="health-chart"`, `data-endpoint="amazon.product"`, `data-field="price" data-alert`} {
		if !strings.Contains(p.body, want) {
			t.Errorf("health page lacks %s", want)
		}
	}
	if p := b.get("/dashboard"); !strings.Contains(p.body, `href="/dashboard/health"`) || !regexp.MustCompile(`data-testid="health-alerts">[1-9]`).MatchString(p.body) {
		t.Errorf("the dashboard's nav shows no alert count")
	}

	// The title is renamed too: runs end in extraction_failed, and their share fires its alert once
	// the endpoint has its minimum of runs in the window.
	editFile(t, page, `id="productTitle"`, `id="productTitleRenamed"`)
	editFile(t, page, `<meta name="title"`, `<meta name="renamed"`)
	scrape(api.DefaultHealthMinRuns-api.DefaultHealthMinResponses, 502, func(r reply) {
		if r.body["error"] != "extraction_failed" {
			t.Fatalf("want extraction_failed: %s", r.raw)
		}
	})
	m = h.metrics(t)
	for _, want := range []string{alertSeries("", "extraction_failed"), `asa_extractor_outcome_ratio{endpoint="amazon.product",code="extraction_failed"} 0.4`,
		`asa_extractor_runs{endpoint="amazon.product"} 50`} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(m, "asa_extractor"))
		}
	}

	// What the node added to the store: the hours' rows, 30 responses each.
	fills, outs, err := h.db.ExtractorHealth(context.Background(), store.HealthQuery{From: now.Add(-72 * time.Hour), To: now.Add(time.Hour), Endpoint: "amazon.product", ByHour: true})
	if err != nil {
		t.Fatal(err)
	}
	var priceRows []store.FillRow
	for _, f := range fills {
		if f.Field == "price" {
			priceRows = append(priceRows, f)
		}
	}
	if len(priceRows) != 2 || priceRows[0].Filled != 30 || priceRows[1].Filled != 0 || priceRows[1].Responses != 30 ||
		!priceRows[0].Hour.Equal(now.Add(-48*time.Hour).Truncate(time.Hour)) || !strings.HasPrefix(priceRows[0].Version, "amazon@") {
		t.Errorf("price rows %+v", priceRows)
	}
	failed := int64(0)
	for _, o := range outs {
		if o.Code == "extraction_failed" {
			failed += o.Count
		}
	}
	if failed != 20 {
		t.Errorf("extraction_failed outcomes %d, want 20: %+v", failed, outs)
	}
}

// getMany sends n GETs of url, four at a time (runs are independent; the store's group commit
// takes their charges together), and returns the replies.
func getMany(t *testing.T, url string, n int) []reply {
	t.Helper()
	out := make([]reply, n)
	errs := make(chan error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(4, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				resp, err := http.Get(url)
				if err != nil {
					errs <- err
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				out[i] = reply{status: resp.StatusCode, header: resp.Header, raw: string(b)}
				_ = json.Unmarshal(b, &out[i].body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return out
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
