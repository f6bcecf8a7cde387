package xpatheval

import (
	"testing"

	"github.com/antchfx/xpath"

	"asa/engine/dom"
)

func TestNotScalarRewrite(t *testing.T) {
	tests := []struct{ src, want string }{
		{"//a[not(normalize-space(@href))]", "//a[not(boolean(normalize-space(@href)))]"},
		{"//a[not( string(@x) )]", "//a[not(boolean(string(@x)))]"},
		{"//li[not(count(b))]", "//li[not(boolean(count(b)))]"},
		{"//li[not(string-length(.))]/b", "//li[not(boolean(string-length(.)))]/b"},
		{"//li[not(substring-before(@a, ','))]", "//li[not(boolean(substring-before(@a, ',')))]"},
		// nested, and both halves of a predicate
		{"//li[not(b[not(string(@c))])]", "//li[not(b[not(boolean(string(@c)))])]"},
		{"//li[not(string(@a)) and not(@b)]", "//li[not(boolean(string(@a))) and not(@b)]"},
		// left as written: not() of a path, a comparison, a boolean function, a call that is not the
		// whole argument, a literal, an element named like the function, a half-closed source
		{"//li[not(b)]", "//li[not(b)]"},
		{"//li[not(@a = 'x')]", "//li[not(@a = 'x')]"},
		{"//li[not(contains(@a, 'x'))]", "//li[not(contains(@a, 'x'))]"},
		{"//li[not(string(@a) = 'x')]", "//li[not(string(@a) = 'x')]"},
		{"//li[@a = 'not(string(@a))']", "//li[@a = 'not(string(@a))']"},
		{"//knot(string(.))", "//knot(string(.))"},
		{"//li[not(string(@a)]", "//li[not(string(@a)]"},
	}
	for _, tt := range tests {
		if got := notScalar(tt.src); got != tt.want {
			t.Errorf("notScalar(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestNotOfAScalar: not() of a string or a number is the negation of its boolean value, whichever
// evaluator runs the XPath (antchfx alone answered false for every node).
func TestNotOfAScalar(t *testing.T) {
	checkSelects(t, `<ul><li a="">empty</li><li a="v">full<b>x</b></li><li>none</li><li a="  ">blank</li></ul>`, []selectsCase{
		{"//li[not(normalize-space(@a))]", "li=empty | li=none | li=blank"},
		{"//li[not(string(@a))]", "li=empty | li=none"},
		{"//li[not(string-length(@a))]", "li=empty | li=none"},
		{"//li[not(count(b))]", "li=empty | li=none | li=blank"},
		{"//li[not(normalize-space(@a)) and @a]", "li=empty | li=blank"},
		{"//li[normalize-space(@a)]", "li=fullx"},
	})
}

// FuzzNotScalar: any text is rewritten without a panic, once for all; an XPath that compiles still
// compiles and evaluates.
func FuzzNotScalar(f *testing.F) {
	for _, seed := range []string{"//a[not(string(@h))]", "//a[not(b[not(count(c))])]", "not(normalize-space(//a))", "//a[not('(')]"} {
		f.Add(seed)
	}
	doc, err := dom.ParseHTML([]byte(`<ul><li n="1">a<b>x</b></li><li n=""><c n="1">b</c></li></ul>`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 512 {
			return
		}
		out := notScalar(src)
		if again := notScalar(out); again != out {
			t.Fatalf("notScalar(%q) = %q, then %q", src, out, again)
		}
		if _, err := xpath.Compile(src); err != nil {
			return
		}
		e, err := xpath.Compile(out)
		if err != nil {
			t.Fatalf("%q compiles, rewritten %q does not: %v", src, out, err)
		}
		_ = collect(e.Evaluate(dom.NavigatorAt(doc, doc)))
	})
}
