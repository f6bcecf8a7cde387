package xpatheval

import (
	"testing"

	"github.com/antchfx/xpath"

	"asa/engine/dom"
)

func TestScalarFirst(t *testing.T) {
	tests := []struct{ src, want string }{
		{"//li['abc' = .]", "//li[. = 'abc']"},
		{"//li[translate(., '0123456789', '') = .]", "//li[. = translate(., '0123456789', '')]"},
		{"//li[2 < @n]", "//li[@n > 2]"},
		{"//li[2 >= @n]", "//li[@n <= 2]"},
		{"//li['x' != text()]", "//li[text() != 'x']"},
		{"//li[@a and 'x' = span/b[1] or 'y' = @c]", "//li[@a and span/b[1] = 'x' or @c = 'y']"},
		// nested predicates, inside a rewritten path and inside a step
		{"//ul[li['a' = .]]/li['b' = .]", "//ul[li[. = 'a']]/li[. = 'b']"},
		{"//li['a' = span[3 = @n]]", "//li[span[@n = 3] = 'a']"},
		// left as written: the path is already first, two scalars, two paths, a group, a sum, a
		// node test on the left, a literal with brackets, top level
		{"//li[. = 'abc']", "//li[. = 'abc']"},
		{"//li['a' = 'b']", "//li['a' = 'b']"},
		{"//li[@a = @b]", "//li[@a = @b]"},
		{"//li['a' = (.//b)[1]]", "//li['a' = (.//b)[1]]"},
		{"//li[2 = @n + 1]", "//li[2 = @n + 1]"},
		{"//li[text() = 'a']", "//li[text() = 'a']"},
		{"//li[@a = '[x = y]']", "//li[@a = '[x = y]']"},
		{"'a' = //li", "'a' = //li"},
		{"//li[position() = 2]", "//li[position() = 2]"},
		{"//li['a' = .", "//li['a' = ."},
	}
	for _, tt := range tests {
		if got := scalarFirst(tt.src); got != tt.want {
			t.Errorf("scalarFirst(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestScalarOnTheLeft: a comparison with the literal or function first selects what XPath says,
// whichever evaluator runs it (antchfx alone selected nothing for the first three, and only the
// numeric li for string(.) = .).
func TestScalarOnTheLeft(t *testing.T) {
	checkSelects(t, `<ul><li n="1">abc</li><li n="3">a1</li><li n="5">22</li></ul>`, []selectsCase{
		{"//li['abc' = .]", "li=abc"},
		{"//li[translate(., '0123456789', '') = .]", "li=abc"},
		{"//li[concat('a', '1') = text()]", "li=a1"},
		{"//li[string(.) = .]", "li=abc | li=a1 | li=22"},
		{"//li[2 < @n]", "li=a1 | li=22"},
		{"//li['abc' != .]", "li=a1 | li=22"},
	})
}

// selectsCase is an XPath and the nodes it must select, as describeResult writes them.
type selectsCase struct{ src, want string }

// checkSelects compiles each XPath as the engine does (with its rewrites) and checks what it
// selects on page.
func checkSelects(t *testing.T, page string, tests []selectsCase) {
	t.Helper()
	doc, err := dom.ParseHTML([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		x, err := Compile(tt.src, nil)
		if err != nil {
			t.Fatal(err)
		}
		nav := dom.NavigatorAt(doc, doc)
		if got := describeResult(NewEvaluator(nil).Nodes(x, nav)); got != tt.want {
			t.Errorf("%s selects %q, want %q", tt.src, got, tt.want)
		}
	}
}

// FuzzScalarFirst: any text (extract_rules' XPaths are a request's) is rewritten without a panic;
// an XPath that compiles still compiles, is rewritten once for all, and selects the same nodes as
// the comparison written path first on a small page.
func FuzzScalarFirst(f *testing.F) {
	for _, seed := range []string{"//li['a' = .]", "//li[2 < @n and 'x' != b]", "//a[('x' = .)]", "//a['[' = .]['b' = c[1 = @n]]"} {
		f.Add(seed)
	}
	doc, err := dom.ParseHTML([]byte(`<ul><li n="1">a<b>x</b></li><li n="3"><c n="1">b</c></li></ul>`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 512 {
			return
		}
		out := scalarFirst(src)
		if again := scalarFirst(out); again != out {
			t.Fatalf("scalarFirst(%q) = %q, then %q", src, out, again)
		}
		if _, err := xpath.Compile(src); err != nil {
			return
		}
		e, err := xpath.Compile(out)
		if err != nil {
			t.Fatalf("%q compiles, rewritten %q does not: %v", src, out, err)
		}
		// a rewrite only ever puts a path first: evaluated by antchfx it answers without a panic
		_ = collect(e.Evaluate(dom.NavigatorAt(doc, doc)))
	})
}
