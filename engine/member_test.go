package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"
)

// The rewritten member accesses answer what expr's own fetch answers, errors included, and a name a
// closed map does not declare is still a compile error.
func TestMemberPatchSameAnswers(t *testing.T) {
	e := New()
	env := types.Map{
		"fields": types.Map{"link": types.Any, "flag": types.Any},
		"domain": types.Map{"host": types.String},
		"steps":  types.Map{types.Extra: types.Map{"body": types.String}},
		"item":   types.Any,
		"items":  types.Array(types.Any),
		"page":   types.Map{"number": types.Int},
	}
	vals := map[string]any{
		"fields": map[string]any{"link": "/x/123456.html", "flag": true},
		"domain": map[string]any{"host": "example.com"},
		"steps":  map[string]any{"page": map[string]any{"body": "b"}},
		"item":   map[string]any{"a": map[string]any{"b": 2.5}, "l": []any{1, 2}, "s": "str"},
		"items":  []any{map[string]any{"x": true}, map[string]any{"x": false}, map[string]any{}},
		"page":   map[string]any{"number": 2},
	}
	for _, code := range []string{
		`fields.link`, `fields["link"]`, `fields.flag ? 1 : 0`, `reFind(fields.link ?? "", "\\d+")`,
		`domain.host + "/"`, `domain.host == "example.com"`, `page.number > 1`, `page.number == 2`,
		`item.a.b`, `item.a.c`, `item.l[1]`, `item.s.x`, `item.nope.x`, `item?.nope?.x`, `steps.page.body`,
		`count(items, #.x)`, `count(items, !#.x)`, `map(items, #.x)`, `len(item.l)`,
	} {
		plain, errPlain := compilePlain(e, code, env)
		patched, errPatched := e.compileExpr(code, env, envKey(env), false)
		if (errPlain == nil) != (errPatched == nil) {
			t.Fatalf("%s: compile errors differ: %v / %v", code, errPlain, errPatched)
		}
		if errPlain != nil {
			continue
		}
		a, errA := vm.Run(plain, vals)
		b, errB := vm.Run(patched, vals)
		if fmt.Sprint(a) != fmt.Sprint(b) || (errA == nil) != (errB == nil) {
			t.Errorf("%s: %v (%v) rewritten %v (%v)", code, a, errA, b, errB)
		}
		if errA != nil && firstLine(errA) != firstLine(errB) {
			t.Errorf("%s: errors differ: %q / %q", code, firstLine(errA), firstLine(errB))
		}
	}
	for _, code := range []string{`fields.lnik`, `domain.hots`, `steps.page.bdy`} {
		if _, err := e.compileExpr(code, env, envKey(env), false); err == nil {
			t.Errorf("%s compiled: a name the environment does not declare must stay an error", code)
		}
	}
}

func compilePlain(e *Engine, code string, env types.Map) (*vm.Program, error) {
	return expr.Compile(code, func(c *conf.Config) {
		*c = *e.exprConf
		c.NtCache = nature.Cache{}
	}, expr.Env(env))
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// An optional access of a name on a value that has no names (a list, a string, a number) ends its
// chain with nil, as on nil, on the VM and directly; a plain access keeps its error, and a
// declared map still refuses a name it does not declare.
func TestOptionalMemberOfNonObject(t *testing.T) {
	e := New()
	env := types.Map{"src": types.Map{"listing": types.Any}, "item": types.Any, "domain": types.Map{"host": types.String}}
	for _, tc := range []struct {
		listing any
		code    string
		want    any
		err     bool
	}{
		{[]any{}, `src.listing?.kind`, nil, false},
		{[]any{}, `src.listing?.kind != "Listing"`, true, false},
		{[]any{}, `src.listing?.data?.children ?? []`, []any{}, false},
		{[]any{}, `src.listing?.data.children`, nil, false},
		{[]any{map[string]any{"kind": "Listing"}}, `src.listing?.[0]?.kind`, "Listing", false},
		{"text", `src.listing?.kind`, nil, false},
		{2.5, `src.listing?.kind`, nil, false},
		{true, `src.listing?.kind ?? "none"`, "none", false},
		{nil, `src.listing?.kind`, nil, false},
		{map[string]any{"kind": "Listing"}, `src.listing?.kind`, "Listing", false},
		{map[string]any{"data": []any{}}, `src.listing?.data?.children`, nil, false},
		{map[string]any{"data": map[string]any{"children": []any{1.0}}}, `len(src.listing?.data?.children)`, 1, false},
		{map[string]any{"data": []any{}}, `src.listing?.data.children`, nil, true},
		{[]any{}, `src.listing.kind`, nil, true},
		{[]any{}, `item?.name`, nil, false},
	} {
		p, err := e.compileExpr(tc.code, env, envKey(env), false)
		if err != nil {
			t.Fatalf("%s: %v", tc.code, err)
		}
		vals := map[string]any{"src": map[string]any{"listing": tc.listing}, "item": tc.listing,
			"domain": map[string]any{"host": "x"}}
		got, err := vm.Run(p, vals)
		if (err != nil) != tc.err {
			t.Errorf("%s on %#v: error %v, want an error: %v", tc.code, tc.listing, err, tc.err)
			continue
		}
		if err == nil && fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s on %#v: %#v, want %#v", tc.code, tc.listing, got, tc.want)
		}
		d := compileDirect(p, e.exprConf)
		if d == nil {
			continue
		}
		vals[directVar] = newFrame()
		dv, ok := d(vals)
		if ok && (err != nil || fmt.Sprint(dv) != fmt.Sprint(got)) {
			t.Errorf("%s on %#v: directly %#v; the VM %#v, %v", tc.code, tc.listing, dv, got, err)
		}
	}
	if _, err := e.compileExpr(`domain?.hots`, env, envKey(env), false); err == nil {
		t.Error("domain?.hots compiled: a declared map must still refuse a name it does not declare")
	}
}
