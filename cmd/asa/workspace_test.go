package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"asa/store"
	"asa/store/pgtest"
)

// TestWorkspacePlanCommands: a Custom workspace takes its limits and credits from the CLI, within
// the spec's ranges; other plans refuse them.
func TestWorkspacePlanCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "asa.db")
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		args []string
		code int
		out  string
	}{
		{"custom", []string{"workspace", "create", "big", "--plan", "custom", "--credits", "2000000", "--concurrency", "300", "--rps", "200"}, 0, "plan custom, 2000000 credits a month; per key 300 in flight, 200 requests/s, 400 per 3s"},
		{"custom without credits", []string{"workspace", "create", "c2", "--plan", "custom", "--rps", "60"}, 2, "needs a monthly credit allowance"},
		{"rps over 500", []string{"workspace", "create", "c3", "--plan", "custom", "--credits", "9", "--rps", "501"}, 2, "rps 501: the custom plan takes 50 to 500"},
		{"concurrency under 100", []string{"workspace", "create", "c4", "--plan", "custom", "--credits", "9", "--concurrency", "50"}, 2, "concurrency 50: the custom plan takes 100 to 5000"},
		{"limits on pro", []string{"workspace", "create", "p", "--plan", "pro", "--rps", "100"}, 2, "only on the custom plan"},
		{"keys create on a new custom workspace", []string{"keys", "create", "--workspace", "k", "--create-workspace", "--plan", "custom", "--credits", "500", "--concurrency", "150", "--rps", "75"}, 0, "per key 150 in flight, 75 requests/s, 150 per 3s"},
		{"keys create keeps an existing workspace's plan", []string{"keys", "create", "--workspace", "big", "--plan", "pro"}, 0, "workspace big exists; its plan is unchanged (plan custom"},
		{"set only the rate", []string{"workspace", "set", "big", "--rps", "250"}, 0, "per key 300 in flight, 250 requests/s, 500 per 3s"},
		{"set back to pro", []string{"workspace", "set", "k", "--plan", "pro"}, 0, "plan pro, 410000 credits a month; per key 50 in flight, 25 requests/s, 60 per 3s"},
		{"set an unknown workspace", []string{"workspace", "set", "nobody", "--plan", "pro"}, 1, "not found"},
		{"list", []string{"workspace", "list"}, 0, "WORKSPACE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(ctx, append(tt.args, "--db", db), &out, &errb)
			if code != tt.code || !strings.Contains(out.String()+errb.String(), tt.out) {
				t.Fatalf("exit %d, want %d; want %q in:\n%s%s", code, tt.code, tt.out, out.String(), errb.String())
			}
		})
	}
}

// TestServeAppliesConfiguredCustomPlan: the configuration file sets a Custom workspace's limits at
// start, and a key of that workspace is served under them (Asa-Concurrency and Asa-Rps show the
// ceilings), over loopback against the SQLite file.
func TestServeAppliesConfiguredCustomPlan(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "asa.db")
	ctx := context.Background()
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"keys", "create", "--db", db, "--workspace", "big", "--create-workspace", "--test", "--plan", "custom", "--credits", "1000"}, &out, &errb); code != 0 {
		t.Fatalf("keys create: %d %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	key := lines[len(lines)-1]
	conf := filepath.Join(dir, "asa.yaml")
	write := func(body string) {
		if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Out of range: refused before anything starts.
	write("workspaces:\n  - {name: big, plan: custom, credits: 2000000, concurrency: 400, rps: 20}\n")
	errb.Reset()
	if code := run(ctx, []string{"serve", "--db", db, "--config", conf, "--addr", freeAddr(t)}, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), "rps 20") {
		t.Fatalf("rps 20 in the config: exit %d %s", code, errb.String())
	}
	write("workspaces:\n  - {name: big, plan: custom, credits: 2000000, concurrency: 400, rps: 250}\n  - {name: team, plan: vibe}\n")
	addr := freeAddr(t)
	// amazon alone: the test is about serve, not the catalogue, which costs seconds to load under -race
	sitedefs := siteOnly(t, "amazon")
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan int, 1)
	logs := &lockedBuffer{}
	go func() {
		done <- run(sctx, []string{"serve", "--db", db, "--config", conf, "--addr", addr, "--sitedefs", sitedefs}, io.Discard, logs)
	}()
	stopped := false
	defer func() {
		if !stopped {
			cancel()
			<-done
		}
	}()
	var resp *http.Response
	waitUp(done, func() bool {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false
		}
		c.Close()
		r, err := http.Get("http://" + addr + "/api/v1/amazon/product?query=B0TEST1234&api_key=" + key)
		if err != nil {
			t.Fatal(err)
		}
		resp = r
		return true
	})
	if resp == nil {
		t.Fatalf("no listener:\n%s", logs.String())
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasSuffix(resp.Header.Get("Asa-Concurrency"), "/400") || !strings.HasSuffix(resp.Header.Get("Asa-Rps"), "/250") {
		t.Fatalf("%d, Asa-Concurrency %q, Asa-Rps %q", resp.StatusCode, resp.Header.Get("Asa-Concurrency"), resp.Header.Get("Asa-Rps"))
	}
	cancel()
	stopped = true
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, logs.String())
	}
	out.Reset()
	run(ctx, []string{"workspace", "list", "--db", db}, &out, io.Discard)
	for _, want := range []string{`big\s+custom\s+2000000\s+400\s+250\s+500`, `team\s+vibe\s+135000\s+30\s+10\s+40`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("list lacks %s:\n%s", want, out.String())
		}
	}
}

// TestNodesStartTogether: nodes started at the same moment on one empty PostgreSQL database all
// start: one creates the first-run workspace and prints its keys, and each configured workspace
// is created once, whoever gets there first.
func TestNodesStartTogether(t *testing.T) {
	if !strings.HasPrefix(t.Name(), "TestPostgres/") {
		t.Skip("nodes share a database on PostgreSQL only")
	}
	dsn := pgtest.DB(t)
	ctx := context.Background()
	cfg := defaultServeConfig()
	cfg.DB, cfg.PublicURL = dsn, "http://127.0.0.1:1"
	wss := []workspaceConfig{{Name: "team", Plan: "pro"}, {Name: "big", Plan: "custom", Credits: 100000, Concurrency: 200, RPS: 100}}
	const nodes = 4
	outs := make([]bytes.Buffer, nodes)
	errs := make([]error, nodes)
	dbs := make([]*store.DB, nodes)
	for i := range dbs {
		db, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		dbs[i] = db
	}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, db := range dbs {
		wg.Go(func() {
			<-start
			if errs[i] = firstRun(ctx, db, cfg, &outs[i]); errs[i] == nil {
				errs[i] = applyWorkspaces(ctx, db, wss, slog.New(slog.DiscardHandler))
			}
		})
	}
	close(start)
	wg.Wait()
	printed := 0
	for i := range nodes {
		if errs[i] != nil {
			t.Errorf("node %d: %v", i, errs[i])
		}
		if strings.Contains(outs[i].String(), "live key:") {
			printed++
		}
	}
	if printed != 1 {
		t.Errorf("%d nodes printed first-run keys, want 1", printed)
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Workspaces(ctx)
	if err != nil || len(got) != 3 {
		t.Fatalf("workspaces %+v %v, want local, team and big once each", got, err)
	}
}
