package api_test

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"asa/api"
	"asa/store/redislimit"
)

var attemptsSeq atomic.Int64

// TestDashboardAttemptLimitsSharedByNodes: two nodes on one Redis count failed sign-ins together, so
// the limit holds for the deployment and not per node; a success on one node clears the email's
// failures on both, and the window slides on the shared count.
func TestDashboardAttemptLimitsSharedByNodes(t *testing.T) {
	rl, err := redislimit.Open(api.RedisForTests.Get(t).URL, redislimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rl.Close() })
	clock := &sharedClock{t: time.Now()}
	attempts := rl.Attempts(redislimit.AttemptsOptions{Prefix: fmt.Sprintf("dash%d:", attemptsSeq.Add(1)), Now: clock.now})
	tune := func(c *api.DashboardConfig) {
		c.SignInPerEmail, c.SignInPerIP, c.SignInWindow = 3, 100, 10*time.Minute
		c.Attempts = attempts
	}
	nodes := []*dashEnv{startDashboard(t, "", tune), startDashboard(t, "", tune)}
	for i, n := range nodes {
		// Each test node has a store of its own: the account is made on both.
		mustStatus(t, "sign-up on node "+strconv.Itoa(i+1), n.browser(t).signUp("shared@example.com", "the right password"), http.StatusSeeOther)
	}
	for i := range 3 {
		mustStatus(t, "wrong password "+strconv.Itoa(i+1), nodes[i%2].browser(t).signIn("shared@example.com", "wrong password"), http.StatusUnauthorized)
	}
	for i, n := range nodes {
		if p := n.browser(t).signIn("shared@example.com", "the right password"); p.status != http.StatusTooManyRequests {
			t.Fatalf("node %d after 3 failures over both nodes: %d, want 429", i+1, p.status)
		}
	}
	clock.add(11 * time.Minute)
	mustStatus(t, "after the window", nodes[1].browser(t).signIn("shared@example.com", "the right password"), http.StatusSeeOther)
	// Two failures, a success on the other node, then two more failures are all allowed: the
	// success cleared the shared count.
	for i, n := range []int{0, 0, 1, 0, 0} {
		want := http.StatusUnauthorized
		pw := "wrong password"
		if i == 2 {
			want, pw = http.StatusSeeOther, "the right password"
		}
		mustStatus(t, "attempt "+strconv.Itoa(i+1), nodes[n].browser(t).signIn("shared@example.com", pw), want)
	}
	if logs := nodes[0].logs.String() + nodes[1].logs.String(); strings.Contains(logs, "shared store fails") {
		t.Fatalf("a failure of the shared store was logged:\n%s", logs)
	}
}

// TestDashboardAttemptLimitsWithoutRedis: when the shared store cannot be reached the node counts
// alone, so the limit still holds on it, and the failure is logged once without the email.
func TestDashboardAttemptLimitsWithoutRedis(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "redis://" + ln.Addr().String()
	ln.Close()
	rl, err := redislimit.Open(dead, redislimit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rl.Close() })
	e := startDashboard(t, "", func(c *api.DashboardConfig) {
		c.SignInPerEmail, c.SignInPerIP, c.SignInWindow = 2, 100, 10*time.Minute
		c.Attempts = rl.Attempts(redislimit.AttemptsOptions{})
	})
	mustStatus(t, "sign-up", e.browser(t).signUp("alone@example.com", "the right password"), http.StatusSeeOther)
	for i := range 2 {
		mustStatus(t, "wrong password "+strconv.Itoa(i+1), e.browser(t).signIn("alone@example.com", "wrong password"), http.StatusUnauthorized)
	}
	mustStatus(t, "third attempt", e.browser(t).signIn("alone@example.com", "the right password"), http.StatusTooManyRequests)
	logs := e.logs.String()
	// One line per limit (sign-up per address, sign-in per address, per email), not per attempt.
	if n := strings.Count(logs, "shared store fails"); n != 3 {
		t.Errorf("%d log lines of the shared store's failure, want 3:\n%s", n, logs)
	}
	if strings.Contains(logs, "alone@example.com") {
		t.Error("an email in the log")
	}
}

// sharedClock is the attempt store's clock, moved by the test (the nodes' own clocks are their own).
type sharedClock struct {
	t      time.Time
	offset atomic.Int64
}

func (c *sharedClock) now() time.Time { return c.t.Add(time.Duration(c.offset.Load())) }

func (c *sharedClock) add(d time.Duration) { c.offset.Add(int64(d)) }
