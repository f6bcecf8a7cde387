package engine

import (
	"reflect"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/vm"
)

// TestDirectCount: count with a predicate answers what the VM answers, nested and beside other
// nodes, and gives up (the VM then runs it) where the VM errs or the collection is not a []any.
func TestDirectCount(t *testing.T) {
	items := []any{
		map[string]any{"s": true, "n": 1, "l": []any{true, false}},
		map[string]any{"s": false, "n": 2, "l": []any{}},
		map[string]any{"s": true, "n": 2, "l": []any{true, true}},
		map[string]any{"s": nil, "n": 3, "l": []any{false}},
	}
	env := map[string]any{"items": items, "bools": []any{true, false, true}, "strs": []string{"a", "b"},
		"none": nil, "f": map[string]any{"s": false, "none": nil}, directVar: newFrame()}
	c := conf.CreateNew()
	expr.Env(env)(c)
	for _, tc := range []struct {
		code   string
		direct bool // answered directly (else given up at run time)
	}{
		{`count(items, #.s == true)`, true},
		{`count(items, #.s != true) + 1`, true},
		{`f.s ? nil : count(items, !(#.s ?? false)) + 1`, true},
		{`count(bools, #)`, true},
		{`count(bools, !#)`, true},
		{`count(items, count(#.l, #) == 2)`, true},
		{`count(items, #.n == count(bools, #))`, true},
		{`count(items, #.s)`, false},     // nil is not a bool: the VM errs
		{`count(strs, # == "a")`, false}, // not a []any
		{`count(f.none, true)`, false},
	} {
		p, d := mustDirect(t, tc.code, c)
		want, vmErr := vm.Run(p, env)
		got, ok := d(env)
		if ok != tc.direct {
			t.Errorf("%s: direct answered %v, want %v (VM: %#v, %v)", tc.code, ok, tc.direct, want, vmErr)
			continue
		}
		if ok && (vmErr != nil || !reflect.DeepEqual(got, want)) {
			t.Errorf("%s: direct %#v; the VM %#v, %v", tc.code, got, want, vmErr)
		}
		if f := env[directVar].(*frame); f.elem != nil || f.top != 0 {
			t.Errorf("%s: the frame is left with element %#v, top %d", tc.code, f.elem, f.top)
		}
	}
}

// mustDirect compiles code in c, and its direct form, which it must have.
func mustDirect(t *testing.T, code string, c *conf.Config) (*vm.Program, direct) {
	t.Helper()
	p, err := expr.Compile(code, func(cc *conf.Config) { *cc = *c })
	if err != nil {
		t.Fatalf("%s: %v", code, err)
	}
	d := compileDirect(p, c)
	if d == nil {
		t.Fatalf("%s has no direct form", code)
	}
	return p, d
}
