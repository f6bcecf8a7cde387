package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSitedefTestReportsEveryBadCase: a case file that does not decode is reported with
// file:line:col, the other bad file too, and the good case still runs; the run fails.
func TestSitedefTestReportsEveryBadCase(t *testing.T) {
	fx := t.TempDir()
	copyTopWeek(t, fx, "top-week", nil)
	bad := map[string]string{
		"typo":    "params: {query: pics}\nresponses:\n  page: {body: page.json}\nexpect:\n  output: expected.json\n  lose: {title: present}\n",
		"matcher": "params: {query: pics}\nresponses:\n  page: {body: page.json}\nexpect:\n  output: expected.json\n  loose: {posts: 'mincout:1'}\n",
	}
	for name, src := range bad {
		dir := filepath.Join(fx, "reddit", "subreddit", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "case.yaml"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"sitedef", "test", "--sitedefs", "../../sitedefs", "--fixtures", fx, "--run", "reddit.subreddit", "-v"}, &stdout, &stderr)
	out := stdout.String()
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"reddit/subreddit/matcher/case.yaml:6:18: error: loose posts: unknown matcher \"mincout:\" (did you mean mincount:?)",
		"reddit/subreddit/typo/case.yaml:6:3: error: unknown key \"lose\" (did you mean \"loose\"?)",
		"ok   case reddit.subreddit/top-week",
		"1 passed, 2 failed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s%s", want, out, stderr.String())
		}
	}
}

// TestSitedefTestChecksSandbox: asa sitedef test fails and names the cases when a copied case
// breaks the sandbox: a second sandbox_default for one endpoint (the copy keeps the original's),
// which asa serve would refuse at start, a copy whose parameters the original answers, never
// shown to a sandbox key, and an error case that the documented example request reaches.
func TestSitedefTestChecksSandbox(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func([]byte) []byte // applied to the copy's case.yaml
		want string
	}{
		{"second default", nil,
			"FAIL sandbox\n  sandbox case reddit.subreddit/top-week-copy: top-week is already the default of reddit.subreddit"},
		{"unreachable copy", func(b []byte) []byte { return bytes.Replace(b, []byte("sandbox_default: true\n"), nil, 1) },
			"FAIL sandbox\n  reddit.subreddit/top-week-copy: its parameters choose top-week; give it parameters of its own"},
		// an error case written with the example's parameters answers the OpenAPI example request
		{"error case on the example", func(b []byte) []byte {
			b = bytes.Replace(b, []byte("sandbox_default: true\n"), nil, 1)
			b = bytes.Replace(b, []byte(`{query: r/pics, sort: top, time: week, limit: "2"}`), []byte(`{query: popular}`), 1)
			return bytes.Replace(b, []byte("output: expected.json"), []byte("error: target_unreachable"), 1)
		},
			"FAIL sandbox\n  reddit.subreddit: its example parameters choose the error case top-week-copy; give that case parameters of its own"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fx := t.TempDir()
			copyTopWeek(t, fx, "top-week", nil)
			copyTopWeek(t, fx, "top-week-copy", c.edit)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"sitedef", "test", "--sitedefs", "../../sitedefs", "--fixtures", fx}, &stdout, &stderr)
			out := stdout.String()
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(out, c.want) {
				t.Errorf("output lacks %q:\n%s%s", c.want, out, stderr.String())
			}
		})
	}
}

// copyTopWeek copies the reddit.subreddit/top-week case into fx under name, its case.yaml passed
// through edit when edit is not nil.
func copyTopWeek(t *testing.T, fx, name string, edit func([]byte) []byte) {
	t.Helper()
	dir := filepath.Join(fx, "reddit", "subreddit", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"case.yaml", "page.json", "expected.json"} {
		b, err := os.ReadFile(filepath.Join("../../fixtures/reddit/subreddit/top-week", f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "case.yaml" && edit != nil {
			b = edit(b)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
