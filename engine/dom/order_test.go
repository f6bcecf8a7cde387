package dom

import (
	"math/rand/v2"
	"testing"

	"golang.org/x/net/html"
)

// compareByAncestry is Compare as it was first written (both ancestor lists from the root, then
// the first pair that differs): the reference the allocation-free climb must agree with.
func compareByAncestry(a, b *HTMLNavigator) int {
	if a.curr == b.curr {
		switch {
		case a.attr == b.attr:
			return 0
		case a.attr < b.attr:
			return -1
		}
		return 1
	}
	list := func(n *html.Node) []*html.Node {
		var out []*html.Node
		for p := n; p != nil; p = p.Parent {
			out = append([]*html.Node{p}, out...)
		}
		return out
	}
	pa, pb := list(a.curr), list(b.curr)
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	switch {
	case i == len(pa):
		return -1
	case i == len(pb):
		return 1
	}
	for s := pa[i].NextSibling; s != nil; s = s.NextSibling {
		if s == pb[i] {
			return -1
		}
	}
	return 1
}

// randomTree builds a tree of n elements under a document node, each with 0 to 2 attributes, each
// element added under a random earlier one, so shapes range from chains to wide sibling lists.
func randomTree(r *rand.Rand, n int) (*html.Node, []*html.Node) {
	doc := &html.Node{Type: html.DocumentNode}
	nodes := []*html.Node{doc}
	for range n {
		e := &html.Node{Type: html.ElementNode, Data: "div"}
		for range r.IntN(3) {
			e.Attr = append(e.Attr, html.Attribute{Key: "a", Val: "v"})
		}
		nodes[r.IntN(len(nodes))].AppendChild(e)
		nodes = append(nodes, e)
	}
	return doc, nodes
}

func TestCompareMatchesAncestryOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		doc, nodes := randomTree(r, 1+r.IntN(40))
		// A second tree: nodes of two documents compare as the reference has them too.
		other, more := randomTree(r, 1+r.IntN(5))
		var navs []*HTMLNavigator
		for _, n := range append(nodes, more...) {
			root := doc
			if n == other || n.Parent != nil && contains(other, n) {
				root = other
			}
			navs = append(navs, NavigatorAt(root, n))
			for i := range n.Attr {
				navs = append(navs, AttrNavigatorAt(root, n, i))
			}
		}
		for _, a := range navs {
			for _, b := range navs {
				if got, want := Compare(a, b), compareByAncestry(a, b); got != want {
					t.Fatalf("round %d: Compare(%p/%d, %p/%d) = %d, reference %d", round, a.curr, a.attr, b.curr, b.attr, got, want)
				}
			}
		}
	}
}

func contains(root, n *html.Node) bool {
	for p := n; p != nil; p = p.Parent {
		if p == root {
			return true
		}
	}
	return false
}

func TestCompareMatchesAncestryOrderOnCorpus(t *testing.T) {
	dir := corpusDir(t)
	doc, err := ParseHTML(readCorpus(t, dir, "amazon/search-de-katzenfutter.html"))
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*html.Node
	for n := doc; n != nil; n = next(n, doc) {
		nodes = append(nodes, n)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		a, b := nodes[r.IntN(len(nodes))], nodes[r.IntN(len(nodes))]
		if r.IntN(8) == 0 {
			b = a.Parent // ancestors and descendants
			if b == nil {
				b = a
			}
		}
		x, y := NavigatorAt(doc, a), NavigatorAt(doc, b)
		if got, want := Compare(x, y), compareByAncestry(x, y); got != want {
			t.Fatalf("Compare = %d, reference %d", got, want)
		}
		if got, want := Compare(y, x), compareByAncestry(y, x); got != want {
			t.Fatalf("Compare (swapped) = %d, reference %d", got, want)
		}
	}
}

func next(n, root *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	for n != nil && n != root {
		if n.NextSibling != nil {
			return n.NextSibling
		}
		n = n.Parent
	}
	return nil
}
