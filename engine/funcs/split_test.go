package funcs

import (
	"reflect"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// splitCases are separators and texts around minFastSplit: separators first, last, doubled,
// overlapping themselves, absent, and with non-ASCII and invalid bytes.
func splitCases() (seps, texts []string) {
	seps = []string{`data-sigil="comment">`, `id="ufi_`, "aa", "é", "\xff", ", ", "x"}
	long := strings.Repeat("<div class=\"a\">text é</div>", 20)
	texts = []string{"", "a", "aaa", "aaaa", long, long + `data-sigil="comment">`, `data-sigil="comment">` + long,
		long + `data-sigil="comment">data-sigil="comment">` + long + `id="ufi_1"` + long, strings.Repeat("a", 300),
		strings.Repeat("é\xff, ", 100), strings.Repeat("x", minFastSplit-1)}
	return seps, texts
}

// TestSplitIsStrings compares Split with strings.SplitN: the parts, and the slice's length and
// capacity (a caller appending to it must see the same thing).
func TestSplitIsStrings(t *testing.T) {
	seps, texts := splitCases()
	for _, sep := range append(seps, "") {
		for _, s := range texts {
			for _, n := range []int{-1, 0, 1, 2, 3, 1000} {
				checkSplit(t, s, sep, n)
			}
		}
	}
}

func checkSplit(t *testing.T, s, sep string, n int) {
	t.Helper()
	got, want := Split(s, sep, n), strings.SplitN(s, sep, n)
	if !reflect.DeepEqual(got, want) || len(got) != len(want) || cap(got) != cap(want) {
		t.Fatalf("Split(%q, %q, %d) = %q (cap %d), want %q (cap %d)", s, sep, n, got, cap(got), want, cap(want))
	}
}

// FuzzSplit compares Split with strings.SplitN on any text, separator and count; short texts
// are repeated past minFastSplit so that the rare-byte search runs.
func FuzzSplit(f *testing.F) {
	seps, texts := splitCases()
	for i, s := range texts {
		f.Add(s, seps[i%len(seps)], -1, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s, sep string, n int, rep uint8) {
		if rep > 0 && len(s) > 0 {
			s = strings.Repeat(s, int(rep)%64+1)
		}
		if n > 1<<16 {
			n = 1 << 16 // strings.SplitN allocates n parts
		}
		checkSplit(t, s, sep, n)
	})
}

// TestSplitOverrideIsTheBuiltin compiles and runs split calls with the Set's options (the
// override) and without them (expr's builtin): the same static type, the same answer, the same
// error, with arguments of every kind an expression can pass (unknown types, pointers, nil,
// numbers as counts).
func TestSplitOverrideIsTheBuiltin(t *testing.T) {
	page := strings.Repeat(`<div data-sigil="comment">a é</div>`, 40) + `id="ufi_1"` + strings.Repeat("x", 300)
	str := "p,q"
	env := map[string]any{"page": page, "short": "a,b,,c", "none": nil, "num": 3, "f": map[string]any{"n": 2.0, "s": page},
		"ptr": &str, "list": []any{"a,b"}}
	s := New()
	prog, err := expr.Compile(`split(page, ",")`, append([]expr.Option{expr.Env(env)}, s.Options()...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := prog.Node().(*ast.CallNode); !ok {
		t.Fatalf("split compiles to %T, not a call of the override", prog.Node())
	}
	for _, code := range []string{
		`split(page, "data-sigil=\"comment\">")`,
		`split(page, "data-sigil=\"comment\">")[1:]`,
		`map(split(f.s, "data-sigil=\"comment\">")[1:], ({"html": #}))`,
		`split(split(page, "id=\"ufi_1\"", 2)[1], "id=\"ufi_", 2)[0]`,
		`split(page, "absent", 2)`, `split(page, "<", num)`, `split(page, "", 3)`, `split(short, ",")`,
		`split(short, ",", 0)`, `split(short, ",", -1)`, `split(page, "<", f.n)`, `split(none ?? "", ",")`,
		`split(f.s, ",")`, `split(ptr, ",")`, `split(short, f.s)`, `len(split(page, "<"))`,
		`split(f.n, ",")`, `split(list[0], ",")`, `split(f.none, ",")`, `split(short, ",", "x")`,
		`split(f.s, ",", f.s)`,
	} {
		opts := append([]expr.Option{expr.Env(env)}, s.Options()...)
		prog, err := expr.Compile(code, opts...)
		std, stdErr := expr.Compile(code, expr.Env(env))
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("%s: compile error %v, builtin's %v", code, err, stdErr)
		}
		if err != nil {
			if err.Error() != stdErr.Error() {
				t.Errorf("%s: compile error %q, builtin's %q", code, err, stdErr)
			}
			continue
		}
		if got, want := prog.Node().Type(), std.Node().Type(); got != want {
			t.Errorf("%s: type %v, builtin's %v", code, got, want)
		}
		got, err := expr.Run(prog, env)
		want, stdErr := expr.Run(std, env)
		if !reflect.DeepEqual(got, want) || (err == nil) != (stdErr == nil) || err != nil && err.Error() != stdErr.Error() {
			t.Errorf("%s: %#v, %v; builtin: %#v, %v", code, got, err, want, stdErr)
		}
	}
}
