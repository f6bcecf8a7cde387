package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestExtractPages: asa extract replays every page of a paginated endpoint, by a repeated STEP=FILE or
// by STEP@N=FILE, and gives what the fixture case of the same pages expects.
func TestExtractPages(t *testing.T) {
	const dir = "../../fixtures/reddit/subreddit/two-pages/"
	var want any
	b, err := os.ReadFile(dir + "expected.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	sitedefs := siteOnly(t, "reddit")
	params := []string{"--sitedefs", sitedefs, "--param", "query=https://www.reddit.com/r/AskHistorians/", "--param", "sort=new", "--param", "limit=3"}
	tests := []struct {
		name      string
		args      []string
		code      int
		posts     int // -1: compare with expected.json
		stderrHas string
	}{
		{"repeated STEP=FILE", []string{"page=" + dir + "page.json", "page=" + dir + "page@2.json"}, 0, -1, ""},
		{"numbered", []string{"page@2=" + dir + "page@2.json", "page@1=" + dir + "page.json"}, 0, -1, ""},
		{"first file positional", []string{dir + "page.json", "page@2=" + dir + "page@2.json"}, 0, -1, ""},
		{"one page", []string{"page=" + dir + "page.json"}, 0, 3, ""},
		{"pages asked beyond the files", []string{"page=" + dir + "page.json", "--param", "pages=2"}, 0, 3, "warning: page 2: "},
		{"page zero", []string{"page@0=" + dir + "page.json"}, 2, 0, "the page after @ is a number from 1 to 10"},
		{"same page twice", []string{"page=" + dir + "page.json", "page@1=" + dir + "page.json"}, 2, 0, "two files for step page page 1"},
		{"too many positional", []string{dir + "page.json", dir + "page@2.json"}, 2, 0, "name pages as STEP=FILE or STEP@N=FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"extract", "reddit.subreddit"}, tt.args...), params...)
			code := run(context.Background(), args, &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.code, stderr.String())
			}
			if tt.stderrHas != "" && !strings.Contains(stderr.String(), tt.stderrHas) {
				t.Errorf("stderr %q lacks %q", stderr.String(), tt.stderrHas)
			}
			if code != 0 {
				return
			}
			var got map[string]any
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatalf("output: %v\n%s", err, stdout.String())
			}
			if tt.posts < 0 {
				if !reflect.DeepEqual(any(got), want) {
					t.Errorf("output differs from %sexpected.json:\n%s", dir, stdout.String())
				}
				return
			}
			if posts, _ := got["posts"].([]any); len(posts) != tt.posts {
				t.Errorf("want %d posts, got %d", tt.posts, len(posts))
			}
		})
	}
}

func TestExtractHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"extract", "-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"STEP=FILE", "STEP@N=FILE", "next page", "--all-steps FILE", "--profile", "--runs N"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("asa extract -h lacks %q", want)
		}
	}
}

// TestExtractProfile: --profile prints the parse-only floor, the fastest extraction and its ratio,
// each phase and each field by path instead of the JSON; a page the endpoint refuses is shown as
// asa extract shows it; bad flags are refused.
func TestExtractProfile(t *testing.T) {
	sitedefs := siteOnly(t, "walmart")
	const dir = "../../fixtures/walmart/search/"
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{"a results page", []string{"walmart.search", dir + "com-list-tiles/page.html", "--param", "query=desk fan", "--profile", "--runs", "3"}, 0,
			[]string{"walmart.search: 1 response(s)", "3 runs", "parse only", "x parse only (make bench's x-parse)",
				"mean of 3 traced runs, by phase", "decode", "parse", "rules", "fields", "json",
				"products[].title", "products[].price", "total_results"}, ""},
		{"a bot check", []string{"walmart.search", dir + "bot-check/page.html", "--param", "query=desk fan", "--profile"}, 1,
			[]string{`"error": "target_unreachable"`}, ""},
		{"runs out of range", []string{"walmart.search", dir + "com-list-tiles/page.html", "--profile", "--runs", "0"}, 2, nil,
			"--runs takes a number from 1 to 10000"},
		{"runs not a number", []string{"walmart.search", dir + "com-list-tiles/page.html", "--profile", "--runs=many"}, 2, nil,
			"--runs takes a number from 1 to 10000"},
		{"universal", []string{"universal.get", dir + "com-list-tiles/page.html", "--profile"}, 2, nil,
			"--profile times a sitedef's endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"extract"}, tt.args...), "--sitedefs", sitedefs)
			if code := run(context.Background(), args, &stdout, &stderr); code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout.String(), stderr.String())
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q: %s", tt.stderr, stderr.String())
			}
		})
	}
}

// siteOnly returns a sitedefs directory of the site under test and the families: loading the whole
// catalogue for each run of asa is most of such a test's time under the race detector, and says
// nothing about the command.
func siteOnly(t *testing.T, site string) string {
	t.Helper()
	sitedefs := t.TempDir()
	for _, dir := range []string{site, "_families"} {
		abs, err := filepath.Abs("../../sitedefs/" + dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(sitedefs, dir)); err != nil {
			t.Fatal(err)
		}
	}
	return sitedefs
}

// TestExtractAllSteps: --all-steps FILE answers every step that has no FILE of its own, as a corpus
// expectation's page: does, and gives what the fixture case of that page expects.
func TestExtractAllSteps(t *testing.T) {
	sitedefs := siteOnly(t, "walmart")
	const dir = "../../fixtures/walmart/search/com-list-tiles/"
	var want any
	b, err := os.ReadFile(dir + "expected.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"extract", "walmart.search", "--all-steps", dir + "page.html", "--param", "query=desk fan", "--sitedefs", sitedefs}
	if code := run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %s\nwant %s", stdout.String(), b)
	}
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"extract", "walmart.search", "--sitedefs", sitedefs}, "want SITE.RESOURCE and at least one FILE (or --all-steps FILE)"},
		{[]string{"extract", "universal.get", "--all-steps", dir + "page.html"}, "--all-steps answers a sitedef's steps"},
		{[]string{"extract", "walmart.search", "--all-steps", dir + "missing.html", "--sitedefs", sitedefs}, "missing.html"},
	} {
		stdout.Reset()
		stderr.Reset()
		if code := run(context.Background(), tt.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", tt.args, code, stderr.String(), tt.stderr)
		}
	}
}
