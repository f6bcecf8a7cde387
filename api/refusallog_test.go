package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"asa/store"
)

// logLines decodes the JSON log lines of one message.
func logLines(t *testing.T, logs string, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

// byStatus counts lines per status (JSON numbers decode as float64).
func byStatus(lines []map[string]any) map[int]int {
	out := map[int]int{}
	for _, l := range lines {
		s, _ := l["status"].(float64)
		out[int(s)]++
	}
	return out
}

// TestRefusedRequestsLogOncePerWindow floods the real server on loopback with refused requests (a
// bad key: 401; a free key past its limits: 429) on the server's clock, which the test moves: the
// first of each kind is logged as any request, the rest are counted, and the count comes out in
// one "requests refused" line once the window has passed, then at shutdown. Admitted requests are
// each logged. Every count is what the clients were answered.
func TestRefusedRequestsLogOncePerWindow(t *testing.T) {
	e := startEdge(t, edgeOpts{plan: store.PlanFree}) // 2 RPS, 10 per 3 s
	const n = 150
	bad := "asa_live_" + strings.Repeat("x", 40)
	got := map[int]int{}
	for range n {
		got[e.product(t, bad).status]++
	}
	key := e.test.String()
	for range n {
		got[e.product(t, key).status]++
	}
	if got[http.StatusUnauthorized] != n || got[http.StatusTooManyRequests] == 0 || got[http.StatusOK] == 0 {
		t.Fatalf("answers %v: want %d 401s, some 429s and some 200s", got, n)
	}
	lines := byStatus(logLines(t, e.logs.String(), "request"))
	if lines[http.StatusUnauthorized] != 1 || lines[http.StatusTooManyRequests] != 1 || lines[http.StatusOK] != got[http.StatusOK] {
		t.Errorf("request lines per status %v; want one 401, one 429 and one per 200 (%d)", lines, got[http.StatusOK])
	}
	if s := logLines(t, e.logs.String(), "requests refused"); len(s) != 0 {
		t.Errorf("summaries before the window passed: %v", s)
	}

	// A minute later, one more refusal: the summaries of both groups, and a line of its own.
	e.clock.Advance(time.Minute + time.Second)
	if r := e.product(t, bad); r.status != http.StatusUnauthorized {
		t.Fatalf("status %d", r.status)
	}
	sums := logLines(t, e.logs.String(), "requests refused")
	want := map[int]int{http.StatusUnauthorized: n - 1, http.StatusTooManyRequests: got[http.StatusTooManyRequests] - 1}
	if len(sums) != 2 {
		t.Fatalf("summaries %v, want one per group", sums)
	}
	for _, s := range sums {
		st := int(s["status"].(float64))
		if c := int(s["count"].(float64)); c != want[st] {
			t.Errorf("status %d: summary count %d, want %d", st, c, want[st])
		}
		if st == http.StatusUnauthorized && (s["client"] != "127.0.0.1" || s["key"] != nil) {
			t.Errorf("a request without a valid key is grouped by its address: %v", s)
		}
		if st == http.StatusTooManyRequests && s["key"] != e.test.Short() {
			t.Errorf("a refused key's group names its short prefix: %v", s)
		}
		if s["first_request_id"] == "" || s["endpoint"] != "shop.product" {
			t.Errorf("summary %v", s)
		}
	}
	if c := byStatus(logLines(t, e.logs.String(), "request"))[http.StatusUnauthorized]; c != 2 {
		t.Errorf("%d request lines for 401, want 2 (one per window)", c)
	}

	// Three more in the new window, then the server stops: their summary is not lost.
	for range 3 {
		e.product(t, bad)
	}
	e.cancel()
	err := <-e.done
	e.done <- err // for the cleanup
	sums = logLines(t, e.logs.String(), "requests refused")
	if last := sums[len(sums)-1]; len(sums) != 3 || int(last["count"].(float64)) != 3 {
		t.Errorf("summaries after shutdown %v, want a third with count 3", sums)
	}
	for _, l := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(l, bad) || strings.Contains(l, key) {
			t.Fatalf("a key in the log: %s", l)
		}
	}
}
