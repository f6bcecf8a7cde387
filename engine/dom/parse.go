package dom

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"unicode/utf8"
	"unsafe"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"asa/engine/dom/htmlparse"
)

// ParseHTML parses a UTF-8 HTML body (see ToUTF8) with htmlparse, our fork of
// golang.org/x/net/html's parser: the same *html.Node tree x/net/html's Parse builds, several
// times faster. A leading UTF-8 BOM is skipped. The tree's strings share one copy of body, so
// body may be reused afterwards. The tree is the one htmlquery works on.
//
// Like x/net/html, it refuses (with an error) documents whose elements nest deeper than 512
// after tree construction; no page of the corpus comes near, and it bounds what a hostile page
// can cost.
func ParseHTML(body []byte) (doc *html.Node, err error) {
	return parseHTML(string(bytes.TrimPrefix(body, bomUTF8)))
}

// ParseHTMLView is ParseHTML whose tree's strings are body's bytes themselves rather than a copy
// of them: the caller never writes body while the tree lives (the engine's step bodies, which it
// already reads through string views). A page of a megabyte is then not copied.
func ParseHTMLView(body []byte) (doc *html.Node, err error) {
	body = bytes.TrimPrefix(body, bomUTF8)
	if len(body) == 0 {
		return parseHTML("")
	}
	return parseHTML(unsafe.String(&body[0], len(body)))
}

// RefsMayYieldAlnum reports whether a character reference in body may stand for an ASCII letter
// or digit (htmlparse.RefsMayYieldAlnum): when not, a run of them in an attribute value of body's
// tree occurs in body as it is.
func RefsMayYieldAlnum(body []byte) bool { return htmlparse.RefsMayYieldAlnum(body) }

// ScannableElement reports whether ScanElementsView can answer for elements named name.
func ScannableElement(name string) bool { return htmlparse.ScannableName(name) }

// ScanElementsView is htmlparse.ScanElements on body as ParseHTMLView would parse it (a leading
// BOM skipped, body's bytes viewed, never written): a document whose children stand for every
// element named in names the parsed tree could have, or ok false when the scan cannot tell.
func ScanElementsView(body []byte, names []string) (doc *html.Node, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			doc, ok = nil, false
		}
	}()
	body = bytes.TrimPrefix(body, bomUTF8)
	if len(body) == 0 {
		return htmlparse.ScanElements("", names)
	}
	return htmlparse.ScanElements(unsafe.String(&body[0], len(body)), names)
}

// ContainsFold is htmlparse.ContainsFold on body's bytes: whether body holds name (lower-case) in
// any case of its ASCII letters.
func ContainsFold(body []byte, name string) bool {
	if len(body) == 0 {
		return htmlparse.ContainsFold("", name)
	}
	return htmlparse.ContainsFold(unsafe.String(&body[0], len(body)), name)
}

// ScanFilter is htmlparse.ScanFilter: what an element must carry to be copied by a scan.
type ScanFilter = htmlparse.ScanFilter

// ScanElementsSureView is htmlparse.ScanElementsSureFiltered on body as ParseHTMLView would parse
// it: doc as ScanElementsView's (only the copies f lets through, all of them when f is nil), and
// sure the copies of doc that stand for elements the parsed tree certainly has (htmlparse.Sure).
func ScanElementsSureView(body []byte, names []string, f *ScanFilter) (doc *html.Node, sure []*html.Node, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			doc, sure, ok = nil, nil, false
		}
	}()
	body = bytes.TrimPrefix(body, bomUTF8)
	var n int
	if len(body) == 0 {
		doc, n, ok = htmlparse.ScanElementsSureFiltered("", names, f)
	} else {
		doc, n, ok = htmlparse.ScanElementsSureFiltered(unsafe.String(&body[0], len(body)), names, f)
	}
	if !ok {
		return nil, nil, false
	}
	return doc, htmlparse.Sure(doc, n), true
}

// ParseHTMLViewElements is ParseHTMLView that also returns the tree's elements in document order,
// listed by the parser as it made them (nil when it moved some, see htmlparse.ParseStringElements):
// the engine's XPath index is built from them without a walk of the tree.
func ParseHTMLViewElements(body []byte) (doc *html.Node, elems []*html.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, elems, err = nil, nil, fmt.Errorf("dom: HTML parser panicked: %v", r)
		}
	}()
	body = bytes.TrimPrefix(body, bomUTF8)
	if len(body) == 0 {
		return htmlparse.ParseStringElements("")
	}
	return htmlparse.ParseStringElements(unsafe.String(&body[0], len(body)))
}

func parseHTML(s string) (doc *html.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("dom: HTML parser panicked: %v", r)
		}
	}()
	return htmlparse.ParseString(s)
}

// ParseXML parses an XML body with antchfx/xmlquery. The decoder is lenient, as scraped XML needs:
// HTML entities (&nbsp;, &eacute; ...) in text and attributes are decoded, unknown entities and
// stray '&' are kept as text, and mismatched end tags are tolerated. A body that is not UTF-8 is
// converted first (BOM, <?xml encoding?>, windows-1252 fallback); the encoding named by the XML
// declaration is otherwise ignored, so a body already converted by ToUTF8 is not decoded twice.
func ParseXML(body []byte) (doc *xmlquery.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("dom: XML parser panicked: %v", r)
		}
	}()
	if !utf8.Valid(body) {
		if body, err = ToUTF8(body, ""); err != nil {
			return nil, err
		}
	}
	body = bytes.TrimPrefix(body, bomUTF8)
	return xmlquery.ParseWithOptions(bytes.NewReader(body), xmlquery.ParserOptions{
		Decoder: &xmlquery.DecoderOptions{
			Strict: false,
			Entity: xml.HTMLEntity,
			CharsetReader: func(_ string, r io.Reader) (io.Reader, error) {
				return r, nil // already UTF-8
			},
		},
	})
}

// Navigator returns an XPath navigator positioned at n, an *html.Node (from ParseHTML) or an
// *xmlquery.Node (from ParseXML). A navigator is returned as is. It returns nil for nil and for
// any other type.
func Navigator(n any) xpath.NodeNavigator {
	switch n := n.(type) {
	case *html.Node:
		if n != nil {
			return NavigatorAt(n, n)
		}
	case *xmlquery.Node:
		if n != nil {
			return xmlquery.CreateXPathNavigator(n)
		}
	case xpath.NodeNavigator:
		return n
	}
	return nil
}
