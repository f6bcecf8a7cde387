package dom

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/antchfx/htmlquery"
	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Text returns the text of the node nav points at, as a reader of the page sees it.
//
// For an element (or the document) it is the text of its descendants, where:
//   - <script>, <style>, <noscript>, <template> and <iframe> below the node are skipped (the node
//     itself is not: the text of a selected <script> is its source), as are comments;
//   - HTML block-level elements (p, div, br, li, tr, td, h1-h6, ... see isBlock) are separated
//     from their neighbours by a space. In XML documents every element is, except the inline
//     elements of HTML (b, i, span, a ...), so <name><first>A</first><last>B</last></name> is "A B";
//   - CDATA sections of XML count as text.
//
// For attributes, text nodes and comments it is their value. In every case whitespace is
// normalised: runs of Unicode white space (including NBSP, U+2000-U+200A, U+3000) and of
// zero-width spaces (U+200B, U+2060, U+FEFF, U+180E) become one ASCII space and the ends are
// trimmed. The zero-width (non-)joiners U+200C and U+200D are kept between two visible characters
// (emoji sequences, Persian) and dropped elsewhere.
//
// Navigators other than htmlquery's and xmlquery's are walked through the NodeNavigator
// interface with the XML rules.
func Text(nav xpath.NodeNavigator) string {
	if nav == nil {
		return ""
	}
	switch nav.NodeType() {
	case xpath.AttributeNode:
		return collapse(nav.Value())
	case xpath.TextNode, xpath.CommentNode:
		if x, ok := nav.(*xmlquery.NodeNavigator); ok {
			return collapse(x.Current().Data) // Value() is empty for CDATA sections
		}
		return collapse(nav.Value())
	}
	switch n := nav.(type) {
	case *HTMLNavigator:
		return htmlText(n.Current())
	case *htmlquery.NodeNavigator:
		return htmlText(n.Current())
	case *xmlquery.NodeNavigator:
		return xmlText(n.Current())
	}
	return navText(nav)
}

// ElementText is Text of an HTML element's navigator, without the navigator.
func ElementText(n *html.Node) string { return htmlText(n) }

// AttrText is Text of the navigator at n's attribute i (AttrNavigatorAt), without making one: a
// card's href or src field reads it dozens of times a page.
func AttrText(n *html.Node, i int) string { return collapse(n.Attr[i].Val) }

// htmlText walks the subtree of root without recursion.
func htmlText(root *html.Node) string {
	if c := root.FirstChild; c != nil && c == root.LastChild && c.Type == html.TextNode {
		return collapse(c.Data) // the common <span>text</span>
	}
	var w textWriter
	n := root
	for {
		descend := false
		switch n.Type {
		case html.TextNode:
			w.write(n.Data)
		case html.DocumentNode:
			descend = true
		case html.ElementNode:
			if n == root || !htmlSkipped(n) {
				if isBlock(n) {
					w.sep()
				}
				descend = true
			}
		}
		if descend && n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		for {
			if n.Type == html.ElementNode && isBlock(n) && (n == root || !htmlSkipped(n)) {
				w.sep()
			}
			if n == root {
				return w.String()
			}
			if n.NextSibling != nil {
				n = n.NextSibling
				break
			}
			n = n.Parent
		}
	}
}

func htmlSkipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Iframe:
		return true
	}
	return false
}

func isBlock(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Body, atom.Br,
		atom.Button, atom.Caption, atom.Center, atom.Dd, atom.Details, atom.Dialog, atom.Dir,
		atom.Div, atom.Dl, atom.Dt, atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer,
		atom.Form, atom.Frameset, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Head, atom.Header, atom.Hgroup, atom.Hr, atom.Html, atom.Legend, atom.Li,
		atom.Listing, atom.Main, atom.Menu, atom.Nav, atom.Ol, atom.Optgroup, atom.Option,
		atom.P, atom.Plaintext, atom.Pre, atom.Section, atom.Select, atom.Summary, atom.Table,
		atom.Tbody, atom.Td, atom.Textarea, atom.Tfoot, atom.Th, atom.Thead, atom.Title,
		atom.Tr, atom.Ul, atom.Xmp:
		return true
	}
	return false
}

// xmlText is htmlText for xmlquery trees.
func xmlText(root *xmlquery.Node) string {
	if c := root.FirstChild; c != nil && c == root.LastChild && (c.Type == xmlquery.TextNode || c.Type == xmlquery.CharDataNode) {
		return collapse(c.Data)
	}
	var w textWriter
	n := root
	for {
		descend := false
		switch n.Type {
		case xmlquery.TextNode, xmlquery.CharDataNode:
			w.write(n.Data)
		case xmlquery.DocumentNode, xmlquery.DeclarationNode:
			descend = true
		case xmlquery.ElementNode:
			if n == root || !skippedName(n.Data) {
				if !isInlineName(n.Data) {
					w.sep()
				}
				descend = true
			}
		}
		if descend && n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		for {
			if n.Type == xmlquery.ElementNode && !isInlineName(n.Data) && (n == root || !skippedName(n.Data)) {
				w.sep()
			}
			if n == root {
				return w.String()
			}
			if n.NextSibling != nil {
				n = n.NextSibling
				break
			}
			n = n.Parent
		}
	}
}

// navText walks any other navigator through its interface.
func navText(nav xpath.NodeNavigator) string {
	n := nav.Copy()
	var w textWriter
	depth := 0
	for {
		descend := false
		switch n.NodeType() {
		case xpath.TextNode:
			w.write(n.Value())
		case xpath.RootNode:
			descend = true
		case xpath.ElementNode:
			if depth == 0 || !skippedName(n.LocalName()) {
				if !isInlineName(n.LocalName()) {
					w.sep()
				}
				descend = true
			}
		}
		if descend && n.MoveToChild() {
			depth++
			continue
		}
		for {
			if n.NodeType() == xpath.ElementNode && !isInlineName(n.LocalName()) && (depth == 0 || !skippedName(n.LocalName())) {
				w.sep()
			}
			if depth == 0 {
				return w.String()
			}
			if n.MoveToNext() {
				break
			}
			n.MoveToParent()
			depth--
		}
	}
}

func skippedName(name string) bool {
	switch name {
	case "script", "style", "noscript", "template", "iframe":
		return true
	}
	return false
}

func isInlineName(name string) bool {
	switch name {
	case "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn",
		"em", "font", "i", "ins", "kbd", "label", "mark", "q", "rp", "rt", "ruby", "s", "samp",
		"small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr":
		return true
	}
	return false
}

// isSpaceRune reports the runes collapsed to one space.
func isSpaceRune(r rune) bool {
	switch r {
	case 0x200B, 0x2060, 0xFEFF, 0x180E:
		return true
	}
	return unicode.IsSpace(r)
}

// visibleASCII is true for the ASCII bytes that are not white space.
var visibleASCII = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = !isASCIISpace(byte(c))
	}
	return t
}()

func isJoiner(r rune) bool { return r == 0x200C || r == 0x200D }

func isASCIISpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// collapse normalises the whitespace of s (see Text). It does not allocate when s is already
// normalised.
func collapse(s string) string {
	if normalised(s) {
		return s
	}
	var w textWriter
	w.b.Grow(len(s))
	w.write(s)
	return w.String()
}

func normalised(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	prevSpace := false
	for i := 0; i < len(s); {
		// Eight visible ASCII bytes at a time: a long attribute or script text (a JSON blob of
		// tens of kilobytes) is mostly such runs, and a byte at a time was a cost of its own.
		for i+8 <= len(s) {
			sp, ok := asciiWord(s[i : i+8])
			if !ok {
				break
			}
			if prevSpace && sp&0x80 != 0 {
				return false // a space ended the previous word and starts this one
			}
			prevSpace = sp>>63 != 0
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' {
				if prevSpace {
					return false
				}
				prevSpace = true
			} else if isASCIISpace(c) {
				return false
			} else {
				prevSpace = false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if isSpaceRune(r) || isJoiner(r) {
			return false
		}
		prevSpace = false
		i += n
	}
	return true
}

// asciiWord reads the first 8 bytes of w (which has them): ok when each is printable ASCII (0x20
// to 0x7f) and no two spaces are side by side, and spaces with 0x80 in each byte that is a space
// (the first byte lowest). A byte below 0x20 borrows into its high bit when 0x20 is taken from it,
// one of 0x80 or more has it; a space is a zero byte of x^0x2020..., found without a borrow.
func asciiWord(w string) (spaces uint64, ok bool) {
	_ = w[7]
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	const sp8, lo7, hi = 0x2020202020202020, 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	if ((x-sp8)|x)&hi != 0 {
		return 0, false
	}
	v := x ^ sp8
	spaces = ^((v&lo7 + lo7) | v | lo7)
	return spaces, spaces&(spaces<<8) == 0
}

// asciiRun reports whether the 8 bytes of w go on a run of visible ASCII as they are: printable
// ASCII, no two spaces side by side, the last not a space (a space between two visible bytes is kept).
func asciiRun(w string) bool {
	sp, ok := asciiWord(w)
	return ok && sp>>63 == 0
}

// textWriter accumulates text with whitespace collapsed: a run of white space, or a block
// boundary, becomes one pending space, written only between two visible characters.
type textWriter struct {
	b       strings.Builder
	space   bool    // a space is pending
	joiners [4]rune // pending zero-width joiners
	nj      int
}

func (w *textWriter) sep() {
	w.space = true
	w.nj = 0
}

func (w *textWriter) write(s string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if isASCIISpace(c) {
				w.sep()
				i++
				continue
			}
			// A run of visible ASCII, and of single spaces between two such bytes (which stay as
			// they are), is written at once: a script's JSON is mostly that.
			j := i + 1
			for j < len(s) {
				if j+8 <= len(s) && asciiRun(s[j:j+8]) {
					j += 8
				} else if visibleASCII[s[j]] {
					j++
				} else if s[j] == ' ' && j+1 < len(s) && visibleASCII[s[j+1]] {
					j += 2
				} else {
					break
				}
			}
			w.flush()
			w.b.WriteString(s[i:j])
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case isSpaceRune(r):
			w.sep()
		case isJoiner(r):
			if w.nj < len(w.joiners) {
				w.joiners[w.nj] = r
				w.nj++
			}
		default:
			w.flush()
			w.b.WriteString(s[i : i+n])
		}
		i += n
	}
}

// flush writes what is pending before a visible character.
func (w *textWriter) flush() {
	if w.b.Len() > 0 {
		if w.space {
			w.b.WriteByte(' ')
		} else {
			for _, r := range w.joiners[:w.nj] {
				w.b.WriteRune(r)
			}
		}
	}
	w.space = false
	w.nj = 0
}

func (w *textWriter) String() string { return w.b.String() }
