package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"asa/store"
)

// TestUsageCountsRefusals: `asa usage` reports refused requests, which the store counts per key
// and minute instead of storing one by one, exactly, next to the billed ones.
func TestUsageCountsRefusals(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "asa.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := db.CreateWorkspace(ctx, "acme", store.PlanPro, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, rec, err := db.CreateKey(ctx, ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC()
	for i := range 2 {
		c := store.Charge{ID: fmt.Sprint("c", i), WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5, At: at}
		if err := db.Charge(ctx, c, store.RequestLog{Status: 200}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1003 {
		status, code := 429, "rate_limited"
		if i%500 == 0 {
			status, code = 502, "target_unreachable"
		}
		l := store.RequestLog{RequestID: fmt.Sprint("r", i), WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Status: status, ErrorCode: code, At: at}
		if err := db.LogRequest(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil { // flushes the request log
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(ctx, []string{"usage", "--db", path, "--workspace", "acme"}, &out, &errb); code != 0 {
		t.Fatalf("usage: %d %s", code, errb.String())
	}
	row := regexp.MustCompile(`(?m)^acme\s+` + at.Format("2006-01-02") + `\s+amazon\.product\s+1005\s+1003\s+10\s*$`)
	if !row.MatchString(out.String()) {
		t.Fatalf("usage does not show 1005 requests, 1003 errors, 10 credits:\n%s", out.String())
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
