package dom

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// JSONLD returns the JSON-LD objects of the page in document order: the content of every
// <script type="application/ld+json">, with top-level arrays flattened and each "@graph" replaced
// by its members (the object holding the @graph is kept too when it has an @type of its own).
//
// A block that is not valid JSON is repaired before it is given up: <!-- --> and CDATA wrappers
// and a trailing ';' are removed, raw control characters in strings escaped, trailing and doubled
// commas dropped, missing values ("width": ,) made null, invalid escapes (\') fixed, and several
// values in a row ({..}{..} or {..},{..}) all kept. A block that still fails is skipped.
func JSONLD(doc *html.Node) []map[string]any {
	if doc == nil {
		return nil
	}
	var out []map[string]any
	n := doc
	for {
		if n.Type == html.ElementNode && n.DataAtom == atom.Script && isLDScript(n) {
			for _, v := range decodeLD(scriptText(n)) {
				flattenLD(v, &out)
			}
		} else if n.FirstChild != nil {
			n = n.FirstChild
			continue
		}
		for n.NextSibling == nil {
			n = n.Parent
			if n == nil || n == doc {
				return out
			}
		}
		if n == doc {
			return out
		}
		n = n.NextSibling
	}
}

func isLDScript(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == "type" {
			t, _, _ := strings.Cut(a.Val, ";")
			return asciiEqualFold(strings.TrimSpace(t), "application/ld+json")
		}
	}
	return false
}

func scriptText(n *html.Node) string {
	if c := n.FirstChild; c != nil && c == n.LastChild && c.Type == html.TextNode {
		return c.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

// decodeLD decodes one JSON-LD block: strictly, else leniently.
func decodeLD(s string) []any {
	s = stripWrappers(s)
	if s == "" {
		return nil
	}
	b := []byte(s)
	if err := checkDepth(b); err != nil {
		return nil
	}
	if v, err := unmarshal(b); err == nil {
		return []any{v}
	}
	vs, _ := decodeLenient(b)
	return vs
}

// stripWrappers removes the comment and CDATA wrappers pages put around script content.
func stripWrappers(s string) string {
	for {
		s = strings.TrimSpace(s)
		before := len(s)
		for _, p := range [...]string{"<!--", "//<![CDATA[", "/*<![CDATA[*/", "<![CDATA["} {
			s = strings.TrimPrefix(s, p)
		}
		for _, p := range [...]string{"//-->", "-->", "//]]>", "/*]]>*/", "]]>", ";"} {
			s = strings.TrimSuffix(s, p)
		}
		if len(s) == before {
			return s
		}
	}
}

// flattenLD appends the objects of v: arrays are flattened and @graph members lifted.
func flattenLD(v any, out *[]map[string]any) {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			flattenLD(e, out)
		}
	case map[string]any:
		g, ok := v["@graph"]
		if !ok {
			*out = append(*out, v)
			return
		}
		if _, typed := v["@type"]; typed {
			*out = append(*out, v)
		}
		flattenLD(g, out)
	}
}

// FindJSONLD returns the first object of objs whose @type is typ, or a list containing typ. Types
// compare case-sensitively; an IRI such as "http://schema.org/Product" or "schema:Product" matches
// by its last segment. It returns nil when none matches.
func FindJSONLD(objs []map[string]any, typ string) map[string]any {
	for _, o := range objs {
		switch t := o["@type"].(type) {
		case string:
			if typeMatches(t, typ) {
				return o
			}
		case []any:
			for _, e := range t {
				if s, ok := e.(string); ok && typeMatches(s, typ) {
					return o
				}
			}
		}
	}
	return nil
}

func typeMatches(t, typ string) bool {
	t = strings.TrimSpace(t)
	if t == typ {
		return true
	}
	if i := strings.LastIndexAny(t, "/#:"); i >= 0 {
		return t[i+1:] == typ
	}
	return false
}
