package universal

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"asa/engine/dom"
)

// page is what one walk over the whole parsed page collects, before the content extractor prunes
// the tree: the <title>, <meta> values, links, the first <h1>, <time> elements, microdata items
// and JSON-LD objects.
type page struct {
	base      *url.URL
	docTitle  string
	h1        string
	lang      string
	meta      map[string]string // first non-empty content by lower-case name, property or itemprop
	links     []Link
	timePub   string // <time pubdate> or <time itemprop=datePublished>
	jsonld    []map[string]any
	microdata []map[string]any
	// microRecs says which microdata items sit in a recommendation block (a slider of other
	// products, "customers also bought"): never the page's product.
	microRecs []bool
	// fallback is the product read from the page's own data and text when it has no schema.org or
	// OpenGraph product (product.go); computed during the scan, since the tree is pruned after it.
	fallback *Product

	prod    *Product // markupProduct, once computed
	prodSet bool
	sites   []string         // siteNames, once computed
	objs    []map[string]any // objects, once computed
	ldObjs  []map[string]any // their JSON-LD part
	objsSet bool
}

// scan walks doc once (JSON-LD aside: dom.JSONLD walks for its scripts).
func scan(doc *html.Node, base *url.URL) *page {
	p := &page{base: base, meta: map[string]string{}}
	seen := map[string]int{} // link href -> index in p.links
	baseSeen := false        // only the first <base href> counts
	ids := map[string]*html.Node{}
	var scopes []*html.Node
	var h1 *html.Node
	var scripts []string
	scriptBytes := 0
	n := doc
	for n != nil {
		descend := true
		if n.Type == html.ElementNode {
			if id := attr(n, "id"); id != "" {
				if _, dup := ids[id]; !dup {
					ids[id] = n
				}
			}
			switch n.DataAtom {
			case atom.Script:
				descend = false
				if t := scriptText(n); t != "" && scriptBytes+len(t) <= maxScriptBytes && productScript(n, t) {
					scriptBytes += len(t)
					scripts = append(scripts, t)
				}
			case atom.Style, atom.Template, atom.Noscript, atom.Svg, atom.Math:
				descend = false
			case atom.Html:
				p.lang = attr(n, "lang")
			case atom.Base:
				if !baseSeen {
					if h, ok := attrOK(n, "href"); ok {
						baseSeen = true
						if u := absURL(base, h); u != "" {
							p.base, _ = url.Parse(u)
						}
					}
				}
			case atom.Title:
				if p.docTitle == "" {
					p.docTitle = clean(nodeText(n))
				}
				descend = false
			case atom.Meta:
				p.addMeta(n)
			case atom.H1:
				if p.h1 == "" {
					p.h1 = clean(nodeText(n))
					h1 = n
				}
			case atom.Time:
				if p.timePub == "" {
					if _, ok := attrOK(n, "pubdate"); ok || strings.EqualFold(attr(n, "itemprop"), "datePublished") {
						p.timePub = firstNonEmpty(attr(n, "datetime"), clean(nodeText(n)))
					}
				}
			case atom.A, atom.Area:
				p.addLink(n, seen)
			}
			if _, scope := attrOK(n, "itemscope"); scope {
				if _, prop := attrOK(n, "itemprop"); !prop {
					scopes = append(scopes, n)
				}
			}
		}
		n = following(n, descend)
	}
	// Microdata once every id is known: itemref may point forward.
	refs := maxItemRefs
	for _, n := range scopes {
		if it := microdataItem(n, p.base, ids, &refs, 0); it != nil {
			p.microdata = append(p.microdata, it)
			p.microRecs = append(p.microRecs, inRecommendations(n))
		}
	}
	p.jsonld = dom.JSONLD(doc)
	if p.links == nil {
		p.links = []Link{}
	}
	if m := p.markupProduct(); m == nil || m.Price == nil || m.SKU == nil || m.Availability == nil {
		p.fallback = p.pageProduct(doc, h1, scripts, m != nil)
	}
	return p
}

// addMeta records a <meta>'s content under its name, property and itemprop (lower-case); the first
// non-empty value of a key wins.
func (p *page) addMeta(n *html.Node) {
	content, ok := attrOK(n, "content")
	if !ok {
		return
	}
	content = clean(content)
	if content == "" || jsArtifact(content) {
		return
	}
	for _, k := range []string{"name", "property", "itemprop", "http-equiv"} {
		v := attr(n, k)
		if v == "" {
			continue
		}
		// property="og:title twitter:title" names two keys.
		for _, key := range strings.Fields(strings.ToLower(v)) {
			if _, dup := p.meta[key]; !dup {
				p.meta[key] = content
			}
		}
	}
}

// jsArtifact reports a meta content that a server-side template wrote from a JavaScript value it
// did not have (Nuxt's article:section "undefined", an author object "[object Object]"): the tag
// declares nothing, and a later key of the same meaning may.
func jsArtifact(s string) bool { return s == "undefined" || s == "[object Object]" }

// noArtifact is s, or "" for a JavaScript artifact.
func noArtifact(s string) string {
	if jsArtifact(s) {
		return ""
	}
	return s
}

// addLink appends an <a href> as an absolute http(s) URL with its text, once per URL: a later
// duplicate only supplies the text the first one lacked. In-page anchors are left out.
func (p *page) addLink(n *html.Node, seen map[string]int) {
	href := strings.TrimSpace(attr(n, "href"))
	if href == "" || strings.HasPrefix(href, "#") {
		return
	}
	abs := absURL(p.base, href)
	if abs == "" {
		return
	}
	text := clean(nodeText(n))
	if text == "" {
		text = clean(firstNonEmpty(attr(n, "aria-label"), attr(n, "title"), imgAlt(n)))
	}
	if i, dup := seen[abs]; dup {
		if p.links[i].Text == "" {
			p.links[i].Text = text
		}
		return
	}
	seen[abs] = len(p.links)
	p.links = append(p.links, Link{Text: text, Href: abs})
}

// documentBase is the URL doc's relative references resolve against: its first <base href>
// resolved against base (the page's URL), as a browser does, else base.
func documentBase(doc *html.Node, base *url.URL) *url.URL {
	for n := doc; n != nil; n = following(n, !(n.Type == html.ElementNode && rawTextElement(n.DataAtom))) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Base {
			if h, ok := attrOK(n, "href"); ok {
				// Only the first <base href> counts, whatever it says.
				if u := absURL(base, h); u != "" {
					if b, err := url.Parse(u); err == nil {
						return b
					}
				}
				return base
			}
		}
	}
	return base
}

// following is the node after n in document order, past n's subtree unless descend.
func following(n *html.Node, descend bool) *html.Node {
	if descend && n.FirstChild != nil {
		return n.FirstChild
	}
	for n != nil && n.NextSibling == nil {
		n = n.Parent
	}
	if n != nil {
		return n.NextSibling
	}
	return nil
}

// rawTextElement reports elements whose content is never markup a browser resolves.
func rawTextElement(a atom.Atom) bool {
	return a == atom.Script || a == atom.Style || a == atom.Template || a == atom.Noscript
}

// absURL resolves ref against base and returns it when it is an http(s) URL, without its fragment
// when that fragment only points inside the page.
func absURL(base *url.URL, ref string) string {
	var u *url.URL
	var err error
	if base != nil {
		u, err = base.Parse(ref)
	} else {
		u, err = url.Parse(ref)
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	if base != nil && u.Fragment != "" && u.Scheme == base.Scheme && u.Host == base.Host && u.Path == base.Path && u.RawQuery == base.RawQuery {
		return ""
	}
	return u.String()
}

func imgAlt(n *html.Node) string {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode {
			if c.DataAtom == atom.Img {
				if a := attr(c, "alt"); strings.TrimSpace(a) != "" {
					return a
				}
			}
			if a := imgAlt(c); a != "" {
				return a
			}
		}
	}
	return ""
}

// nodeText is the visible text of n, whitespace collapsed (dom.Text).
func nodeText(n *html.Node) string { return dom.Text(dom.NavigatorAt(n, n)) }

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// clean collapses runs of white space to one space and trims.
func clean(s string) string {
	if s == "" {
		return ""
	}
	return strings.Join(strings.Fields(s), " ")
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}
