package xpatheval

import (
	"strings"
	"testing"

	"asa/engine/dom"

	"github.com/antchfx/xpath"
)

// A function call with a predicate in an argument that other arguments follow is refused at compile
// time: antchfx reads those from the node the predicate stopped at.
func TestMovedContextRefused(t *testing.T) {
	for _, tc := range []struct {
		src  string
		call string // "" when the XPath compiles
	}{
		{`concat(td[1], ' ', td[2])`, `concat(td[1], ' ', td[2])`},
		{`normalize-space(concat(td[@class='name'], ' ', td[@class='unit']))`, `concat(td[@class='name'], ' ', td[@class='unit'])`},
		{`concat(td[1], td[2][@x])`, `concat(td[1], td[2][@x])`},
		{`contains(.//a[1], ../h2)`, `contains(.//a[1], ../h2)`},
		{`concat(td[2], ' ')`, ""},
		{`concat(' ', normalize-space(@class), ' ')`, ""},
		{`//div[contains(concat(' ', normalize-space(@class), ' '), ' x ')]`, ""},
		{`starts-with(.//a[1]/@href, 'http')`, ""},
		{`substring-before(td[1], 2)`, ""},
		{`string(td[1])`, ""},
		{`concat('a[', td, "]")`, ""},
		{`(//h1 | //h2)[1]`, ""},
	} {
		_, err := Compile(tc.src, NewWant())
		switch {
		case tc.call == "" && err != nil:
			t.Errorf("%s: %v", tc.src, err)
		case tc.call != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.call+": ")):
			t.Errorf("%s: %v, want an error naming %s", tc.src, err, tc.call)
		}
	}
}

// The behaviour the check guards against, in antchfx itself: when it reads concat's second node
// set from the context node, this test fails and the check can go.
func TestAntchfxConcatMovesContext(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<table><tr><td>Flour</td><td>100 g</td></tr></table>`))
	if err != nil {
		t.Fatal(err)
	}
	x := xpath.MustCompile(`//tr`)
	row := x.Select(dom.NavigatorAt(root, root))
	if !row.MoveNext() {
		t.Fatal("no row")
	}
	got := xpath.MustCompile(`concat(td[1], '|', td[2])`).Evaluate(row.Current().Copy())
	if got != "Flour|" {
		t.Errorf("antchfx gives %q: it now reads later arguments from the context node; remove movedContext", got)
	}
}

// movedContext reads any XPath an author writes: it never panics, and what it names is a call in
// the source.
func FuzzMovedContext(f *testing.F) {
	for _, seed := range []string{`concat(td[1], ' ', td[2])`, `f(a[`, `concat('[', x)`, `((((`, `a(b[c(d[1], e)], f)`, `)(`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if call := movedContext(src); call != "" && !strings.Contains(src, call) {
			t.Errorf("%q: %q is not in the source", src, call)
		}
	})
}
