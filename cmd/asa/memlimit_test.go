package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

func TestParseMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int64
		auto  bool
		bad   bool
	}{
		{in: "auto", auto: true},
		{in: "AUTO", auto: true},
		{in: "off"},
		{in: "none"},
		{in: "0"},
		{in: "256MiB", limit: 256 << 20},
		{in: "256 MiB", limit: 256 << 20},
		{in: "300MB", limit: 300e6},
		{in: "1.5GiB", limit: 3 << 29},
		{in: "2gb", limit: 2e9},
		{in: "134217728", limit: 128 << 20},
		{in: "134217728B", limit: 128 << 20},
		{in: "65536KiB", limit: 64 << 20},
		{in: "63MiB", bad: true}, // under the floor
		{in: "1", bad: true},
		{in: "-256MiB", bad: true},
		{in: "256XB", bad: true},
		{in: "MiB", bad: true},
		{in: "", bad: true},
		{in: "lots", bad: true},
		{in: "1e30GiB", bad: true},
		{in: "NaNMiB", bad: true},
	} {
		limit, auto, err := parseMemoryLimit(tc.in)
		if (err != nil) != tc.bad || limit != tc.limit || auto != tc.auto {
			t.Errorf("parseMemoryLimit(%q) = %d, %v, %v; want %d, %v, error %v", tc.in, limit, auto, err, tc.limit, tc.auto, tc.bad)
		}
	}
}

// TestMemoryLimitAuto: auto is nine tenths of the cgroup's limit (v2, else v1), and none without
// one or with an unlimited one; an explicit size ignores the cgroup.
func TestMemoryLimitAuto(t *testing.T) {
	v2 := func(s string) fstest.MapFS { return fstest.MapFS{"sys/fs/cgroup/memory.max": {Data: []byte(s)}} }
	v1 := func(s string) fstest.MapFS {
		return fstest.MapFS{"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte(s)}}
	}
	for _, tc := range []struct {
		name    string
		setting string
		root    fstest.MapFS
		want    int64
	}{
		{"v2 limit", "auto", v2("1000000000\n"), 900000000},
		{"v2 unlimited", "auto", v2("max\n"), 0},
		{"v1 limit", "auto", v1("314572800\n"), 283115520},
		{"v1 unlimited", "auto", v1("9223372036854771712\n"), 0},
		{"no cgroup", "auto", fstest.MapFS{}, 0},
		{"explicit size", "256MiB", v2("1000000000\n"), 256 << 20},
		{"off", "off", v2("1000000000\n"), 0},
	} {
		got, from, err := memoryLimit(tc.setting, tc.root)
		if err != nil || got != tc.want || from == "" {
			t.Errorf("%s: %d (%s), %v; want %d", tc.name, got, from, err, tc.want)
		}
	}
}

// TestMemoryLimitConfig: memory_limit from the file, the environment over it, the flag over both,
// and a malformed value refused at start.
func TestMemoryLimitConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "asa.yaml")
	if err := os.WriteFile(file, []byte("memory_limit: 512MiB\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
		bad  bool
	}{
		{"default", nil, nil, "auto", false},
		{"file", []string{"--config", file}, nil, "512MiB", false},
		{"environment over file", []string{"--config", file}, map[string]string{"ASA_MEMORY_LIMIT": "off"}, "off", false},
		{"flag over both", []string{"--config", file, "--memory-limit", "256MiB"}, map[string]string{"ASA_MEMORY_LIMIT": "off"}, "256MiB", false},
		{"malformed", []string{"--memory-limit", "lots"}, nil, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadServeConfig(tc.args, func(k string) string { return tc.env[k] }, io.Discard)
			if (err != nil) != tc.bad || (!tc.bad && cfg.MemoryLimit != tc.want) {
				t.Errorf("got %q, %v", cfg.MemoryLimit, err)
			}
		})
	}
}
