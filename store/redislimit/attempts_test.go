package redislimit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"asa/store/redislimit"
)

// TestAttemptsSharedAndSliding: two nodes count one subject's attempts together; the window slides
// (the oldest attempt leaving frees one more), Reset forgets, kinds and subjects are apart, and no
// subject is written to Redis as itself.
func TestAttemptsSharedAndSliding(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	url := srv.Get(t).URL
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opt)
	t.Cleanup(func() { rdb.Close() })
	prefix := fmt.Sprintf("test%d:", seq.Add(1))
	a := redislimit.NewAttempts(rdb, redislimit.AttemptsOptions{Prefix: prefix, Now: clock})
	b := redislimit.NewAttempts(rdb, redislimit.AttemptsOptions{Prefix: prefix, Now: clock})
	ctx := context.Background()
	const max, window = 3, time.Minute
	allowed := func(n *redislimit.Attempts, kind, subject string) (bool, time.Duration) {
		t.Helper()
		ok, wait, err := n.Allowed(ctx, kind, subject, max, window)
		if err != nil {
			t.Fatal(err)
		}
		return ok, wait
	}
	add := func(n *redislimit.Attempts, kind, subject string) {
		t.Helper()
		if err := n.Add(ctx, kind, subject, window); err != nil {
			t.Fatal(err)
		}
	}
	// three failures, alternately on each node, ten seconds apart
	for i := range max {
		if ok, _ := allowed([]*redislimit.Attempts{a, b}[i%2], "email", "ops@example.com"); !ok {
			t.Fatalf("attempt %d refused", i+1)
		}
		add([]*redislimit.Attempts{a, b}[i%2], "email", "ops@example.com")
		now = now.Add(10 * time.Second)
	}
	for _, n := range []*redislimit.Attempts{a, b} {
		ok, wait := allowed(n, "email", "ops@example.com")
		// the first attempt, 30 s ago, leaves the window in 30 s
		if ok || wait != 30*time.Second {
			t.Fatalf("after %d attempts: allowed %v, wait %v; want refused for 30s", max, ok, wait)
		}
	}
	if ok, _ := allowed(a, "ip", "ops@example.com"); !ok {
		t.Fatal("another kind shares the email's count")
	}
	if ok, _ := allowed(a, "email", "dev@example.com"); !ok {
		t.Fatal("another email shares the count")
	}
	now = now.Add(30 * time.Second)
	if ok, _ := allowed(b, "email", "ops@example.com"); !ok {
		t.Fatal("the oldest attempt left the window and the next is still refused")
	}
	add(b, "email", "ops@example.com")
	if ok, _ := allowed(a, "email", "ops@example.com"); ok {
		t.Fatal("a new attempt filled the window again, yet another is allowed")
	}
	if err := a.Reset(ctx, "email", "ops@example.com"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := allowed(b, "email", "ops@example.com"); !ok {
		t.Fatal("refused after Reset")
	}
	add(a, "ip", "192.0.2.7")
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.Contains(k, "example.com") || strings.Contains(k, "192.0.2.7") {
			t.Errorf("key %q names its subject", k)
		}
		if ttl := rdb.PTTL(ctx, k).Val(); ttl <= 0 || ttl > window {
			t.Errorf("key %q expires in %v, want within the window (%v)", k, ttl, window)
		}
	}
	if len(keys) == 0 {
		t.Fatal("no keys written")
	}
}
