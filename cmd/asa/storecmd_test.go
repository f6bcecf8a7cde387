package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"asa/store"
)

// TestUsageAfterRefusalFlood floods `asa serve` with the sandbox key it prints, through real HTTP:
// a free key, so nearly every request is refused (429). After the server stops, `asa usage` on
// the same database shows exactly the requests and errors the clients were answered, though the
// refusals were counted per key and minute rather than stored one by one.
func TestUsageAfterRefusalFlood(t *testing.T) {
	db := filepath.Join(t.TempDir(), "asa.db")
	addr := freeAddr(t)
	// amazon alone: the test is about serve, not the catalogue, which costs seconds to load under -race
	sitedefs := siteOnly(t, "amazon")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout, stderr := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--db", db, "--sitedefs", sitedefs}, stdout, stderr)
	}()
	var curl string
	waitUp(done, func() bool {
		if m := regexp.MustCompile(`curl '([^']+)'`).FindStringSubmatch(stdout.String()); m != nil {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				curl = m[1]
			}
		}
		return curl != ""
	})
	if curl == "" {
		t.Fatalf("no curl line or no listener; stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
	const requests, clients = 800, 8
	var mu sync.Mutex
	byStatus := map[int]int{}
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	for range clients {
		wg.Go(func() {
			for range jobs {
				resp, err := client.Get(curl)
				if err != nil {
					t.Error(err)
					continue
				}
				resp.Body.Close()
				mu.Lock()
				byStatus[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	for range requests {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	if byStatus[429] < requests/2 || byStatus[200]+byStatus[429] != requests {
		t.Fatalf("answers %v: want 200s and a majority of 429s", byStatus)
	}

	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"usage", "--db", db}, &out, &errb); code != 0 {
		t.Fatalf("usage: %d %s", code, errb.String())
	}
	// Around midnight UTC the requests may span two days: add the rows up.
	var gotRequests, gotErrors, gotCredits int
	for _, m := range regexp.MustCompile(`(?m)^local\s+\d{4}-\d\d-\d\d\s+amazon\.product\s+(\d+)\s+(\d+)\s+(\d+)\s*$`).FindAllStringSubmatch(out.String(), -1) {
		var r, e, c int
		fmt.Sscan(m[1], &r)
		fmt.Sscan(m[2], &e)
		fmt.Sscan(m[3], &c)
		gotRequests, gotErrors, gotCredits = gotRequests+r, gotErrors+e, gotCredits+c
	}
	if gotRequests != requests || gotErrors != byStatus[429] || gotCredits != 0 {
		t.Fatalf("asa usage shows %d requests, %d errors, %d credits; the clients saw %v:\n%s", gotRequests, gotErrors, gotCredits, byStatus, out.String())
	}
}

func TestStoreTimeoutConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "asa.yaml")
	if err := os.WriteFile(file, []byte("store_timeout: 7s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want time.Duration
		err  bool
	}{
		{"default", nil, nil, store.DefaultTimeout, false},
		{"file", []string{"--config", file}, nil, 7 * time.Second, false},
		{"environment over file", []string{"--config", file}, map[string]string{"ASA_STORE_TIMEOUT": "2s"}, 2 * time.Second, false},
		{"flag over environment", []string{"--store-timeout", "500ms"}, map[string]string{"ASA_STORE_TIMEOUT": "2s"}, 500 * time.Millisecond, false},
		{"not a duration", nil, map[string]string{"ASA_STORE_TIMEOUT": "soon"}, 0, true},
		{"negative", []string{"--store-timeout", "-1s"}, nil, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			cfg, err := loadServeConfig(tt.args, func(k string) string { return tt.env[k] }, &errb)
			if tt.err {
				if err == nil {
					t.Fatalf("no error; store timeout %v", cfg.StoreTimeout)
				}
				return
			}
			if err != nil || cfg.StoreTimeout != tt.want {
				t.Fatalf("store timeout %v, %v; want %v", cfg.StoreTimeout, err, tt.want)
			}
		})
	}
}

// TestDBConfig: the database (a file or a postgres:// URL), its pool and the batch lease come from
// the flag, else the environment, else the file, else the defaults.
func TestDBConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "asa.yaml")
	if err := os.WriteFile(file, []byte("db: postgres://db.internal/asa\nbatch_lease: 20s\ndb_pool_size: 4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type got struct {
		db    string
		lease time.Duration
		pool  int
	}
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want got
		err  bool
	}{
		{"default", nil, nil, got{"data/asa.db", 0, 0}, false},
		{"file", []string{"--config", file}, nil, got{"postgres://db.internal/asa", 20 * time.Second, 4}, false},
		{"environment over file", []string{"--config", file},
			map[string]string{"ASA_DB": "postgresql://other/asa", "ASA_BATCH_LEASE": "5s", "ASA_DB_POOL_SIZE": "6"},
			got{"postgresql://other/asa", 5 * time.Second, 6}, false},
		{"flag over environment", []string{"--db", "x.db", "--batch-lease", "2s", "--db-pool-size", "3"},
			map[string]string{"ASA_DB": "postgres://other/asa", "ASA_BATCH_LEASE": "5s"}, got{"x.db", 2 * time.Second, 3}, false},
		{"lease too short", []string{"--batch-lease", "10ms"}, nil, got{}, true},
		{"pool not a number", nil, map[string]string{"ASA_DB_POOL_SIZE": "many"}, got{}, true},
		{"negative pool", []string{"--db-pool-size", "-2"}, nil, got{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errb bytes.Buffer
			cfg, err := loadServeConfig(tt.args, func(k string) string { return tt.env[k] }, &errb)
			if tt.err {
				if err == nil {
					t.Fatalf("no error; %+v", cfg)
				}
				return
			}
			if g := (got{cfg.DB, cfg.BatchLease, cfg.DBPoolSize}); err != nil || g != tt.want {
				t.Fatalf("%+v, %v; want %+v", g, err, tt.want)
			}
		})
	}
}
