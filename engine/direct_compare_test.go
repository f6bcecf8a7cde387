package engine

import (
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/conf"
)

// TestDirectCompare: the comparisons, map literals and members read by a computed key (a request's
// page.number > 1 ? ... and {all: "", albums: "a"}[params.item_type]) answer what the VM answers,
// and give up where the VM errs.
func TestDirectCompare(t *testing.T) {
	env := map[string]any{"n": 3, "x": 2.5, "s": "b", "none": nil, "kind": "albums", "other": 7,
		"params": map[string]any{"page": nil, "start_page": 2, "pages": 3, "item_type": "tracks"},
		"page":   map[string]any{"number": 2}, directVar: newFrame()}
	c := conf.CreateNew()
	expr.Env(env)(c)
	for _, tc := range []struct {
		code   string
		direct bool // answered directly (else given up at run time)
	}{
		{`n > 1`, true},
		{`n < x`, true},
		{`x <= 2.5`, true},
		{`n >= 4`, true},
		{`s < "c"`, true},
		{`"a" >= s`, true},
		{`page.number > 1 ? string(page.number) : ""`, true},
		{`(params.page ?? params.start_page ?? 1) + params.pages - 1 <= 10`, true},
		{`{all: "", albums: "a", tracks: "t"}[params.item_type]`, true},
		{`{all: "", albums: "a"}[kind]`, true},
		{`{all: "", albums: "a"}["missing"]`, true},
		{`{a: n, b: {c: x}}.b.c`, true},
		{`{a: n}`, true},
		{`params[s]`, true},
		{`params.page > 1`, false}, // nil is not ordered: the VM errs
		{`params.item_type > 1`, false},
		{`{a: 1}[params.start_page]`, false}, // a number is no map key: the VM errs
		{`params.page?.[kind]`, true},
	} {
		checkDirectAsVM(t, tc.code, c, env, tc.direct)
	}
}
