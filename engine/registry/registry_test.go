package registry_test

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"asa/engine"
	"asa/engine/registry"
	"asa/sitedefs"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestBrokenSitedef: one precise diagnostic per mistake, each with file:line:column, in one run.
func TestBrokenSitedef(t *testing.T) {
	_, diags := registry.Load(engine.New(), os.DirFS("testdata/broken"))
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.String())
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "broken.golden")
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
	// The five planted mistakes, each reported exactly once at its own line.
	for _, want := range []string{
		"shop/product.yaml:8:5: error: unknown key \"patern\"",
		"shop/product.yaml:16:12: error: rule \"gone\": unknown error code \"product_gone\"",
		"shop/product.yaml:20:12: error: field title: bad XPath",
		"shop/product.yaml:23:11: error: field price: bad expression",
		"shop/product.yaml:26:15: error: expected true or false",
	} {
		if n := strings.Count(got, want); n != 1 {
			t.Errorf("want exactly one diagnostic starting %q, got %d", want, n)
		}
	}
	if len(diags) != 5 {
		t.Errorf("want 5 diagnostics, got %d", len(diags))
	}
}

// TestEmbeddedSitedefs: the sitedefs shipped in the binary load without errors.
func TestEmbeddedSitedefs(t *testing.T) {
	reg, diags := registry.Load(engine.New(), sitedefs.FS)
	if diags.HasErrors() {
		t.Fatalf("embedded sitedefs do not load:\n%v", diags)
	}
	if len(reg.IDs()) == 0 {
		t.Fatal("no endpoints")
	}
	// What only loading reads is let go of: the service keeps the registry as long as it runs.
	for _, id := range reg.IDs() {
		if f := reg.File(id); f == nil || f.Node != nil || f.Cut != nil || f.Endpoint == nil {
			t.Fatalf("%s: the file keeps its YAML tree or cut comments, or lost its definition", id)
		}
	}
}

// TestFamilyDiagnostics: every mistake of extends and remove is reported at the child's line, and an
// inherited value that fails in the child's context names the base's line too.
func TestFamilyDiagnostics(t *testing.T) {
	_, diags := registry.Load(engine.New(), os.DirFS("testdata/families-broken"))
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.String())
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "families-broken.golden")
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
	for _, want := range []string{
		`one/site.yaml:9:31: error: remove: "fields.nope" names nothing`,
		`one/site.yaml:9:68: error: remove: "fields.nutrition.sugar" names nothing`,
		`one/site.yaml:13:14: error: extends "dish/nothing": family "dish" has no nothing.yaml`,
		`two/site.yaml:5:10: error: extends "cookbook": there is no family "cookbook"`,
		`five/site.yaml:8:5: error: rule not-found: no step "page" in this endpoint (inherited from dish/recipe at _families/dish/recipe.yaml:17:11)`,
		`three/site.yaml:10:36: error: field title: bad XPath`,
		`_families/ring-b/site.yaml:3:10: error: extends family "ring-a", which extends this one: families cannot extend each other in a cycle`,
		`_families/stray/recipe.yaml:3:10: error: extends "dish/recipe": a base extends only the bases of the families its own family extends (say extends: dish in _families/stray/site.yaml)`,
		`_families/ghost/site.yaml:3:10: error: extends "spirits": there is no family "spirits"`,
	} {
		if n := strings.Count(got, want); n != 1 {
			t.Errorf("want exactly one diagnostic starting %q, got %d", want, n)
		}
	}
}

// BenchmarkLoadEmbedded is the start-up cost of the whole catalogue: what `asa serve`, `asa extract`
// and every `asa sitedef` command pay before their first page. It also reports what the loaded
// catalogue keeps (live-MB, live-objects): every collection of asa serve marks all of it, and
// asa serve's heap grows to 2.5 times its live heap (GOGC=150) before collecting, so the
// catalogue's share of the RSS is about 2.5 times live-MB.
func BenchmarkLoadEmbedded(b *testing.B) {
	for b.Loop() {
		if _, diags := registry.Load(engine.New(), sitedefs.FS); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	reg, _ := registry.Load(engine.New(), sitedefs.FS)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(reg)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "live-MB")
	b.ReportMetric(float64(after.HeapObjects-before.HeapObjects), "live-objects")
}
