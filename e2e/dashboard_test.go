// Package e2e holds the browser tests of the dashboard. The Go test builds asa, serves it on a
// temporary database and runs dashboard.mjs (playwright-core driving Debian's chromium) against it.
package e2e

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// needs finds chromium, node and playwright-core. A developer machine without them skips with what
// to install; CI (CI=true) fails instead, since .ci/run installs them.
func needs(t *testing.T) (chromium, node string) {
	t.Helper()
	var missing []string
	chromium = os.Getenv("CHROMIUM")
	if chromium == "" {
		for _, c := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
			if p, err := exec.LookPath(c); err == nil {
				chromium = p
				break
			}
		}
	}
	if chromium == "" {
		missing = append(missing, "chromium (apt-get install -y chromium)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node")
	}
	if _, err := os.Stat(filepath.Join("node_modules", "playwright-core", "package.json")); err != nil {
		missing = append(missing, "e2e/node_modules/playwright-core (make e2e-deps, or npm ci --prefix e2e)")
	}
	if len(missing) > 0 {
		msg := "browser test needs " + strings.Join(missing, ", ")
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + ": .ci/run installs them, so in CI this is a failure")
		}
		t.Skip(msg + "; skipping on this machine")
	}
	return chromium, node
}

type lockedLines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s)
	l.b.WriteByte('\n')
}

func (l *lockedLines) String() string {
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
	defer ln.Close()
	return ln.Addr().String()
}

// TestDashboardInChromium: sign up, generate a key, use it, see the usage, revoke it, see the next
// request refused; screenshots in e2e/artifacts/.
func TestDashboardInChromium(t *testing.T) {
	chromium, node := needs(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "asa")
	build := exec.Command("go", "build", "-o", bin, "../cmd/asa")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building asa: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	base := "http://" + addr
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	serve := exec.CommandContext(ctx, bin, "serve", "--addr", addr, "--db", filepath.Join(tmp, "asa.db"), "--log-format", "json", "--log-level", "debug")
	serve.Env = append(os.Environ(), "ASA_CONFIG=")
	serve.Cancel = func() error { return serve.Process.Signal(syscall.SIGTERM) }
	serve.WaitDelay = 15 * time.Second
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	serve.Stdout = nil
	logs := &lockedLines{}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			logs.add(sc.Text())
		}
	}()
	defer func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		<-done
		_ = serve.Wait()
	}()
	// Poll until ready, or until asa serve ends (its stderr closes): no deadline to outrun.
	ready := false
	for !ready {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			ready = resp.StatusCode == http.StatusOK
		}
		select {
		case <-done:
		case <-time.After(50 * time.Millisecond): // poll; not a bound
			continue
		}
		break
	}
	if !ready {
		t.Fatalf("asa serve did not become ready:\n%s", logs.String())
	}

	artifacts, err := filepath.Abs("artifacts")
	if err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(artifacts)
	password := fmt.Sprintf("e2e password %d", time.Now().UnixNano())
	run := exec.CommandContext(ctx, node, "dashboard.mjs")
	run.Env = append(os.Environ(), "ASA_BASE="+base, "ASA_ARTIFACTS="+artifacts, "CHROMIUM="+chromium, "ASA_PASSWORD="+password)
	start := time.Now()
	out, err := run.CombinedOutput()
	t.Logf("dashboard.mjs (%v):\n%s", time.Since(start).Round(time.Millisecond), out)
	if err != nil {
		t.Fatalf("browser flow failed: %v (screenshots in %s)\nserver log:\n%s", err, artifacts, logs.String())
	}
	shots, _ := filepath.Glob(filepath.Join(artifacts, "*.png"))
	if len(shots) < 6 {
		t.Fatalf("%d screenshots in %s, want every step", len(shots), artifacts)
	}
	if strings.Contains(logs.String(), password) {
		t.Fatal("the password is in the server log")
	}
	if !strings.Contains(logs.String(), "dashboard sign-up") || !strings.Contains(logs.String(), "dashboard key revoked") {
		t.Fatalf("the server log lacks the dashboard events:\n%s", logs.String())
	}
}
