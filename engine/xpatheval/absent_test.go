package xpatheval

import (
	"bytes"
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

// The absent-literal shortcut (absent.go) against the reference, from every element of pages where
// some items have the literal a path requires and others do not: checkXPathWays compares the
// evaluation over the item's elements with antchfx.
func TestAbsentLiteralShortcut(t *testing.T) {
	docs := []string{
		`<div id="r"><div class="card"><span class="price big">1</span><a href="/sspa/click?x">ad</a></div>` +
			`<div class="card"><span class="title">2</span><b class="price">3</b></div>` +
			`<div class="card"><p class="a">x</p><p class="b">y</p><span>z</span></div></div>`,
		`<ul><li class="s-item"><span class="s-item__bids">4 bids</span></li><li class="s-item"><i class="star">*</i></li>` +
			`<li><svg><use xlink:href="#price"></use></svg><span id="BESTSELLER_1">b</span></li></ul>`,
		// microdata: tabs, newlines, empty values, repeated and padded tokens, a token's prefix
		"<div itemscope><span itemprop=\"name\">a</span><span itemprop=\"x\tname\">b</span>" +
			"<span itemprop=\"name\nx\">c</span><span itemprop=\"\">d</span><span itemprop=\" name \">e</span>" +
			"<span itemprop=\"name name\">f</span><span itemprop=\"names\">g</span><span itemprop=\"x  name\">h</span>" +
			"<div itemprop=\"author\" itemscope><b itemprop=\"name\" content=\"N\">i</b></div><i itemprop=\"a b\">j</i></div>",
		"<div itemscope><p itemprop=\"x\tname\">only a tab</p><p itemprop=\"\">empty</p><p>none</p></div>",
		// enough elements with a class for a scan to search the joined values for the literal
		// (minHitSearch), which few, many or all of them hold, one twice (class and foreign class)
		`<div id="r" class="card"><span class="a">1</span><span class="b price">2</span><span class="c">3</span>` +
			`<span class="d">4</span><span class="e">5</span><span class="f price big">6</span><span class="g">7</span>` +
			`<span class="h">8</span><span class="i title">9</span><span class="j">10</span><b class="price">11</b>` +
			`<span class="price-x">12</span><span class="k">13</span><svg class="price"><g class="l price"></g></svg></div>`,
	}
	xpaths := []string{
		".//span[contains(@class, 'price')]",
		".//*[contains(@class, 'price')]",
		".//span[contains(@class, 'price')][contains(@class, 'big')]",
		".//span[contains(@class, 'price') and contains(@class, 'big')]",
		".//span[contains(@class, 'price') or contains(@class, 'title')]",
		".//*[contains(@class, 'price') or contains(@id, 'BESTSELLER')]", // two attributes: no need
		".//span[@class='title']",
		".//span[starts-with(@id, 'BESTSELLER_')]",
		".//span[contains(concat(' ', normalize-space(@class), ' '), ' price ')]",
		".//span[not(contains(@class, 'price'))]",
		".//p[contains(@class, 'a b')]",  // across two elements' values: no element has it
		".//p[contains(@class, '')]",     // the empty literal: every element with the attribute
		".//*[contains(@href, 'price')]", // a namespaced attribute
		".//a[contains(@href, '/sspa/click')]/@href",
		"boolean(.//a[contains(@href, '/sspa/click')] | .//span[contains(@class, 'title')])",
		"count(.//*[contains(@class, 'price')])",
		".//div[contains(@class, 'card')]/span[contains(@class, 'price')]",
		"./span[contains(@class, 'price')]",
		".//span[contains(@class, 'price')]/..",
		".//span/..[contains(@class, 'card')]", // a parent step: may leave the item
		".//span[contains(@class, 'bids')]/following-sibling::*[contains(@class, 'x')]",
		"(.//span[contains(@class, 'price')])[1]",
		".//li[contains(@class, 's-item')][1]",
		".//*[contains(concat(' ', @itemprop, ' '), ' name ')]",
		".//*[contains(concat(' ', normalize-space(@itemprop), ' '), ' name ')]",
		".//*[contains(concat(' ', @itemprop, ' '), ' a b ')]",
		".//*[contains(concat(' ', @itemprop, ' '), '   ')]",
		".//*[contains(concat(' ', @itemprop, ' '), ' name ') or contains(concat(' ', @itemprop, ' '), ' names ')]",
		"(.//*[contains(concat(' ', @itemprop, ' '), ' name ')]/@content | .//*[contains(concat(' ', @itemprop, ' '), ' name ')][not(@content | @datetime)])[1]",
		".//*[contains(concat(' ', @itemprop, ' '), ' author ')]//*[contains(concat(' ', @itemprop, ' '), ' name ')]/@content",
		"boolean(.//*[contains(concat(' ', @itemprop, ' '), ' x ')])",
	}
	for _, doc := range docs {
		for _, x := range xpaths {
			checkXPathWays(t, doc, x)
		}
	}
}

func TestPredNeeds(t *testing.T) {
	for _, c := range []struct {
		pred string
		want []string // attr=lit, one entry per need, alternatives joined by |
	}{
		{"contains(@class, 'a')", []string{"class=a"}},
		{`starts-with(@id, "b")`, []string{"id=b"}},
		{"@data-x='c'", []string{"data-x=c"}},
		{"contains(@class, 'a') or contains(@class, 'b')", []string{"class=a|b"}},
		{"contains(@class, 'a') or contains(@id, 'b')", nil},
		{"contains(@class, 'a') or @id", nil},
		{"contains(@class, 'a') and @id='x'", []string{"class=a", "id=x"}},
		{"(contains(@class, 'a'))", []string{"class=a"}},
		{"contains(concat(' ', normalize-space(@class), ' '), ' tok ')", []string{"class=tok"}},
		{"contains(concat(' ', @itemprop, ' '), ' name ')", []string{"itemprop=name"}},
		{"contains(concat( ' ' , @itemprop , ' ' ), ' a b ')", []string{"itemprop=a b"}},
		{"contains(concat(' ', @itemprop, ' '), '   ')", []string{"itemprop= "}},
		{"contains(concat(' ', @itemprop, ' '), 'name ')", nil}, // not the spaced form: no need claimed
		{"contains(concat(' ', @itemprop, ' '), '  ')", nil},
		{"contains(concat(' ', @itemprop, ' '), ' name ') or contains(concat(' ', @itemprop, ' '), ' x ')", []string{"itemprop=name|x"}},
		{"contains(concat(' ', @a, ' '), ' x ') and contains(concat(' ', normalize-space(@class), ' '), ' y ')", []string{"a=x", "class=y"}},
		{"not(contains(@class, 'a'))", nil},
		{"contains(., 'a')", nil},
		{"@id", nil},
	} {
		var got []string
		for _, n := range predNeeds(c.pred) {
			s := n.attr + "="
			for i, l := range n.lits {
				if i > 0 {
					s += "|"
				}
				s += l.s
			}
			got = append(got, s)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("predNeeds(%s) = %q, want %q", c.pred, got, c.want)
		}
	}
}

// TestRarestByCounts: a literal searched by the byte the first item's values make rarest is found
// where strings.Contains finds it, whatever the values counted and searched.
func TestRarestByCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	alphabet := "s-item__ab\x00 "
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for range 2000 {
		var sub subtree
		sample := []byte(word(rng.IntN(64)))
		for range 5 {
			lit := strings.ReplaceAll(word(1+rng.IntN(8)), "\x00", "")
			if lit == "" {
				continue
			}
			vals := []byte(word(rng.IntN(96)))
			if rng.IntN(2) == 0 {
				at := rng.IntN(len(vals) + 1)
				vals = slices.Concat(vals[:at], []byte(lit), vals[at:])
			}
			sub.rarest("class", sample, newRareString(lit)) // the counts come from the first values
			l := sub.rarest("class", vals, newRareString(lit))
			if got, want := l.inBytes(vals), strings.Contains(string(vals), lit); got != want {
				t.Fatalf("%q in %q by byte %d: %v, want %v", lit, vals, l.rare, got, want)
			}
		}
	}
}

// TestValuesJoinedInOneWalk: an item's values of each attribute, whether built alone, in one walk
// with the attributes the previous items asked for, or read from the document index, are those
// of a walk for that attribute alone, whatever order the items ask for them in.
func TestValuesJoinedInOneWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	names := []string{"class", "id", "href", "data-x", "data-y", "role"}
	for range 300 {
		var b strings.Builder
		var open int
		for range 1 + rng.IntN(40) {
			if open > 0 && rng.IntN(3) == 0 {
				b.WriteString("</div>")
				open--
				continue
			}
			b.WriteString("<div")
			for range rng.IntN(4) {
				fmt.Fprintf(&b, " %s=%q", names[rng.IntN(len(names))], []string{"a", "b c", "", "x\x01y"}[rng.IntN(4)])
			}
			b.WriteString(">t")
			open++
		}
		root, err := dom.ParseHTML([]byte(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		docIdx := buildIndex(root, joiningWant(), nil)
		var alone, fromDoc subtree
		for n := root; n != nil; n = nextNode(n, root) {
			if n.Type != html.ElementNode {
				continue
			}
			alone.reset(n, nil)
			fromDoc.reset(n, docIdx)
			for range 1 + rng.IntN(6) {
				name := names[rng.IntN(len(names))]
				var want []byte
				var wantElems []*html.Node
				for _, e := range alone.list() {
					has := false
					for _, a := range e.Attr {
						if a.Key == name {
							want = append(append(want, a.Val...), 0)
							has = true
						}
					}
					if has {
						wantElems = append(wantElems, e)
					}
				}
				for _, sub := range []*subtree{&alone, &fromDoc} {
					j := sub.values(name)
					if j.name != name || !bytes.Equal(j.vals, want) || !slices.Equal(j.elems, wantElems) {
						t.Fatalf("%s: values of %s under <%s>: %q %d elements, want %q %d", b.String(), name, n.Data, j.vals, len(j.elems), want, len(wantElems))
					}
				}
			}
		}
	}
}

// FuzzSpacedAttrNeed: the need the plain token idiom contains(concat(' ', @a, ' '), ' tok ') is
// given (a value holding tok, see predNeeds) never drops an element the predicate accepts, on
// elements whose values are the fuzzer's: every way the engine evaluates the path against antchfx.
func FuzzSpacedAttrNeed(f *testing.F) {
	for _, seed := range [][2]string{
		{"name|x\tname|name\nx||  name |names|name name", "name"},
		{"a b|a  b|b a", "a b"},
		{" | |\t", " "},
		{"x\u00a0name|name\u2003", "name"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, vals, tok string) {
		if tok == "" || strings.ContainsAny(tok, "'\x00") || len(vals) > 200 || len(tok) > 20 {
			return
		}
		var b strings.Builder
		b.WriteString("<div itemscope>")
		for i, v := range strings.Split(vals, "|") {
			fmt.Fprintf(&b, `<span itemprop="%s" id="e%d">%d</span>`, html.EscapeString(v), i, i)
		}
		b.WriteString("<span>none</span></div>")
		lit := " " + tok + " "
		for _, x := range []string{
			".//*[contains(concat(' ', @itemprop, ' '), '" + lit + "')]",
			".//span[contains(concat(' ', @itemprop, ' '), '" + lit + "')]/@id",
			"(.//*[contains(concat(' ', @itemprop, ' '), '" + lit + "')])[1]",
		} {
			checkXPathWays(t, b.String(), x)
		}
	})
}

// scanRef is what a descendant step from an item scanned before candidates searched the joined
// values for literals: the elements with the attribute of the need the fewest have, or of the
// step's tag, the fewer. The reference of TestScanByLiteralOnPages.
func scanRef(t *subtree, st *nativeStep) []*html.Node {
	elems := t.list()
	for _, nd := range st.needs {
		if j := t.values(nd.attr); len(j.elems) < len(elems) {
			elems = j.elems
		}
	}
	if st.atom != 0 && len(elems) > 0 {
		if tagged := t.withTag(st.atom); len(tagged) < len(elems) {
			elems = tagged
		}
	}
	return elems
}

// TestScanByLiteralOnPages: every step of every shipped native XPath, from items of every page of
// its endpoints (list items, cards, microdata items, a spread of elements), selects from what
// subtree.scan gives exactly the elements it selects from the reference's candidates, the item's
// elements listed by a walk and read from the document index, with the values joined by the item
// or read from the document's.
func TestScanByLiteralOnPages(t *testing.T) {
	if raceDetector {
		t.Skip("corpus-wide: make test runs it without -race")
	}
	var sels []shippedSel
	for _, x := range shippedSelectors(t, nil) {
		if x.native != nil {
			sels = append(sels, x)
		}
	}
	var checked, byLiteral atomic.Int64
	forEachPage(t, sels, func(page string, root *html.Node, on []shippedSel) {
		var ctxs []*html.Node
		i, kinds := 0, map[string]int{}
		for n := root; n != nil; n = nextNode(n, root) {
			if n.Type != html.ElementNode {
				continue
			}
			kind := n.Data
			if _, ok := attr(n, "itemscope"); ok {
				kind = "itemscope"
			} else if _, ok := attr(n, "data-asin"); ok {
				kind = "card"
			}
			if (kind == "li" || kind == "card" || kind == "itemscope" || kind == "article") && kinds[kind] < 8 || i%211 == 0 && i/211 < 24 {
				ctxs = append(ctxs, n)
				kinds[kind]++
			}
			i++
		}
		idx := buildIndex(root, joiningWant(), nil)
		for _, c := range ctxs {
			for _, doc := range []*docIndex{nil, idx} {
				sub := &subtree{}
				sub.reset(c, doc)
				for _, s := range on {
					for _, b := range s.native.branches {
						for k := range b.steps {
							st := &b.steps[k]
							if !st.descendant || st.pos > 0 || st.last || st.byParent || st.name == "#root" {
								continue
							}
							var want, got []*html.Node
							for _, n := range scanRef(sub, st) {
								if st.match(n) {
									want = append(want, n)
								}
							}
							elems, pooled := sub.scan(st)
							if pooled {
								byLiteral.Add(1)
							}
							for _, n := range elems {
								if st.match(n) {
									got = append(got, n)
								}
							}
							sub.release(pooled)
							if !slices.Equal(got, want) {
								t.Errorf("%s on %s from <%s>, step %d: %d elements, want %d", s.src, filepath.Base(page), c.Data, k, len(got), len(want))
								return
							}
							checked.Add(1)
						}
					}
				}
			}
		}
	})
	if byLiteral.Load() == 0 {
		t.Error("no scan searched the joined values")
	}
	t.Logf("%d scans, %d by literal", checked.Load(), byLiteral.Load())
}

// firstFrom, which looks forward from the previous item's place, against the whole search it
// replaces, from every hint (before, at and past the answer, out of range) on sorted positions with
// runs and gaps.
func TestFirstFromIsTheSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	lists := [][]int32{nil, {0}, {5}, {1, 2, 3}, {0, 0, 4, 4, 4, 9}}
	for range 50 {
		l := make([]int32, r.IntN(300))
		for i := range l {
			l[i] = int32(r.IntN(1000))
		}
		slices.Sort(l)
		lists = append(lists, l)
	}
	for _, pos := range lists {
		j := &joinedAttr{pos: pos}
		for v := -1; v <= 1001; v += 1 + v/50 {
			want := 0
			for want < len(pos) && int(pos[want]) < v {
				want++
			}
			for hint := -2; hint <= len(pos)+2; hint++ {
				if got := j.firstFrom(v, hint); got != want {
					t.Fatalf("firstFrom(%d, hint %d) over %v = %d, want %d", v, hint, pos, got, want)
				}
			}
		}
	}
}
