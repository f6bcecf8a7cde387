package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copySite copies sitedefs/<site> into dir and returns the copy's path.
func copySite(t *testing.T, dir, site string) string {
	t.Helper()
	dst := filepath.Join(dir, site)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join("..", "..", "sitedefs", site))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("..", "..", "sitedefs", site, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestSitedefCheckPaths: `asa sitedef check PATH...` checks what each PATH names (a sitedefs
// directory, a site directory, one file), wherever it is; a broken file fails with file:line:col,
// and a PATH without a sitedef is an error, never "ok".
func TestSitedefCheckPaths(t *testing.T) {
	dir := t.TempDir()
	// a site that extends no family, so that its directory alone is a whole sitedef
	good := copySite(t, filepath.Join(dir, "good"), "peertube")
	bad := copySite(t, filepath.Join(dir, "bad"), "peertube")
	post := filepath.Join(bad, "video.yaml")
	b, _ := os.ReadFile(post)
	if err := os.WriteFile(post, bytes.Replace(b, []byte("resource: video\n"), []byte("resource: video\nbogus_key: 1\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.MkdirAll(filepath.Join(empty, "notasite"), 0o755); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(dir, "notes.txt")
	_ = os.WriteFile(notes, []byte("x"), 0o644)
	// the site's file count, so that a new endpoint does not break the check's message
	yamls, _ := filepath.Glob(filepath.Join(good, "*.yaml"))
	files := fmt.Sprintf("(%d files)", len(yamls))
	tests := []struct {
		name    string
		args    []string
		code    int
		out     string // in stdout
		errText string // in stderr
	}{
		{"sitedefs dir", []string{filepath.Join(dir, "good")}, 0, "ok: " + filepath.Join(dir, "good") + " " + files, ""},
		{"site dir", []string{good}, 0, files, ""},
		{"one file", []string{filepath.Join(good, "comments.yaml")}, 0, "(1 files)", ""},
		{"broken file", []string{post}, 1, "video.yaml:4:1: error: unknown key \"bogus_key\"", "1 errors"},
		{"broken site, good file beside it", []string{filepath.Join(bad, "comments.yaml")}, 0, "(1 files)", ""},
		{"broken site dir", []string{bad}, 1, "bogus_key", "1 errors"},
		{"one good one broken", []string{good, bad}, 1, "ok: " + good, "1 errors"},
		{"no sitedef", []string{empty}, 1, "", "no sitedef here"},
		{"missing", []string{filepath.Join(dir, "nope")}, 1, "", "no such file"},
		{"not yaml", []string{notes}, 1, "", "not a sitedef"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"sitedef", "check"}, tc.args...), &out, &errb)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.out) || !strings.Contains(errb.String(), tc.errText) {
				t.Errorf("stdout %q (want %q), stderr %q (want %q)", out.String(), tc.out, errb.String(), tc.errText)
			}
			if tc.code != 0 && strings.Contains(out.String(), "ok: 0") {
				t.Errorf("a failing check says ok: %s", out.String())
			}
		})
	}
}

// TestEndpointsDocListsSandboxCases: docs/endpoints.md, as generated, lists every endpoint's sandbox
// cases with their answers, and the committed file is the generated one.
func TestEndpointsDocListsSandboxCases(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"sitedef", "docs", "--endpoints", "--sitedefs", "../../sitedefs", "--fixtures", "../../fixtures"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	doc := out.String()
	for _, want := range []string{
		"## Sandbox cases",
		"### Sandbox: `GET /api/v1/amazon/product`",
		"| `com-first-request` (default) | `domain=com` `query=B0TEST1234` | 200 |",
		"| `not-found` | `domain=com` `query=B0FX404404` | 404 `product_not_found` |",
		"### Sandbox: `GET /api/v1/google/search`",
		"### Sandbox: `GET /api/v1/youtube/transcript`",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the endpoints doc lacks %q", want)
		}
	}
	committed, err := os.ReadFile("../../docs/endpoints.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(committed) != doc {
		t.Error("docs/endpoints.md is stale: run make generate")
	}
}
