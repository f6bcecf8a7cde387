// Package fetchtest holds test helpers for code that fetches through real proxies.
package fetchtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Tinyproxy starts Debian's tinyproxy on a loopback port for the test and returns its address and
// a function reading its log. The test is skipped when tinyproxy is not installed (.ci/run installs
// it with apt-get).
func Tinyproxy(t testing.TB) (addr string, log func() string) {
	t.Helper()
	// Above the hosts of a catalogue-wide test (one idle tunnel each); TinyproxyMaxClients tests
	// a proxy at its cap.
	return TinyproxyMaxClients(t, 1000)
}

// TinyproxyMaxClients is Tinyproxy serving at most maxClients connections at once (its MaxClients):
// the next client's connection is accepted and left unanswered until one ends.
func TinyproxyMaxClients(t testing.TB, maxClients int) (addr string, log func() string) {
	t.Helper()
	bin, err := exec.LookPath("tinyproxy")
	if err != nil {
		t.Skip("tinyproxy is not installed (apt-get install -y tinyproxy; .ci/run installs it)")
	}
	dir := t.TempDir()
	for range 5 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr = ln.Addr().String()
		ln.Close()
		_, port, _ := net.SplitHostPort(addr)
		conf := filepath.Join(dir, "tinyproxy.conf")
		cfg := fmt.Sprintf("Port %s\nListen 127.0.0.1\nTimeout 30\nAllow 127.0.0.1\nLogLevel Connect\nMaxClients %d\nDisableViaHeader Yes\n", port, maxClients)
		if err := os.WriteFile(conf, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		out := &buffer{}
		cmd := exec.Command(bin, "-d", "-c", conf)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		for range 100 {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				return addr, out.String
			}
			time.Sleep(20 * time.Millisecond)
		}
		_ = cmd.Process.Kill()
	}
	t.Fatal("tinyproxy did not start")
	return "", nil
}

type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
