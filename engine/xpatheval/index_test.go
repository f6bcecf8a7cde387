package xpatheval

import (
	"math/rand/v2"
	"testing"

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
