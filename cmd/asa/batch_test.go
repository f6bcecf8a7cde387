package main

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestBatchCommands: asa batch submit against asa serve with the sandbox key shows progress, prints
// the batch record with every result, and asa batch get prints it again; a bad item is reported with
// its line.
func TestBatchCommands(t *testing.T) {
	dir := t.TempDir()
	// amazon alone: the test is about serve, not the catalogue, which costs seconds to load under -race
	sitedefs := siteOnly(t, "amazon")
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--db", filepath.Join(dir, "asa.db"), "--log-format", "json", "--sitedefs", sitedefs}, stdout, stderr)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	}()
	// Poll until the key is printed and the listener is up, or until serve ends: no deadline to
	// outrun.
	var key string
	for exited := false; key == "" && !exited; {
		if m := regexp.MustCompile(`sandbox key: (\S+)`).FindStringSubmatch(stdout.String()); m != nil {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				key = m[1]
				break
			}
		}
		select {
		case code := <-done:
			done <- code
			exited = true
		case <-time.After(10 * time.Millisecond): // poll; not a bound
		}
	}
	if key == "" {
		t.Fatalf("serve did not start: %s", stderr.String())
	}
	items := filepath.Join(dir, "items.jsonl")
	if err := os.WriteFile(items, []byte("{\"query\":\"B0TEST1234\"}\n\n{\"query\":\"B0TEST1235\",\"domain\":\"de\"}\n{\"query\":\"B0TEST1236\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ASA_ADDR": addr, "ASA_API_KEY": key}
	getenv := func(k string) string { return env[k] }
	var out, errw lockedBuffer
	if code := cmdBatch(context.Background(), []string{"submit", "amazon.product", items, "--interval", "20ms"}, getenv, &out, &errw); code != 0 {
		t.Fatalf("submit exited %d: %s", code, errw.String())
	}
	var rec struct {
		ID           string           `json:"id"`
		Status       string           `json:"status"`
		SuccessCount int              `json:"success_count"`
		Results      []map[string]any `json:"results"`
	}
	if err := json.Unmarshal([]byte(out.String()), &rec); err != nil || rec.Status != "complete" || rec.SuccessCount != 3 || len(rec.Results) != 3 {
		t.Fatalf("submit printed %s (%v)", out.String(), err)
	}
	if !strings.Contains(errw.String(), "accepted: 3 items of amazon.product") || !strings.Contains(errw.String(), "] 3/3  ok 3  failed 0") ||
		!strings.Contains(errw.String(), "complete in") {
		t.Errorf("progress: %s", errw.String())
	}
	out, errw = lockedBuffer{}, lockedBuffer{}
	if code := cmdBatch(context.Background(), []string{"get", rec.ID, "--addr", addr, "--api-key", key, "--limit", "1", "--offset", "2"}, getenv, &out, &errw); code != 0 {
		t.Fatalf("get exited %d: %s", code, errw.String())
	}
	var page map[string]any
	if err := json.Unmarshal([]byte(out.String()), &page); err != nil || len(page["results"].([]any)) != 1 || page["processed_count"] != 3.0 {
		t.Fatalf("get printed %s", out.String())
	}
	// An item the endpoint refuses: the message names the item and its line in the file.
	if err := os.WriteFile(items, []byte("{\"query\":\"B0TEST1234\"}\n\n{\"query\":\"B0TEST1235\",\"color\":\"red\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errw = lockedBuffer{}, lockedBuffer{}
	if code := cmdBatch(context.Background(), []string{"submit", "amazon.product", items}, getenv, &out, &errw); code != 1 ||
		!strings.Contains(errw.String(), "items[1] (line 3)") || !strings.Contains(errw.String(), "color") {
		t.Fatalf("bad item: %d %s", code, errw.String())
	}
}

func TestBatchCommandHelpers(t *testing.T) {
	for in, want := range map[string]string{"": "http://127.0.0.1:8080", "localhost:9": "http://localhost:9", "https://api.example.com/": "https://api.example.com"} {
		if got, err := apiBase(in); err != nil || got != want {
			t.Errorf("apiBase(%q) = %q %v", in, got, err)
		}
	}
	if _, err := apiBase("ftp://x"); err == nil {
		t.Error("ftp accepted")
	}
	if got := pollPath("http://h/api/v1/amazon/batch/abc?limit=3"); got != "/api/v1/amazon/batch/abc" {
		t.Errorf("pollPath(url) = %s", got)
	}
	if got := pollPath("abc"); got != "/api/v1/any/batch/abc" {
		t.Errorf("pollPath(id) = %s", got)
	}
	dir := t.TempDir()
	f := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(f, []byte("{\"query\":\"x\"}\n[1]\n"), 0o644)
	if _, _, err := readItems(f); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("readItems: %v", err)
	}
	if got := progressLine(batchProgress{Status: "running", TotalCount: 10, ProcessedCount: 5, SuccessCount: 4, FailureCount: 1, CreditsCharged: 20}, 3*time.Second); got !=
		"[###############...............] 5/10  ok 4  failed 1  credits 20  running  3s" {
		t.Errorf("progress line %q", got)
	}
}
