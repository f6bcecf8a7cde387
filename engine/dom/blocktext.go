package dom

import (
	"strings"

	"github.com/antchfx/htmlquery"
	"github.com/antchfx/xpath"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// BlockText is the text of the element nav points at laid out in lines, as a browser shows it,
// where Text gives it on one line: a question's code block keeps its lines and indentation, and its
// paragraphs stay apart. The text's own whitespace is collapsed as Text collapses it, except inside
// <pre>, whose text is kept as written (each line's trailing spaces dropped); <br>, a list item, a
// table row and every other block element end a line; paragraphs, headings, lists, tables, block
// quotes, rules and <pre> blocks are set off by a blank line, as is a <br> that ends an empty line
// ("a<br><br>b"); table cells are a space apart. Lines
// outside <pre> are trimmed, and empty ones dropped, so there is never more than one blank line in
// a row outside a <pre>. Skipped elements are those Text skips. Anything but an HTML element (an
// attribute, a text node, an XML node) gives Text.
func BlockText(nav xpath.NodeNavigator) string {
	if nav == nil || nav.NodeType() != xpath.ElementNode && nav.NodeType() != xpath.RootNode {
		return Text(nav)
	}
	switch n := nav.(type) {
	case *HTMLNavigator:
		return htmlBlockText(n.Current())
	case *htmlquery.NodeNavigator:
		return htmlBlockText(n.Current())
	}
	return Text(nav)
}

// blockWriter writes lines: the line being written collapses its whitespace (textWriter), and a
// break asked for between two lines is written before the next line only.
type blockWriter struct {
	out    strings.Builder
	line   textWriter
	breaks int // 1: a new line before the next one, 2: a blank line
}

// brk ends the line being written and asks for n line breaks (1 or 2) before the next.
func (b *blockWriter) brk(n int) {
	if s := b.line.String(); s != "" {
		b.emit(s)
		b.line = textWriter{}
	}
	b.breaks = max(b.breaks, n)
}

// emit writes s as the next line (or block of lines).
func (b *blockWriter) emit(s string) {
	if b.out.Len() > 0 {
		b.out.WriteString("\n\n"[:max(b.breaks, 1)])
	}
	b.out.WriteString(s)
	b.breaks = 0
}

func htmlBlockText(root *html.Node) string {
	var b blockWriter
	b.walk(root, root)
	b.brk(0)
	return b.out.String()
}

// walk lays out n and its subtree (the parser nests elements at most 512 deep, so the recursion is
// bounded).
func (b *blockWriter) walk(n, root *html.Node) {
	switch n.Type {
	case html.TextNode:
		b.line.write(n.Data)
		return
	case html.ElementNode:
		if n != root && htmlSkipped(n) {
			return
		}
	case html.DocumentNode:
	default:
		return
	}
	gap := blockGap(n)
	if gap > 0 {
		b.brk(gap)
	}
	switch {
	case n.Type == html.ElementNode && n.DataAtom == atom.Pre:
		if s := preText(n); s != "" {
			b.emit(s)
		}
	case n.Type == html.ElementNode && (n.DataAtom == atom.Td || n.DataAtom == atom.Th):
		b.line.sep()
		fallthrough
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			b.walk(c, root)
		}
	}
	switch {
	case gap > 0:
		b.brk(gap)
	case n.Type == html.ElementNode && n.DataAtom == atom.Br:
		if b.line.String() == "" && b.out.Len() > 0 {
			// a <br> on a line of its own ("a<br><br>b") is the blank line a browser shows
			b.breaks = 2
		} else {
			b.brk(1)
		}
	}
}

// blockGap is the break n asks for around itself: 2 for a paragraph-like block, 1 for any other
// block element, 0 for inline content and table cells.
func blockGap(n *html.Node) int {
	if n.Type != html.ElementNode {
		return 0
	}
	switch n.DataAtom {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Ul, atom.Ol, atom.Dl,
		atom.Blockquote, atom.Table, atom.Hr, atom.Pre:
		return 2
	case atom.Td, atom.Th, atom.Br:
		return 0
	}
	if isBlock(n) {
		return 1
	}
	return 0
}

// preText is the text of a <pre> as written (<br> a line break, skipped elements left out), each
// line's trailing whitespace dropped and blank lines at its ends removed.
func preText(pre *html.Node) string {
	var raw strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				raw.WriteString(c.Data)
			case c.Type != html.ElementNode || htmlSkipped(c):
			case c.DataAtom == atom.Br:
				raw.WriteByte('\n')
			default:
				walk(c)
			}
		}
	}
	walk(pre)
	lines := strings.Split(strings.ReplaceAll(raw.String(), "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r\u00a0")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
