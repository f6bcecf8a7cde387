package engine

import (
	"context"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"asa/engine/sitedef"
)

// TestEnvDocumented: docs/sitedef-format.md's table of expression names lists exactly the names the
// compiler declares, and the run-time environment carries exactly those names.
func TestEnvDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/sitedef-format.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	start := strings.Index(s, "### Expressions")
	if start < 0 {
		t.Fatal("docs/sitedef-format.md has no Expressions section")
	}
	s = s[start+len("### Expressions"):]
	if end := strings.Index(s, "\n#"); end >= 0 {
		s = s[:end]
	}
	documented := map[string]bool{}
	cell := regexp.MustCompile("`([a-z_]+)[^`]*`")
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1]
		for _, m := range cell.FindAllStringSubmatch(first, -1) {
			documented[m[1]] = true
		}
	}
	// A name starting with '$' is the engine's own, which no sitedef can write: not documented.
	declared := map[string]bool{}
	hidden := map[string]bool{}
	for k := range planEnv(&sitedef.Endpoint{}) {
		if strings.HasPrefix(k, "$") {
			hidden[k] = true
		} else {
			declared[k] = true
		}
	}
	r := (&Plan{}).newRun(context.Background(), Params{}, nil, 0, nil)
	atRun := map[string]bool{}
	for k := range r.env {
		if strings.HasPrefix(k, "$") {
			if !hidden[k] {
				t.Errorf("the run-time environment carries %s, which the compiler does not declare", k)
			}
			delete(hidden, k)
		} else {
			atRun[k] = true
		}
	}
	for k := range hidden {
		t.Errorf("the compiler declares %s, which the run-time environment does not carry", k)
	}
	if missing := diff(declared, documented); len(missing) > 0 {
		t.Errorf("the compiler declares %v, which docs/sitedef-format.md's Expressions table does not list", missing)
	}
	if extra := diff(documented, declared); len(extra) > 0 {
		t.Errorf("docs/sitedef-format.md lists %v, which the compiler does not declare", extra)
	}
	if d := append(diff(declared, atRun), diff(atRun, declared)...); len(d) > 0 {
		t.Errorf("the compile-time and run-time environments differ on %v", d)
	}
}

// diff returns the keys of a missing from b, sorted.
func diff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
