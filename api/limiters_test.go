package api_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"asa/api"
	"asa/store"
	"asa/store/redislimit"
)

// limiterKinds are the Limiters every HTTP limit test runs on: this node's memory (the default) and
// Redis (api.RedisForTests, a real redis-server; skipped outside CI when none is installed).
var limiterKinds = []string{"memory", "redis"}

var limiterSeq atomic.Int64

// newTestLimiter returns the Limiter of a kind; nil for the default. now is the clock Redis decides
// by (nil: Redis's own TIME).
func newTestLimiter(t *testing.T, kind string, now func() time.Time) api.Limiter {
	t.Helper()
	switch kind {
	case "", "memory":
		return nil
	case "redis":
		rl, err := redislimit.Open(api.RedisForTests.Get(t).URL, redislimit.Options{Prefix: fmt.Sprintf("http%d:", limiterSeq.Add(1)), Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rl.Close() })
		return api.NewRedisLimiter(rl, api.RedisLimiterOptions{Now: now})
	}
	t.Fatalf("unknown limiter %q", kind)
	return nil
}

// TestRedisUnreachable: with Redis down, --redis-fail closed answers 503 service_unavailable (not
// charged, Retry-After) and open admits by this node's memory alone; both count the failure on
// /metrics and log it, and neither crashes.
func TestRedisUnreachable(t *testing.T) {
	// A port nothing listens on: connections are refused at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "redis://" + ln.Addr().String()
	ln.Close()
	for _, tt := range []struct {
		name     string
		failOpen bool
		status   int
		code     string
	}{
		{"closed", false, 503, "service_unavailable"},
		{"open", true, 200, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rl, err := redislimit.Open(dead, redislimit.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rl.Close() })
			logs := &syncBuffer{}
			lim := api.NewRedisLimiter(rl, api.RedisLimiterOptions{FailOpen: tt.failOpen, Log: slog.New(slog.NewJSONHandler(logs, nil))})
			e := startLimited(t, store.PlanFree, 0, lim)
			for i := range 3 {
				r := e.get(t, "/api/v1/shop/product?query=AB1234&api_key="+e.live.String())
				if r.status != tt.status || (tt.code != "" && r.body["error"] != tt.code) {
					t.Fatalf("request %d: %d %s", i+1, r.status, r.raw)
				}
				if tt.status == 503 && (r.header.Get("Retry-After") != "5" || r.header.Get("Asa-Cost") != "0") {
					t.Errorf("503 headers: Retry-After %q, Asa-Cost %q", r.header.Get("Retry-After"), r.header.Get("Asa-Cost"))
				}
				if tt.status == 200 && r.header.Get("Asa-Concurrency") != "1/10" {
					t.Errorf("fail-open admission: Asa-Concurrency %q", r.header.Get("Asa-Concurrency"))
				}
			}
			m := e.get(t, "/metrics")
			for _, want := range []string{"asa_limiter_redis_up 0", "asa_limiter_redis_errors_total "} {
				if !strings.Contains(m.raw, want) {
					t.Errorf("metrics lack %q", want)
				}
			}
			if tt.failOpen && !strings.Contains(m.raw, "asa_limiter_fail_open_total 3") {
				t.Errorf("metrics: want 3 fail-open admissions:\n%s", m.raw)
			}
			if !strings.Contains(logs.String(), "redis unreachable: rate limits fail "+tt.name) {
				t.Errorf("no log line of the failure: %s", logs.String())
			}
			if used, _ := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now()); used != 5*3*boolInt(tt.failOpen) {
				t.Errorf("credits used %d", used)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
