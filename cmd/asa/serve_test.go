package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"asa/store/pgtest"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestServeFirstRunSandbox is the README's first five minutes: an empty database gets a workspace and
// two keys printed once, and the printed sandbox curl returns a product through the real extraction.
func TestServeFirstRunSandbox(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "data", "asa.db")
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan int, 1)
	// The memory limit is the process's: one far above what the tests use, put back at the end.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--db", db, "--log-format", "json", "--memory-limit", "64GiB"}, stdout, stderr)
	}()
	// Poll until the curl line is printed and the listener is up, or until serve ends: no
	// deadline to outrun.
	var curl string
	for exited := false; curl == "" && !exited; {
		if m := regexp.MustCompile(`curl '([^']+)'`).FindStringSubmatch(stdout.String()); m != nil {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				curl = m[1]
				break
			}
		}
		select {
		case code := <-done:
			done <- code
			exited = true
		case <-time.After(20 * time.Millisecond): // poll; not a bound
		}
	}
	if curl == "" {
		cancel()
		t.Fatalf("no curl line or no listener; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if got := debug.SetMemoryLimit(-1); got != 64<<30 || !strings.Contains(stderr.String(), `"msg":"memory limit","bytes":68719476736`) {
			t.Errorf("--memory-limit 64GiB: the runtime's limit is %d; log:\n%s", got, stderr.String())
		}
	}
	resp, err := http.Get(curl)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("sandbox curl: %d %s", resp.StatusCode, body)
	}
	var product map[string]any
	if err := json.Unmarshal(body, &product); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "title", "price", "currency"} {
		if product[k] == nil {
			t.Errorf("sandbox product lacks %s: %s", k, body)
		}
	}
	if resp.Header.Get("Asa-Cost") != "0" || resp.Header.Get("Asa-Extractor-Version") == "" {
		t.Errorf("headers: %v", resp.Header)
	}
	// The live key works against the store too: without network it cannot fetch, but it is known.
	live := regexp.MustCompile(`live key:\s+(asa_live_\w+)`).FindStringSubmatch(stdout.String())
	if live == nil {
		t.Fatal("no live key printed")
	}
	r2, err := http.Get(fmt.Sprintf("http://%s/api/v1/amazon/product?api_key=%s&query=short", addr, live[1]))
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != 400 {
		t.Errorf("invalid query with the live key: %d, want 400", r2.StatusCode)
	}
	// Keys are printed once: a restart on the same database prints none.
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), live[1]) {
		t.Error("the log contains a full key")
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	out2 := &lockedBuffer{}
	addr2, sitedefs := freeAddr(t), siteOnly(t, "amazon") // the keys, not the catalogue, are under test
	go func() {
		done <- run(ctx2, []string{"serve", "--addr", addr2, "--db", db, "--sitedefs", sitedefs}, out2, io.Discard)
	}()
	// up means past the point where a first start prints its keys
	waitUp(done, func() bool {
		c, err := net.Dial("tcp", addr2)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	cancel2()
	<-done
	if strings.Contains(out2.String(), "live key") {
		t.Error("keys printed again on a second start")
	}
	for _, f := range []string{db, db + "-wal"} {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte(live[1])) {
			t.Errorf("%s holds the full key", filepath.Base(f))
		}
	}
}

func TestKeysCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "asa.db")
	if strings.HasPrefix(t.Name(), "TestPostgres/") {
		// A password in the URL (the test server trusts loopback and ignores it) must never be
		// printed: every message names the database without it.
		db = strings.Replace(pgtest.DB(t), "postgres@", "postgres:pw-never-shown@", 1)
	}
	ctx := context.Background()
	var out, errb bytes.Buffer
	defer func() {
		if strings.Contains(out.String()+errb.String(), "pw-never-shown") {
			t.Errorf("a command printed the database password:\n%s\n%s", out.String(), errb.String())
		}
	}()
	if code := run(ctx, []string{"keys", "create", "--db", db, "--workspace", "acme", "--create-workspace", "--plan", "pro"}, &out, &errb); code != 0 {
		t.Fatalf("create: %d %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	key := lines[len(lines)-1]
	if !regexp.MustCompile(`^asa_live_[0-9A-Za-z]{36}$`).MatchString(key) {
		t.Fatalf("last line is not the key alone: %q", key)
	}
	short := key[len("asa_live_") : len("asa_live_")+12]
	out.Reset()
	if code := run(ctx, []string{"keys", "list", "--db", db}, &out, &errb); code != 0 || !strings.Contains(out.String(), short) || !strings.Contains(out.String(), "active") {
		t.Fatalf("list: %d %s", code, out.String())
	}
	if strings.Contains(out.String(), key) {
		t.Error("list shows the full key")
	}
	if strings.HasPrefix(t.Name(), "TestPostgres/") {
		// Without --db the command says which database it uses (ASA_DB here).
		t.Setenv("ASA_DB", db)
		errb.Reset()
		if code := run(ctx, []string{"keys", "list"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "using the database postgres://postgres:xxxxx@") {
			t.Fatalf("list with ASA_DB: %d %s", code, errb.String())
		}
	}
	out.Reset()
	if code := run(ctx, []string{"keys", "revoke", short, "--db", db}, &out, &errb); code != 0 {
		t.Fatalf("revoke: %d %s", code, errb.String())
	}
	out.Reset()
	run(ctx, []string{"keys", "list", "--db", db}, &out, &errb)
	if !strings.Contains(out.String(), "revoked") {
		t.Errorf("after revoke: %s", out.String())
	}
	if code := run(ctx, []string{"keys", "revoke", "nosuchprefix", "--db", db}, &out, &errb); code != 1 {
		t.Errorf("revoking an unknown prefix: exit %d", code)
	}
	out.Reset()
	if code := run(ctx, []string{"usage", "--db", db, "--workspace", "acme"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "this month 0 of 410000") {
		t.Errorf("usage: %d %s", code, out.String())
	}
}

// TestServeSitedefsDirSandbox: asa serve --sitedefs DIR answers sandbox keys from the fixtures/ beside
// DIR: a family site with no case of its own (and a hyphen in its slug) from its base's default case,
// another site from its own case.
func TestServeSitedefsDirSandbox(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "engine", "fixture", "testdata", "family")
	if err := os.CopyFS(filepath.Join(dir, "sitedefs"), os.DirFS(filepath.Join(src, "sitedefs"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(dir, "fixtures"), os.DirFS(filepath.Join(src, "fixtures"))); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--db", filepath.Join(dir, "asa.db"),
			"--sitedefs", filepath.Join(dir, "sitedefs")}, stdout, io.Discard)
	}()
	defer func() { cancel(); <-done }()
	var key string
	waitUp(done, func() bool {
		if m := regexp.MustCompile(`sandbox key:\s+(asa_test_\w+)`).FindStringSubmatch(stdout.String()); m != nil {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				key = m[1]
			}
		}
		return key != ""
	})
	if key == "" {
		t.Fatalf("no sandbox key or no listener:\n%s", stdout.String())
	}
	tests := []struct{ path, field, want string }{
		{"/api/v1/alpha-kitchen/recipe?url=https://www.alpha-kitchen.example/r/1", "cuisine", "Provençal"},
		{"/api/v1/beta/recipe?url=https://www.beta.example/rezept/42", "title", "Lemon Tart"},
	}
	for _, tt := range tests {
		resp, err := http.Get("http://" + addr + tt.path + "&api_key=" + key)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var out map[string]any
		_ = json.Unmarshal(body, &out)
		if resp.StatusCode != 200 || out[tt.field] != tt.want {
			t.Errorf("%s: %d %s, want %s %q", tt.path, resp.StatusCode, body, tt.field, tt.want)
		}
	}
}

// waitUp polls until ready returns true or the server (done) exits: no deadline of its own, since
// starting asa serve under -race on a loaded machine can take tens of seconds; a real hang is
// reported by go test -timeout. It reports whether the server is up.
func waitUp(done chan int, ready func() bool) bool {
	for !ready() {
		select {
		case code := <-done:
			done <- code
			return false
		case <-time.After(20 * time.Millisecond): // poll; not a bound
		}
	}
	return true
}
