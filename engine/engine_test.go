package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fixture"
	"asa/engine/registry"
)

func loadShop(t testing.TB) *registry.Registry {
	t.Helper()
	reg, diags := registry.Load(engine.New(), os.DirFS("testdata"))
	if diags.HasErrors() {
		t.Fatalf("testdata sitedefs: %v", diags)
	}
	return reg
}

const productPage = `<html><head>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","sku":"AB1234","name":"Kettle",
 "offers":{"@type":"Offer","price":"34.99","priceCurrency":"USD"}}</script>
<script>window.__STATE__ = {"stock": 3, "note": "a } inside a string"};</script>
</head><body>
<input id="sku" value="AB1234">
<h1>  Steel   Kettle
 1.7 l </h1>
<span id="rating" data-value="4.5"></span>
<div id="gallery"><img src="/i/1.jpg"><img src="https://cdn.shop.example/i/2.jpg"></div>
<ul id="variants"><li data-id="AB1234">Black</li><li>no id</li><li data-id="AB1235">White</li></ul>
%s
</body></html>`

func page(extra string) string { return strings.Replace(productPage, "%s", extra, 1) }

func reply(body string) *fixture.Reply {
	return &fixture.Reply{Status: 200, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: []byte(body)}
}

func run(t *testing.T, reg *registry.Registry, id string, params url.Values, replies map[string]*fixture.Reply) fixture.Outcome {
	t.Helper()
	return fixture.Execute(context.Background(), reg.Plan(id), params, &fixture.Replay{Replies: replies})
}

func TestProduct(t *testing.T) {
	reg := loadShop(t)
	out := run(t, reg, "shop.product", url.Values{"query": {" ab1234 "}}, map[string]*fixture.Reply{"page": reply(page(""))})
	if out.Err != nil {
		t.Fatalf("unexpected error: %v", out.Err)
	}
	want := `{"id":"AB1234","title":"Steel Kettle 1.7 l","price":34.99,"currency":"USD","rating":4.5,"in_stock":true,` +
		`"images":["https://www.shop.example/i/1.jpg","https://cdn.shop.example/i/2.jpg"],` +
		`"variants":[{"id":"AB1234","label":"Black","position":1},{"id":"AB1235","label":"White","position":3}],"offers":[]}`
	if string(out.JSON) != want {
		t.Errorf("got  %s\nwant %s", out.JSON, want)
	}
}

func TestProductTwoStepsAndHTML(t *testing.T) {
	reg := loadShop(t)
	var seen []*engine.Request
	var mu sync.Mutex
	body := page(`<div id="offers" data-url="/api/offers?p=AB1234"></div>`)
	f := engine.FetcherFunc(func(_ context.Context, req *engine.Request) (*engine.Response, error) {
		mu.Lock()
		seen = append(seen, req)
		mu.Unlock()
		if req.Step == "offers" {
			return &engine.Response{Status: 200, URL: req.URL, Body: []byte(`{"offers":[{"seller":"A","price":1.5},{"seller":"B","price":2}]}`)}, nil
		}
		return &engine.Response{Status: 200, URL: req.URL, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(body)}, nil
	})
	plan := reg.Plan("shop.product")
	ps, err := plan.Params(url.Values{"query": {"https://www.shop.example.de/p/AB1234"}, "add_html": {"true"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Run(context.Background(), ps, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 {
		t.Fatalf("want 2 requests, got %d", len(seen))
	}
	if got := seen[0].URL; got != "https://www.shop.example.de/p/AB1234?ref=x+y" {
		t.Errorf("step 1 URL %s", got)
	}
	if got := seen[0].Header.Get("Accept-Language"); got != "de-DE" {
		t.Errorf("Accept-Language %q", got)
	}
	if got := seen[1].URL; got != "https://www.shop.example.de/api/offers?p=AB1234" {
		t.Errorf("step 2 URL %s", got)
	}
	b, _ := res.MarshalJSON()
	var data map[string]any
	if err := json.Unmarshal(b, &data); err != nil {
		t.Fatal(err)
	}
	if data["html"] != body {
		t.Errorf("html missing or altered")
	}
	if offers := data["offers"].([]any); len(offers) != 2 || offers[1].(map[string]any)["seller"] != "B" {
		t.Errorf("offers %v", data["offers"])
	}
	if !strings.HasSuffix(string(b), `"html":`+string(mustJSON(body))+`}`) {
		t.Errorf("html is not last or is escaped differently: ...%s", b[len(b)-80:])
	}
	if plan.Version != "shop@1.2.3" {
		t.Errorf("version %s", plan.Version)
	}
}

func mustJSON(v any) []byte {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return []byte(strings.TrimSpace(b.String()))
}

func TestErrors(t *testing.T) {
	reg := loadShop(t)
	tests := []struct {
		name     string
		params   url.Values
		replies  map[string]*fixture.Reply
		code     errcode.Code
		detail   string
		attempts int
	}{
		{"missing query", url.Values{}, nil, errcode.InvalidParams, "", 0},
		{"bad pattern", url.Values{"query": {"abc"}}, nil, errcode.InvalidParams, "", 0},
		{"unknown param", url.Values{"query": {"AB1234"}, "colour": {"red"}}, nil, errcode.InvalidParams, "", 0},
		{"bad domain", url.Values{"query": {"AB1234"}, "domain": {"fr"}}, nil, errcode.InvalidParams, "", 0},
		{"foreign URL", url.Values{"query": {"https://evil.example/p/AB1234"}}, nil, errcode.InvalidParams, "", 0},
		{"URL contradicts domain", url.Values{"query": {"https://www.shop.example.de/p/AB1234"}, "domain": {"us"}}, nil, errcode.InvalidParams, "", 0},
		{"bad bool", url.Values{"query": {"AB1234"}, "add_html": {"maybe"}}, nil, errcode.InvalidParams, "", 0},
		{"not found", url.Values{"query": {"AB1234"}}, map[string]*fixture.Reply{"page": {Status: 404, Body: []byte("<html><body>gone</body></html>")}}, errcode.ProductNotFound, "", 1},
		// A 404 or 410 is product_not_found whatever else the page matches (a gallery, a captcha):
		// only rules that test for the status have a say, and without one the status is the answer.
		{"410 without a rule", url.Values{"query": {"AB1234"}}, map[string]*fixture.Reply{"page": {Status: 410, Body: []byte("<html><body>gone</body></html>")}}, errcode.ProductNotFound, "", 1},
		{"404 on a gallery page", url.Values{"query": {"AB1234"}}, map[string]*fixture.Reply{"page": {Status: 404, Body: []byte(`<html><body><div class="gallery-grid"></div></body></html>`)}}, errcode.ProductNotFound, "", 1},
		{"404 with a captcha form", url.Values{"query": {"AB1234"}}, map[string]*fixture.Reply{"page": {Status: 404, Body: []byte(`<form action="/captcha"></form>`)}}, errcode.ProductNotFound, "", 1},
		{"captcha every attempt", url.Values{"query": {"AB1234"}}, map[string]*fixture.Reply{"page": reply(`<form action="/captcha"></form>`)}, errcode.TargetUnreachable, "blocked", 2},
		{"server error", url.Values{"query": {"AB1234"}}, map[string]*fixture.Reply{"page": {Status: 503, Body: []byte("oops")}}, errcode.TargetUnreachable, "status", 1},
		{"empty page", url.Values{"query": {"AB1234"}}, map[string]*fixture.Reply{"page": reply("")}, errcode.ExtractionFailed, "", 1},
		{"other item", url.Values{"query": {"ZZ9999"}}, map[string]*fixture.Reply{"page": reply(page(""))}, errcode.IDMismatch, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := reg.Plan("shop.product")
			ps, err := plan.Params(tt.params)
			if err == nil {
				_, err = plan.Run(context.Background(), ps, &fixture.Replay{Replies: tt.replies})
			}
			e := errcode.As(err)
			if e == nil {
				t.Fatalf("want %s, got %v", tt.code, err)
			}
			if e.Code != tt.code || e.Detail != tt.detail {
				t.Fatalf("want %s/%q, got %s/%q: %s", tt.code, tt.detail, e.Code, e.Detail, e.Message)
			}
			var re *engine.RunError
			if errors.As(err, &re) && re.Attempts != tt.attempts {
				t.Errorf("attempts %d, want %d", re.Attempts, tt.attempts)
			}
			if tt.code == errcode.InvalidParams && len(e.Params) == 0 && !strings.Contains(e.Message, "exceed") {
				t.Errorf("invalid_params without params: %s", e.Message)
			}
		})
	}
}

func reviewsPage(ids ...string) *fixture.Reply {
	var b strings.Builder
	b.WriteString("<html><body>")
	for _, id := range ids {
		b.WriteString(`<div class="review" id="` + id + `"></div>`)
	}
	b.WriteString("</body></html>")
	return reply(b.String())
}

func TestPaginationPositions(t *testing.T) {
	reg := loadShop(t)
	var urls []string
	f := &fixture.Replay{Replies: map[string]*fixture.Reply{
		"page":   reviewsPage("ad1", "r1", "r2", "ad2", "r3"),
		"page@2": reviewsPage("ad3", "r4"),
		"page@3": reviewsPage(),
	}}
	rec := engine.FetcherFunc(func(ctx context.Context, req *engine.Request) (*engine.Response, error) {
		urls = append(urls, req.URL)
		return f.Fetch(ctx, req)
	})
	plan := reg.Plan("shop.reviews")
	ps, err := plan.Params(url.Values{"query": {"AB1234"}, "start_page": {"2"}, "pages": {"5"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Run(context.Background(), ps, rec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Units != 2 {
		t.Errorf("units %d, want 2 (the empty third page stops the run and is not billed)", res.Units)
	}
	if len(urls) != 3 || !strings.HasSuffix(urls[0], "page=2") || !strings.HasSuffix(urls[2], "page=4") {
		t.Errorf("urls %v", urls)
	}
	b, _ := res.MarshalJSON()
	want := `{"page":2,"reviews":[` +
		`{"id":"ad1","sponsored":true,"organic_position":null,"sponsored_position":1},` +
		`{"id":"r1","sponsored":false,"organic_position":1,"sponsored_position":null},` +
		`{"id":"r2","sponsored":false,"organic_position":2,"sponsored_position":null},` +
		`{"id":"ad2","sponsored":true,"organic_position":null,"sponsored_position":2},` +
		`{"id":"r3","sponsored":false,"organic_position":3,"sponsored_position":null},` +
		`{"id":"ad3","sponsored":true,"organic_position":null,"sponsored_position":3},` +
		`{"id":"r4","sponsored":false,"organic_position":4,"sponsored_position":null}],"last_page":4}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if _, err := plan.Params(url.Values{"query": {"AB1234"}, "start_page": {"8"}, "pages": {"5"}}); errcode.Of(err) != errcode.InvalidParams {
		t.Errorf("start_page 8 + 5 pages: want invalid_params, got %v", err)
	}
}

func TestRecursionAndJSONBody(t *testing.T) {
	reg := loadShop(t)
	var body []byte
	f := engine.FetcherFunc(func(_ context.Context, req *engine.Request) (*engine.Response, error) {
		body = req.Body
		return &engine.Response{Status: 200, URL: req.URL, Body: []byte(`{"title":"T","comments":[
			{"author":"a","replies":[{"author":"b","replies":[{"author":"c"}]}]},{"author":"d"}]}`)}, nil
	})
	plan := reg.Plan("shop.thread")
	ps, err := plan.Params(url.Values{"query": {"abc"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Run(context.Background(), ps, f)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != `{"depth":3,"id":"abc","tags":["a","abc"]}` {
		t.Errorf("request body %s", body)
	}
	b, _ := res.MarshalJSON()
	want := `{"title":"T","comments":[{"author":"a","replies":[{"author":"b","replies":[{"author":"c","replies":[]}]}]},{"author":"d","replies":[]}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// TestConcurrentPlan runs one compiled plan on many goroutines: XPath and expr programs are shared and
// must not race (antchfx/xpath keeps iteration state in its query trees).
func TestConcurrentPlan(t *testing.T) {
	reg := loadShop(t)
	plan := reg.Plan("shop.product")
	ps, err := plan.Params(url.Values{"query": {"AB1234"}})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture.Replay{Replies: map[string]*fixture.Reply{"page": reply(page(""))}}
	first, err := plan.Run(context.Background(), ps, f)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := first.MarshalJSON()
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				res, err := plan.Run(context.Background(), ps, f)
				if err != nil {
					errs <- err.Error()
					return
				}
				got, _ := res.MarshalJSON()
				if string(got) != string(want) {
					errs <- string(got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("concurrent run differs: %s", e)
	}
}

// TestParamErrorsSayWhatToGive: a value that matches neither the parameter's pattern nor its URL
// pattern is refused in the author's words (the description and example) where the parameter has
// a description (a capital that only starts the sentence lowered), and with the pattern where it
// has none.
func TestParamErrorsSayWhatToGive(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, name := range []string{"site.yaml", "product.yaml", "reviews.yaml", "thread.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "shop", name))
		if err != nil {
			t.Fatal(err)
		}
		fsys["shop/"+name] = &fstest.MapFile{Data: b}
	}
	described := fstest.MapFS{}
	maps.Copy(described, fsys)
	product := string(fsys["shop/product.yaml"].Data)
	withDesc := strings.Replace(product, "    pattern: '[A-Z0-9]{6}'\n",
		"    pattern: '[A-Z0-9]{6}'\n    description: The six-character item code, or a product URL of the shop.\n", 1)
	if withDesc == product {
		t.Fatal("testdata/shop/product.yaml changed: its query's pattern line is not where the test adds a description")
	}
	described["shop/product.yaml"] = &fstest.MapFile{Data: []byte(withDesc)}
	for _, tc := range []struct {
		fsys  fs.FS
		query string
		want  string
	}{
		{described, "AB12", `query: "AB12" is not valid; give the six-character item code, or a product URL of the shop, for example AB1234`},
		{described, "https://www.shop.example/q/AB1234", `query: https://www.shop.example/q/AB1234 is not a URL this endpoint reads; give the six-character item code, or a product URL of the shop, for example AB1234`},
		{fsys, "AB12", `query: "AB12" does not match [A-Z0-9]{6}`},
		{fsys, "https://www.shop.example/q/AB1234", `query: the URL is not one this endpoint recognises (want https?://(?P<host>www\.shop\.example(?:\.de)?)/p/(?P<query>[A-Z0-9]{6}))`},
	} {
		reg, diags := registry.Load(engine.New(), tc.fsys)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		_, err := reg.Plan("shop.product").Params(url.Values{"query": {tc.query}})
		if err == nil || errcode.Of(err) != errcode.InvalidParams {
			t.Fatalf("%s: %v, want invalid_params", tc.query, err)
		}
		var e *errcode.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %T is not an *errcode.Error", tc.query, err)
		}
		if e.Message != tc.want {
			t.Errorf("%s: message %q, want %q", tc.query, e.Message, tc.want)
		}
	}
}
