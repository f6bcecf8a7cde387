package engine

import (
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/vm"
)

// TestDirectContains: contains over a long text (searched by the needle's rare byte) answers
// what the VM's OpContains answers, wherever the needle is or is not.
func TestDirectContains(t *testing.T) {
	page := strings.Repeat(`<div class="_a_b" id="x_1">i_d é</div>`, 100)
	env := map[string]any{"page": page, "first": `id="ufi_1"` + page, "last": page + `id="ufi_1"`,
		"mid": page + `id="ufi_1"` + page, "cut": page + `id="ufi_`, "none": nil, "n": 3, "id": "1",
		directVar: newFrame()}
	c := conf.CreateNew()
	expr.Env(env)(c)
	for _, tc := range []struct {
		code   string
		direct bool
	}{
		{`page contains ("id=\"ufi_" + id + "\"")`, true},
		{`first contains ("id=\"ufi_" + id + "\"")`, true},
		{`last contains ("id=\"ufi_" + id + "\"")`, true},
		{`mid contains ("id=\"ufi_" + id + "\"")`, true},
		{`cut contains ("id=\"ufi_" + id + "\"")`, true},
		{`page contains ""`, true},
		{`page contains "é<"`, true},
		{`page contains "_"`, true},
		{`page contains (none ?? "")`, true},
		{`page contains string(n)`, true},
	} {
		p, d := mustDirect(t, tc.code, c)
		want, vmErr := vm.Run(p, env)
		got, ok := d(env)
		if ok != tc.direct {
			t.Errorf("%s: direct answered %v, want %v (VM: %#v, %v)", tc.code, ok, tc.direct, want, vmErr)
			continue
		}
		if ok && (vmErr != nil || got != want) {
			t.Errorf("%s: direct %#v; the VM %#v, %v", tc.code, got, want, vmErr)
		}
	}
}
