package redisrevoke_test

import (
	"bufio"
	"context"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"asa/store/redisrevoke"
	"asa/store/redistest"
)

var srv = redistest.Shared()

func TestMain(m *testing.M) {
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

// TestRevocationsReachSubscribers: a subscriber hears "" (forget everything) when it subscribes,
// every published prefix, and "" again after Redis dropped its connection, since it may have
// missed messages meanwhile.
func TestRevocationsReachSubscribers(t *testing.T) {
	s := srv.Get(t)
	sub, err := redisrevoke.Open(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	pub, err := redisrevoke.Open(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 16)
	done := make(chan struct{})
	go func() { sub.Subscribe(ctx, func(short string) { got <- short }, nil); close(done) }()
	defer func() { cancel(); <-done }()
	next := func(what string) string {
		t.Helper()
		select {
		case v := <-got:
			return v
		case <-time.After(20 * time.Second): // a bound on a hang, not a measure
			t.Fatalf("nothing received: %s", what)
			return ""
		}
	}
	if v := next("the subscription"); v != "" {
		t.Fatalf("first message %q, want the subscription's forget-everything", v)
	}
	if err := pub.Publish(ctx, "abcDEF123456"); err != nil {
		t.Fatal(err)
	}
	if v := next("a revocation"); v != "abcDEF123456" {
		t.Fatalf("got %q", v)
	}
	// Redis drops every subscriber's connection; the client reconnects and subscribes again.
	if reply := command(t, s.Addr, "CLIENT KILL TYPE pubsub"); !strings.HasPrefix(reply, ":1") {
		t.Fatalf("CLIENT KILL: %q", reply)
	}
	if v := next("the resubscription"); v != "" {
		t.Fatalf("after the lost connection: %q, want forget-everything", v)
	}
	if err := pub.Publish(ctx, "zzzZZZ999999"); err != nil {
		t.Fatal(err)
	}
	if v := next("a revocation after the reconnection"); v != "zzzZZZ999999" {
		t.Fatalf("got %q", v)
	}
}

// command sends one inline command to Redis and returns its reply's first line.
func command(t *testing.T, addr, cmd string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(cmd + "\r\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}
