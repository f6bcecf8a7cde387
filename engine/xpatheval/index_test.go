package xpatheval

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"asa/engine/dom"
)

// nestedInOrder answers as nested on nodes in document order: random subsets of a page with
// nested lists, siblings and cousins.
func TestNestedInOrder(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<ul><li>a<ul><li>b</li><li>c<ul><li>d</li></ul></li></ul></li><li>e</li></ul>` +
		`<div><p><span>f</span></p><p>g</p></div><li>h</li>`))
	if err != nil {
		t.Fatal(err)
	}
	var elems []*html.Node
	for n := root; n != nil; n = nextNode(n, root) {
		if n.Type == html.ElementNode {
			elems = append(elems, n)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var ns []*html.Node
		for _, n := range elems {
			if rng.IntN(3) == 0 {
				ns = append(ns, n)
			}
		}
		if got, want := nestedInOrder(ns), nested(ns); got != want {
			t.Fatalf("nestedInOrder %v, nested %v, on %d nodes", got, want, len(ns))
		}
	}
}

// A branch that is its first step alone answers its candidates as they are, in document order and
// once each, however they nest; a branch with more steps from nested candidates is sorted.
func TestIndexNestedCandidates(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<div class="a" id="1"><div class="b" id="2"><span>x</span><div class="c" id="3"><span>y</span></div></div>` +
		`<span>z</span></div><div class="d" id="4"><span>w</span></div>`))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"//div[@class]", "//div[@class]/@id", "//div[contains(@class, 'b') or contains(@class, 'a')]",
		"//div[@class]//span", "//div[@class]/span", "//div[@id][@class]/@class"} {
		want := newIndexWant()
		fx := analyzeXPath(src, want)
		if fx == nil {
			t.Fatalf("%s: not indexed", src)
		}
		got, ok := fx.eval(buildIndex(root, want, nil))
		if !ok {
			t.Fatalf("%s: the index did not answer", src)
		}
		x, err := newXPathSel(src)
		if err != nil {
			t.Fatal(err)
		}
		ref := sortUnique(collect(referenceXPath(x, root, root)).([]xpath.NodeNavigator))
		if g, w := sequence(got.([]xpath.NodeNavigator)), sequence(ref); g != w {
			t.Errorf("%s:\nindexed %s\nfull    %s", src, g, w)
		}
	}
}

// sequence lists nodes as they come, repeats included.
func sequence(ns []xpath.NodeNavigator) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(n.LocalName() + "=" + dom.Text(n) + ";")
	}
	return b.String()
}
