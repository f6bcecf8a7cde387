package sitedef

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/yamlerrors.golden")

// TestYAMLErrorsGolden: each file of testdata/yamlerrors holds one value YAML cannot read as the author
// meant (an unquoted expression with ": ", "?", ",", brackets, a leading quote or "!"; a tab). The
// diagnostic must name the value's own line and column, not the line yaml.v3 gives, and show the fix.
func TestYAMLErrorsGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/yamlerrors/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, diags := Parse(filepath.Base(f), data)
		n := 0
		for _, d := range diags {
			if strings.Contains(d.Message, "quote the whole value") || strings.Contains(d.Message, "indent with spaces") {
				n++
			}
			b.WriteString(d.String() + "\n")
		}
		if n == 0 {
			t.Errorf("%s: no diagnostic says how to fix it: %v", f, diags)
		}
	}
	got := b.String()
	golden := "testdata/yamlerrors.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("reading golden (run with -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("diagnostics differ from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

// TestNoSuspectInValidFiles: on files YAML reads (every shipped sitedef and fixture case), the
// locator finds nothing to blame, so it cannot misdirect an author whose error is elsewhere.
func TestNoSuspectInValidFiles(t *testing.T) {
	var files []string
	for _, g := range []string{"../../sitedefs/*/*.yaml", "../../fixtures/*/*/*/case.yaml", "../../fixtures/corpus/*.yaml"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d files found", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if s := findSuspect(string(data), 1); s != nil {
			t.Errorf("%s:%d:%d: blamed a valid value: %s", f, s.line, s.col, s.why)
		}
	}
}
