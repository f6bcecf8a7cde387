package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestDashboardBatches: a batch made through the API shows in its workspace's dashboard with its
// status, progress and items, and never in another workspace's.
func TestDashboardBatches(t *testing.T) {
	e := startDash(t, "", nil, true)
	a, b := e.browser(t), e.browser(t)
	mustStatus(t, "sign-up a", a.signUp("batch-a@example.com", "password of a"), http.StatusSeeOther)
	mustStatus(t, "sign-up b", b.signUp("batch-b@example.com", "password of b"), http.StatusSeeOther)
	key := a.createKey("sandbox")
	body := `{"endpoint":"amazon.product","items":[{"query":"B0TEST1234"},{"query":"B01GOH7PKA","domain":"co.uk"}]}`
	resp, err := http.Post(e.base+"/api/v1/amazon/batch?api_key="+url.QueryEscape(key), "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID string `json:"id"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&created)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created.ID == "" {
		t.Fatalf("creating the batch: %d %+v", resp.StatusCode, created)
	}
	// Poll until the page shows the batch complete: no deadline to outrun; a batch that never
	// completes is a hang that go test's -timeout reports with every goroutine's stack.
	var page string
	for page == "" {
		p := a.get("/dashboard/batches/" + created.ID)
		mustStatus(t, "batch page", p, http.StatusOK)
		if strings.Contains(p.body, `data-testid="batch-status">complete<`) {
			page = p.body
			break
		}
		time.Sleep(50 * time.Millisecond) // poll; not a bound
	}
	for _, want := range []string{`<tr data-index="0">`, `<tr data-index="1">`, "B01GOH7PKA", "2 of 2", "2 succeeded, 0 failed"} {
		if !strings.Contains(page, want) {
			t.Errorf("the batch page lacks %q:\n%s", want, page)
		}
	}
	list := a.get("/dashboard/batches")
	if !strings.Contains(list.body, `data-batch="`+created.ID+`"`) || !strings.Contains(list.body, `<progress max="2" value="2">`) {
		t.Errorf("a's batch list lacks the batch and its progress:\n%s", list.body)
	}
	if !strings.Contains(a.get("/dashboard").body, `href="/dashboard/batches"`) {
		t.Error("no Batches link in the navigation")
	}
	if p := b.get("/dashboard/batches"); strings.Contains(p.body, created.ID) {
		t.Error("b's batch list shows a's batch")
	}
	if p := b.get("/dashboard/batches/" + created.ID); p.status != http.StatusNotFound || strings.Contains(p.body, "B0TEST1234") {
		t.Errorf("b opening a's batch: %d", p.status)
	}
}
