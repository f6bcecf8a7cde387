package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"asa/store"
)

// TestRefusalFloodBoundsTheWAL floods a free sandbox key with requests through the real server on
// loopback and a real SQLite file, in two minutes of a pinned clock: nearly every request is
// refused (429), a few are admitted. The WAL stays small all along (one refusal row a minute per
// kind, not one row per request: before, every refusal was an autocommit of a few pages, about
// 16 KB of WAL each), and every counter is exact: the refusal counts per minute, the usage report
// and the dashboard's totals agree with what the clients were answered.
func TestRefusalFloodBoundsTheWAL(t *testing.T) {
	const (
		perMinute = 1000
		clients   = 8
		walBound  = 4 << 20
	)
	e := startDashboard(t, "", nil)
	b := e.browser(t)
	mustStatus(t, "sign-up", b.signUp("flood@example.com", "correct horse battery"), http.StatusSeeOther)
	key := b.createKey("sandbox")
	ctx := context.Background()
	wss, err := e.db.Workspaces(ctx)
	if err != nil || len(wss) != 1 {
		t.Fatalf("workspaces %v, %v", wss, err)
	}
	ws := wss[0]

	walSize := func() int64 {
		fi, err := os.Stat(e.dbPath + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	var maxWAL int64
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	target := e.base + "/api/v1/amazon/product?query=B0TEST1234&api_key=" + url.QueryEscape(key)
	flood := func() map[int]int {
		var mu sync.Mutex
		byStatus := map[int]int{}
		jobs := make(chan int)
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for i := range jobs {
					resp, err := client.Get(target)
					if err != nil {
						t.Error(err)
						continue
					}
					resp.Body.Close()
					mu.Lock()
					byStatus[resp.StatusCode]++
					if i%100 == 0 {
						maxWAL = max(maxWAL, walSize())
					}
					mu.Unlock()
				}
			})
		}
		for i := range perMinute {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		maxWAL = max(maxWAL, walSize())
		return byStatus
	}
	minute1 := e.clock.now().UTC().Truncate(time.Minute)
	first := flood()
	e.clock.add(time.Minute)
	second := flood()
	t.Logf("minute 1 %v, minute 2 %v, largest WAL %d bytes", first, second, maxWAL)
	for _, m := range []map[int]int{first, second} {
		if m[200]+m[429] != perMinute || m[429] < perMinute/2 {
			t.Fatalf("answers %v: want 200s and a majority of 429s only", m)
		}
	}
	if maxWAL > walBound {
		t.Errorf("the WAL reached %d bytes, want at most %d", maxWAL, walBound)
	}

	refusals, err := e.db.Refusals(ctx, ws.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("[{%s amazon.product 429 rate_limited %d} {%s amazon.product 429 rate_limited %d}]",
		minute1.Format(time.RFC3339), first[429], minute1.Add(time.Minute).Format(time.RFC3339), second[429])
	var got []string
	for _, r := range refusals {
		got = append(got, fmt.Sprintf("{%s %s %d %s %d}", r.Minute.Format(time.RFC3339), r.Endpoint, r.Status, r.ErrorCode, r.Count))
	}
	if fmt.Sprint(got) != want {
		t.Fatalf("refusals %v\nwant       %s", got, want)
	}
	rows, err := e.db.Usage(ctx, store.UsageQuery{WorkspaceID: ws.ID})
	if err != nil {
		t.Fatal(err)
	}
	var requests, errs, credits int
	for _, r := range rows {
		requests, errs, credits = requests+r.Requests, errs+r.Errors, credits+r.Credits
	}
	if requests != 2*perMinute || errs != first[429]+second[429] || credits != 0 {
		t.Fatalf("usage %+v: %d requests, %d errors, %d credits; want %d, %d, 0", rows, requests, errs, credits, 2*perMinute, first[429]+second[429])
	}
	page := b.get("/dashboard/usage?days=7")
	totals := regexp.MustCompile(`data-testid="total-requests">(\d+)</th><th>(\d+)</th>`).FindStringSubmatch(page.body)
	if totals == nil || totals[1] != fmt.Sprint(2*perMinute) || totals[2] != fmt.Sprint(errs) {
		t.Fatalf("dashboard totals %v, want %d requests and %d errors", totals, 2*perMinute, errs)
	}
}
