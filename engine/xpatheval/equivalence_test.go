package xpatheval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"asa/engine/dom"
)

func TestAnalyzeXPath(t *testing.T) {
	tests := []struct {
		src     string
		indexed bool
		wrapper string
	}{
		{"//span[@id='productTitle']", true, ""},
		{"//span[@id='a'] | //input[@id=\"b\"]/@value", true, ""},
		{"normalize-space(//div[@id='x'])", true, "normalize-space"},
		{"boolean(//form[contains(@action, 'captcha')])", true, "boolean"},
		{"//div[@id='a' or @data-hook='b']//li", true, ""},
		{"//div[contains(@class, 'x') and @id='y']", true, ""},
		{"//div[@id='a'][2]", false, ""},
		{"//li[last()]", false, ""},
		{"//div[@id='a'][//b]", false, ""},
		{"//div[@id='a'][not(ancestor::ul)]", true, ""},
		{".//span[@id='a']", false, ""},
		{"(//div[@id='a'])[1]", true, "first"},
		{"(//div[@id='a'])[2]", false, ""},
		{"(//div[@id='a']) | (//b)[1]", false, ""},
		// keyed by a literal the first step requires of an attribute (the joined values)
		{"//*[contains(@class, 'x')]", true, ""},
		{"//div[contains(concat(' ', normalize-space(@class), ' '), ' g ')] | //form[@id='c']", true, ""},
		{"//*[contains(@class, '')]", false, ""},
		{"//*[@x != 'y']", false, ""},
		{"//div[@id='a'] | .//b", false, ""},
		{"//a[@href = /html/@x]", false, ""},
		{"//a[@x='1' or /html]", false, ""},
		// antchfx counts [@x][N] across the step's contexts (here: across candidates)
		{"//div[@id='a']//li[@x][2]", false, ""},
		{"//div[@id='a']/ancestor::div[@x][1]", false, ""},
		// antchfx runs a numeric predicate's step parent by parent, not in document order
		{"//div[@id='a'][count(li) = 2]", false, ""},
		{"//div[@id='a'][string-length(.) > 2]", false, ""},
		// the same nodes in another order: in a union, put in document order, the index finds them
		{"//div[@id='a'][count(li) = 2] | //li[@id='b']", true, ""},
		{"//div[@data-c='r'][string-length(@data-asin) = 10] | //li[contains(@class, 'r')][string-length(@data-asin) = 10]", true, ""},
		{"(//div[@id='a'][count(li) = 2])[1]", false, ""},
		// keyed by an attribute's presence
		{"//*[@itemscope][not(@itemprop)][contains(@itemtype, 'schema.org/Product')]", true, ""},
		{"//div[@data-item-id] | //script[@id='x']", true, ""},
		{"//li[@a or @b='x']", true, ""},
		{"//*[not(@a)]", false, ""},
		{"//div[@id='a']//li[2]", true, ""},
		{"//div[@id='a'] | //li[@id='b']", true, ""},
	}
	for _, tt := range tests {
		fx := analyzeXPath(tt.src, newIndexWant())
		if (fx != nil) != tt.indexed {
			t.Errorf("%s: indexed %v, want %v", tt.src, fx != nil, tt.indexed)
			continue
		}
		if fx != nil && fx.wrapper != tt.wrapper {
			t.Errorf("%s: wrapper %q, want %q", tt.src, fx.wrapper, tt.wrapper)
		}
	}
}

// TestFastXPathMatchesFull runs every indexable XPath of every shipped sitedef both ways on real and
// fixture pages: the index path must give the nodes the full evaluation gives, in the same order.
func TestFastXPathMatchesFull(t *testing.T) {
	// Besides each endpoint's own pages, every Amazon page and the dated Google SERPs of the corpus:
	// the index is cheap to check, and those are the pages it was built for.
	extra := map[string][]string{}
	for site, pat := range map[string]string{"amazon": "../../../shared/corpus/amazon/*.html", "google": "../../../shared/corpus/google/serp-20*.html"} {
		extra[site], _ = filepath.Glob(pat)
	}
	var sels []shippedSel
	for _, x := range shippedSelectors(t, extra) {
		if x.fast != nil {
			sels = append(sels, x)
		}
	}
	if len(sels) < 10 {
		t.Fatalf("only %d indexable XPaths found", len(sels))
	}
	want := newIndexWant()
	for _, s := range sels {
		analyzeXPath(s.src, want)
	}
	var checked atomic.Int64
	forEachPage(t, sels, func(page string, root *html.Node, on []shippedSel) {
		idx := buildIndex(root, want, nil)
		for _, s := range on {
			fast, ok := s.fast.eval(idx)
			if !ok {
				continue
			}
			full := referenceXPath(s.xpathSel, root, root)
			got, wantS := describeResult(fast), describeResult(full)
			if got != wantS {
				t.Errorf("%s on %s:\nindexed %s\nfull    %s", s.src, filepath.Base(page), got, wantS)
			}
			if s.fast.wrapper == "" || s.fast.wrapper == "first" {
				// A rule's test: whether the node set is empty, by the first branch that answers.
				if found, ok := s.fast.exists(idx); ok && found != (wantS != "") {
					t.Errorf("%s on %s: exists says %v, full %s", s.src, filepath.Base(page), found, wantS)
				}
			}
			if s.fast.wrapper != "count" {
				first, _ := s.fast.evalFirst(idx, true)
				if got, wantS := firstOf(first), firstOf(referenceWalk(s.xpathSel, root, root)); got != wantS {
					t.Errorf("%s on %s, first only:\nindexed %s\nfull    %s", s.src, filepath.Base(page), got, wantS)
				}
			}
			checked.Add(1)
		}
	})
	t.Logf("%d indexable XPaths, %d comparisons", len(sels), checked.Load())
}

// shippedSel is one distinct XPath of the shipped sitedefs and the pages of the endpoints using it.
type shippedSel struct {
	*xpathSel
	pages []string
}

// maxPagesPerXPath bounds the pages one XPath is checked on: a family XPath is shared by every site
// of the family, and its base's fixtures plus a spread of the sites' pages prove it as well as all.
const maxPagesPerXPath = 16

// shippedSelectors compiles every shipped sitedef (through the registry: families resolved) and
// returns each distinct XPath once, with the pages of the endpoints that use it, plus extra pages
// by site.
func shippedSelectors(t *testing.T, extra map[string][]string) []shippedSel {
	t.Helper()
	plans, err := loadShippedOnce()
	if err != nil {
		t.Fatal(err)
	}
	bySrc := map[string]*shippedSel{}
	var order []string
	for _, sp := range plans {
		pages := append(append([]string(nil), sp.Pages...), extra[sp.Site]...)
		for _, src := range sp.XPaths {
			s := bySrc[src]
			if s == nil {
				x, err := Compile(src, NewWant())
				if err != nil {
					t.Fatalf("%s: %v", src, err)
				}
				s = &shippedSel{xpathSel: x}
				bySrc[src] = s
				order = append(order, src)
			}
			for _, p := range pages {
				if len(s.pages) >= maxPagesPerXPath {
					break
				}
				if !slices.Contains(s.pages, p) {
					s.pages = append(s.pages, p)
				}
			}
		}
	}
	out := make([]shippedSel, len(order))
	for i, src := range order {
		out[i] = *bySrc[src]
	}
	return out
}

// The shipped plans and the parsed pages are shared by the tests that compare evaluations: compiling
// every sitedef and parsing every page once per test run, not once per test.
var (
	shippedOnce  sync.Once
	shippedPlans []ShippedXPaths
	shippedErr   error
	pagesMu      sync.Mutex
	parsedPages  = map[string]*parsedPage{}
)

func loadShippedOnce() ([]ShippedXPaths, error) {
	shippedOnce.Do(func() {
		if LoadShipped == nil {
			shippedErr = errors.New("LoadShipped is not set (shipped_test.go)")
			return
		}
		shippedPlans, shippedErr = LoadShipped()
	})
	return shippedPlans, shippedErr
}

type parsedPage struct {
	once sync.Once
	root *html.Node
	err  error
}

// parsePage parses a page once for the whole test run (the trees are only read).
func parsePage(page string) (*html.Node, error) {
	pagesMu.Lock()
	pp := parsedPages[page]
	if pp == nil {
		pp = &parsedPage{}
		parsedPages[page] = pp
	}
	pagesMu.Unlock()
	pp.once.Do(func() {
		body, err := os.ReadFile(page)
		if err != nil {
			pp.err = err
			return
		}
		body, _ = dom.ToUTF8(body, "text/html")
		pp.root, pp.err = dom.ParseHTML(body)
	})
	return pp.root, pp.err
}

// forEachPage parses every page some selector names (once per test run) and calls fn with the
// selectors on it, for several pages at once: fn must be safe for concurrent use, and report with
// t.Errorf (not Fatal, which only the test's goroutine may call).
func forEachPage(t *testing.T, sels []shippedSel, fn func(page string, root *html.Node, on []shippedSel)) {
	t.Helper()
	byPage := map[string][]shippedSel{}
	var pages []string
	for _, s := range sels {
		ps := s.pages
		if raceDetector && len(ps) > 1 {
			ps = ps[:1] // under -race, each XPath on one of its pages (see race_on_test.go)
		}
		for _, p := range ps {
			if _, ok := byPage[p]; !ok {
				pages = append(pages, p)
			}
			byPage[p] = append(byPage[p], s)
		}
	}
	sort.Strings(pages)
	if len(pages) == 0 {
		t.Skip("no pages")
	}
	work := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for page := range work {
				root, err := parsePage(page)
				if err != nil {
					if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
						t.Error(err)
					}
					continue
				}
				fn(page, root, byPage[page])
			}
		})
	}
	for _, page := range pages {
		work <- page
	}
	close(work)
	wg.Wait()
}

// contextFree reports whether an XPath's answer is the same from every context: each branch starts
// at the document (//..., or a group of such), so evaluating it from one context checks it from all.
func contextFree(src string) bool {
	s := strings.TrimSpace(src)
	if m := wrapperRe.FindStringSubmatch(s); m != nil && matching(s, len(m[0])-1) == len(s)-1 {
		s = strings.TrimSpace(s[len(m[0]) : len(s)-1])
	}
	for _, b := range splitTop(s, '|') {
		b = strings.TrimSpace(b)
		for strings.HasPrefix(b, "(") {
			b = strings.TrimSpace(b[1:])
		}
		if !strings.HasPrefix(b, "//") {
			return false
		}
	}
	return true
}

// describeResult lists the nodes once each: antchfx repeats a node reached from two nested
// contexts (//div[@id='a' or @id='b']//a with b inside a), the index path does not.
func describeResult(v any) string {
	var parts []string
	seen := map[any]bool{}
	add := func(n xpath.NodeNavigator) {
		h := n.(*dom.HTMLNavigator)
		k := [2]any{h.Current(), h.Attr()}
		if !seen[k] {
			seen[k] = true
			parts = append(parts, n.LocalName()+"="+dom.Text(n))
		}
	}
	switch x := v.(type) {
	case *xpath.NodeIterator:
		for x.MoveNext() {
			add(x.Current())
		}
		return strings.Join(parts, " | ")
	case []xpath.NodeNavigator:
		for _, n := range x {
			add(n)
		}
		return strings.Join(parts, " | ")
	case float64, bool, string:
		return strings.TrimSpace(strings.Join(strings.Fields(anyString(x)), " "))
	}
	return "?"
}

func anyString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	f, _ := v.(float64)
	s := fmt.Sprintf("%g", f)
	if f == float64(int64(f)) {
		s = fmt.Sprintf("%d", int64(f))
	}
	return strings.TrimSuffix(strings.TrimRight(strings.TrimRight(strings.Replace(s, ".000000", "", 1), "0"), "."), ".")
}

// TestNativeXPathMatchesFull runs every XPath of the native subset both ways, from the document and
// from a spread of element contexts of fixture and corpus pages: same nodes, same order.
func TestNativeXPathMatchesFull(t *testing.T) {
	// Each XPath on its endpoints' fixture pages and a real page of each big kind (shipped_test.go).
	var sels []shippedSel
	for _, x := range shippedSelectors(t, nil) {
		if x.native != nil {
			sels = append(sels, x)
		}
	}
	if len(sels) < 20 {
		t.Fatalf("only %d native XPaths found", len(sels))
	}
	var checked atomic.Int64
	forEachPage(t, sels, func(page string, root *html.Node, on []shippedSel) {
		// A spread of elements, and the contexts list fields run from: result cards, result links
		// (with an h3), table rows and list items.
		ctxs := []*html.Node{root}
		i, items := 0, map[string]int{}
		for n := root; n != nil; n = nextNode(n, root) {
			if n.Type != html.ElementNode {
				continue
			}
			kind := n.Data
			if _, card := attr(n, "data-asin"); card {
				kind = "card"
			} else if _, md := attr(n, "itemscope"); md {
				kind = "itemscope" // a microdata item, the context of an object's fields
			} else if n.Data == "a" && (&nativePath{steps: []nativeStep{{descendant: true, name: "h3"}}}).exists(n) {
				kind = "result"
			}
			switch {
			case (kind == "card" || kind == "result" || kind == "tr" || kind == "li" || kind == "itemscope") && items[kind] < 6:
				ctxs = append(ctxs, n)
				items[kind]++
			case i%397 == 0 && i/397 < 16:
				ctxs = append(ctxs, n)
			}
			i++
		}
		var sub, fromDoc subtree
		// Each context's elements kept across all the XPaths, as a list item's are across its
		// fields: what one XPath lists (attribute values, elements of a tag) serves the next.
		// keptDoc: the same, read from the document index's elements and joined values.
		idx := buildIndex(root, joiningWant(), nil)
		kept, keptDoc := map[*html.Node]*subtree{}, map[*html.Node]*subtree{}
		for _, c := range ctxs {
			kept[c], keptDoc[c] = &subtree{}, &subtree{}
			kept[c].reset(c, nil)
			keptDoc[c].reset(c, idx)
		}
		for _, s := range on {
			from := ctxs
			if contextFree(s.src) {
				from = ctxs[:1] // the same answer from every context: once, from the document
			}
			for _, c := range from {
				full := referenceXPath(s.xpathSel, root, c)
				want := describeResult(full)
				fullFirst := firstOf(referenceWalk(s.xpathSel, root, c))
				// From the tree, from the context's element list, and first-only.
				sub.reset(c, nil)
				fromDoc.reset(c, idx)
				for _, way := range []struct {
					name string
					res  any
					want string
				}{
					{"native over the item's elements from the document index", s.native.eval(root, c, &fromDoc), want},
					{"native first over the item's elements kept from the document index", s.native.evalAll(root, c, keptDoc[c], false), fullFirst},
					{"native", s.native.eval(root, c, nil), want},
					{"native over the item's elements", s.native.eval(root, c, &sub), want},
					{"native first", s.native.evalAll(root, c, nil, false), fullFirst},
					{"native first over the item's elements", s.native.evalAll(root, c, &sub, false), fullFirst},
					{"native over the item's elements kept across XPaths", s.native.eval(root, c, kept[c]), want},
					{"native first over the item's elements kept across XPaths", s.native.evalAll(root, c, kept[c], false), fullFirst},
				} {
					if got := describeResult(way.res); got != way.want {
						t.Errorf("%s on %s from <%s>, %s:\ngot  %s\nfull %s", s.src, filepath.Base(page), c.Data, way.name, got, way.want)
						return
					}
				}
				if s.native.wrapper == "" {
					// A rule's test through the evaluator (no index: the native path), from the
					// context and over its elements as a list item.
					ev := NewEvaluator(nil)
					nav := dom.NavigatorAt(root, c)
					plain := ev.Value(s.xpathSel, nav, false, false)
					mark := ev.BeginItem(nav)
					asItem := ev.Value(s.xpathSel, nav, false, false)
					ev.EndItem(mark)
					for _, got := range []any{plain, asItem} {
						if (got == true) != (want != "") || got != nil && got != true {
							t.Errorf("%s on %s from <%s>, exists: got %v, full %s", s.src, filepath.Base(page), c.Data, got, want)
							return
						}
					}
				}
				checked.Add(1)
			}
		}
	})
	t.Logf("%d native XPaths, %d comparisons", len(sels), checked.Load())
}

// joiningWant is a Want whose index joins the values of the attributes card fields mostly test, so
// that an item's values are read from the document's (subtree.values).
func joiningWant() *Want {
	w := newIndexWant()
	for _, a := range []string{"class", "href", "id", "data-asin", "itemprop"} {
		w.attrs[a], w.joins[a] = true, true
	}
	return w
}

// firstOf is what a field that takes one value gets: the first node of a node set.
func firstOf(v any) string {
	if ns, ok := collect(v).([]xpath.NodeNavigator); ok && len(ns) > 1 {
		v = ns[:1]
	}
	return describeResult(v)
}

// The string shortcuts of the native subset against the general forms they replace.
func TestNativeStringShortcuts(t *testing.T) {
	values := []string{"", " ", "a-price", "a-price-whole", "x a-price", "a-price y", " a-price ", "xa-price",
		"a-pricey a-price", "a\ta-price\n", "a-price\u00a0b", "b\u00a0a-price", "a-text-price a-price", "a\u2003b",
		"by", " by ", "von", "de  di", "d", "door\n", "Von", "bye", "\u00a0by\u00a0", "by by", "par door"}
	for _, v := range values {
		for _, tok := range []string{"a-price", "a", "b", "by"} {
			want := strings.Contains(" "+strings.Join(strings.Fields(v), " ")+" ", " "+tok+" ")
			if got := hasToken(v, tok); got != want {
				t.Errorf("hasToken(%q, %q) = %v, want %v", v, tok, got, want)
			}
		}
		list := " von by de di par door "
		w := strings.Join(strings.Fields(v), " ")
		want := strings.Contains(list, " "+w+" ")
		if got := containsSpaced(list, normSpaceX(v)); got != want {
			t.Errorf("containsSpaced(%q) = %v, want %v", v, got, want)
		}
		if got := normSpaceX(v); got != w {
			t.Errorf("normSpaceX(%q) = %q, want %q", v, got, w)
		}
		// the bytes outside spaces: w's, less the spaces that join its words
		nonSpace := len(w) - strings.Count(w, " ")
		for limit := -1; limit <= len(v)+1; limit++ {
			if got, want := nonSpaceOver(v, limit), nonSpace > limit; got != want {
				t.Errorf("nonSpaceOver(%q, %d) = %v, want %v", v, limit, got, want)
			}
		}
	}
}

// FuzzNormSpaceX compares normSpaceX, which returns a normalized value as it is, with the split and
// join it stands for.
func FuzzNormSpaceX(f *testing.F) {
	for _, v := range []string{"", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\u00a0b", "\u2003", "a\vb", "a\fb", "a\r\nb", "\x85", "\xff a"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := normSpaceX(v), strings.Join(strings.Fields(v), " "); got != want {
			t.Errorf("normSpaceX(%q) = %q, want %q", v, got, want)
		}
		// the word-list test's early answer (nonSpaceOver) against the count it stands for
		w := strings.Join(strings.Fields(v), " ")
		for _, limit := range []int{0, 1, 3, 8, len(v) / 2, len(v)} {
			if got, want := nonSpaceOver(v, limit), len(w)-strings.Count(w, " ") > limit; got != want {
				t.Errorf("nonSpaceOver(%q, %d) = %v, want %v", v, limit, got, want)
			}
		}
	})
}

// stringValue without a navigator against the navigator's Value, on every node of a page with
// comments, text, nested elements and a doctype.
func TestStringValueMatchesNavigator(t *testing.T) {
	root, err := dom.ParseHTML([]byte("<!DOCTYPE html><p>a<!-- c --><b>b<i> i </i></b>\n<script>s</script>t</p><div></div><span>one</span>"))
	if err != nil {
		t.Fatal(err)
	}
	for n := root; n != nil; n = nextNode(n, root) {
		if got, want := stringValue(n), dom.NavigatorAt(root, n).Value(); got != want {
			t.Errorf("stringValue(<%s> %d) = %q, navigator %q", n.Data, n.Type, got, want)
		}
	}
}

// inSpaced against the string it tests without building: contains(concat(' ', @a, ' '), lit).
func TestInSpaced(t *testing.T) {
	values := []string{"", " ", "name", " name", "name ", " name ", "xname", "namex", "a name", "name b", "a name b",
		"a  name", "a\tname", "name\tb", "names name", "name name", "na me", "nam", "name\u00a0b", "a b", "b a"}
	for _, v := range values {
		for _, lit := range []string{" name ", " a b ", " b ", " na me ", "   "} {
			want := strings.Contains(" "+v+" ", lit)
			if got := inSpaced(v, lit); got != want {
				t.Errorf("inSpaced(%q, %q) = %v, want %v", v, lit, got, want)
			}
		}
	}
}

// FuzzInSpaced compares inSpaced with the string it stands for on any value and token.
func FuzzInSpaced(f *testing.F) {
	f.Add("a name b", "name")
	f.Add("name", "name")
	f.Add(" ", "")
	f.Fuzz(func(t *testing.T, v, tok string) {
		lit := " " + tok + " "
		if got, want := inSpaced(v, lit), strings.Contains(" "+v+" ", lit); got != want {
			t.Errorf("inSpaced(%q, %q) = %v, want %v", v, lit, got, want)
		}
	})
}

// string-length comparisons and one-attribute contains lists, natively and through antchfx.
func TestNativeSmallShapes(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<div><p data-asin="B01GOH7PKA">a</p><p data-asin="B01GOH7PK">b</p><p>c</p>` +
		`<p data-asin="B01GOH7PKÄ">d</p><p data-asin="">e</p><p>  x  y </p></div>`))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"//p[string-length(@data-asin) = 10]", "//p[string-length(@data-asin) != 10]",
		"//p[string-length(@data-asin) < 10]", "//p[contains(@data-asin, 'PKA') or contains(@data-asin, 'PKÄ')]",
		"//p[contains(@data-asin, 'x') or contains(@data-asin, '')]", "//p[starts-with(@id, '')]", "//p[contains(@data-asin, '')]",
		"//p[contains(., '')]", "//p[starts-with(concat(@data-asin, 'x'), 'x')]", "//p[contains(@data-asin, 'x') or contains(@id, '')]", "//p[string-length(@data-asin) >= 9]", "//p[string-length(@data-asin)>0]",
		"//p[string-length(.) <= 1]", "//p[string-length(normalize-space(.)) = 3]",
		"//p[contains(concat(' ', @data-asin, ' '), ' B01GOH7PK ')]", "//p[not(@data-asin | @id)]", "//p[@id | @data-asin]"} {
		nativeMatchesAntchfx(t, src, root)
	}
}

// The axes and positions of the native subset against antchfx, from every element of a page built
// to have nested lists, tables and mixed text.
func TestNativeAxesAndPositions(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<div id="a" class="g x"><ul class="zg_hrsr"><li>one <b>1</b> two</li><li> </li>` +
		`<li><span class="a-text-bold">k</span><span>v</span><span>w</span></li></ul>` +
		`<table><tr><th>h</th><td>d1</td></tr><tr><td>x</td><td>y</td><td>z</td></tr><tr><td>only</td></tr></table>` +
		`<div class="g"><p data-hveid="1"><a href="/gp/bestsellers/x">r</a><span data-sncf="1">  </span><span data-sncf="2">s</span>` +
		`</p><g-section-with-header><p><a href="/y">q</a></p></g-section-with-header></div>` +
		`<select id="quantity"><option value="1">1</option><option value="2">2</option><option value="30">30</option></select></div>`))
	if err != nil {
		t.Fatal(err)
	}
	srcs := []string{".", "./span[2]", "./td[last()]", "./li[2]", "./*[last()]", "./text()", "./text()[normalize-space(.) != ''][1]",
		"./text()[last()]", "//tr[count(td) = 2]", "//tr[count(td) >= 1][count(*) < 3]", "//tr[th and td]", "//li[span[@class='a-text-bold'] and span[2]]",
		"//li/span[2]", "//li/span[last()]", "//td[1]", "//td[last()]", "//span[2]", "//option[last()]/@value", "//select[@id='quantity']/option[last()]/@value",
		"ancestor::*[@data-hveid][1]//span", "ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' g ')][1]//a",
		"ancestor::*[2]", "ancestor::*[@data-hveid][1]//*[@data-sncf][normalize-space()]",
		"//a[not(ancestor::*[@data-initq or self::g-section-with-header])]", "//*[self::p or self::li][a[contains(@href, '/gp/bestsellers/')]]",
		"//li[not(ancestor::ul[contains(@class, 'zg_hrsr')])]", "./preceding-sibling::*[1]", "./preceding-sibling::*[2]", "./following-sibling::*[2]",
		"./following-sibling::td[2]", "./../*[1]", "//li[3]/span[1]/following-sibling::span[1]",
		"(ancestor::*[@data-hveid])[1]//*[@data-sncf]", "(.//span)[last()]", "(.//td | .//th)[2]", "//td | //th", "(//li/span)[2]/following-sibling::*"}
	var ctxs []*html.Node
	for n := root; n != nil; n = nextNode(n, root) {
		if n.Type == html.ElementNode || n.Type == html.DocumentNode {
			ctxs = append(ctxs, n)
		}
	}
	for _, src := range srcs {
		x, err := newXPathSel(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		nx := compileNative(src)
		if nx == nil {
			t.Errorf("%s: not native", src)
			continue
		}
		for _, c := range ctxs {
			want, wantFirst := describeResult(referenceXPath(x, root, c)), firstOf(referenceWalk(x, root, c))
			if got := describeResult(nx.eval(root, c, nil)); got != want {
				t.Errorf("%s from <%s>: native %s, antchfx %s", src, c.Data, got, want)
			}
			if got := describeResult(nx.evalAll(root, c, nil, false)); got != wantFirst {
				t.Errorf("%s from <%s>, first: native %s, antchfx %s", src, c.Data, got, wantFirst)
			}
		}
	}
}

// Shapes whose antchfx answer native evaluation does not reproduce stay with antchfx.
func TestNativeRefuses(t *testing.T) {
	for _, src := range []string{
		"//ul/li[@class='x'][2]",    // a position after a predicate on a child step with several contexts: antchfx counts across them
		".//a//span[@class='x'][1]", // ... and on a descendant step with several (see TestPositionAcrossParents)
		"./li[@class='x'][last()]",  // antchfx's last() after another predicate
		"(.//a/@href)[1]",           // a group of attributes
		"(.//a)[position() < 3]",    // a group's position other than N or last()
	} {
		if compileNative(src) != nil {
			t.Errorf("%s: native, want antchfx", src)
		}
	}
	for _, src := range []string{
		"./td[@class='title'][2]/a", "./text()[normalize-space(.) != ''][1]", "ancestor::*[@data-hveid][1]//span",
		"./following-sibling::meta[@name='x'][1]/@content", "(.//div[@class='x'])[1]//span", "(.//li)[last()]",
		"//div[2]", ".//span | .//b", "(./a | ./b)[last()]/span",
		// positions on the ancestor axis count per context, as XPath has them (antchfx counts only
		// the ancestors no earlier context reached): etsy's review count depends on it
		"//a/ancestor::div[2]", "//span/ancestor::div[@class][1]/a",
	} {
		if compileNative(src) == nil {
			t.Errorf("%s: not native", src)
		}
	}
}

// TestIndexFirstStepFilter checks the index path of XPaths whose rest is not native, on a page with
// more candidates of the first step's tag than maxCandidates: the first step's predicates filter
// them natively, and the answer is antchfx's whenever the index path answers.
func TestIndexFirstStepFilter(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body><h1>top</h1>")
	for i := range maxCandidates + 50 {
		switch i {
		case 40, 41:
			fmt.Fprintf(&b, "<h1>h%d</h1><div class='grid x'><h1>in</h1></div>", i)
		case 200:
			b.WriteString("<div class='grid'><div class='grid'><h1>nested</h1></div></div>")
		default:
			fmt.Fprintf(&b, "<div class='c%d'><span>%d</span></div>", i, i)
		}
	}
	b.WriteString("</body></html>")
	root, err := dom.ParseHTML([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src     string
		indexed bool // the index path answers (not the fallback)
	}{
		{"//div[contains(@class, 'x')]/preceding::h1[1]", true},
		{"//div[contains(@class, 'x')]/preceding::h1", true},
		{"//div[contains(@class, 'grid')]/preceding::h1[1]", false}, // nested candidates, positional rest
		{"//div[contains(@class, 'grid')]/following::span", true},
		{"//div[starts-with(@class, 'c1')]/following::span[1]", true},
		{"//div[starts-with(@class, 'c')]/following::span[1]", false}, // too many candidates kept
		{"//div/preceding::h1", false},                                // no predicate to filter with
	}
	for _, tt := range tests {
		want := newIndexWant()
		fx := analyzeXPath(tt.src, want)
		if fx == nil {
			t.Fatalf("%s: not indexable", tt.src)
		}
		x, err := newXPathSel(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := fx.eval(buildIndex(root, want, nil))
		if ok != tt.indexed {
			t.Errorf("%s: index path answered %v, want %v", tt.src, ok, tt.indexed)
		}
		if !ok {
			continue
		}
		if g, w := describeResult(got), describeResult(referenceXPath(x, root, root)); g != w {
			t.Errorf("%s:\nindexed %s\nfull    %s", tt.src, g, w)
		}
	}
}

// An element with two attributes of one key (href and xlink:href in SVG) is listed once under the
// key's presence: the comparisons above see node sets without their repeats.
func TestIndexPresenceOnce(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<svg><use href="#a" xlink:href="#b"></use></svg><a href="c">c</a>`))
	if err != nil {
		t.Fatal(err)
	}
	want := newIndexWant()
	fx := analyzeXPath("//*[@href]", want)
	if fx == nil {
		t.Fatal("//*[@href] is not indexed")
	}
	got, ok := fx.eval(buildIndex(root, want, nil))
	if !ok {
		t.Fatal("the index did not answer")
	}
	if ns := got.([]xpath.NodeNavigator); len(ns) != 2 {
		t.Errorf("//*[@href]: %d nodes, want 2 (use, a)", len(ns))
	}
}

// TestGroupIndexMatchesNative runs every shipped (X)[N]rest whose X has an index plan through an
// evaluator with the index (X's nodes from it) and one without (the native path), on its pages:
// the same values, all or first, text or not, and the same nodes.
func TestGroupIndexMatchesNative(t *testing.T) {
	type grouped struct {
		x    *Expr
		want *Want
	}
	var sels []shippedSel
	byGroup := map[string]grouped{}
	for _, s := range shippedSelectors(t, nil) {
		w := NewWant()
		x, err := Compile(s.src, w)
		if err != nil || x.groupFast == nil {
			continue
		}
		sels = append(sels, s)
		byGroup[s.src] = grouped{x, w}
	}
	if len(sels) == 0 {
		t.Fatal("no shipped group has an index plan")
	}
	var checked atomic.Int64
	forEachPage(t, sels, func(page string, root *html.Node, on []shippedSel) {
		for _, s := range on {
			g := byGroup[s.src]
			nav := dom.NavigatorAt(root, root)
			indexed, native := NewEvaluator(g.want), NewEvaluator(nil)
			for _, all := range []bool{false, true} {
				for _, text := range []bool{false, true} {
					got, want := indexed.Value(g.x, nav, all, text), native.Value(g.x, nav, all, text)
					if fmt.Sprintf("%T %v", got, got) != fmt.Sprintf("%T %v", want, want) {
						t.Errorf("%s on %s (all %v, text %v): indexed %T %v, native %T %v", s.src, filepath.Base(page), all, text, got, got, want, want)
					}
				}
			}
			if got, want := describeResult(indexed.Nodes(g.x, nav)), describeResult(native.Nodes(g.x, nav)); got != want {
				t.Errorf("%s on %s, nodes: indexed %s, native %s", s.src, filepath.Base(page), got, want)
			}
			checked.Add(1)
		}
	})
	t.Logf("%d groups with an index plan, %d comparisons", len(sels), checked.Load())
}

// TestItemFromDocumentIndex checks that an item's elements and joined values read from the
// document index are those a walk of the item gives, for every element of real pages, visited in
// document order, backward and by strides (the index's search for the item runs both ways).
func TestItemFromDocumentIndex(t *testing.T) {
	pages := []string{"../../../shared/corpus/amazon/search-de-katzenfutter.html", "../../../shared/corpus/ebay/search-de-apple.html", "../../fixtures/google/search/modern-com/serp.html"}
	for _, page := range pages {
		root, err := parsePage(page)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			t.Fatal(err)
		}
		idx := buildIndex(root, joiningWant(), nil)
		var elems []*html.Node
		for n := root; n != nil; n = nextNode(n, root) {
			if n.Type == html.ElementNode {
				elems = append(elems, n)
			}
		}
		if !slices.Equal(elems, idx.elements()) {
			t.Fatalf("%s: the index's elements are not the document's in order", page)
		}
		order := make([]int, 0, 3*len(elems))
		for i := range elems {
			order = append(order, i)
		}
		for i := len(elems) - 1; i >= 0; i-- {
			order = append(order, i)
		}
		for i := 0; i < len(elems); i++ {
			order = append(order, i*7919%len(elems))
		}
		var walked, read subtree
		for _, i := range order {
			c := elems[i]
			walked.reset(c, nil)
			read.reset(c, idx)
			if !slices.Equal(walked.list(), read.list()) || read.lo < 0 {
				t.Fatalf("%s: elements under <%s #%d> differ", page, c.Data, i)
			}
			for _, a := range []string{"class", "href", "id", "data-asin", "title"} {
				w, r := walked.values(a), read.values(a)
				if string(w.vals) != string(r.vals) || !slices.Equal(w.elems, r.elems) {
					t.Fatalf("%s: %s values under <%s #%d> differ:\n%q\n%q", page, a, c.Data, i, w.vals, r.vals)
				}
			}
		}
	}
}

// hasText against the string value it stands for, on every node of a tree: text split across
// elements and comments, Unicode spaces, and bytes that are not UTF-8 (a sequence split by a tag).
func checkHasText(t *testing.T, doc string) {
	t.Helper()
	root, err := dom.ParseHTML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	for n := root; n != nil; n = nextNode(n, root) {
		if got, want := hasText(n), !allSpace(stringValue(n)); got != want {
			t.Errorf("hasText(<%s> %d) in %q = %v, want %v", n.Data, n.Type, doc, got, want)
		}
	}
}

func TestHasText(t *testing.T) {
	for _, doc := range []string{
		"<p>a</p>", "<p> </p>", "<p></p>", "<div> <b> \t</b>\n<i>x</i></div>", "<div><!-- c --> </div>",
		"<div>\u00a0<b>\u2003</b></div>", "<div> <b>\u00a0x</b></div>", "<p>\xe2\x80<b>\x80</b></p>",
		"<p>\xe2\x80</p>", "<div><p> </p><p></p></div><span>\v\f\r</span>", "<!DOCTYPE html><p>\x85</p>",
	} {
		checkHasText(t, doc)
	}
}

// FuzzHasText compares hasText with building the string value on any page.
func FuzzHasText(f *testing.F) {
	for _, s := range []string{"<p> <b>x</b></p>", "<div>\u00a0<!--c--><i> </i></div>", "<p>\xe2\x80<b>\x80</b></p>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > 4096 {
			return
		}
		checkHasText(t, doc)
	})
}

// nativeMatchesAntchfx requires src, which must be of the native subset, to select from root
// what antchfx selects.
func nativeMatchesAntchfx(t *testing.T, src string, root *html.Node) {
	t.Helper()
	x, err := newXPathSel(src)
	if err != nil {
		t.Fatal(err)
	}
	nx := compileNative(src)
	if nx == nil {
		t.Fatalf("%s: not native", src)
	}
	want := describeResult(referenceXPath(x, root, root))
	if got := describeResult(nx.eval(root, root, nil)); got != want {
		t.Errorf("%s: native %s, antchfx %s", src, got, want)
	}
}

// contains/starts-with of normalize-space(x) against a literal, which the native subset first
// rules out by the literal's longest word, against antchfx: texts whose words are split by runs of
// spaces, tabs, newlines and other Unicode spaces, split across elements, or absent.
func TestNativeNormalizedLiteral(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<div><span>Ad by Etsy seller</span><span>Ad  by` + "\n\t" + `Etsy` + "\u00a0" + `seller </span>` +
		`<span> Ad <b>by</b> Etsy seller</span><span>Adby Etsyseller</span><span title=" Ad  from   shop x ">t</span>` +
		`<span>by Etsy sellers</span><span>` + "\u2003" + `Ad from shop</span><span></span><span>seller</span></div>`))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		"//span[contains(normalize-space(.), 'by Etsy seller')]", "//span[contains(normalize-space(), 'Etsy seller')]",
		"//span[starts-with(normalize-space(.), 'Ad from shop')]", "//span[starts-with(normalize-space(.), 'Ad by')]",
		"//span[contains(normalize-space(.), ' by Etsy ')]", "//span[contains(normalize-space(.), 'by  Etsy')]",
		"//span[contains(normalize-space(.), ' ')]", "//span[contains(normalize-space(.), '')]", "//span[starts-with(normalize-space(.), '')]",
		"//span[contains(normalize-space(@title), 'from shop')]", "//span[starts-with(normalize-space(@title), 'Ad from')]",
		"//span[contains(normalize-space(@title), 'from  shop')]", "//span[contains(normalize-space(.), 'seller')]",
		"//span[contains(normalize-space(.), 'by" + "\u00a0" + "Etsy')]",
	} {
		nativeMatchesAntchfx(t, src, root)
	}
}

// FuzzNativeNormalizedLiteral: the same shapes on the fuzzer's text and literal.
func FuzzNativeNormalizedLiteral(f *testing.F) {
	for _, s := range [][2]string{{"Ad  by\nEtsy seller", "by Etsy seller"}, {"x\u00a0y", "x y"}, {" a ", " a"}, {"ab", "a b"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, text, lit string) {
		if strings.ContainsAny(lit, `'"`) || !utf8.ValidString(text) || !utf8.ValidString(lit) {
			return
		}
		root, err := dom.ParseHTML([]byte("<p>" + html.EscapeString(text) + "</p>"))
		if err != nil {
			return
		}
		for _, fn := range []string{"contains", "starts-with"} {
			src := "//p[" + fn + "(normalize-space(.), '" + lit + "')]"
			x, err := newXPathSel(src)
			if err != nil {
				return
			}
			nx := compileNative(src)
			if nx == nil {
				return
			}
			want := describeResult(referenceXPath(x, root, root))
			if got := describeResult(nx.eval(root, root, nil)); got != want {
				t.Errorf("%s on %q: native %s, antchfx %s", src, text, got, want)
			}
		}
	})
}

// translate() and normalize-space() of it in the native subset, against antchfx: a label with and
// without its colon, a removed and a replaced byte, a byte named twice, non-ASCII text kept.
func TestNativeTranslate(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<table><tr><td class="l">Manufacturer:</td><td>Acme</td></tr>` +
		`<tr><td class="l"> Hersteller </td><td>B</td></tr><tr><td class="l">Fabricant :</td><td>C</td></tr>` +
		`<tr><td class="l" title="a-b_c">Marque\u00a0:</td><td>D</td></tr><tr><td class="l">ÄÖ:x</td><td>E</td></tr></table>`))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{
		"//td[normalize-space(translate(., ':', '')) = 'Manufacturer']/following-sibling::td[1]",
		"//td[normalize-space(translate(., ':', '')) = 'Fabricant' or normalize-space(translate(., ':', '')) = 'Hersteller']",
		"//td[translate(., 'abc', 'AB') = 'MAnufActurer:']", "//td[translate(@title, '-_', '  ') = 'a b c']",
		"//td[translate(., 'aa', 'xy') = 'Mxnufxcturer:']", "//td[translate(., ':', '') = 'ÄÖx']",
		"//td[normalize-space(translate(., ':', '')) != 'Manufacturer'][@class='l']",
		"//td[contains(normalize-space(translate(., ':', '')), 'Marque')]",
	} {
		nativeMatchesAntchfx(t, src, root)
	}
}

// FuzzASCIITranslation: translate with ASCII from and to, against antchfx's strings.Replacer.
func FuzzASCIITranslation(f *testing.F) {
	for _, s := range [][3]string{{"Manufacturer:", ":", ""}, {"abcabc", "aab", "xyz"}, {"ÄÖ:x", ":x", "-"}, {"", "a", "b"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, s, from, to string) {
		tr, ok := newASCIITranslation(from, to)
		if !ok || from == "" {
			return
		}
		var pairs []string
		for i := 0; i < len(from); i++ {
			d := ""
			if i < len(to) {
				d = to[i : i+1]
			}
			pairs = append(pairs, from[i:i+1], d)
		}
		if got, want := tr.apply(s), strings.NewReplacer(pairs...).Replace(s); got != want {
			t.Errorf("translate(%q, %q, %q) = %q, want %q", s, from, to, got, want)
		}
	})
}

// A union's (or a group's) first node comes from its branches' first nodes only where each
// branch's first is its earliest; a child step after a descendant one is not, on nested contexts:
// the outer div's <p> child comes after the inner div's.
func TestUnionFirstFromBranchFirsts(t *testing.T) {
	root, err := dom.ParseHTML([]byte(`<div id="o"><div class="i"><p>inner</p><b title="t1">b1</b></div>` +
		`<p>outer</p><span title="t2">s</span><b>b2</b></div>`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		src     string
		ordered bool
	}{
		{".//div/p | .//span", false},
		{".//div//p | .//span", true},
		{".//span | .//div//p", true},
		{"./div/p | .//b", true},
		{".//b/@title | .//span/@title", true},
		{".//span/@title | .//b/@title", true},
		{"(.//div/p | .//span)[1]", true}, // the group picks one context: the path after it is ordered
		{"(.//div//p | .//b)[1]", true},
		{"(.//b | .//span)[1]/@title", true},
		{".//div[1]//p | .//span", false},
	}
	for _, tt := range tests {
		nx := compileNative(tt.src)
		if nx == nil {
			t.Fatalf("%s: not native", tt.src)
		}
		ordered := true
		for _, b := range nx.branches {
			ordered = ordered && b.firstEarliest
		}
		if ordered != tt.ordered {
			t.Errorf("%s: ordered %v, want %v", tt.src, ordered, tt.ordered)
		}
		x, err := newXPathSel(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		for c := root; c != nil; c = nextNode(c, root) {
			if c.Type != html.ElementNode && c.Type != html.DocumentNode {
				continue
			}
			want := firstOf(referenceWalk(x, root, c))
			if got := describeResult(nx.evalAll(root, c, nil, false)); got != want {
				t.Errorf("%s from <%s>, first: native %s, antchfx %s", tt.src, c.Data, got, want)
			}
			var sub subtree
			sub.reset(c, nil)
			if got := describeResult(nx.evalAll(root, c, &sub, false)); got != want {
				t.Errorf("%s from <%s> with its subtree, first: native %s, antchfx %s", tt.src, c.Data, got, want)
			}
		}
	}
}
