package htmlparse

import (
	"strings"

	"golang.org/x/net/html"
)

// ScanElements answers, without building the tree, which elements named in names ParseString(s)
// could have: it returns a document whose children are one childless element per start tag of
// those names, with the tag's attributes exactly as the tree's element has them (an element's own
// attributes are all a predicate on them reads, so the copy answers it as the tree's element
// would). Every element of those names in ParseString(s)'s tree has its copy here; some copies
// may have no element in the tree (a tag the builder ignores). ok is false when the scan cannot
// promise that: a name the tree builder also makes without a tag of that name (html, head, body,
// p, br, img, tbody, tr, colgroup: implied elements, merged attributes, </p>, </br>, <image>) or
// whose elements it clones and whose attributes it sorts (the formatting elements a, b, i...),
// or a page whose tokens depend on tree construction in a way the scan does not follow.
//
// The tokens are the parser's own: the same tokenizer, which decides raw text, RCDATA, comments
// and character references by itself. The tree builder changes its course only in foreign
// content (svg and math: a <style> there is not raw text, CDATA sections are text) and with
// scripting off (never: ParseString runs with scripting on). So the scan follows an <svg> or
// <math> element's subtree with a stack of its open elements, as the builder would, and gives up
// on whatever would leave that simple course: an element that breaks out of foreign content or
// is an integration point (HTML inside svg), an end tag that is not the current element's, a
// wanted name inside foreign content, or an svg or math tag after a select, frameset or template
// (whose insertion modes may ignore it). The scan is one pass of the tokenizer: linear in s.
func ScanElements(s string, names []string) (doc *html.Node, ok bool) {
	doc, _, ok = ScanElementsSure(s, names)
	return doc, ok
}

// ScanElementsSure is ScanElements that also tells which copies stand for an element that
// ParseString(s)'s tree does have (the same name and attributes): among the first sure children of
// doc, those whose name is a PresenceName (Sure). An XPath of TagTests' shape that selects such a
// copy therefore selects an element of the tree.
//
// A copy is sure when its name is one the builder inserts in every insertion mode but those of
// select, frameset and template (PresenceName), no select, frameset or template tag came before it
// (the scan's unsure: those copies come first), and its element cannot be removed afterwards:
// the only removal is of the body and everything in it, by a <frameset> in body while the
// frameset-ok flag is still set. That flag is cleared for good by the first text of characters
// other than whitespace that the builder inserts outside select and frameset modes (whatever the
// mode, such text ends up in the body's rules or foreign content's, which clear it), so a
// frameset tag before any such text makes every copy unsure. Text is counted only where the scan is certain: not raw text or RCDATA (read
// by the tokenizer for the builder's text mode, which keeps the flag), and only its bytes before
// any '&' (a character reference may stand for whitespace).
func ScanElementsSure(s string, names []string) (doc *html.Node, sure int, ok bool) {
	return ScanElementsSureFiltered(s, names, nil)
}

// A ScanFilter is what an element must carry to be copied by a scan: a value in one of its
// attributes (Values, as written in an XPath's literal, case and all) or an attribute of a name
// (Names, lower-case). The copies of a scan are only ever read by XPaths whose every element has
// one (xpatheval.Expr.TagLiterals), and walmart's bot check scans its pages' hundreds of divs for
// three of them: a tag whose raw bytes hold none of them, and so no attribute that does, is passed
// over without its attributes being made (a quarter of the scan).
type ScanFilter struct {
	Values []string
	Names  []string
}

// mayHold reports whether the element of a raw tag may carry one of f's literals: its bytes hold
// one (a name in any case), or hold what the tokenizer rewrites in an attribute's value (a
// character reference, a carriage return, a NUL), so that a value is not its bytes. A tag is a
// few dozen bytes, searched by the library's vector code: far less than making its attributes.
func (f *ScanFilter) mayHold(raw string) bool {
	if strings.IndexByte(raw, '&') >= 0 || strings.IndexByte(raw, '\r') >= 0 || strings.IndexByte(raw, 0) >= 0 {
		return true
	}
	for _, v := range f.Values {
		if strings.Contains(raw, v) {
			return true
		}
	}
	for _, n := range f.Names {
		if ContainsFold(raw, n) {
			return true
		}
	}
	return false
}

// ContainsFold reports whether s contains name (lower-case) in any case of its ASCII letters,
// found from each place of name's first byte that is not a letter, or of its first letter in
// either case when it has none: an attribute's name as a tag may write it.
func ContainsFold(s, name string) bool {
	if name == "" {
		return true
	}
	k := 0
	for k < len(name) && 'a' <= name[k] && name[k] <= 'z' {
		k++
	}
	if k == len(name) {
		k = 0
		lower, upper := name[0], name[0]-('a'-'A')
		for i := 0; i+len(name) <= len(s); i++ {
			if (s[i] == lower || s[i] == upper) && asciiLowerEqual(s[i:i+len(name)], name) {
				return true
			}
		}
		return false
	}
	for i := k; i < len(s); i++ {
		j := strings.IndexByte(s[i:], name[k])
		if j < 0 {
			return false
		}
		i += j
		if st := i - k; st >= 0 && st+len(name) <= len(s) && asciiLowerEqual(s[st:st+len(name)], name) {
			return true
		}
	}
	return false
}

// ScanElementsSureFiltered is ScanElementsSure whose copies are only those of elements that may
// carry one of f's literals (see ScanFilter); nil copies every element of the names. sure counts
// the copies made, so Sure(doc, sure) is the sure copies among them.
func ScanElementsSureFiltered(s string, names []string, f *ScanFilter) (doc *html.Node, sure int, ok bool) {
	for _, n := range names {
		if !ScannableName(n) {
			return nil, 0, false
		}
	}
	var z tokenizer
	z.initString(s)
	doc = &html.Node{Type: html.DocumentNode}
	// foreign is the stack of open elements of the svg or math subtree being read, by the
	// lower-cased names of their tags; empty in HTML content.
	var foreign []string
	// unsure: a select, frameset or template tag was seen, whose insertion modes may ignore an svg
	// or math tag rather than open foreign content.
	unsure := false
	// copies counts the copies; sure is their count when unsure was first set.
	copies := 0
	sure = -1
	// framesetOff: text was inserted that cleared the builder's frameset-ok flag (see above);
	// sureLost: a frameset tag came before it, and the sure copies may have been removed.
	framesetOff, sureLost := false, false
	var tok token
	// slab holds the copies' nodes, a few allocations rather than one per tag (a page has a hundred
	// divs).
	var slab []html.Node
	for {
		z.AllowCDATA(len(foreign) > 0)
		// A text token read while the tokenizer has a raw tag is raw text or RCDATA.
		rawText := z.rawTag != ""
		switch z.Next() {
		case errorToken:
			if sure < 0 {
				sure = copies
			}
			if sureLost {
				sure = 0
			}
			return doc, sure, true
		case textToken:
			if !framesetOff && !unsure && !rawText && visibleText(z.src[z.data.start:z.data.end]) {
				framesetOff = true
			}
		case startTagToken, selfClosingTagToken:
			if z.data.start >= z.data.end {
				continue
			}
			if len(foreign) > 0 {
				_, name := z.tagName()
				if breakout[name] || name == "font" || integrationName(name) || wanted(names, name) {
					return nil, 0, false
				}
				// In foreign content a <style> or <title> is an element like any other.
				z.NextIsNotRawText()
				if z.tt == startTagToken {
					foreign = append(foreign, name)
				}
				continue
			}
			raw := z.src[z.data.start:z.data.end]
			switch {
			case asciiLowerEqual(raw, "svg") || asciiLowerEqual(raw, "math"):
				if unsure {
					return nil, 0, false
				}
				if z.tt == startTagToken {
					foreign = append(foreign, asciiLower(raw))
				}
			case asciiLowerEqual(raw, "select") || asciiLowerEqual(raw, "frameset") || asciiLowerEqual(raw, "template"):
				if !framesetOff && asciiLowerEqual(raw, "frameset") {
					sureLost = true
				}
				if !unsure {
					sure = copies
				}
				unsure = true
			default:
				for _, n := range names {
					if asciiLowerEqual(raw, n) {
						if f != nil && !f.mayHold(z.src[z.raw.start:z.raw.end]) {
							break
						}
						z.token(&tok)
						if len(slab) == 0 {
							slab = make([]html.Node, 32)
						}
						n := &slab[0]
						slab = slab[1:]
						n.Type, n.DataAtom, n.Data, n.Attr = html.ElementNode, tok.DataAtom, tok.Data, tok.Attr
						doc.AppendChild(n)
						copies++
						break
					}
				}
			}
		case endTagToken:
			if len(foreign) > 0 {
				if z.data.start >= z.data.end {
					continue
				}
				if _, name := z.tagName(); name != foreign[len(foreign)-1] {
					return nil, 0, false
				}
				foreign = foreign[:len(foreign)-1]
			}
		}
	}
}

// PresenceName reports whether the tree builder inserts an element for every start tag named n
// (a ScannableName) in every insertion mode but those of select, frameset and template, outside
// foreign content: never ignored (a second form, a table part out of its table, a head), never
// closing something and dropped. ScanElementsSure is sure of copies of these only.
func PresenceName(n string) bool {
	if !ScannableName(n) {
		return false
	}
	switch n {
	case "form", "frame", "frameset", "caption", "col", "td", "th", "thead", "tfoot", "table", "select",
		"option", "optgroup", "template", "input", "keygen", "textarea", "head":
		return false
	}
	return true
}

// Sure returns the copies of ScanElementsSure's doc that stand for elements of the tree, given
// its sure.
func Sure(doc *html.Node, sure int) []*html.Node {
	var out []*html.Node
	for c := doc.FirstChild; c != nil && sure > 0; c, sure = c.NextSibling, sure-1 {
		if PresenceName(c.Data) {
			out = append(out, c)
		}
	}
	return out
}

// visibleText reports whether text (a text token's source bytes, outside raw text) certainly
// holds a character other than whitespace or NUL as the tree builder gets it: a byte above space
// before any '&' (a character reference may stand for a space).
func visibleText(text string) bool {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '&':
			return false
		case c > ' ':
			return true
		}
	}
	return false
}

// scannableName reports whether the tree's elements named n all come from tags named n: a lower
// case ASCII name the tree builder never implies, renames to or merges into.
func ScannableName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !('a' <= c && c <= 'z' || i > 0 && ('0' <= c && c <= '9' || c == '-')) {
			return false
		}
	}
	switch n {
	case "html", "head", "body", "p", "br", "img", "image", "tbody", "tr", "colgroup", "svg", "math":
		return false
	case "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u":
		// formatting elements: cloned by the tree builder, and their attributes sorted
		return false
	}
	return true
}

// integrationName reports whether a foreign element of tag name n may be an integration point,
// inside which tokens are HTML's again.
func integrationName(n string) bool {
	switch n {
	case "foreignobject", "desc", "title", "mi", "mo", "mn", "ms", "mtext", "annotation-xml":
		return true
	}
	return false
}

func wanted(names []string, n string) bool {
	for _, x := range names {
		if x == n {
			return true
		}
	}
	return false
}
