package xpatheval

import (
	"strings"
	"testing"

	"asa/engine/dom"
	"github.com/antchfx/htmlquery"
	"github.com/antchfx/xpath"
)

func TestGroupsAsSteps(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`//div[(.//span)[1] = 'b1']`, `//div[descendant::span[1] = 'b1']`},
		{`//div[(./span[@class='x'])[3]]`, `//div[child::span[@class='x'][3]]`},
		{`//div[(./span)[last()]]`, `//div[(./span)[last()]]`},
		{`//div[(./span)[position() > 1]]`, `//div[(./span)[position() > 1]]`},
		{`//div[( .//span ) [2]]`, `//div[descendant::span[2]]`},
		{`//li[(.//a[(.//b)[1]])[1]]`, `//li[descendant::a[descendant::b[1]][1]]`},
		{`//li[(.//a[(.//b)[1]])[last()]]`, `//li[(.//a[descendant::b[1]])[last()]]`},
		{`//div[(.//*)[1][self::h3]]`, `//div[descendant::*[1][self::h3]]`},
		// Left as written: top level, not one step, attributes, no position filter, quoted.
		{`(.//span)[1]`, `(.//span)[1]`},
		{`//div[(.//a/b)[1]]`, `//div[(.//a/b)[1]]`},
		{`//div[(.//a | .//b)[1]]`, `//div[(.//a | .//b)[1]]`},
		{`//div[(.//@href)[1]]`, `//div[(.//@href)[1]]`},
		{`//div[string((.//span)) = 'x']`, `//div[string((.//span)) = 'x']`},
		{`//div[. = '(.//span)[1]']`, `//div[. = '(.//span)[1]']`},
		{`//div[count((.//span)[1]) = 1]`, `//div[count(descendant::span[1]) = 1]`},
	} {
		if got := groupsAsSteps(tc.in); got != tc.want {
			t.Errorf("groupsAsSteps(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestGroupPositionInPredicate: a position picked in a group inside a predicate counts from each
// context node, whichever evaluator answers (antchfx alone counted on from the previous one).
func TestGroupPositionInPredicate(t *testing.T) {
	doc, err := htmlquery.Parse(strings.NewReader(`<html><body>` +
		`<div id="a"><span>a1</span><p><span>a2</span></p></div>` +
		`<div id="b"><span>b1</span><span>b2</span></div>` +
		`<div id="c"><i>c</i></div></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ xpath, want string }{
		{`//div[(.//span)[1] = 'b1']/@id`, "b"},
		{`//div[(.//span)[2] = 'a2']/@id`, "a"},
		{`//div[(.//span)[1] = 'a2']/@id`, ""},
		{`//div[(./span)[2] = 'b2']/@id`, "b"},
		{`//div[(.//span)[1][. = 'b1']]/@id`, "b"},
		{`//div[(.//span)[2]]/@id`, "a b"},
		{`//div[not((.//span)[1])]/@id`, "c"},
	} {
		for _, want := range []*Want{nil, NewWant()} {
			x, err := Compile(tc.xpath, want)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range NewEvaluator(want).Nodes(x, dom.NavigatorAt(doc, doc)) {
				got = append(got, n.Value())
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("%s (index %v) = %q, want %q", tc.xpath, want != nil, got, tc.want)
			}
		}
	}
}

// FuzzGroupsAsSteps: any text (extract_rules' XPaths are a request's) is rewritten without a panic;
// of an XPath antchfx compiles, the rewrite compiles too and a second rewrite changes nothing (the
// rewritten form has no group left that it would take).
func FuzzGroupsAsSteps(f *testing.F) {
	for _, seed := range []string{`//div[(.//span)[1] = 'b1']`, `//li[(.//a[(.//b)[1]])[last()]]`, `[(./`, `[(./a)`, `[( ./a )[`, `'[(./a)[1]'`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, src string) {
		once := groupsAsSteps(src)
		if _, err := xpath.Compile(src); err != nil {
			return
		}
		if _, err := xpath.Compile(once); err != nil {
			t.Errorf("groupsAsSteps(%q) = %q: %v", src, once, err)
		}
		if twice := groupsAsSteps(once); twice != once {
			t.Errorf("groupsAsSteps(%q) = %q, and again %q", src, once, twice)
		}
	})
}
