package sitedef

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any bytes given as a sitedef file must give diagnostics, never a panic.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("../../sitedefs/*/*.yaml")
	bad, _ := filepath.Glob("testdata/yamlerrors/*.yaml")
	seeds = append(seeds, bad...)
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("kind: endpoint\nfields: {a: {xpath: //a}}\n"))
	f.Add([]byte("kind: site\ndomains: [1, 2]\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, diags := Parse("f.yaml", data)
		if file == nil {
			t.Fatal("nil file")
		}
		for _, d := range diags {
			if d.Line < 1 || d.Col < 1 {
				t.Fatalf("diagnostic without a position: %v", d)
			}
		}
	})
}

// FuzzSyntaxError: locating a YAML syntax error in any bytes, from any line yaml.v3 names, gives a
// position inside the file and never panics.
func FuzzSyntaxError(f *testing.F) {
	bad, _ := filepath.Glob("testdata/yamlerrors/*.yaml")
	for _, s := range bad {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b, "line 3: did not find expected key")
		}
	}
	f.Add([]byte("a: {b: [c, {d: e?}], f: 'g' h}\n"), "yaml: line 1: x")
	f.Add([]byte("- - {a: \"b\\\"\" c}\n"), "unknown anchor")
	f.Fuzz(func(t *testing.T, data []byte, msg string) {
		line, col, out := syntaxError(data, msg)
		lines := bytes.Count(data, []byte("\n")) + 1
		if line < 1 || col < 1 || out == "" {
			t.Fatalf("bad position %d:%d %q", line, col, out)
		}
		if s := findSuspect(string(data), 1); s != nil && (s.line > lines || s.col < 1) {
			t.Fatalf("suspect outside the file: %+v", s)
		}
	})
}
