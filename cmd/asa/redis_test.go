package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"asa/store/redisrevoke"
	"asa/store/redistest"
)

// redisForTests is the package's redis-server, started on first use and stopped by TestMain.
var redisForTests = redistest.Shared()

func TestRedisConfigSources(t *testing.T) {
	file := filepath.Join(t.TempDir(), "asa.yaml")
	if err := os.WriteFile(file, []byte("redis: redis://127.0.0.1:6390/0\nredis_fail: open\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		url, fail  string
		wantErrMsg bool
	}{
		{"defaults: memory, fail closed", nil, nil, "", "closed", false},
		{"file", []string{"--config", file}, nil, "redis://127.0.0.1:6390/0", "open", false},
		{"environment over file", []string{"--config", file}, map[string]string{"ASA_REDIS": "redis://127.0.0.1:6391/0", "ASA_REDIS_FAIL": "closed"}, "redis://127.0.0.1:6391/0", "closed", false},
		{"flags over all", []string{"--config", file, "--redis", "redis://127.0.0.1:6392/1", "--redis-fail", "closed"}, map[string]string{"ASA_REDIS": "redis://x"}, "redis://127.0.0.1:6392/1", "closed", false},
		{"fail is open or closed", []string{"--redis-fail", "maybe"}, nil, "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadServeConfig(tt.args, env(tt.env), io.Discard)
			if tt.wantErrMsg {
				if err == nil {
					t.Fatal("no error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Redis != tt.url || cfg.RedisFail != tt.fail {
				t.Errorf("redis %q fail %q; want %q %q", cfg.Redis, cfg.RedisFail, tt.url, tt.fail)
			}
		})
	}
}

// TestKeysRevokeAnnounces: asa keys revoke --redis tells the running nodes (a subscriber on the
// revocation channel hears the key's short prefix); with a Redis that cannot be reached the
// revocation still stands and the command says who will not hear of it.
func TestKeysRevokeAnnounces(t *testing.T) {
	srv := redisForTests.Get(t)
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "k.db")
	keys := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"keys"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	short := func(out string) string {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		k := strings.TrimSpace(lines[len(lines)-1])
		return k[len("asa_live_") : len("asa_live_")+12]
	}
	code, out, errText := keys("create", "--db", db, "--workspace", "acme", "--create-workspace")
	if code != 0 {
		t.Fatalf("create: %d %s", code, errText)
	}
	first := short(out)
	bus, err := redisrevoke.Open(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	sctx, cancel := context.WithCancel(ctx)
	heard := make(chan string, 8)
	done := make(chan struct{})
	go func() { bus.Subscribe(sctx, func(s string) { heard <- s }, nil); close(done) }()
	defer func() { cancel(); <-done }()
	if v := <-heard; v != "" { // subscribed
		t.Fatalf("first message %q", v)
	}
	if code, _, errText := keys("revoke", first, "--db", db, "--redis", srv.URL); code != 0 || errText != "" {
		t.Fatalf("revoke: %d %q", code, errText)
	}
	select {
	case v := <-heard:
		if v != first {
			t.Fatalf("heard %q, want %q", v, first)
		}
	case <-time.After(20 * time.Second): // a bound on a hang, not a measure
		t.Fatal("the revocation was not announced")
	}
	// Redis unreachable: revoked all the same, with a warning.
	_, out, _ = keys("create", "--db", db, "--workspace", "acme")
	second := short(out)
	t.Setenv("ASA_REDIS", "redis://127.0.0.1:1/0")
	code, out, errText = keys("revoke", second, "--db", db)
	if code != 0 || !strings.Contains(out, "revoked "+second) || !strings.Contains(errText, "not announced to the nodes") {
		t.Fatalf("revoke with Redis down: %d %q %q", code, out, errText)
	}
}
