package universal

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"asa/engine/dom"
	"asa/engine/universal/readability"
	"asa/engine/universal/readability/render"
)

// article is the main content of a page as the content extractor found it, with the byline and
// dates it saw. The extractor is readeck's go-readability (a port of Mozilla's Readability.js),
// chosen by measurement over go-trafilatura: see docs/api.md and cmd/evaluniversal.
type article struct {
	node      *html.Node
	title     string
	byline    string
	published string
	excerpt   string
	siteName  string
	lang      string
}

// Extractor names a main-text extractor candidate. Extract uses DefaultExtractor; the others are
// kept so that cmd/evaluniversal can measure them side by side on the development set.
type Extractor string

const (
	// Readability is go-readability alone, as it returns the article.
	Readability Extractor = "readability"
	// Filtered is go-readability with embedded posts protected before it and the boilerplate
	// inside its article removed after it (boilerplate.go).
	Filtered Extractor = "readability+filter"
	// Guarded is Filtered, unless the filter removed more than half of the article's words: then
	// go-readability's article as it was (a per-page choice by how much the filter took).
	Guarded Extractor = "readability+filter+guard"
)

// DefaultExtractor is the candidate that won on the development set (cmd/evaluniversal).
const DefaultExtractor = Filtered

// MainTextExtractor is the candidate behind ExtractMainText (the sitedef main_text source).
const MainTextExtractor = Readability

// Extractors lists the candidates, the default first.
var Extractors = []Extractor{Filtered, Readability, Guarded}

// ParseExtractor validates a candidate's name.
func ParseExtractor(s string) (Extractor, bool) {
	for _, e := range Extractors {
		if string(e) == s {
			return e, true
		}
	}
	return "", false
}

// Describe says what the candidate does, for the measurement's report.
func (e Extractor) Describe() string {
	switch e {
	case Readability:
		return "go-readability (readeck) alone"
	case Filtered:
		return "go-readability, embedded posts protected before it, boilerplate inside its article removed after it"
	case Guarded:
		return "readability+filter, or go-readability alone when the filter took more than half of the words"
	}
	return string(e)
}

// mainContent runs the extractor on doc, which it prunes in place (read everything else first),
// or, when shared, on a copy, doc staying whole.
func mainContent(doc *html.Node, base *url.URL, ex Extractor, shared bool) *article {
	p := readability.NewParser()
	var a readability.Article
	var err error
	if ex == Readability && shared {
		// go-readability copies what it prunes: ParseFrom makes that copy the only one.
		a, err = p.ParseFrom(doc, base)
	} else {
		if shared {
			doc = cloneTree(doc)
		}
		if ex != Readability {
			protectEmbeds(doc)
			p.KeepClasses = true // the filter reads them
		}
		a, err = p.ParseAndMutate(doc, base)
	}
	if err != nil {
		return &article{}
	}
	node := a.Node
	if node != nil && ex != Readability {
		var before *html.Node
		if ex == Guarded {
			before = cloneTree(node)
		}
		stripBoilerplate(node, a.Title())
		if before != nil && 2*WordCount(render.InnerText(node)) < WordCount(render.InnerText(before)) {
			node = before
		}
	}
	// Readability reads the meta tags as they are, JavaScript artifacts included (see jsArtifact).
	out := &article{node: node, title: a.Title(), byline: noArtifact(a.Byline()), excerpt: noArtifact(a.Excerpt()), siteName: noArtifact(a.SiteName()), lang: a.Language()}
	if t, err := a.PublishedTime(); err == nil && !t.IsZero() {
		out.published = t.Format("2006-01-02T15:04:05Z07:00")
	}
	return out
}

// cloneTree copies n and everything under it (n's copy has no parent or siblings). The nodes and
// the attributes are allocated in one slice each: copying a page this way costs a fraction of
// parsing it again, and two allocations instead of one per node. Each copy's attributes are capped
// at their length, so an attribute the extractor appends to one node never lands in another's.
func cloneTree(root *html.Node) *html.Node {
	nNodes, nAttrs := 0, 0
	walkTree(root, func(n *html.Node) {
		nNodes++
		nAttrs += len(n.Attr)
	})
	nodes := make([]html.Node, nNodes)
	attrs := make([]html.Attribute, nAttrs)
	copyOf := func(n *html.Node) *html.Node {
		c := &nodes[0]
		nodes = nodes[1:]
		*c = html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace}
		if n.Attr != nil {
			k := copy(attrs, n.Attr)
			c.Attr, attrs = attrs[:k:k], attrs[k:]
		}
		return c
	}
	out := copyOf(root)
	n, c := root, out
	for {
		if n.FirstChild != nil {
			k := copyOf(n.FirstChild)
			c.AppendChild(k)
			n, c = n.FirstChild, k
			continue
		}
		for n != root && n.NextSibling == nil {
			n, c = n.Parent, c.Parent
		}
		if n == root {
			return out
		}
		k := copyOf(n.NextSibling)
		c.Parent.AppendChild(k)
		n, c = n.NextSibling, k
	}
}

// walkTree calls fn on root and every node under it, in document order.
func walkTree(root *html.Node, fn func(*html.Node)) {
	n := root
	for {
		fn(n)
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

// text is the main content as plain text: paragraphs separated by a blank line, lines trimmed.
func (a *article) text() string {
	if a.node == nil {
		return ""
	}
	return tidyText(render.InnerText(a.node))
}

// markdown is the main content as Markdown.
func (a *article) markdown() string {
	if a.node == nil {
		return ""
	}
	return toMarkdown(a.node)
}

// tidyText trims every line, drops blank lines at the ends and keeps at most one blank line in a row.
func tidyText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	b.Grow(len(s))
	blank := 0
	// The lines strings.Split gives, one after the other, without a slice of them all.
	for rest, more := s, true; more; {
		var l string
		l, rest, more = strings.Cut(rest, "\n")
		l = strings.TrimRight(l, " \t\u00a0")
		if strings.TrimSpace(l) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			if blank > 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(strings.TrimLeft(l, " \t\u00a0"))
	}
	return b.String()
}

// MainText is a page's main content as the universal extractor finds it, with what the extractor
// read beside it: the main_text source of a sitedef (package engine) is built from it.
type MainText struct {
	Text      string // paragraphs separated by a blank line
	WordCount int    // see WordCount
	Title     string // the extractor's guess, not our title logic (that needs the whole page)
	Byline    string
	Excerpt   string
	Published string // ISO 8601, or ""
	SiteName  string
	Lang      string
}

// ExtractMainText runs the main-content extractor on an HTML body already decoded to UTF-8;
// pageURL resolves relative links. It parses a tree of its own, since the extractor prunes the
// tree it reads. A page without main content gives a MainText with an empty Text and no error; the
// error is a page the extractor panicked on.
func ExtractMainText(body []byte, pageURL string) (MainText, error) {
	return extractMainText(func() (*html.Node, error) { return dom.ParseHTML(body) }, false, pageURL)
}

// ExtractMainTextFrom is ExtractMainText on a page the caller has already parsed (dom.ParseHTML):
// the extractor reads a copy of doc, which stays whole. Copying the tree gives the tree a second
// parse would, at a fraction of the cost.
func ExtractMainTextFrom(doc *html.Node, pageURL string) (MainText, error) {
	return extractMainText(func() (*html.Node, error) { return doc, nil }, true, pageURL)
}

// extractMainText runs the extractor on the tree tree gives, which it may prune unless shared. The
// tree is made inside the recover, so a page that panics its parsing is an error like any other.
func extractMainText(tree func() (*html.Node, error), shared bool, pageURL string) (mt MainText, err error) {
	defer func() {
		if r := recover(); r != nil {
			mt, err = MainText{}, fmt.Errorf("universal: main text: panic: %v", r)
		}
	}()
	doc, err := tree()
	if err != nil {
		return MainText{}, err
	}
	base, _ := url.Parse(pageURL)
	if base != nil && !base.IsAbs() {
		base = nil
	}
	// go-readability alone: the article family's expectations (fixtures/corpus/article-*.yaml, from
	// the Postlight parser's tests) assert where its text starts, captions and credits included,
	// which the boilerplate filter of parse=text removes.
	a := mainContent(doc, base, MainTextExtractor, shared)
	mt = MainText{Text: a.text(), Title: a.title, Byline: a.byline, Excerpt: a.excerpt, Published: a.published, SiteName: a.siteName, Lang: a.lang}
	mt.WordCount = WordCount(mt.Text)
	return mt, nil
}

// WordCount counts the words of s: runs of letters and digits (an apostrophe or hyphen between two
// letters does not split one), and every Han or kana character on its own, since Chinese and Japanese
// are written without spaces and a character is the nearest unit to a word (Korean has spaces).
func WordCount(s string) int {
	n := 0
	in := false
	// Decoded in place rather than as a []rune of the whole text (the same runes: an invalid byte
	// is U+FFFD either way), with ASCII, most of most pages, kept off the Unicode tables and its
	// runs of letters and digits read at once.
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case asciiAlnum[c]:
				if !in {
					n++
				}
				in = true
				for i < len(s) && asciiAlnum[s[i]] {
					i++
				}
			case in && (c == '\'' || c == '-') && i < len(s) && nextIsLetter(s[i:]):
				// "don't", "well-known": one word
			default:
				in = false
			}
			continue
		}
		var r rune
		if i+2 < len(s) && 0xE1 <= c && c <= 0xEC && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			// Three bytes from E1 to EC then two continuation bytes are always a valid rune
			// (U+1000 to U+CFFF: kana, Han, Hangul), decoded here rather than by utf8's slow path.
			r = rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			i += 3
		} else {
			var w int
			r, w = utf8.DecodeRuneInString(s[i:])
			i += w
		}
		switch wordRuneKind(r) {
		case runeCJK:
			n++
			in = false
		case runeLetter:
			if !in {
				n++
			}
			in = true
		default:
			if !(in && r == '’' && i < len(s) && nextIsLetter(s[i:])) {
				in = false
			}
		}
	}
	return n
}

// asciiAlnum is WordCount's letters and digits among ASCII, false from 0x80 (a multi-byte rune's
// bytes, decoded apart).
var asciiAlnum = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// What WordCount makes of a rune from U+0080.
const (
	runeOther  = iota // a separator
	runeLetter        // letter, digit or non-spacing mark: part of a word
	runeCJK           // Han, hiragana or katakana: a word of its own
)

// wordRuneKind sorts a rune from U+0080 for WordCount. The General Punctuation block (curly
// quotes, dashes, ellipses: common in Latin texts), CJK punctuation (、。「」) and the full-width
// forms' punctuation, digits and letters are answered without the Unicode tables, as the common
// CJK blocks are (TestWordRuneKind holds every rune to the tables).
func wordRuneKind(r rune) int {
	switch {
	case isCommonCJK(r):
		return runeCJK
	case 0x2000 <= r && r <= 0x206F, 0x3000 <= r && r <= 0x3004, 0x3008 <= r && r <= 0x3020, r == 0x30FB,
		0xFF00 <= r && r <= 0xFF0F, 0xFF1A <= r && r <= 0xFF20:
		return runeOther
	case r == 0x30FC, 0xFF10 <= r && r <= 0xFF19, 0xFF21 <= r && r <= 0xFF3A, 0xFF41 <= r && r <= 0xFF5A:
		// The prolonged sound mark (ー), full-width digits and Latin letters.
		return runeLetter
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
		return runeCJK
	case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
		return runeLetter
	}
	return runeOther
}

// isCommonCJK reports the blocks of Han, hiragana and katakana a Japanese or Chinese text is
// mostly made of (all of them in those scripts), without unicode.In's table search; the rest of
// the scripts is left to unicode.In.
func isCommonCJK(r rune) bool {
	return 0x4E00 <= r && r <= 0x9FFF || 0x3041 <= r && r <= 0x3096 || 0x30A1 <= r && r <= 0x30FA
}

// nextIsLetter reports whether s starts with a letter.
func nextIsLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}
