package engine

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"asa/engine/sitedef"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// stringify formats numbers and booleans as fmt did before it used strconv.
func TestStringifyAsFmt(t *testing.T) {
	old := func(v any) string {
		if x, ok := v.(float64); ok {
			if x == float64(int64(x)) {
				return fmt.Sprintf("%d", int64(x))
			}
			return fmt.Sprintf("%g", x)
		}
		return fmt.Sprint(v)
	}
	for _, v := range []any{0, 1, -7, 1 << 40, int64(-3), int64(1) << 62, true, false, 0.0, 1.0, -2.0, 0.1, 1.5e-7, 123456789.125,
		1e21, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64} {
		if got, want := stringify(v), old(v); got != want {
			t.Errorf("stringify(%#v) = %q, want %q", v, got, want)
		}
	}
}

// evalDirect takes the direct form's answer, falls back to the VM when the form gives up, and under
// verification refuses a form that differs from the VM.
func TestEvalDirect(t *testing.T) {
	prog, err := expr.Compile(`value + "!"`, expr.Env(map[string]any{"value": ""}))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]any{"value": "hi"}
	agrees := direct(func(map[string]any) (any, bool) { return "hi!", true })
	differs := direct(func(map[string]any) (any, bool) { return "other", true })
	givesUp := direct(func(map[string]any) (any, bool) { return nil, false })
	for _, tc := range []struct {
		name      string
		d         direct
		verify    bool
		want      any
		wantPanic bool
	}{
		{"no direct form", nil, false, "hi!", false},
		{"agrees", agrees, false, "hi!", false},
		{"agrees, verified", agrees, true, "hi!", false},
		{"gives up", givesUp, true, "hi!", false},
		// without verification the direct form is trusted: that is what verification is for
		{"differs", differs, false, "other", false},
		{"differs, verified", differs, true, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); (r != nil) != tc.wantPanic {
					t.Fatalf("panic %v, want a panic: %v", r, tc.wantPanic)
				}
			}()
			for _, m := range []*vm.VM{nil, {}} {
				got, err := evalDirect(m, prog, tc.d, env, tc.verify)
				if err != nil || got != tc.want {
					t.Errorf("got %#v, %v; want %#v", got, err, tc.want)
				}
			}
		})
	}
}

// A request's templates and the parameters' normalize, constraints and paginate start get their
// direct forms, as fields do (bandcamp's search has each).
func TestRequestExpressionsAreDirect(t *testing.T) {
	parse := func(name string) *sitedef.File {
		data, err := os.ReadFile(filepath.Join("..", "sitedefs", "bandcamp", name))
		if err != nil {
			t.Fatal(err)
		}
		f, diags := sitedef.Parse(name, data)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return f
	}
	p, diags := New().Compile(parse("site.yaml"), parse("search.yaml"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if p.paramIdx["query"].normalizeD == nil {
		t.Error("query's normalize has no direct form")
	}
	for i, c := range p.constraints {
		if c.requireD == nil {
			t.Errorf("constraint %d has no direct form", i)
		}
	}
	if p.paginate.startD == nil {
		t.Error("paginate.start has no direct form")
	}
	for _, kv := range p.steps[0].query {
		for _, part := range kv.val.parts {
			if part.prog != nil && part.d == nil {
				t.Errorf("query %s: ${ %s } has no direct form", kv.key, part.code)
			}
		}
	}
}
