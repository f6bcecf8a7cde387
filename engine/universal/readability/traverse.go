package readability

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// hasTextContent reports whether a node or any of its descendants have text content other than spaces.
func hasTextContent(node *html.Node) bool {
	if node.Type == html.TextNode {
		return hasContent(node.Data)
	}
	for child := range node.ChildNodes() {
		if hasTextContent(child) {
			return true
		}
	}
	return false
}

// textRun is what the counters read of one text: upstream fed every counter rune by rune (through
// an interface, up to six counters for each rune in cleanConditionally); the fork scans a text
// once (scanText) and adds its run to each counter at once, with the same totals.
type textRun struct {
	chars    int  // runes other than white space
	gaps     int  // runs of white space between two of them
	commas   int  // commas of any script (see scanText)
	nonSpace bool // chars > 0
	lead     bool // white space before the first non-space rune (or anywhere, when there is none)
	trail    bool // white space after the last non-space rune
}

// byteClass sorts ASCII bytes for scanText: ordinary, white space (unicode.IsSpace's ASCII ones),
// comma; bytes from 0x80 start a multi-byte rune (or are invalid), decoded.
var byteClass = func() (c [256]uint8) {
	for b := 0x80; b < 256; b++ {
		c[b] = classMultiByte
	}
	for _, b := range []byte{' ', '\t', '\n', '\v', '\f', '\r'} {
		c[b] = classSpace
	}
	c[','] = classComma
	return c
}()

const (
	classOrdinary = iota
	classSpace
	classComma
	classMultiByte
)

// scanText reads s as upstream's counters did rune by rune (unicode.IsSpace; an invalid byte is
// one rune, U+FFFD, as a range over s gives it), runs of ordinary ASCII at once.
func scanText(s string) textRun {
	var t textRun
	space := false // the last rune was white space
	for i := 0; i < len(s); {
		n := 1 // non-space runes read in this step
		switch byteClass[s[i]] {
		case classOrdinary:
			j := i + 1
			for j < len(s) && byteClass[s[j]] == classOrdinary {
				j++
			}
			n, i = j-i, j
		case classSpace:
			// Pages indent their markup: most of their text nodes are long runs of spaces
			// (four fifths of a Royal Road chapter's text bytes), skipped eight at a time.
			i++
			for i+8 <= len(s) && s[i:i+8] == "        " {
				i += 8
			}
			for i < len(s) && byteClass[s[i]] == classSpace {
				i++
			}
			space = true
			continue
		case classComma:
			i++
			t.commas++
		default:
			if j, runes := cjkRun(s, i); runes > 0 {
				n, i = runes, j
				break
			}
			r, w := utf8.DecodeRuneInString(s[i:])
			i += w
			if isSpaceMultiByte(r) {
				space = true
				continue
			}
			if isCommaMultiByte(r) {
				t.commas++
			}
		}
		if !t.nonSpace {
			t.lead, t.nonSpace = space, true
		} else if space {
			t.gaps++
		}
		t.chars += n
		space = false
	}
	if t.nonSpace {
		t.trail = space
	} else {
		t.lead = space
	}
	return t
}

// runCache keeps the runs of a pass's long texts: grabArticle reads most texts of the article
// three or four times (the scoring, the link densities, cleanConditionally), and a text node's
// Data never changes (only elements are renamed), so its run holds as long as the node does. A
// short text costs less to scan again than to look up.
type runCache map[*html.Node]textRun

// minCachedText is the length from which a text's run is kept.
const minCachedText = 64

// run is scanText(n.Data), n a text node; a nil cache keeps nothing.
func (c runCache) run(n *html.Node) textRun {
	if c == nil || len(n.Data) < minCachedText {
		return scanText(n.Data)
	}
	if t, ok := c[n]; ok {
		return t
	}
	t := scanText(n.Data)
	c[n] = t
	return t
}

// commas is countCommas(n.Data), from n's run when c holds it.
func (c runCache) commas(n *html.Node) int {
	if len(n.Data) >= minCachedText {
		if t, ok := c[n]; ok {
			return t.commas
		}
	}
	return countCommas(n.Data)
}

// cjkRun reads the run of three-byte runes from s[i] from U+3001 to U+CFFF (kana, CJK
// punctuation, Han, Hangul: the bulk of a Chinese, Japanese or Korean text), which are neither
// white space nor commas: it returns where the run ends and how many runes it holds. Their UTF-8
// is a lead byte from 0xE3 to 0xEC and two continuation bytes, every such sequence valid; the one
// white space among them, U+3000, is E3 80 80.
func cjkRun(s string, i int) (end, runes int) {
	for i+2 < len(s) {
		c := s[i]
		if c < 0xE3 || c > 0xEC || s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 || c == 0xE3 && s[i+1] == 0x80 && s[i+2] == 0x80 {
			break
		}
		i += 3
		runes++
	}
	return i, runes
}

// isSpaceMultiByte is unicode.IsSpace for a rune from U+0080 (what a multi-byte sequence or an
// invalid byte decodes to), without the table lookup: Japanese and Chinese pages are mostly such
// runes, and few of them are white space (U+0085, U+00A0, U+1680, U+2000 to U+200A, U+2028,
// U+2029, U+202F, U+205F, U+3000).
func isSpaceMultiByte(r rune) bool {
	switch {
	case r <= 0xA0:
		return r == 0x85 || r == 0xA0
	case r < 0x1680:
		return false
	case r >= 0x2000 && r <= 0x200A:
		return true
	}
	switch r {
	case 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return false
}

type charCounter struct {
	Total int

	lastCharWasSpace bool
	seenNonSpace     bool
}

// add counts the runes of t as upstream's Count did one by one: every rune but white space, and
// one for each run of white space between two of them (runs across texts included); leading and
// trailing white space not at all.
func (c *charCounter) add(t textRun) {
	if !t.nonSpace {
		if t.lead {
			c.lastCharWasSpace = true
		}
		return
	}
	c.Total += t.chars + t.gaps
	if (c.lastCharWasSpace || t.lead) && c.seenNonSpace {
		c.Total++
	}
	c.lastCharWasSpace = t.trail
	c.seenNonSpace = true
}

func (c *charCounter) ResetContext() *charCounter {
	c.lastCharWasSpace = false
	c.seenNonSpace = false
	return c
}

// countCharsAndCommas returns counts for both characters and commas in a node's
// text. Leading and trailing whitespace is not counted, nor are consecutive
// runs of whitespace.
func countCharsAndCommas(node *html.Node, runs runCache) (int, int) {
	// Walk the node and its descendants to count all non-space characters and
	// different comma variants separately.
	w := charWalk{runs: runs}
	w.walk(node)
	return w.chars.Total, w.commas
}

// countCharsUpTo is the characters countCharsAndCommas counts under node when they are fewer than
// limit, or a number from limit up otherwise (the count only grows as texts are added, so the walk
// stops there).
func countCharsUpTo(node *html.Node, limit int, runs runCache) int {
	w := charWalk{runs: runs, limit: limit, limited: true}
	w.walk(node)
	return w.chars.Total
}

// charWalk counts the characters and commas of the texts under a node, in a struct on its
// caller's stack rather than in the variables of a recursive closure (moved to the heap).
type charWalk struct {
	runs    runCache
	limit   int  // the count at which the walk stops,
	limited bool // if there is one
	chars   charCounter
	commas  int
}

// walk adds n's texts, and reports whether the count reached the limit.
func (w *charWalk) walk(n *html.Node) bool {
	if n.Type == html.TextNode {
		t := w.runs.run(n)
		w.chars.add(t)
		w.commas += t.commas
		return w.limited && w.chars.Total >= w.limit
	}
	for child := n.FirstChild; child != nil; child = child.NextSibling {
		if w.walk(child) {
			return true
		}
	}
	return false
}

// commasAtLeast reports whether the texts under node hold k commas or more, as scanText counts
// them (a text whose run runs holds is not counted again).
func commasAtLeast(node *html.Node, k int, runs runCache) bool {
	return commasShort(node, k, runs) <= 0
}

// commasShort is k less the commas under node, the walk stopping once it is down to 0.
func commasShort(node *html.Node, k int, runs runCache) int {
	for c := node.FirstChild; c != nil && k > 0; c = c.NextSibling {
		if c.Type == html.TextNode {
			k -= runs.commas(c)
		} else {
			k = commasShort(c, k, runs)
		}
	}
	return k
}

// countCommas is scanText(s).commas: strings.Count finds the ASCII ones, and in a text with a
// multi-byte rune the UTF-8 of each other comma (isCommaMultiByte's). UTF-8 synchronizes itself:
// an occurrence of a rune's bytes starts with a lead byte, which no rune before takes as one of
// its own, so each is a rune a range over s decodes, invalid bytes around it or not.
func countCommas(s string) int {
	n := strings.Count(s, ",")
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			for _, c := range multiByteCommas {
				n += strings.Count(s[i:], c)
			}
			break
		}
	}
	return n
}

// multiByteCommas are isCommaMultiByte's commas.
var multiByteCommas = []string{"\u060C", "\uFE50", "\uFE10", "\uFE11", "\u2E41", "\u2E34", "\u2E32", "\uFF0C"}

// isCommaMultiByte reports the commas other than ',' that scanText counts.
func isCommaMultiByte(r rune) bool {
	switch r {
	// Commas as used in Latin, Sindhi, Chinese and various other scripts.
	// see: https://en.wikipedia.org/wiki/Comma#Comma_variants
	case '\u060C', '\uFE50', '\uFE10', '\uFE11', '\u2E41', '\u2E34', '\u2E32', '\uFF0C':
		return true
	}
	return false
}

// cloneDocument is dom.Clone(src, true), which grabArticle calls at every pass on the whole
// document: the same copy (no Namespace, as dom.Clone; every Attr a slice of its own, empty but
// not nil where src has none), with the nodes and the attributes allocated in one slice each
// rather than one allocation per node. Each Attr is capped at its length, so that an attribute
// added to one node never lands in another's.
func cloneDocument(src *html.Node) *html.Node {
	nodes, attrs := 0, 0
	var count func(*html.Node)
	count = func(n *html.Node) {
		nodes++
		attrs += len(n.Attr)
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			count(c)
		}
	}
	count(src)
	s := slabs{nodes: make([]html.Node, nodes), attrs: make([]html.Attribute, attrs)}
	return s.clone(src)
}

type slabs struct {
	nodes []html.Node
	attrs []html.Attribute
}

func (s *slabs) clone(src *html.Node) *html.Node {
	n := &s.nodes[0]
	s.nodes = s.nodes[1:]
	n.Type, n.DataAtom, n.Data = src.Type, src.DataAtom, src.Data
	k := copy(s.attrs, src.Attr)
	n.Attr, s.attrs = s.attrs[:k:k], s.attrs[k:]
	// Linked as AppendChild links them, without its checks (every copy is new).
	var last *html.Node
	for c := src.FirstChild; c != nil; c = c.NextSibling {
		cc := s.clone(c)
		cc.Parent, cc.PrevSibling = n, last
		if last == nil {
			n.FirstChild = cc
		} else {
			last.NextSibling = cc
		}
		last = cc
	}
	n.LastChild = last
	return n
}

// clearNamespaces sets the Namespace of n and of every node under it to "", as dom.Clone leaves
// them in the copy it makes.
func clearNamespaces(n *html.Node) {
	n.Namespace = ""
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		clearNamespaces(c)
	}
}

// getElementsByTagName is dom.GetElementsByTagName: the elements under root (not root) named
// tagName, or all of them for "*", in document order, by allElements's walk (grabArticle lists a
// tag in the whole page a dozen times), into one slice.
func getElementsByTagName(root *html.Node, tagName string) []*html.Node {
	var out []*html.Node
	all := tagName == "*"
	for n := range allElements(root) {
		if all || n.Data == tagName {
			out = append(out, n)
		}
	}
	return out
}

// allElements yields the elements under root (not root) in document order, following the links
// rather than calling itself per node (the walks inline); the tree must not change during it.
func allElements(root *html.Node) func(yield func(*html.Node) bool) {
	return func(yield func(*html.Node) bool) {
		n := root.FirstChild
		for n != nil {
			if n.Type == html.ElementNode && !yield(n) {
				return
			}
			if n.FirstChild != nil {
				n = n.FirstChild
				continue
			}
			for n != root && n.NextSibling == nil {
				n = n.Parent
			}
			if n == root {
				return
			}
			n = n.NextSibling
		}
	}
}
