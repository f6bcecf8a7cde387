// Package redistest starts a redis-server of its own for tests and test programs: on a free loopback
// port, from a configuration file in a temporary directory, without persistence, stopped (and its
// directory removed) by Stop. It never touches a system service.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ErrMissing is returned by Start when redis-server is not installed.
var ErrMissing = errors.New("redis-server is not installed (Debian: apt-get install redis-server)")

// Server is a running redis-server.
type Server struct {
	// Addr is HOST:PORT on 127.0.0.1; URL is the same as a redis:// URL.
	Addr string
	URL  string

	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	once sync.Once
}

// Start starts a redis-server and waits until it answers PING. A port taken between choosing and
// binding it is retried on another.
func Start(ctx context.Context) (*Server, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		for _, p := range []string{"/usr/bin/redis-server", "/usr/local/bin/redis-server"} {
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
				break
			}
		}
		if err != nil {
			return nil, ErrMissing
		}
	}
	var last error
	for range 3 {
		s, err := start(ctx, bin)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

func start(ctx context.Context, bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "asa-redis-")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// No persistence and no background saves: a test's data dies with it.
	conf := fmt.Sprintf("bind 127.0.0.1\nport %d\nprotected-mode yes\ndaemonize no\ndir %s\nlogfile %s\nsave \"\"\nappendonly no\ndatabases 1\n",
		port, dir, filepath.Join(dir, "redis.log"))
	cfgPath := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(cfgPath, []byte(conf), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd := exec.Command(bin, cfgPath)
	// The server dies with the process that started it, even if that one is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting redis-server: %w", err)
	}
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, cmd: cmd, done: make(chan struct{})}
	s.URL = "redis://" + s.Addr + "/0"
	go func() { _ = cmd.Wait(); close(s.done) }()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls PING until the server answers, it exits, or 15 s pass.
func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(15 * time.Second)
	for {
		if err := ping(s.Addr); err == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("redis-server exited at start: %s", s.logTail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server did not answer in 15 s: %s", s.logTail())
		}
	}
}

// ping speaks just enough RESP to ask PING, so that the harness needs no client library.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "+PONG") {
		return fmt.Errorf("PING: %q", strings.TrimSpace(line))
	}
	return nil
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if len(b) > 800 {
		b = b[len(b)-800:]
	}
	return strings.TrimSpace(string(b))
}

// Stop ends the server (SIGTERM, SIGKILL after 5 s) and removes its directory. It may be called
// more than once.
func (s *Server) Stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
		os.RemoveAll(s.dir)
	})
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// InCI reports whether the tests run in CI (CI=true), where a missing redis-server is a failure
// rather than a reason to skip.
func InCI() bool { return os.Getenv("CI") == "true" }

// Lazy is one server for a whole test package, started on first use and stopped by TestMain after
// m.Run:
//
//	var redisSrv = redistest.Shared()
//	func TestX(t *testing.T) { srv := redisSrv.Get(t); ... }
//	func TestMain(m *testing.M) { code := m.Run(); redisSrv.Stop(); os.Exit(code) }
type Lazy struct {
	once sync.Once
	srv  *Server
	err  error
}

// Shared returns a server started on first Get.
func Shared() *Lazy { return &Lazy{} }

// Get returns the package's server, starting it on first use. Without redis-server the test is
// skipped, except in CI where it fails.
func (l *Lazy) Get(tb testing.TB) *Server {
	tb.Helper()
	l.once.Do(func() { l.srv, l.err = Start(context.Background()) })
	if l.err != nil {
		if errors.Is(l.err, ErrMissing) && !InCI() {
			tb.Skipf("skipped: %v", l.err)
		}
		tb.Fatalf("redis: %v", l.err)
	}
	return l.srv
}

// Stop stops the server if one was started.
func (l *Lazy) Stop() {
	if l.srv != nil {
		l.srv.Stop()
	}
}

// Wrap returns m with a Run that stops the server after the tests, for a TestMain that hands m to
// something else: goleak.VerifyTestMain(srv.Wrap(m)).
func (l *Lazy) Wrap(m interface{ Run() int }) interface{ Run() int } { return lazyRun{l, m} }

type lazyRun struct {
	l *Lazy
	m interface{ Run() int }
}

func (r lazyRun) Run() int {
	code := r.m.Run()
	r.l.Stop()
	return code
}
