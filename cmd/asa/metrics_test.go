package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeMetricsAddrAndToken: asa serve --metrics-addr --metrics-token moves /metrics to its own
// listener, behind the token, over real HTTP.
func TestServeMetricsAddrAndToken(t *testing.T) {
	dir := t.TempDir()
	// amazon alone: the test is about serve, not the catalogue, which costs seconds to load under -race
	sitedefs := siteOnly(t, "amazon")
	addr, maddr := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", addr, "--db", filepath.Join(dir, "asa.db"),
			"--metrics-addr", maddr, "--metrics-token", "tok-123", "--sitedefs", sitedefs}, io.Discard, stderr)
	}()
	get := func(url, token string) (int, string, error) {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), nil
	}
	// Wait for both listeners, or for the server to exit.
	var err1, err2 error
	if !waitUp(done, func() bool {
		_, _, err1 = get("http://"+addr+"/healthz", "")
		_, _, err2 = get("http://"+maddr+"/metrics", "")
		return err1 == nil && err2 == nil
	}) {
		t.Fatalf("listeners not up: %v %v\n%s", err1, err2, stderr.String())
	}
	if code, _, _ := get("http://"+addr+"/metrics", "tok-123"); code != 404 {
		t.Errorf("/metrics on the API address: %d, want 404", code)
	}
	if code, body, _ := get("http://"+maddr+"/metrics", ""); code != 401 || !strings.Contains(body, `"unauthorized"`) {
		t.Errorf("/metrics without the token: %d %s", code, body)
	}
	if code, body, _ := get("http://"+maddr+"/metrics", "tok-123"); code != 200 || !strings.Contains(body, "asa_requests_in_flight") {
		t.Errorf("/metrics with the token: %d %.200s", code, body)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("serve exited %d: %s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "tok-123") {
		t.Error("the metrics token reached the log")
	}
}

func TestMetricsConfigSources(t *testing.T) {
	file := filepath.Join(t.TempDir(), "asa.yaml")
	if err := os.WriteFile(file, []byte("metrics_addr: 127.0.0.1:9101\nmetrics_token: from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		addr, tok string
	}{
		{"defaults", nil, nil, "", ""},
		{"file", []string{"--config", file}, nil, "127.0.0.1:9101", "from-file"},
		{"environment over file", []string{"--config", file}, map[string]string{"ASA_METRICS_ADDR": "127.0.0.1:9102", "ASA_METRICS_TOKEN": "from-env"}, "127.0.0.1:9102", "from-env"},
		{"flags over all", []string{"--config", file, "--metrics-addr", "127.0.0.1:9103", "--metrics-token", "from-flag"}, map[string]string{"ASA_METRICS_TOKEN": "from-env"}, "127.0.0.1:9103", "from-flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadServeConfig(tt.args, env(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.MetricsAddr != tt.addr || cfg.MetricsToken != tt.tok {
				t.Errorf("addr %q token %q; want %q %q", cfg.MetricsAddr, cfg.MetricsToken, tt.addr, tt.tok)
			}
		})
	}
}
