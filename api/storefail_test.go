package api_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"asa/api"
	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/store"
)

// startStore is start with store options (a short store timeout) and the database in dir ("" for
// a temporary directory), or at dir when it is a postgres:// URL.
func startStore(t *testing.T, plan string, opts store.Options, dir string) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{logs: &syncBuffer{}, target: &target{hold: make(chan struct{})}, cancel: cancel, done: make(chan error, 1), now: time.Now()}
	if dir == "" {
		dir = t.TempDir()
	}
	e.dbPath = filepath.Join(dir, "asa.db")
	if store.IsPostgres(dir) {
		e.dbPath = dir
	}
	db, err := store.OpenWith(ctx, e.dbPath, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.db = db
	if e.ws, err = db.CreateWorkspace(ctx, "acme", plan, 0); err != nil {
		t.Fatal(err)
	}
	if e.live, _, err = db.CreateKey(ctx, e.ws.ID, false); err != nil {
		t.Fatal(err)
	}
	if e.test, _, err = db.CreateKey(ctx, e.ws.ID, true); err != nil {
		t.Fatal(err)
	}
	reg, diags := registry.Load(engine.New(), os.DirFS("../engine/testdata"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb, err := fixture.NewSandbox(os.DirFS("testdata/fixtures"), reg)
	if err != nil {
		t.Fatal(err)
	}
	backend := api.NewStoreBackend(db, nil)
	log := slog.New(slog.NewJSONHandler(e.logs, nil))
	srv := api.New(api.Config{RequestTimeout: 5 * time.Second, ShutdownTimeout: 5 * time.Second},
		api.Deps{Registry: reg, Live: e.target, Sandbox: sb, Auth: backend, Ledger: backend, Log: log})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.base = "http://" + ln.Addr().String()
	go func() { e.done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-e.done; err != nil {
			t.Errorf("serve: %v", err)
		}
		db.Close()
	})
	return e
}

// lockDB holds the database's write lock from a connection of its own, as another process would
// (asa keys in another terminal, a backup tool), until release.
func lockDB(t *testing.T, path string) (release func()) {
	t.Helper()
	other, err := sql.Open("sqlite3", path) // the driver the store registered; no import of it here
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				t.Error(err)
			}
			conn.Close()
			other.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// TestStoreLockedIsServiceUnavailable: while another connection holds the database's write lock,
// billed requests are answered 503 service_unavailable with Retry-After, charge nothing, log the
// cause with the request id, give their concurrency slots back, and /readyz says not ready; sandbox
// requests, which write nothing on the request path, are served. Once the lock is released the
// service is ready again and the same requests are billed once each.
func TestStoreLockedIsServiceUnavailable(t *testing.T) {
	e := startStore(t, store.PlanPro, store.Options{Timeout: 300 * time.Millisecond}, "")
	ctx := context.Background()
	if r := e.get(t, "/readyz"); r.status != 200 {
		t.Fatalf("readyz before the lock: %d %s", r.status, r.raw)
	}
	release := lockDB(t, e.dbPath)

	const n = 12
	replies := make([]reply, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { replies[i] = e.get(t, "/api/v1/shop/product?api_key="+e.live.String()+"&query=AB1234") })
	}
	wg.Wait()
	for i, r := range replies {
		if r.status != 503 || r.body["error"] != "service_unavailable" {
			t.Fatalf("request %d while locked: %d %s", i, r.status, r.raw)
		}
		if r.header.Get("Retry-After") == "" || r.header.Get("Asa-Cost") != "0" {
			t.Errorf("request %d: Retry-After %q, Asa-Cost %q", i, r.header.Get("Retry-After"), r.header.Get("Asa-Cost"))
		}
		if du, _ := r.body["docs_url"].(string); !strings.HasSuffix(du, "#error-service-unavailable") {
			t.Errorf("docs_url %q", du)
		}
	}
	if r := e.get(t, "/api/v1/shop/product?api_key="+e.test.String()+"&query=QQ1234"); r.status != 200 {
		t.Errorf("sandbox request while locked: %d %s", r.status, r.raw)
	}
	if r := e.get(t, "/readyz"); r.status != 503 {
		t.Errorf("readyz while locked: %d %s", r.status, r.raw)
	}
	// A slot is given back when the handler returns, which may be just after the client has its
	// answer: look a few times.
	for i := 0; ; i++ {
		m := e.get(t, "/metrics")
		if strings.Contains(m.raw, "\nasa_requests_in_flight 0\n") {
			break
		}
		if i == 100 {
			t.Fatalf("concurrency slots still held after the answers:\n%s", m.raw)
		}
		time.Sleep(10 * time.Millisecond)
	}
	logs := e.logs.String()
	rid, _ := replies[0].body["request_id"].(string)
	found := false
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, `"msg":"service unavailable"`) && strings.Contains(line, rid) && strings.Contains(line, "database is locked") {
			found = true
		}
	}
	if !found {
		t.Errorf("no log line gives the cause of %s:\n%s", rid, logs)
	}
	for _, k := range []string{e.live.String(), e.test.String()} {
		if strings.Contains(logs, k) {
			t.Error("a full key is in the logs")
		}
	}
	if used, _ := e.db.CreditsUsed(ctx, e.ws.ID, time.Now()); used != 0 {
		t.Fatalf("%d credits charged for 503 answers", used)
	}

	release()
	if r := e.get(t, "/readyz"); r.status != 200 {
		t.Fatalf("readyz after the lock: %d %s", r.status, r.raw)
	}
	for i := range n {
		if r := e.get(t, "/api/v1/shop/product?api_key="+e.live.String()+"&query=AB1234"); r.status != 200 {
			t.Fatalf("request %d after the lock: %d %s", i, r.status, r.raw)
		}
	}
	if used, _ := e.db.CreditsUsed(ctx, e.ws.ID, time.Now()); used != 5*n {
		t.Fatalf("%d credits charged, want %d", used, 5*n)
	}
	rows, err := e.db.Usage(ctx, store.UsageQuery{WorkspaceID: e.ws.ID})
	if err != nil {
		t.Fatal(err)
	}
	var requests, errs int
	for _, r := range rows {
		requests += r.Requests
		errs += r.Errors
	}
	// n answered 503, one sandbox request, n billed: every one is in the usage report.
	if requests != 2*n+1 || errs != n {
		t.Fatalf("usage %+v: %d requests and %d errors, want %d and %d", rows, requests, errs, 2*n+1, n)
	}
}

// smallDisk mounts a tmpfs of size bytes: a file system that really fills up.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d,mode=0700", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("a real full disk needs a small tmpfs, which needs root: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v %s", dir, err, out)
		}
	})
	return dir
}

// fillDisk writes a file in dir until the file system is full and returns its path.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for i := 0; ; i++ {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return path
			}
			t.Fatal(err)
		}
		if i > 1<<20 {
			t.Fatal("the disk never filled")
		}
	}
}

// TestDiskFullIsServiceUnavailable: on a file system that is really full (a tmpfs, the WAL cut to
// nothing so the next commit must grow it), a billed request is answered 503 service_unavailable
// and charged nothing, /readyz says not ready, and sandbox requests are still served. Once space is
// freed the service is ready again, requests are billed once each, and the usage report counts every
// request, those logged while the disk was full included.
func TestDiskFullIsServiceUnavailable(t *testing.T) {
	dir := smallDisk(t, 4<<20)
	e := startStore(t, store.PlanPro, store.Options{Timeout: 300 * time.Millisecond}, dir)
	ctx := context.Background()
	live := "/api/v1/shop/product?api_key=" + e.live.String() + "&query=AB1234"
	sandbox := "/api/v1/shop/product?api_key=" + e.test.String() + "&query=QQ1234"
	if r := e.get(t, live); r.status != 200 {
		t.Fatalf("before the disk fills: %d %s", r.status, r.raw)
	}
	// Write what the store buffers (the key's last use), then cut the WAL to nothing, as the
	// checkpointer does past its limit, so that the next commit needs new space.
	if _, err := e.db.Usage(ctx, store.UsageQuery{WorkspaceID: e.ws.ID}); err != nil {
		t.Fatal(err)
	}
	other, err := sql.Open("sqlite3", e.dbPath+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	other.Close()
	filler := fillDisk(t, dir)

	r := e.get(t, live)
	if r.status != 503 || r.body["error"] != "service_unavailable" || r.header.Get("Retry-After") == "" || r.header.Get("Asa-Cost") != "0" {
		t.Fatalf("with the disk full: %d Retry-After %q Asa-Cost %q %s", r.status, r.header.Get("Retry-After"), r.header.Get("Asa-Cost"), r.raw)
	}
	if !strings.Contains(e.logs.String(), "database or disk is full") {
		t.Errorf("the cause is not logged:\n%s", e.logs.String())
	}
	if r := e.get(t, sandbox); r.status != 200 {
		t.Errorf("sandbox request with the disk full: %d %s", r.status, r.raw)
	}
	if r := e.get(t, "/readyz"); r.status != 503 {
		t.Errorf("readyz with the disk full: %d %s", r.status, r.raw)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := e.get(t, "/readyz"); r.status != 200 {
		t.Fatalf("readyz with room again: %d %s", r.status, r.raw)
	}
	if r := e.get(t, live); r.status != 200 {
		t.Fatalf("with room again: %d %s", r.status, r.raw)
	}
	if used, _ := e.db.CreditsUsed(ctx, e.ws.ID, time.Now()); used != 10 {
		t.Fatalf("%d credits charged, want 10 (two 200s)", used)
	}
	rows, err := e.db.Usage(ctx, store.UsageQuery{WorkspaceID: e.ws.ID})
	if err != nil {
		t.Fatal(err)
	}
	var requests, errs int
	for _, r := range rows {
		requests += r.Requests
		errs += r.Errors
	}
	if requests != 4 || errs != 1 {
		t.Fatalf("usage %+v: %d requests, %d errors; want 4 and 1", rows, requests, errs)
	}
}
