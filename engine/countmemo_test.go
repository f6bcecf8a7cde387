package engine

import (
	"reflect"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/vm"
)

// TestCountCarriesOn: a count over items that carries on from the previous item's (countmemo.go)
// answers what the VM answers as items grows in place as the list loop grows it, and when items
// is another list: a reallocated copy, a shorter prefix, another array whose first elements are
// the same, another list altogether; and predicates that read more than their element do not
// carry on.
func TestCountCarriesOn(t *testing.T) {
	obj := func(s any, n int) map[string]any { return map[string]any{"s": s, "n": n} }
	all := []any{obj(true, 1), obj(false, 2), obj(true, 3), obj(false, 4), obj(false, 5), obj(true, 6), obj(false, 7)}
	grown := make([]any, 0, len(all))
	other := []any{obj(false, 1), obj(false, 2), obj(false, 3), obj(false, 4), obj(true, 5), obj(false, 6), obj(true, 7)}
	// the lists items is, one evaluation each, in order
	var seq [][]any
	for i := range all {
		seq = append(seq, grown[:i])
		grown = append(grown, all[i])
	}
	seq = append(seq, grown, append([]any(nil), grown...), grown[:3], grown, other, other[:2], grown[:5], grown,
		append(append([]any(nil), all[:4]...), other[4:]...), []any{}, grown)

	for _, tc := range []struct {
		code    string
		carries bool
	}{
		{`count(items, !#.s) + 1`, true},
		{`fields.s ? nil : count(items, !(#.s ?? false)) + 1`, true},
		{`count(items, #.s == true && #.n != 3)`, true},
		{`count(items, #.n == index)`, false},             // reads index
		{`count(items, #.s == fields.s)`, false},          // reads fields
		{`let xs = items; count(xs, #.s == true)`, false}, // a let variable
		{`count(all, #.s)`, false},                        // not items
	} {
		env := map[string]any{"items": []any{}, "all": all, "index": 3, "fields": map[string]any{"s": false}, directVar: newFrame()}
		c := conf.CreateNew()
		expr.Env(env)(c)
		p, d := mustDirect(t, tc.code, c)
		for i, l := range seq {
			env["items"] = l
			want, vmErr := vm.Run(p, env)
			got, ok := d(env)
			if !ok || vmErr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on list %d (%d items): direct %#v %v; the VM %#v, %v", tc.code, i, len(l), got, ok, want, vmErr)
			}
		}
		f := env[directVar].(*frame)
		if carried := len(f.counts) > 0; carried != tc.carries {
			t.Errorf("%s: carried on %v, want %v", tc.code, carried, tc.carries)
		}
	}
}
