package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestBrowserConfigSources(t *testing.T) {
	file := filepath.Join(t.TempDir(), "asa.yaml")
	if err := os.WriteFile(file, []byte("browser: /file/chromium\nbrowser_contexts: 3\nbrowser_timeout: 40s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		browser  string
		contexts int
		timeout  time.Duration
		err      bool
	}{
		{name: "off by default"},
		{name: "file", args: []string{"--config", file}, browser: "/file/chromium", contexts: 3, timeout: 40 * time.Second},
		{name: "environment over file", args: []string{"--config", file},
			env:     map[string]string{"ASA_BROWSER": "/env/chromium", "ASA_BROWSER_CONTEXTS": "5", "ASA_BROWSER_TIMEOUT": "10s"},
			browser: "/env/chromium", contexts: 5, timeout: 10 * time.Second},
		{name: "flags over all", args: []string{"--config", file, "--browser", "/usr/bin/chromium", "--browser-contexts", "16", "--browser-timeout", "1m"},
			env:     map[string]string{"ASA_BROWSER": "/env/chromium"},
			browser: "/usr/bin/chromium", contexts: 16, timeout: time.Minute},
		{name: "negative contexts", args: []string{"--browser-contexts", "-1"}, err: true},
		{name: "bad duration", env: map[string]string{"ASA_BROWSER_TIMEOUT": "soon"}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadServeConfig(tt.args, env(tt.env), io.Discard)
			if (err != nil) != tt.err {
				t.Fatalf("err %v, want error %v", err, tt.err)
			}
			if tt.err {
				return
			}
			if cfg.Browser != tt.browser || cfg.BrowserContexts != tt.contexts || cfg.BrowserTimeout != tt.timeout {
				t.Errorf("browser %q contexts %d timeout %v; want %q %d %v", cfg.Browser, cfg.BrowserContexts, cfg.BrowserTimeout, tt.browser, tt.contexts, tt.timeout)
			}
		})
	}
}
