package universal

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// maxItemRefs bounds the itemref targets read on one page.
const maxItemRefs = 64

// maxItemDepth bounds the nesting of microdata items followed (a hostile page can nest thousands).
const maxItemDepth = 16

// microdataItem reads the microdata item rooted at n (an element with itemscope) into the shape
// dom.JSONLD gives JSON-LD objects: "@type" (the last segment of each itemtype URL) and one key
// per property, a single value or a []any when the property repeats. Nested items are maps.
// itemref is followed through ids (the page's elements by id): shops put a product's offers in a
// buy box outside the element that carries its itemscope.
//
// refs bounds the itemref targets read on the whole page (each may be a large subtree, and a page
// could make many items point at the same one).
func microdataItem(n *html.Node, base *url.URL, ids map[string]*html.Node, refs *int, depth int) map[string]any {
	if depth > maxItemDepth {
		return nil
	}
	item := map[string]any{}
	if t := strings.Fields(attr(n, "itemtype")); len(t) > 0 {
		types := make([]any, 0, len(t))
		for _, x := range t {
			types = append(types, typeName(x))
		}
		if len(types) == 1 {
			item["@type"] = types[0]
		} else {
			item["@type"] = types
		}
	}
	if id := attr(n, "itemid"); id != "" {
		item["@id"] = id
	}
	var visit func(c *html.Node)
	var walk func(parent *html.Node)
	visit = func(c *html.Node) {
		if c.Type != html.ElementNode {
			return
		}
		props := strings.Fields(attr(c, "itemprop"))
		_, scope := attrOK(c, "itemscope")
		if len(props) > 0 {
			var v any
			if scope {
				if sub := microdataItem(c, base, ids, refs, depth+1); sub != nil {
					v = sub
				}
			} else {
				v = propValue(c, base)
			}
			if v != nil {
				for _, p := range props {
					addProp(item, p, v)
				}
			}
		}
		if scope {
			return // its descendants belong to that item
		}
		switch c.DataAtom {
		case atom.Script, atom.Style, atom.Template:
			return
		}
		walk(c)
	}
	walk = func(parent *html.Node) {
		for c := parent.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	walk(n)
	for _, id := range strings.Fields(attr(n, "itemref")) {
		// A referenced element inside n, or n itself, would be read twice.
		if ref := ids[id]; ref != nil && ref != n && *refs > 0 && !isAncestor(n, ref) && !isAncestor(ref, n) {
			*refs--
			visit(ref)
		}
	}
	return item
}

// isAncestor reports whether a is an ancestor of n.
func isAncestor(a, n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// propValue is an element's microdata property value (HTML's rules, plus the content attribute on
// any element, as shops write <span itemprop="price" content="115.0">).
func propValue(n *html.Node, base *url.URL) any {
	link := func(key string) any {
		if v := strings.TrimSpace(attr(n, key)); v != "" {
			if abs := absURL(base, v); abs != "" {
				return abs
			}
			return v
		}
		return nil
	}
	switch n.DataAtom {
	case atom.Meta:
		return strings.TrimSpace(attr(n, "content"))
	case atom.Audio, atom.Embed, atom.Iframe, atom.Img, atom.Source, atom.Track, atom.Video:
		return link("src")
	case atom.A, atom.Area, atom.Link:
		return link("href")
	case atom.Object:
		return link("data")
	case atom.Data, atom.Meter:
		if v, ok := attrOK(n, "value"); ok {
			return strings.TrimSpace(v)
		}
	case atom.Time:
		if v, ok := attrOK(n, "datetime"); ok {
			return strings.TrimSpace(v)
		}
	}
	if v, ok := attrOK(n, "content"); ok {
		return strings.TrimSpace(v)
	}
	return clean(nodeText(n))
}

func addProp(item map[string]any, name string, v any) {
	name = typeName(name) // itemprop may be an absolute URL
	switch old := item[name].(type) {
	case nil:
		item[name] = v
	case []any:
		item[name] = append(old, v)
	default:
		item[name] = []any{old, v}
	}
}

// typeName is the last segment of a schema.org IRI ("https://schema.org/Product" -> "Product").
func typeName(t string) string {
	t = strings.TrimSpace(t)
	t = strings.TrimRight(t, "/")
	if i := strings.LastIndexAny(t, "/#:"); i >= 0 {
		return t[i+1:]
	}
	return t
}
