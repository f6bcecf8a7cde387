package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

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
