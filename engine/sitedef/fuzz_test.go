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

// FuzzExtendFields: any endpoint file whose fields extend another (any bytes too) resolves to
// diagnostics with positions, or a decoded endpoint, never a panic; a field never extends itself forever.
func FuzzExtendFields(f *testing.F) {
	for _, s := range []string{"../../sitedefs/twitter/search.yaml", "../../sitedefs/twitter/followers.yaml"} {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("kind: endpoint\nfields: {a: {type: object, extends: x.y, remove: [b.c], fields: {d: {extends: x.y, type: list<object>}}}}\n"))
	f.Add([]byte("kind: endpoint\nfields: {a: {extends: [1], remove: 3}}\n"))
	base, _ := os.ReadFile("../../sitedefs/twitter/tweet.yaml")
	baseFile, _ := Parse("twitter/tweet.yaml", base)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, _ := Parse("f.yaml", data)
		if file.Endpoint == nil {
			return
		}
		depth := 0
		lookup := FieldLookup(func(name string) (*File, string) {
			if depth++; depth > 50 {
				t.Fatal("lookup called without end")
			}
			if name == "self.self" {
				return file, ""
			}
			return baseFile, ""
		})
		out, diags := ExtendFields(file, lookup)
		if out == nil || out.Endpoint == nil {
			t.Fatal("no endpoint")
		}
		for _, d := range diags {
			if d.Line < 1 || d.Col < 1 {
				t.Fatalf("diagnostic without a position: %v", d)
			}
		}
	})
}
