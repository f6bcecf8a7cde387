package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestCacheMaxBytesConfig: cache_max_bytes from the file, the environment over it, and a negative
// value refused.
func TestCacheMaxBytesConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "asa.yaml")
	if err := os.WriteFile(file, []byte("cache_max_bytes: 1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want int64
		bad  bool
	}{
		{"file", nil, 1000, false},
		{"environment over file", map[string]string{"ASA_CACHE_MAX_BYTES": "2000"}, 2000, false},
		{"negative", map[string]string{"ASA_CACHE_MAX_BYTES": "-1"}, 0, true},
		{"not a number", map[string]string{"ASA_CACHE_MAX_BYTES": "1MB"}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadServeConfig([]string{"--config", file}, func(k string) string { return tc.env[k] }, io.Discard)
			if (err != nil) != tc.bad || (!tc.bad && cfg.CacheMaxBytes != tc.want) {
				t.Errorf("got %d, %v", cfg.CacheMaxBytes, err)
			}
		})
	}
}
