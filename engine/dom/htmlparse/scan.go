package htmlparse

import (
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
	for _, n := range names {
		if !ScannableName(n) {
			return nil, false
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
	var tok token
	// slab holds the copies' nodes, a few allocations rather than one per tag (a page has a hundred
	// divs).
	var slab []html.Node
	for {
		z.AllowCDATA(len(foreign) > 0)
		switch z.Next() {
		case errorToken:
			return doc, true
		case startTagToken, selfClosingTagToken:
			if z.data.start >= z.data.end {
				continue
			}
			if len(foreign) > 0 {
				_, name := z.tagName()
				if breakout[name] || name == "font" || integrationName(name) || wanted(names, name) {
					return nil, false
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
					return nil, false
				}
				if z.tt == startTagToken {
					foreign = append(foreign, asciiLower(raw))
				}
			case asciiLowerEqual(raw, "select") || asciiLowerEqual(raw, "frameset") || asciiLowerEqual(raw, "template"):
				unsure = true
			default:
				for _, n := range names {
					if asciiLowerEqual(raw, n) {
						z.token(&tok)
						if len(slab) == 0 {
							slab = make([]html.Node, 32)
						}
						n := &slab[0]
						slab = slab[1:]
						n.Type, n.DataAtom, n.Data, n.Attr = html.ElementNode, tok.DataAtom, tok.Data, tok.Attr
						doc.AppendChild(n)
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
					return nil, false
				}
				foreign = foreign[:len(foreign)-1]
			}
		}
	}
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
