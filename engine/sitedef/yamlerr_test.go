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
// meant (an unquoted expression with ": ", "?", ",", brackets, a leading quote or "!"). The diagnostic
// must name the value's own line and column, not the line yaml.v3 gives, and show the quoted fix.
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
			if strings.Contains(d.Message, "quote the whole value") {
				n++
			}
			b.WriteString(d.String() + "\n")
		}
		if n == 0 {
			t.Errorf("%s: no diagnostic says how to quote the value: %v", f, diags)
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
