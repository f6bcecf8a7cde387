package xpatheval

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"asa/engine/dom"
	"golang.org/x/net/html"
)

// checkMasks compares, for the item under every element of root taken in document order (as a
// list's items come), the answers of the literal masks (masks.go) with the search of the item's
// joined values they replace: whether the item's values hold one of a set of literals
// (selectsNothing), and which of its elements do, up to a limit (candidates). sets are the sets of
// literals asked, per attribute; every item asks each set once, in an order of its own, so that
// literals get their bits on different items. It returns how many answers came from masks, and
// stops at the first difference, which it reports with t.Errorf (forEachPage's workers may not
// call Fatal).
func checkMasks(t *testing.T, name string, root *html.Node, sets map[string][][]rareString, rng *rand.Rand) (masked int) {
	return checkMasksWith(t, &subtree{}, name, root, sets, rng)
}

// checkMasksWith is checkMasks with the items' subtree sub, which may have served another document.
func checkMasksWith(t *testing.T, sub *subtree, name string, root *html.Node, sets map[string][][]rareString, rng *rand.Rand) (masked int) {
	t.Helper()
	idx := buildIndex(root, joiningWant(), nil)
	attrs := make([]string, 0, len(sets))
	for a := range sets {
		attrs = append(attrs, a)
	}
	slices.Sort(attrs)
	for n := root; n != nil; n = nextNode(n, root) {
		if n.Type != html.ElementNode {
			continue
		}
		sub.reset(n, idx)
		for _, a := range attrs {
			ls := slices.Clone(sets[a])
			rng.Shuffle(len(ls), func(i, k int) { ls[i], ls[k] = ls[k], ls[i] })
			for _, lits := range ls {
				j := sub.joinedOf(a)
				want := j.litBits(lits)
				if want == 0 {
					continue
				}
				masked++
				ref := false
				for _, l := range lits {
					ref = ref || l.inBytes(j.vals)
				}
				if got := j.masks.holds(&j.joinedAttr, j.doc.masks, want) != 0; got != ref {
					t.Errorf("%s: under <%s>, %s holds one of %q: %v, the search says %v", name, n.Data, a, litStrings(lits), got, ref)
					return masked
				}
				for _, limit := range []int{-1, 0, 1, 3, len(j.elems) / 4} {
					refElems, refOK := j.withLiteralUpTo(lits, nil, limit)
					gotElems, gotOK := j.masks.elemsHolding(&j.joinedAttr, want, nil, limit)
					if gotOK != refOK || refOK && !slices.Equal(gotElems, refElems) {
						t.Errorf("%s: under <%s>, elements whose %s holds one of %q (limit %d): %d %v, the search %d %v", name, n.Data, a, litStrings(lits), limit, len(gotElems), gotOK, len(refElems), refOK)
						return masked
					}
				}
			}
		}
	}
	return masked
}

func litStrings(ls []rareString) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.s
	}
	return out
}

// TestCardMasksOnPages: on every page of the shipped native XPaths' endpoints, the masks answer
// as the search for the literals those XPaths ask of each attribute, alone and in pairs, plus
// pieces of the page's own values (held by many elements, by few, across two values: by none)
// and literals no mask can hold (past the 64th, with a zero byte).
func TestCardMasksOnPages(t *testing.T) {
	if raceDetector {
		t.Skip("corpus-wide: make test runs it without -race")
	}
	var sels []shippedSel
	shipped := map[string][]rareString{}
	for _, x := range shippedSelectors(t, nil) {
		if x.native == nil {
			continue
		}
		sels = append(sels, x)
		for _, b := range x.native.branches {
			for _, nd := range b.needs {
				if slices.Contains(joinedForTest, nd.attr) {
					shipped[nd.attr] = append(shipped[nd.attr], nd.lits...)
				}
			}
		}
	}
	var pages, masked atomic.Int64
	var seed atomic.Uint64
	forEachPage(t, sels, func(page string, root *html.Node, _ []shippedSel) {
		rng := rand.New(rand.NewPCG(seed.Add(1), 5))
		sets := map[string][][]rareString{}
		for _, a := range joinedForTest {
			lits := slices.Clone(shipped[a])
			lits = append(lits, pageLiterals(root, a, rng, 24)...)
			// a distinct copy of some literal: another string with the same bytes
			if len(lits) > 0 {
				lits = append(lits, newRareString(strings.Clone(lits[0].s)))
			}
			lits = append(lits, newRareString("a\x00b"), newRareString("\x00"), newRareString("absent-from-all-pages"))
			var ls [][]rareString
			for i, l := range lits {
				ls = append(ls, []rareString{l})
				if i > 0 && i%3 == 0 {
					ls = append(ls, []rareString{l, lits[rng.IntN(i)]})
				}
			}
			sets[a] = ls
		}
		masked.Add(int64(checkMasks(t, filepath.Base(page), root, sets, rng)))
		pages.Add(1)
	})
	if masked.Load() == 0 {
		t.Error("no answer came from masks")
	}
	t.Logf("%d pages, %d answers from masks", pages.Load(), masked.Load())
}

// joinedForTest is the attributes joiningWant joins.
var joinedForTest = []string{"class", "href", "id", "data-asin", "itemprop"}

// pageLiterals returns up to n pieces of the values of attribute a on the page: whole values,
// their tokens, and substrings of them.
func pageLiterals(root *html.Node, a string, rng *rand.Rand, n int) []rareString {
	var vals []string
	for e := root; e != nil; e = nextNode(e, root) {
		if e.Type != html.ElementNode {
			continue
		}
		for _, at := range e.Attr {
			if at.Key == a && at.Val != "" {
				vals = append(vals, at.Val)
			}
		}
	}
	var out []rareString
	for range n {
		if len(vals) == 0 {
			break
		}
		v := vals[rng.IntN(len(vals))]
		switch rng.IntN(3) {
		case 0:
			out = append(out, newRareString(v))
		case 1:
			f := strings.Fields(v)
			if len(f) > 0 {
				out = append(out, newRareString(f[rng.IntN(len(f))]))
			}
		default:
			i := rng.IntN(len(v))
			out = append(out, newRareString(v[i:i+1+rng.IntN(min(8, len(v)-i))]))
		}
	}
	return out
}

// TestCardMasksEdges: elements with the attribute twice (foreign content's href and xlink:href),
// empty values, a literal across two values or two elements, more literals than bits.
func TestCardMasksEdges(t *testing.T) {
	doc := `<div id="r"><ul><li class="card a"><span class="price big">1</span><svg><use xlink:href="#price" href="#other"></use></svg></li>` +
		`<li class="card"><span class="">2</span><b class="price">3</b><a href="/x/price">p</a></li>` +
		`<li class="card b"><p class="a">x</p><p class="b">y</p></li></ul></div>`
	root, err := dom.ParseHTML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	sets := map[string][][]rareString{}
	var many []rareString
	for i := range 70 {
		many = append(many, newRareString(fmt.Sprintf("lit%d", i)))
	}
	for _, a := range []string{"class", "href"} {
		var ls [][]rareString
		for _, s := range []string{"price", "price big", "#price", "price\x00#other", "e#o", "a\x00b", "card", "b", "big", "a b", "#other"} {
			ls = append(ls, []rareString{newRareString(s)})
		}
		ls = append(ls, []rareString{newRareString("nothing"), newRareString("card")})
		for _, l := range many {
			ls = append(ls, []rareString{l})
		}
		ls = append(ls, []rareString{newRareString("price")}) // asked again past the 64th
		sets[a] = ls
	}
	if checkMasks(t, "edges", root, sets, rand.New(rand.NewPCG(1, 2))) == 0 {
		t.Fatal("no answer came from masks")
	}
}

// TestCardMasksNextDocument: an evaluator's items subtree serves one document after another; the
// values an item shares with the previous item are looked up again in a new document's memo,
// whose entries are in another order.
func TestCardMasksNextDocument(t *testing.T) {
	card := func(a, b, c string) string {
		return `<li class="card"><span class="` + a + `">1</span><b class="` + b + `">2</b><i class="` + c + `">3</i></li>`
	}
	// the last item with values of the first document is the p, whose span's value "price" is the
	// first value of the second document's first item (its html element), taken from the previous
	// item's: its entry must not be the first document's
	docs := []string{
		`<ul class="list">` + card("price", "title", "badge") + card("price", "title", "badge") + `</ul><p class="q"><span class="price">4</span></p>`,
		`<div class="price"><b class="y">5</b><b class="z">6</b><b class="w">7</b></div><ul class="list">` + card("x", "y", "z") + card("badge", "price", "title") + card("price", "title", "badge") + `</ul>`,
	}
	ls := [][]rareString{{newRareString("price")}, {newRareString("badge")}, {newRareString("title")}, {newRareString("y")}}
	sub := &subtree{}
	for i, d := range docs {
		root, err := dom.ParseHTML([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		if checkMasksWith(t, sub, fmt.Sprint("document ", i), root, map[string][][]rareString{"class": ls}, rand.New(rand.NewPCG(3, 4))) == 0 {
			t.Fatal("no answer came from masks")
		}
	}
}

// FuzzCardMasks: on items whose elements carry the fuzzer's class and href values (nested,
// repeated, foreign), the masks answer as the search for the fuzzer's literals.
func FuzzCardMasks(f *testing.F) {
	f.Add("a b|price|price big||x-price", "price|big|a b|e p")
	f.Add("s-item__price|s-item__hotness|s-item__price s-item__bids", "hotness|__|s-item__price")
	f.Add("x\x00y|y|\x00", "y|\x00|x")
	f.Fuzz(func(t *testing.T, vals, lits string) {
		if len(vals) > 400 || len(lits) > 200 {
			return
		}
		rng := rand.New(rand.NewPCG(uint64(len(vals)), uint64(len(lits))))
		var b strings.Builder
		b.WriteString(`<div id="r">`)
		for i, v := range strings.Split(vals, "|") {
			switch i % 4 {
			case 0:
				fmt.Fprintf(&b, `<div class="%s"><span class="%s">t</span>`, html.EscapeString(v), html.EscapeString(v+" x"))
			case 1:
				fmt.Fprintf(&b, `<svg><use xlink:href="%s" href="%s"></use></svg></div>`, html.EscapeString(v), html.EscapeString(strings.ToUpper(v)))
			case 2:
				fmt.Fprintf(&b, `<a href="%s" class="%s">l</a>`, html.EscapeString(v), html.EscapeString(v))
			default:
				fmt.Fprintf(&b, `<p class="%s"></p>`, html.EscapeString(v))
			}
		}
		root, err := dom.ParseHTML([]byte(b.String()))
		if err != nil {
			return
		}
		var ls [][]rareString
		parts := strings.Split(lits, "|")
		for i, l := range parts {
			ls = append(ls, []rareString{newRareString(l)})
			if i > 0 {
				ls = append(ls, []rareString{newRareString(l), newRareString(parts[rng.IntN(i)])})
			}
		}
		checkMasks(t, "fuzz", root, map[string][][]rareString{"class": ls, "href": ls}, rng)
	})
}
