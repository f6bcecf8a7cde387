package main

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestDashboardConfigSources(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	file := write("asa.yaml", "secure_cookies: false\nsession_ttl: 24h\nsign_in_per_email: 3\nsign_in_per_ip: 30\nsign_in_window: 10m\nsign_up_per_ip: 4\nsign_up_window: 2h\n")
	badDuration := write("bad-duration.yaml", "addr: 127.0.0.1:9\nsign_in_window: soon\n")
	badCount := write("bad-count.yaml", "sign_up_per_ip: -1\n")
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	no, yes := false, true
	type dash struct {
		secure                   *bool
		ttl, inWindow, upWindow  time.Duration
		perEmail, perIP, upPerIP int
	}
	defaults := dash{nil, 7 * 24 * time.Hour, 15 * time.Minute, time.Hour, 5, 20, 10}
	fromFile := dash{&no, 24 * time.Hour, 10 * time.Minute, 2 * time.Hour, 3, 30, 4}
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    dash
		wantErr string // a part of the error, naming the setting; "" for none
	}{
		{name: "defaults", want: defaults},
		{name: "file", args: []string{"--config", file}, want: fromFile},
		{name: "environment over file", args: []string{"--config", file},
			env: map[string]string{"ASA_SECURE_COOKIES": "true", "ASA_SESSION_TTL": "1h", "ASA_SIGN_IN_PER_EMAIL": "7",
				"ASA_SIGN_IN_PER_IP": "70", "ASA_SIGN_IN_WINDOW": "1m", "ASA_SIGN_UP_PER_IP": "2", "ASA_SIGN_UP_WINDOW": "30m"},
			want: dash{&yes, time.Hour, time.Minute, 30 * time.Minute, 7, 70, 2}},
		{name: "flags over all", args: []string{"--config", file, "--secure-cookies", "--session-ttl", "2h", "--sign-in-per-email", "2",
			"--sign-in-per-ip", "9", "--sign-in-window", "30s", "--sign-up-per-ip", "1", "--sign-up-window", "5m"},
			env:  map[string]string{"ASA_SECURE_COOKIES": "false", "ASA_SIGN_IN_PER_EMAIL": "7"},
			want: dash{&yes, 2 * time.Hour, 30 * time.Second, 5 * time.Minute, 2, 9, 1}},
		{name: "a flag turns Secure off", args: []string{"--secure-cookies=false"}, env: map[string]string{"ASA_SECURE_COOKIES": "1"},
			want: dash{&no, defaults.ttl, defaults.inWindow, defaults.upWindow, defaults.perEmail, defaults.perIP, defaults.upPerIP}},
		{name: "negative count flag", args: []string{"--sign-in-per-email", "-1"}, wantErr: "sign_in_per_email -1: want 1 or more"},
		{name: "zero count env", env: map[string]string{"ASA_SIGN_IN_PER_IP": "0"}, wantErr: "sign_in_per_ip 0: want 1 or more"},
		{name: "negative count file", args: []string{"--config", badCount}, wantErr: "sign_up_per_ip -1: want 1 or more"},
		{name: "count not a number", env: map[string]string{"ASA_SIGN_UP_PER_IP": "ten"}, wantErr: "ASA_SIGN_UP_PER_IP"},
		{name: "unparsable duration env", env: map[string]string{"ASA_SIGN_IN_WINDOW": "15 minutes"}, wantErr: "ASA_SIGN_IN_WINDOW"},
		{name: "unparsable duration flag", args: []string{"--session-ttl", "7d"}, wantErr: "-session-ttl"},
		{name: "unparsable duration file", args: []string{"--config", badDuration}, wantErr: "line 2 (sign_in_window): cannot unmarshal !!str `soon`"},
		{name: "negative window", args: []string{"--sign-up-window", "-1h"}, wantErr: "sign_up_window -1h0m0s: want 1s or more"},
		{name: "session too short", env: map[string]string{"ASA_SESSION_TTL": "30s"}, wantErr: "session_ttl 30s: want 1m0s or more"},
		{name: "secure not a boolean", env: map[string]string{"ASA_SECURE_COOKIES": "https"}, wantErr: "ASA_SECURE_COOKIES"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadServeConfig(tt.args, env(tt.env), io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := dash{cfg.SecureCookies, cfg.SessionTTL, cfg.SignInWindow, cfg.SignUpWindow, cfg.SignInPerEmail, cfg.SignInPerIP, cfg.SignUpPerIP}
			if (got.secure == nil) != (tt.want.secure == nil) || (got.secure != nil && *got.secure != *tt.want.secure) {
				t.Errorf("secure_cookies %v, want %v", fmtBool(got.secure), fmtBool(tt.want.secure))
			}
			got.secure, tt.want.secure = nil, nil
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "unset"
	}
	if *b {
		return "true"
	}
	return "false"
}

// TestServeDashboardSettings: the configured dashboard settings reach the running server. Behind
// an https public_url, secure_cookies: false gives cookies without Secure (and without the
// __Host- prefix, which requires it), which a browser's cookie jar sends back over plain http; and
// sign_in_per_email: 2 refuses the third failed sign-in with 429.
func TestServeDashboardSettings(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	conf := filepath.Join(dir, "asa.yaml")
	if err := os.WriteFile(conf, []byte("public_url: https://asa.example\nsecure_cookies: false\nsign_in_per_email: 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		// amazon alone: the test is about serve's settings, not the catalogue
		done <- run(ctx, []string{"serve", "--config", conf, "--addr", addr, "--db", filepath.Join(dir, "asa.db"),
			"--sitedefs", siteOnly(t, "amazon")}, io.Discard, stderr)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	}()
	base := "http://" + addr
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var form *http.Response
	if !waitUp(done, func() bool {
		form, err = client.Get(base + "/dashboard/signin")
		return err == nil
	}) {
		t.Fatalf("serve did not start: %v\n%s", err, stderr.String())
	}
	body, _ := io.ReadAll(form.Body)
	form.Body.Close()
	var csrf *http.Cookie
	for _, c := range form.Cookies() {
		if strings.HasSuffix(c.Name, "asa_csrf") {
			csrf = c
		}
	}
	if csrf == nil || csrf.Name != "asa_csrf" || csrf.Secure || !csrf.HttpOnly {
		t.Fatalf("sign-in form cookie %+v (Set-Cookie %q): want asa_csrf, HttpOnly, not Secure", csrf, form.Header.Values("Set-Cookie"))
	}
	if !strings.Contains(stderr.String(), "secure_cookies is off although public_url is https") {
		t.Errorf("no warning about secure_cookies off behind https:\n%s", stderr.String())
	}
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("no csrf_token in the sign-in form:\n%s", body)
	}
	signIn := func() int {
		resp, err := client.PostForm(base+"/dashboard/signin", url.Values{"csrf_token": {m[1]}, "email": {"nobody@example.com"}, "password": {"a wrong password"}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// The jar sends asa_csrf back over http (it would not a Secure cookie): the form is accepted
	// and judged on its password.
	for i, want := range []int{http.StatusUnauthorized, http.StatusUnauthorized, http.StatusTooManyRequests} {
		if got := signIn(); got != want {
			t.Fatalf("failed sign-in %d: %d, want %d", i+1, got, want)
		}
	}
}
