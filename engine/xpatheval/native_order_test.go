package xpatheval

import (
	"fmt"
	"slices"
	"testing"

	"asa/engine/dom"
)

// Predicates that read a node's text run after the others of their step (parseNativePath): the
// same nodes, in the same order, as the reference.
func TestTextPredicatesLast(t *testing.T) {
	doc := `<div id="r"><div class="card"><span class="flag-bestseller">Best seller</span><p>Best seller</p>` +
		`<div><span>Best seller</span><b>x</b></div></div><div class="card"><div>Best <i>seller</i></div><span>x</span></div></div>`
	for _, x := range []string{
		".//*[contains(@class, 'flag-bestseller') or contains(., 'Best seller')][self::span or self::div][not(*)]",
		"boolean(.//*[contains(., 'Best seller')][self::span or self::div][not(*)])",
		".//*[contains(., 'Best')][self::div][1]",
		".//span[normalize-space()][@class]",
		".//div[.//span][contains(@class, 'card')]",
		".//*[string-length(.) > 3][self::span]",
		".//span[not(ancestor::*[@class='card'])][normalize-space()]",
		".//*[ancestor::div[@id='r']][.//span][self::div]",
	} {
		checkXPathWays(t, doc, x)
	}
}

func TestWalksUp(t *testing.T) {
	for _, c := range []struct {
		pred string
		want bool
	}{
		{"not(ancestor::*[@data-initq or @data-text-ad])", true},
		{"ancestor-or-self::div", true},
		{"contains(@class, 'ancestor::')", false},
		{"@data-ancestor", false},
		{".//h3", false},
	} {
		if got := walksUp(c.pred); got != c.want {
			t.Errorf("walksUp(%s) = %v, want %v", c.pred, got, c.want)
		}
	}
}

func TestReadsText(t *testing.T) {
	for _, c := range []struct {
		pred string
		want bool
	}{
		{"contains(., 'x')", true},
		{"normalize-space()", true},
		{"text()", true},
		{".//span", true},
		{"contains(@class, 'a.b')", false},
		{`contains(@class, "x") or @id`, false},
		{"self::span or self::div", false},
		{"not(*)", false},
		{"count(td) = 2", false},
		{"contains(@class, 'unclosed", true},
	} {
		if got := readsText(c.pred); got != c.want {
			t.Errorf("readsText(%s) = %v, want %v", c.pred, got, c.want)
		}
	}
}

// A position after a text predicate is still refused where antchfx counts it across contexts.
func TestTextPredicateBeforePosition(t *testing.T) {
	if compileNative(".//a//span[normalize-space()][1]") != nil {
		t.Error(".//a//span[normalize-space()][1] compiled natively")
	}
	checkXPathWays(t, `<div><a><span> </span><span>x</span><b><span>y</span></b></a></div>`, ".//a//span[normalize-space()][1]")
}

// A position after other predicates of a descendant step from one context: antchfx takes the
// parents in document order and counts over all of them, so the step selects the Nth match in that
// order, which the native evaluation follows (Google's snippet: the first non-empty part of a
// result block). Nested parents put a later element first: the outer div's children (the second
// x, C) come before the nested one's (B).
func TestPositionAcrossParents(t *testing.T) {
	srcs := []string{
		".//*[@class='x'][normalize-space()][1]", ".//*[@class='x'][1]", ".//*[@class='x'][2]", ".//div[@class='x'][3]",
		"ancestor::*[@id][1]//*[@class='x'][normalize-space()][1]", "//*[@class='x'][normalize-space()][2]",
		"boolean(.//*[@class='x'][normalize-space()][4])", "count(.//*[@class='x'][1])",
	}
	for _, src := range srcs {
		if compileNative(src) == nil {
			t.Errorf("%s: not native", src)
		}
	}
	for _, doc := range []string{
		`<div id="r"><p class="x"> </p><div class="y"><b class="x">B</b></div><i class="x">C</i></div>`,
		`<div id="r"><div class="x"><div class="x">1</div></div><div class="x">2</div><div class="x"> </div></div>`,
		`<section id="s"><div><span class="x"></span></div><div><span class="x">a</span><span class="x">b</span></div></section>`,
	} {
		for _, src := range srcs {
			checkXPathWays(t, doc, src)
		}
	}
}

// The preceding axis in antchfx's order (each previous sibling, nearest first, then its subtree in
// document order; then the same one level up) with its positions counted afresh at each level up:
// Amazon's best-seller title is the h1 before the grid (preceding::h1[1]).
func TestPrecedingAxis(t *testing.T) {
	srcs := []string{
		"//div[@class='grid']/preceding::h1[1]", "//div[@class='grid']/preceding::h1", "//div[@class='grid']/preceding::*[2]",
		"//b/preceding::h1[1]", "//b/preceding::*", "//div/preceding::h1[1]/@id", "boolean(//p/preceding::h1[3])",
		"//div[@class='grid']/preceding::span[@id]",
	}
	for _, src := range srcs[:len(srcs)-1] {
		if compileNative(src) == nil {
			t.Errorf("%s: not native", src)
		}
	}
	for _, src := range []string{"//div/preceding::h1[@id][1]", "//div/preceding::h1[last()]", "//div/preceding::text()"} {
		if compileNative(src) != nil {
			t.Errorf("%s: native, want antchfx", src)
		}
	}
	for _, doc := range []string{
		`<div><h1 id="a">A</h1><section><h1 id="b">B</h1><p><h1 id="c">C</h1></p></section><h1 id="d">D</h1><div class="grid"><b>x</b></div></div>`,
		`<h1 id="top">T</h1><div><span id="s"><h1 id="in">I</h1></span>text<!-- c --><div class="grid"><div class="grid"><b>y</b></div></div></div><p>z</p>`,
		`<div class="grid"></div><h1>after</h1>`,
	} {
		for _, src := range srcs {
			checkXPathWays(t, doc, src)
		}
	}
}

// A descendant step from nested contexts reaches a node from each of them; the path's nodes are
// a node set all the same, in document order, each once, however the path is evaluated (a phone
// SERP's results grouped in a host card, an outer div.xpd around each result's own, came out twice
// through the index and the native path while the antchfx path sorted them).
func TestNestedContextsOnce(t *testing.T) {
	doc := `<div id="rso"><div class="xpd"><div class="xpd"><a href="/1"><div role="heading">one</div></a></div>` +
		`<div class="xpd"><a href="/2"><div role="heading">two</div></a></div></div>` +
		`<div class="xpd"><a href="/3"><div role="heading">three</div></a></div></div>`
	srcs := []string{
		"//div[@id='rso']//div[contains(concat(' ', normalize-space(@class), ' '), ' xpd ')]//a[@href][div[@role='heading']]",
		"//div[@id='rso']//div//a/@href", ".//div[@class='xpd']//a", "//div[@class='xpd']/div//a", "//a/ancestor::div",
	}
	for _, src := range srcs {
		checkXPathWays(t, doc, src)
	}
	root, elems, err := dom.ParseHTMLViewElements([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := NewWant()
	x, err := Compile(srcs[0], want)
	if err != nil {
		t.Fatal(err)
	}
	ev := NewEvaluator(want)
	ev.SetElements(root, elems)
	var got []string
	for _, n := range ev.Nodes(x, dom.NavigatorAt(root, root)) {
		got = append(got, n.Value())
	}
	if !slices.Equal(got, []string{"one", "two", "three"}) {
		t.Errorf("Nodes: %q, want one, two, three", got)
	}
	if v := ev.Value(x, dom.NavigatorAt(root, root), true, true); fmt.Sprint(v) != "[one two three]" {
		t.Errorf("Value (all): %v, want [one two three]", v)
	}
}
