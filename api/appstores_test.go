package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"asa/api"
	"asa/engine"
	"asa/fixtures"
	"asa/store"
)

// replay answers each step (and page) of a live run with a recorded fixture page, and keeps the
// requests it was sent: the target sites stay out of the test, the plan, the API and the billing
// do not.
type replay struct {
	mu    sync.Mutex
	pages map[string]string // "step" or "step@N" -> path in fixtures.FS
	seen  []*engine.Request
}

func (r *replay) Fetch(_ context.Context, req *engine.Request) (*engine.Response, error) {
	r.mu.Lock()
	r.seen = append(r.seen, req)
	r.mu.Unlock()
	key := req.Step
	if req.Page > 1 {
		key += "@" + strconv.Itoa(req.Page)
	}
	p, ok := r.pages[key]
	if !ok {
		return nil, fmt.Errorf("no recorded page for %s", key)
	}
	b, err := fs.ReadFile(fixtures.FS, p)
	if err != nil {
		return nil, err
	}
	return &engine.Response{Status: 200, URL: req.URL, Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, Body: b}, nil
}

// startAppStores is a server on loopback with the shipped sitedefs, the embedded fixtures as its
// sandbox, live requests answered by rp, and a real SQLite file.
func startAppStores(t *testing.T, rp *replay) (base, live, test string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "asa.db"))
	if err != nil {
		t.Fatal(err)
	}
	ws, err := db.CreateWorkspace(ctx, "apps", store.PlanPro, 0)
	if err != nil {
		t.Fatal(err)
	}
	liveKey, _, err := db.CreateKey(ctx, ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	testKey, _, err := db.CreateKey(ctx, ws.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	reg, sb := shipped(t)
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{RequestTimeout: 10 * time.Second, ShutdownTimeout: 5 * time.Second},
		api.Deps{Registry: reg, Sandbox: sb, Live: rp, Auth: backend, Ledger: backend,
			Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		db.Close()
	})
	return "http://" + ln.Addr().String(), liveKey.String(), testKey.String()
}

func getJSON(t *testing.T, u string) (int, http.Header, map[string]any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("%s: not JSON: %.200s", u, b)
	}
	return resp.StatusCode, resp.Header, body
}

// TestAppStoresSandboxContent: a sandbox key's curl on the app store endpoints of spec 4.5 gets the
// content of spec 2.5 (iOS product: title, developer, rating, price, screenshots, description; iOS
// reviews: rating, title, body, author, date; Android product: title, developer, rating, installs,
// price, description), unbilled.
func TestAppStoresSandboxContent(t *testing.T) {
	base, _, test := startAppStores(t, &replay{})
	tests := []struct {
		path     string
		list     string // a list field whose items must have every key of want
		want     []string
		caseName string
	}{
		{"/api/v1/appstore/product?query=284882215&country=us", "",
			[]string{"title", "developer", "rating", "price", "currency", "screenshots", "description", "version", "genres"}, "default"},
		{"/api/v1/appstore/reviews?query=284882215", "reviews",
			[]string{"id", "rating", "title", "body", "author", "date"}, "default"},
		{"/api/v1/googleplay/product?query=com.example.notes", "",
			[]string{"title", "developer", "rating", "installs", "price", "free", "description", "screenshots"}, "default"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			status, h, body := getJSON(t, base+tc.path+"&api_key="+test)
			if status != 200 || h.Get(api.HeaderSandboxCase) != tc.caseName || h.Get(api.HeaderCost) != "0" {
				t.Fatalf("status %d, case %q, cost %q: %v", status, h.Get(api.HeaderSandboxCase), h.Get(api.HeaderCost), body)
			}
			objs := []map[string]any{body}
			if tc.list != "" {
				items, _ := body[tc.list].([]any)
				if len(items) == 0 {
					t.Fatalf("no %s: %v", tc.list, body)
				}
				objs = objs[:0]
				for _, it := range items {
					objs = append(objs, it.(map[string]any))
				}
			}
			for i, o := range objs {
				for _, k := range tc.want {
					if v, ok := o[k]; !ok || v == nil || v == "" {
						t.Errorf("item %d: %s is %v", i, k, v)
					}
				}
			}
		})
	}
}

// TestAppStoreReviewPagesBilled: reviews are billed per page fetched. appstore.reviews with pages=2
// costs two requests; googleplay.reviews follows the continuation token on page 2 (sent in the
// form-encoded RPC body) and stops when the answer has none, so pages=3 fetches and bills two. The
// suggest RPC's hand-encoded body carries its term (a space as +) and costs one request.
func TestAppStoreReviewPagesBilled(t *testing.T) {
	rp := &replay{pages: map[string]string{
		"feed":    "appstore/reviews/two-pages/feed.json",
		"feed@2":  "appstore/reviews/two-pages/feed@2.json",
		"rpc":     "googleplay/reviews/two-pages/rpc.txt",
		"rpc@2":   "googleplay/reviews/two-pages/rpc@2.txt",
		"suggest": "googleplay/suggest/default/suggest.txt",
	}}
	base, live, _ := startAppStores(t, rp)

	status, h, body := getJSON(t, base+"/api/v1/appstore/reviews?query=310633997&pages=2&api_key="+live)
	if status != 200 || h.Get(api.HeaderCost) != strconv.Itoa(2*api.CostPerRequest) {
		t.Fatalf("appstore: status %d, cost %q: %v", status, h.Get(api.HeaderCost), body)
	}
	if n := len(body["reviews"].([]any)); n != 3 {
		t.Errorf("appstore: %d reviews, want 3", n)
	}
	if got := rp.seen[1].URL; !strings.Contains(got, "/us/rss/customerreviews/page=2/id=310633997/") {
		t.Errorf("appstore page 2 URL %s", got)
	}

	rp.seen = nil
	status, h, body = getJSON(t, base+"/api/v1/googleplay/reviews?query=com.example.translator&pages=3&sort=relevant&api_key="+live)
	if status != 200 || h.Get(api.HeaderCost) != strconv.Itoa(2*api.CostPerRequest) {
		t.Fatalf("googleplay: status %d, cost %q: %v", status, h.Get(api.HeaderCost), body)
	}
	if len(rp.seen) != 2 {
		t.Fatalf("googleplay: %d requests, want 2", len(rp.seen))
	}
	for i, want := range []string{`[null,null,[2,1,[40,null,null],null,[]],["com.example.translator",7]]`,
		`[null,null,[2,1,[40,null,"CtgBTESTONLYcursorAbc_-123="],null,[]],["com.example.translator",7]]`} {
		req := rp.seen[i]
		form, err := url.ParseQuery(string(req.Body))
		if err != nil || req.Method != http.MethodPost {
			t.Fatalf("page %d: %s %q (%v)", i+1, req.Method, req.Body, err)
		}
		var freq [][][]any
		if err := json.Unmarshal([]byte(form.Get("f.req")), &freq); err != nil || len(freq) != 1 || len(freq[0]) != 1 {
			t.Fatalf("page %d: f.req %q: %v", i+1, form.Get("f.req"), err)
		}
		if rpc := freq[0][0]; rpc[0] != "UsvDTd" || rpc[1] != want {
			t.Errorf("page %d: rpc %v, want UsvDTd %s", i+1, rpc, want)
		}
	}

	rp.seen = nil
	status, h, body = getJSON(t, base+"/api/v1/googleplay/suggest?query=photo+ed&api_key="+live)
	if status != 200 || h.Get(api.HeaderCost) != strconv.Itoa(api.CostPerRequest) || len(rp.seen) != 1 {
		t.Fatalf("suggest: status %d, cost %q, %d requests: %v", status, h.Get(api.HeaderCost), len(rp.seen), body)
	}
	form, err := url.ParseQuery(string(rp.seen[0].Body))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := form.Get("f.req"), `[[["IJ4APc","[[null,[\"photo ed\"],[10],[2],4]]",null,"generic"]]]`; got != want {
		t.Errorf("suggest f.req %s, want %s", got, want)
	}
}
