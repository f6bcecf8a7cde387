package engine

import (
	"reflect"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/vm"
)

// TestDirectLet: let variables, contains, an index and - and * answer what the VM answers, and
// give up (the VM then runs them) where the VM errs.
func TestDirectLet(t *testing.T) {
	env := map[string]any{"value": "https://x.test/sspa/click?url=%2Fdp%2FB1", "base": "https://x.test/",
		"n": 3, "x": 2.5, "none": nil, "strs": []string{"a", "b"}, "l": []any{"p", 1, nil},
		"m": map[string]any{"k": []any{"q"}}, "items": []any{map[string]any{"s": true}, map[string]any{"s": false}},
		directVar: newFrame()}
	c := conf.CreateNew()
	expr.Env(env)(c)
	for _, tc := range []struct {
		code   string
		direct bool // answered directly (else given up at run time)
	}{
		{`let u = value; u contains "/sspa/" ? u + "!" : u`, true},
		{`let u = value; let v = u + "?"; v contains "?" && u contains "x"`, true},
		{`let u = "inner"; u`, true},
		{`(let u = "inner"; u) + value`, true},
		{`let u = 1; let w = u + 1; (let z = w * 3; z - u) + w`, true},
		{`let k = n - 1; k * 2`, true},
		{`count(items, let s = #.s; s == true)`, true},
		{`let a = split(value, "?")[0]; a`, true},
		{`split(value, "?")[1]`, true},
		{`split(value, "?")[-1]`, true},
		{`strs[0] + strs[1]`, true},
		{`l[0]`, true},
		{`l[2] == nil`, true},
		{`m.k[0]`, true},
		{`m?.k?.[0]`, true},
		{`n - 1`, true},
		{`(n - 1) * (none ?? 10) + len(items) + 1`, true},
		{`x * 2`, true},
		{`n * x - 1`, true},
		{`value contains l[2]`, true},
		{`m.z contains "a"`, true},
		{`strs[5]`, false}, // out of range: the VM errs
		{`split(value, "?")[7]`, false},
		{`let u = value; strs[5] + u`, false},
		{`l[1] contains "a"`, false}, // not a string: the VM errs
		{`let v = l[1]; v contains "a"`, false},
		{`m.z - 1`, false},
		{`l[0] * 2`, false},
	} {
		checkDirectAsVM(t, tc.code, c, env, tc.direct)
	}
}

// checkDirectAsVM compiles code and requires its direct form to answer (wantDirect) or give up,
// and an answer to be the VM's: a give-up only where the VM errs, and the frame left as it was.
func checkDirectAsVM(t *testing.T, code string, c *conf.Config, env map[string]any, wantDirect bool) {
	t.Helper()
	p, d := mustDirect(t, code, c)
	want, vmErr := vm.Run(p, env)
	got, ok := d(env)
	if ok != wantDirect {
		t.Errorf("%s: direct answered %v, want %v (VM: %#v, %v)", code, ok, wantDirect, want, vmErr)
		return
	}
	if ok && (vmErr != nil || !reflect.DeepEqual(got, want)) {
		t.Errorf("%s: direct %#v; the VM %#v, %v", code, got, want, vmErr)
	}
	if !ok && vmErr == nil {
		t.Errorf("%s: direct gave up where the VM answers %#v", code, want)
	}
	if f := env[directVar].(*frame); f.elem != nil || f.top != 0 || len(f.vars) != 0 {
		t.Errorf("%s: the frame is left with element %#v, top %d, %d variables", code, f.elem, f.top, len(f.vars))
	}
}
