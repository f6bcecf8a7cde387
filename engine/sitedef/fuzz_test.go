package sitedef

import (
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
