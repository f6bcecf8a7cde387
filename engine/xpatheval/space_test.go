package xpatheval

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"asa/engine/dom"
)

func TestTightSpace(t *testing.T) {
	tests := []struct{ src, want string }{
		{"//li[@a]", "//li[@a]"},
		// a YAML fold between two predicates, and before the next step
		{"//li[@a] [.//h3]", "//li[@a][.//h3]"},
		{"//li[@a]\n\t[.//h3]\n//a", "//li[@a][.//h3]//a"},
		{"//li [@a] /a", "//li[@a]/a"},
		// kept: inside literals, between words, before a step after an operator or a union bar
		{"//li[@a = 'x ]  [y']", "//li[@a = 'x ]  [y']"},
		{`//li[@a = "p ] /q"] | //b`, `//li[@a = "p ] /q"] | //b`},
		{"//li[@a or //b]", "//li[@a or //b]"},
		{"//li[@a] | //b", "//li[@a] | //b"},
		{"//li[contains(concat(' ', normalize-space(@class), ' '), ' x ')]", "//li[contains(concat(' ', normalize-space(@class), ' '), ' x ')]"},
		{"  //li", "  //li"},
		// an unclosed literal is left to the compiler's error
		{"//li[@a = 'x ] [", "//li[@a = 'x ] ["},
	}
	for _, tt := range tests {
		if got := tightSpace(tt.src); got != tt.want {
			t.Errorf("tightSpace(%q) = %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestTightSpaceNative: the spaces a fold leaves no longer send an XPath to antchfx, and the
// XPath keeps its text for messages.
func TestTightSpaceNative(t *testing.T) {
	src := "//*[contains(concat(' ', normalize-space(@class), ' '), ' ux-labels-values ')]\n[.//*[contains(@class, 'labels')][normalize-space(.) = 'Brand']]\n//*[contains(@class, 'values')]"
	x, err := Compile(src, NewWant())
	if err != nil {
		t.Fatal(err)
	}
	if x.native == nil {
		t.Errorf("not native: %q", x.src)
	}
	if x.String() != src {
		t.Errorf("String() = %q, want the XPath as written", x.String())
	}
	if _, err := Compile("//li[@a] [", nil); err == nil {
		t.Error("an unclosed predicate compiled")
	}
}

// TestTightSpaceShipped: every shipped XPath the spaces change selects the same nodes, by antchfx,
// written and tightened, on its pages.
func TestTightSpaceShipped(t *testing.T) {
	var sels []shippedSel
	for _, x := range shippedSelectors(t, nil) {
		if x.src != x.written {
			sels = append(sels, x)
		}
	}
	if len(sels) == 0 {
		t.Skip("no shipped XPath has a space to drop")
	}
	var checked atomic.Int64
	forEachPage(t, sels, func(page string, root *html.Node, on []shippedSel) {
		ids := map[*html.Node]int{}
		for _, s := range on {
			want := nodeIDs(antchfxEval(s.written, root, root), ids)
			if got := nodeIDs(antchfxEval(s.src, root, root), ids); got != want {
				t.Errorf("%s: %q selects %s, tightened %s", page, s.written, want, got)
			}
			checked.Add(1)
		}
	})
	t.Logf("%d XPaths with spaces dropped, %d checks", len(sels), checked.Load())
}

// FuzzTightSpace: any text (extract_rules' XPaths are a request's) is tightened in one pass without
// a panic; an XPath that compiles still compiles, and selects the same nodes of a small page.
func FuzzTightSpace(f *testing.F) {
	for _, seed := range []string{"//li[@a] [.//b]", "//a [1] / b", "//a[@x=' ] [ ']", "//a | //b [c]", "(//a) [1]"} {
		f.Add(seed)
	}
	doc, err := dom.ParseHTML([]byte(`<ul><li a="1"><b>x</b><a href="/p">p</a></li><li><c/><a>q</a></li></ul>`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 512 {
			return
		}
		tight := tightSpace(src)
		if len(tight) > len(src) || strings.Count(tight, "'") != strings.Count(src, "'") {
			t.Fatalf("tightSpace(%q) = %q", src, tight)
		}
		if _, err := xpath.Compile(src); err != nil {
			return
		}
		if _, err := xpath.Compile(tight); err != nil {
			t.Fatalf("%q compiles, tightened %q does not: %v", src, tight, err)
		}
		ids := map[*html.Node]int{}
		want := nodeIDs(antchfxEval(src, doc, doc), ids)
		if got := nodeIDs(antchfxEval(tight, doc, doc), ids); got != want {
			t.Fatalf("%q selects %s, tightened %q %s", src, want, tight, got)
		}
	})
}
