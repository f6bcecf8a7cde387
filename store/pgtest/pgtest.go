// Package pgtest starts a real PostgreSQL server for tests: initdb into a temporary directory, the
// server on a free loopback port with fsync off, one fresh database per test, and the whole cluster
// stopped and deleted at the end. No mock: the store's PostgreSQL tests run against the server a
// deployment runs.
//
// The binaries (initdb, pg_ctl, postgres) are looked up in PATH, then in /usr/lib/postgresql/*/bin.
// Without them a test skips with a message saying what to install, except in CI (CI=true), where a
// missing server must fail the run rather than silently test SQLite alone.
//
// PostgreSQL refuses to run as root: under root the cluster belongs to the `postgres` system user
// (Debian's package creates it) and every server process runs as that user.
//
// A package starts one server in TestMain and gives each test its own database:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }   // stops the server after the tests
//	...
//	dsn := pgtest.DB(t) // skips (or fails in CI) without PostgreSQL
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a running PostgreSQL cluster owned by the test process.
type Server struct {
	dir   string // the cluster's temporary directory (data directory and log inside)
	bin   string // the directory of pg_ctl and postgres
	port  int
	cred  *syscall.Credential // nil when not running as root
	owner struct{ uid, gid int }
}

// ErrNoBinaries means PostgreSQL's server binaries are not installed.
var ErrNoBinaries = errors.New("PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in PATH or /usr/lib/postgresql/*/bin; install Debian's postgresql package")

// InCI reports whether the tests run in CI, where missing binaries fail instead of skip.
func InCI() bool { return os.Getenv("CI") == "true" }

// findBin returns the directory holding initdb, pg_ctl and postgres.
func findBin() (string, error) {
	var dirs []string
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		dirs = append(dirs, filepath.Dir(p))
	}
	versions, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// The newest version first: "15" < "16" as strings only while versions have two digits.
	sort.Slice(versions, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(versions[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(versions[j])))
		return vi > vj
	})
	dirs = append(dirs, versions...)
	for _, d := range dirs {
		ok := true
		for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
			if _, err := os.Stat(filepath.Join(d, b)); err != nil {
				ok = false
				break
			}
		}
		if ok {
			// Resolve symlinks (/usr/local/bin/pg_ctl -> /usr/lib/postgresql/15/bin/pg_ctl): pg_ctl
			// finds postgres next to its real path anyway, and initdb its share directory.
			if r, err := filepath.EvalSymlinks(filepath.Join(d, "pg_ctl")); err == nil {
				d = filepath.Dir(r)
			}
			return d, nil
		}
	}
	return "", ErrNoBinaries
}

// Start initialises and starts a cluster. Stop it with Stop.
func Start() (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin}
	s.owner.uid, s.owner.gid = os.Getuid(), os.Getgid()
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("pgtest: running as root needs the postgres system user to own the cluster: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.owner.uid, s.owner.gid = uid, gid
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	// /tmp rather than TMPDIR: the postgres user must be able to reach the directory, and a
	// TMPDIR under root's home is not reachable.
	s.dir, err = os.MkdirTemp("/tmp", "asa-pgtest-")
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if err := os.Chmod(s.dir, 0o700); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if err := os.Chown(s.dir, s.owner.uid, s.owner.gid); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	if out, err := s.run("initdb", "-D", s.data(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		s.cleanup()
		return nil, fmt.Errorf("pgtest: initdb: %w\n%s", err, out)
	}
	if err := s.start(); err != nil {
		s.cleanup()
		return nil, err
	}
	return s, nil
}

// start starts the server: on a free port the first time, on the same port after Halt.
func (s *Server) start() error {
	resume := s.port != 0
	// A port that was free a moment ago may be taken by the time the server binds it: try again
	// (on a new port, unless resuming: the clients know the old one).
	for attempt := 0; ; attempt++ {
		if !resume {
			port, err := freePort()
			if err != nil {
				return err
			}
			s.port = port
		}
		opts := strings.Join([]string{
			"-p " + strconv.Itoa(s.port),
			"-c listen_addresses=127.0.0.1",
			"-c unix_socket_directories=''",
			// A test cluster: losing it in a power cut costs nothing, waiting for disks costs time.
			"-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
			"-c max_connections=200", "-c shared_buffers=32MB",
		}, " ")
		out, err := s.run("pg_ctl", "-D", s.data(), "-l", filepath.Join(s.dir, "server.log"), "-o", opts, "-w", "-t", "60", "start")
		if err == nil {
			return nil
		}
		if attempt == 2 || resume {
			log, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
			return fmt.Errorf("pgtest: pg_ctl start: %w\n%s\n%s", err, out, log)
		}
	}
}

// Halt stops the server and keeps its data: what a client sees when the database goes away.
// Resume starts it again.
func (s *Server) Halt() error {
	// fast, not immediate: the test server runs with synchronous_commit off, and an immediate stop
	// would lose the last commits, which a production server would have kept.
	if out, err := s.run("pg_ctl", "-D", s.data(), "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

// Resume starts a halted server again on the same port.
func (s *Server) Resume() error { return s.start() }

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// run runs one of the server's binaries as the cluster's owner.
func (s *Server) run(name string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.Dir = s.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd.CombinedOutput()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Stop stops the server at once (no checkpoint: the cluster is thrown away) and deletes it.
func (s *Server) Stop() error {
	out, err := s.run("pg_ctl", "-D", s.data(), "-m", "immediate", "-w", "stop")
	s.cleanup()
	if err != nil {
		return fmt.Errorf("pgtest: pg_ctl stop: %w\n%s", err, out)
	}
	return nil
}

func (s *Server) cleanup() { _ = os.RemoveAll(s.dir) }

// DSN is the URL of database name on the server.
func (s *Server) DSN(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, name)
}

// CreateDB creates an empty database and returns its URL and a function that drops it.
func (s *Server) CreateDB(ctx context.Context) (dsn string, drop func() error, err error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "t_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, s.DSN("postgres"))
	if err != nil {
		return "", nil, fmt.Errorf("pgtest: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", nil, fmt.Errorf("pgtest: %w", err)
	}
	drop = func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, s.DSN("postgres"))
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		// FORCE: a connection the test leaked must not keep the database (and the test run) alive.
		_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	return s.DSN(name), drop, nil
}

// The package's server: started by the first DB call (so a run that selects no PostgreSQL test
// never starts one) and stopped by Main after the tests.
var (
	shared    *Server
	sharedErr error
	startOnce sync.Once
)

// Main runs the package's tests and then stops the server, if a test started one. It returns
// m.Run's code.
func Main(m *testing.M) int { return Wrap(m).Run() }

// Wrap returns m with a Run that stops the server after the tests: for a TestMain that hands m
// to something else, as goleak.VerifyTestMain(pgtest.Wrap(m)).
func Wrap(m interface{ Run() int }) interface{ Run() int } { return wrapped{m} }

type wrapped struct{ m interface{ Run() int } }

func (w wrapped) Run() int {
	code := w.m.Run()
	startOnce.Do(func() { sharedErr = errors.New("pgtest: the tests are over") })
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Available starts the package's server if no test has yet, and reports whether it runs (nil) or
// why not.
func Available() error {
	startOnce.Do(func() { shared, sharedErr = Start() })
	return sharedErr
}

// DB returns the URL of a new, empty database on the package's server, dropped when the test
// ends. Without a server the test skips, or fails in CI.
func DB(t testing.TB) string {
	t.Helper()
	if err := Available(); err != nil {
		if InCI() || !errors.Is(err, ErrNoBinaries) {
			t.Fatalf("PostgreSQL tests cannot run: %v", err)
		}
		t.Skipf("skipping the PostgreSQL run: %v", err)
	}
	dsn, drop, err := shared.CreateDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("dropping the test database: %v", err)
		}
	})
	return dsn
}
