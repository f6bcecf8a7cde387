package xpatheval

import (
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"testing"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"asa/engine/dom"
)

// FuzzNativeXPath generates a small document and an XPath from the fuzzer's bytes and compares
// every way the engine evaluates it (native, native first-only, native over an item's element list,
// the index path) with antchfx, from the document and from every element. The reference is
// antchfx's node set with the engine's two documented departures: a union is in document order
// without repeats, and (X)[N] / (X)[last()] pick from X in document order. A failing input lands in
// testdata/fuzz: move it into the seeds.
func FuzzNativeXPath(f *testing.F) {
	for _, seed := range []string{
		"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
		"\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0",
		"\xff\xee\xdd\xcc\xbb\xaa\x99\x88\x77\x66\x55\x44\x33\x22\x11\x00",
		"\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03\x03",
		"\x07\x01\x05\x02\x09\x04\x08\x03\x06\x00\x07\x01\x05\x02\x09\x04\x08\x03\x06\x00\x01\x02",
		"02002000002", // boolean((.//div)[last()]/..)
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &xgen{data: data}
		doc := g.doc(0)
		src := g.expr()
		checkXPathWays(t, doc, src)
	})
}

// checkXPathWays compares the engine's evaluations of src with the reference on doc.
func checkXPathWays(t *testing.T, doc, src string) {
	t.Helper()
	x, err := newXPathSel(src)
	if err != nil {
		return
	}
	root, err := dom.ParseHTML([]byte(doc))
	if err != nil {
		return
	}
	nx := compileNative(src)
	fx := analyzeXPath(src, newIndexWant())
	if nx == nil && fx == nil {
		return
	}
	ids := map[*html.Node]int{}
	var ctxs []*html.Node
	for n := root; n != nil; n = nextNode(n, root) {
		ids[n] = len(ids)
		if n.Type == html.ElementNode || n.Type == html.DocumentNode {
			ctxs = append(ctxs, n)
		}
	}
	var idx *docIndex
	if fx != nil {
		want := newIndexWant()
		analyzeXPath(src, want)
		idx = buildIndex(root, want, nil)
	}
	var sub, fromDoc subtree
	docIdx := buildIndex(root, joiningWant(), nil)
	for _, c := range ctxs {
		want := referenceXPath(x, root, c)
		wantFirst := referenceWalk(x, root, c)
		if ns, ok := collect(wantFirst).([]xpath.NodeNavigator); ok && len(ns) > 1 {
			wantFirst = ns[:1]
		}
		w, wf := nodeIDs(want, ids), nodeIDs(wantFirst, ids)
		if nx != nil {
			sub.reset(c, nil)
			fromDoc.reset(c, docIdx)
			for _, way := range []struct {
				name  string
				got   any
				first bool
			}{
				{"native over the item's elements from the document index", nx.eval(root, c, &fromDoc), false},
				{"native first over the item's elements from the document index", nx.evalAll(root, c, &fromDoc, false), true},
				{"native", nx.eval(root, c, nil), false},
				{"native over the item's elements", nx.eval(root, c, &sub), false},
				{"native first", nx.evalAll(root, c, nil, false), true},
				{"native first over the item's elements", nx.evalAll(root, c, &sub, false), true},
			} {
				exp := w
				if way.first && nx.wrapper == "" {
					exp = wf
				}
				if got := nodeIDs(way.got, ids); got != exp {
					t.Fatalf("%s\non %s\nfrom <%s #%d>, %s:\ngot  %s\nwant %s", src, doc, c.Data, ids[c], way.name, got, exp)
				}
			}
		}
		if fx != nil && c == root {
			if got, ok := fx.eval(idx); ok {
				if g := nodeIDs(got, ids); g != w {
					t.Fatalf("%s\non %s\nindexed:\ngot  %s\nwant %s", src, doc, g, w)
				}
			}
			if found, ok := fx.exists(idx); ok && (fx.wrapper == "" || fx.wrapper == "first") && found != (w != "[]") {
				t.Fatalf("%s\non %s\nindexed, exists: got %v, want %s", src, doc, found, w)
			}
			if got, ok := fx.evalFirst(idx, true); ok {
				exp := w
				if fx.wrapper != "count" {
					exp = nodeIDs(firstNode(collect(referenceWalk(x, root, c))), ids)
				}
				if g := nodeIDs(firstNode(got), ids); g != exp {
					t.Fatalf("%s\non %s\nindexed, first only:\ngot  %s\nwant %s", src, doc, g, exp)
				}
			}
		}
	}
}

// firstNode is a node set cut to its first node; any other value as it is.
func firstNode(v any) any {
	if ns, ok := v.([]xpath.NodeNavigator); ok && len(ns) > 1 {
		return ns[:1]
	}
	return v
}

// referenceXPath is antchfx's answer with the engine's departures from it, each where antchfx's
// is not XPath's: a node set is in document order without repeats (antchfx repeats a node reached
// from two nested contexts, and yields a reverse axis nearest first); (X)[N] and (X)[last()] pick
// from X in document order; an ancestor step's position counts per context (antchfx counts only the
// ancestors no earlier context reached).
func referenceXPath(x *xpathSel, root, c *html.Node) any {
	v := referenceWalk(x, root, c)
	if ns, ok := collect(v).([]xpath.NodeNavigator); ok {
		return sortUnique(ns)
	}
	return v
}

// referenceWalk is referenceXPath with a path's nodes in the order antchfx yields them (context by
// context): its first node is the one a single value reads, which the engine takes from the walk
// too.
func referenceWalk(x *xpathSel, root, c *html.Node) any {
	return refEval(strings.TrimSpace(x.src), root, c)
}

func refEval(src string, root, c *html.Node) any {
	if m := wrapperRe.FindStringSubmatch(src); m != nil && matching(src, len(m[0])-1) == len(src)-1 {
		inner := strings.TrimSpace(src[len(m[0]) : len(src)-1])
		if len(splitTop(inner, '|')) > 1 || strings.HasPrefix(inner, "(") || ancestorSplit(inner) > 0 {
			ns, _ := refEval(inner, root, c).([]xpath.NodeNavigator)
			switch m[1] {
			case "count":
				return float64(len(ns))
			case "boolean":
				return len(ns) > 0
			}
			if len(ns) == 0 {
				return ""
			}
			if m[1] == "normalize-space" {
				return normSpaceX(ns[0].Value())
			}
			return ns[0].Value()
		}
		return antchfxEval(src, root, c)
	}
	if branches := splitTop(src, '|'); len(branches) > 1 {
		var all []xpath.NodeNavigator
		for _, b := range branches {
			ns, _ := refEval(strings.TrimSpace(b), root, c).([]xpath.NodeNavigator)
			all = append(all, ns...)
		}
		return sortUnique(all)
	}
	if inner, pos, last, rest, ok := splitGroup(src); ok {
		ns, _ := refEval(inner, root, c).([]xpath.NodeNavigator)
		ns = sortUnique(ns)
		var pick xpath.NodeNavigator
		switch {
		case last && len(ns) > 0:
			pick = ns[len(ns)-1]
		case !last && pos <= len(ns):
			pick = ns[pos-1]
		}
		if pick == nil {
			return []xpath.NodeNavigator(nil)
		}
		if rest == "" {
			return []xpath.NodeNavigator{pick}
		}
		return refEval("."+rest, root, pick.(*dom.HTMLNavigator).Current())
	}
	if i := ancestorSplit(src); i > 0 {
		// The contexts, then each one's ancestors (antchfx is right from one context), each
		// ancestor once, then the rest of the path from each.
		ctxs, _ := refEval(src[:i], root, c).([]xpath.NodeNavigator)
		j := i + len("/ancestor::")
		for j < len(src) && (isNameChar(src[j]) || src[j] == '*') {
			j++
		}
		for j < len(src) && src[j] == '[' {
			j = matching(src, j) + 1
		}
		step, rest := "."+src[i:j], src[j:]
		var ancs []xpath.NodeNavigator
		seen := map[*html.Node]bool{}
		for _, cn := range ctxs {
			ns, _ := antchfxEval(step, root, cn.(*dom.HTMLNavigator).Current()).([]xpath.NodeNavigator)
			for _, a := range ns {
				if n := a.(*dom.HTMLNavigator).Current(); !seen[n] {
					seen[n] = true
					ancs = append(ancs, a)
				}
			}
		}
		if rest == "" {
			return ancs
		}
		var out []xpath.NodeNavigator
		for _, a := range ancs {
			ns, _ := refEval("."+rest, root, a.(*dom.HTMLNavigator).Current()).([]xpath.NodeNavigator)
			out = append(out, ns...)
		}
		return out
	}
	return antchfxEval(src, root, c)
}

// ancestorSplit is the index of the first /ancestor:: step of src outside brackets, or -1.
func ancestorSplit(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == '[' || ch == '(':
			depth++
		case ch == ']' || ch == ')':
			depth--
		case depth == 0 && strings.HasPrefix(s[i:], "/ancestor::"):
			return i
		}
	}
	return -1
}

// refSels holds the reference's compiled XPaths (each keeps a pool of antchfx expressions): the
// equivalence tests ask for the same few thousand sources from thousands of contexts.
var refSels sync.Map

func antchfxEval(src string, root, c *html.Node) any {
	var sel *xpathSel
	if v, ok := refSels.Load(src); ok {
		sel = v.(*xpathSel)
	} else {
		x, err := newXPathSel(src)
		if err != nil {
			return nil
		}
		v, _ := refSels.LoadOrStore(src, x)
		sel = v.(*xpathSel)
	}
	e := sel.get()
	defer sel.put(e)
	return collect(e.Evaluate(dom.NavigatorAt(root, c)))
}

func collect(v any) any {
	it, ok := v.(*xpath.NodeIterator)
	if !ok {
		return v
	}
	var out []xpath.NodeNavigator
	for it.MoveNext() {
		out = append(out, it.Current().Copy())
	}
	return out
}

// nodeIDs names each node of a result once, by its place in the document (and attribute).
func nodeIDs(v any, ids map[*html.Node]int) string {
	switch x := v.(type) {
	case []xpath.NodeNavigator:
		var parts []string
		seen := map[string]bool{}
		for _, n := range x {
			h := n.(*dom.HTMLNavigator)
			id := fmt.Sprintf("%d", ids[h.Current()])
			if h.Attr() >= 0 {
				id += "@" + h.Current().Attr[h.Attr()].Key
			}
			if !seen[id] {
				seen[id] = true
				parts = append(parts, id)
			}
		}
		return "[" + strings.Join(parts, " ") + "]"
	case *xpath.NodeIterator:
		return nodeIDs(collect(x), ids)
	case float64, bool, string:
		return anyString(x)
	case nil:
		return "[]"
	}
	return fmt.Sprintf("?%T", v)
}

// xgen draws a document and an XPath of the shapes the native subset and the index know from a
// byte string; past its end every draw is 0.
type xgen struct {
	data []byte
	i    int
}

func (g *xgen) n(k int) int {
	if g.i >= len(g.data) {
		return 0
	}
	b := g.data[g.i]
	g.i++
	return int(b) % k
}

func (g *xgen) pick(xs ...string) string { return xs[g.n(len(xs))] }

var xgenTags = []string{"div", "span", "p", "ul", "li", "a", "b"}

func (g *xgen) doc(depth int) string {
	var b strings.Builder
	kids := 1 + g.n(4)
	if depth >= 3 {
		kids = g.n(3)
	}
	for range kids {
		switch g.n(5) {
		case 0:
			b.WriteString(g.pick("t", " ", "ab", " x "))
			continue
		}
		tag := xgenTags[g.n(len(xgenTags))]
		b.WriteString("<" + tag)
		if c := g.pick("", "", "x", "y", "x y", " x ", "x x", "yx"); c != "" {
			b.WriteString(` class="` + c + `"`)
		}
		if g.n(3) == 0 {
			b.WriteString(` id="` + g.pick("i", "j", "") + `"`)
		}
		b.WriteString(">")
		if depth < 4 {
			b.WriteString(g.doc(depth + 1))
		}
		b.WriteString("</" + tag + ">")
	}
	if depth == 0 {
		return "<div id=\"r\">" + b.String() + "</div>"
	}
	return b.String()
}

func (g *xgen) expr() string {
	var s string
	switch g.n(8) {
	case 0:
		s = "(" + g.union() + ")[" + g.pick("1", "2", "last()") + "]"
		if g.n(2) == 0 {
			s += g.steps(1 + g.n(2))
		}
	case 1:
		s = g.union()
	default:
		s = g.branch()
	}
	switch g.n(8) {
	case 0:
		s = "boolean(" + s + ")"
	case 1:
		s = "count(" + s + ")"
	case 2:
		s = "string(" + s + ")"
	case 3:
		s = "normalize-space(" + s + ")"
	}
	return s
}

func (g *xgen) union() string {
	s := g.branch()
	for range g.n(3) {
		s += " | " + g.branch()
	}
	return s
}

func (g *xgen) branch() string {
	s := g.pick(".", "//", ".//", "./", "ancestor::", "self::", "//", ".//")
	if s == "." {
		if g.n(2) == 0 {
			return "."
		}
		s = g.pick("./", ".//")
	}
	if s == "//" && g.n(2) == 0 {
		// the index path's shape: a first step keyed by an attribute value
		s += g.pick("div", "li", "*", "span") + g.pick("[@class='x']", "[@id='i']", "[@class='y' or @id='j']", "[@id='i' and span]", "[@id]", "[@class or @id='j']")
		s += g.preds(false)
	} else {
		s += g.step()
	}
	s += g.steps(g.n(3))
	if g.n(5) == 0 {
		s += "/@" + g.pick("class", "id")
	}
	return s
}

func (g *xgen) steps(k int) string {
	var s string
	for range k {
		sep := g.pick("/", "//", "/")
		switch g.n(7) {
		case 0:
			s += "/.."
			continue
		case 1:
			if sep == "/" {
				s += "/" + g.pick("following-sibling::", "preceding-sibling::", "ancestor::", "preceding::")
				s += g.step()
				continue
			}
		case 2:
			if sep == "/" {
				s += "/text()" + g.preds(true)
				continue
			}
		}
		s += sep + g.step()
	}
	return s
}

func (g *xgen) step() string {
	return g.pick(append(xgenTags[:4:4], "*", "li")...) + g.preds(false)
}

func (g *xgen) preds(text bool) string {
	var s string
	for range g.n(4) {
		if text {
			s += "[" + g.pick("1", "last()", "normalize-space(.) != ''", "2") + "]"
			continue
		}
		s += "[" + g.pick("1", "2", "last()", "@class='x'", "contains(@class, 'x')", "@id", "not(@id)",
			"span", "count(*) = 1", "string-length(.) > 1", "normalize-space()", "@id='i' or @class='y'",
			"contains(concat(' ', normalize-space(@class), ' '), ' x ')", "b/span", "starts-with(@class, 'x')",
			"ancestor::ul", "not(ancestor::*[@id='i'])", "self::div or self::span", "following-sibling::b", "3",
			"contains(concat(' ', @class, ' '), ' x ')", "not(@id | @class)",
			// one attribute's literals, which the absent-literal shortcut reads as one need (absent.go)
			"contains(@class, 'y') or contains(@class, 'x')", "@class='y' or starts-with(@class, 'yx')",
			"contains(@class, '')", "contains(@class, 'x') and @id='i'") + "]"
	}
	return s
}

// The constructs where native and antchfx once disagreed, each on a page built to show it.
func TestNativeXPathKnownDepartures(t *testing.T) {
	docs := []string{
		`<div id="r"><div class="s"><div class="i"><span class="n">1</span></div><div class="i"><span class="n">2</span></div></div><div class="i"><span class="n">3</span></div></div>`,
		`<section><p>x</p><div class="i"><span>1</span></div><div class="i"><span>2</span></div></section><section><div class="i"><span>3</span></div></section>`,
		`<ul><li class="x">a</li><li>b</li><li class="x">c</li></ul><ul><li class="x">d</li><li class="x">e</li></ul>`,
		// a numeric predicate's step parent by parent: the outer div's children (A, C) before
		// the nested one (B), where document order is A, B, C
		`<div class="x"><div class="x">1</div></div><div class="x">2</div>`,
		// two attributes keyed href on one element (href and xlink:href): the element once
		`<svg><use href="#a" xlink:href="#b"></use></svg><a href="c">c</a>`,
	}
	srcs := []string{
		".//div[@class='i'][1]//span", "//div[@class='i'][1]", ".//div[2]", "//div[@class='i'][last()]", "//li[@class='x'][2]",
		"//ul/li[@class='x'][2]", "./ul/li[@class='x'][1]", "(.//div[@class='i'])[last()]", "(.//div[@class='i'])[1]//span",
		"(//li)[last()]", "(.//li[@class='x'])[2]", "//span | //div", "//li[2] | //ul", "count(//li | //ul)",
		"string(//span | //div)", "(//span | //div[@class='i'])[1]", "(//span | //div[@class='i'])[last()]",
		"//li/following-sibling::li[@class='x'][1]", "//span/ancestor::div[@class='i'][1]",
		// the recipe family's microdata property: an attribute, else the element's text
		"//*[contains(concat(' ', @class, ' '), ' i ')]/@id | //*[contains(concat(' ', @class, ' '), ' i ')][not(@id | @title)]",
		"//div[@class='x'][string-length(.) > 0]", "//div[@class='x'][string-length(.) > 0] | //p[@id='i']",
		"//*[@href]", "//*[@href]/@href", "//*[@href or @class='x']",
	}
	for _, doc := range docs {
		for _, src := range srcs {
			checkXPathWays(t, doc, src)
		}
	}
	for _, src := range []string{"(.//div[@class='i'])[last()]", "(.//div[@class='i'])[1]//span", "//span | //div",
		"//*[contains(concat(' ', @class, ' '), ' i ')]/@id | //*[contains(concat(' ', @class, ' '), ' i ')][not(@id | @title)]"} {
		if compileNative(src) == nil {
			t.Errorf("%s: not native", src)
		}
	}
}

// TestNativeXPathRandom is the fuzz target's comparison on a fixed spread of generated documents
// and XPaths, so every run of the tests checks 2,000 shapes the seeds do not reach.
func TestNativeXPathRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 2000
	if testing.Short() {
		n = 300
	}
	for range n {
		b := make([]byte, 40+r.Intn(60))
		r.Read(b)
		g := &xgen{data: b}
		doc := g.doc(0)
		checkXPathWays(t, doc, g.expr())
	}
}
