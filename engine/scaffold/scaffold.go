// Package scaffold proposes a first sitedef from a saved page (asa sitedef new): it finds the page's
// JSON-LD, microdata, OpenGraph and script-embedded JSON and turns what it finds into fields, so an
// author starts from a definition that loads and runs, and edits from there.
package scaffold

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/net/html"

	"asa/engine/dom"
)

// MaxPage bounds the page read: proposals come from the page's head and structured data.
const MaxPage = 16 << 20

// Field is one proposed output field.
type Field struct {
	Name     string
	Type     string
	Selects  []Selector // tried in order
	Required bool
	Children []Field // for object fields
	// From says where the proposal comes from, with a sample of the page's value (a YAML comment).
	From string
}

// Selector is one way to read a field.
type Selector struct {
	XPath, Expr string
}

// Source is a proposed source.
type Source struct {
	Name, Key, Value string // e.g. ld, json_ld, Recipe
	Note             string
}

// Analysis is what a page offers.
type Analysis struct {
	URL      string // the page's URL: --url, else its canonical link or og:url
	Host     string
	Locale   string // xx_YY from <html lang>, default en_US
	Title    string
	SiteName string
	Type     string // the main schema.org type found, if any
	Sources  []Source
	Fields   []Field
}

// Analyze reads a saved HTML page. pageURL may be empty when the page names its own canonical URL.
func Analyze(page []byte, pageURL string) (*Analysis, error) {
	if len(page) > MaxPage {
		return nil, fmt.Errorf("page is %d bytes, over the %d byte limit", len(page), MaxPage)
	}
	body, err := dom.ToUTF8(page, "text/html")
	if err != nil {
		return nil, err
	}
	doc, err := dom.ParseHTML(body)
	if err != nil {
		return nil, err
	}
	a := &Analysis{}
	meta := metas(doc)
	a.URL = pageURL
	if a.URL == "" {
		a.URL = firstNonEmpty(linkHref(doc, "canonical"), meta["og:url"])
	}
	u, err := url.Parse(a.URL)
	if a.URL == "" || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("the page names no canonical URL: give its address with --url")
	}
	a.Host = strings.ToLower(u.Hostname())
	a.Locale = locale(htmlLang(doc))
	a.SiteName = firstNonEmpty(meta["og:site_name"], a.Host)
	a.Title = firstNonEmpty(meta["og:title"], titleText(doc))
	names := map[string]bool{}
	add := func(f Field) *Field {
		if f.Name == "" || names[f.Name] {
			return nil
		}
		names[f.Name] = true
		a.Fields = append(a.Fields, f)
		return &a.Fields[len(a.Fields)-1]
	}

	// JSON-LD: the main entity's properties, read through one source.
	if main := mainEntity(dom.JSONLD(doc)); main != nil {
		a.Type = typeName(main["@type"])
		a.Sources = append(a.Sources, Source{Name: "ld", Key: "json_ld", Value: a.Type, Note: "the page's JSON-LD " + a.Type})
		for _, k := range sortedKeys(main) {
			if f, ok := ldField(k, main[k], "src.ld?."+k); ok {
				add(f)
			}
		}
		for _, t := range []string{"name", "headline"} {
			if f := find(a.Fields, t); f != nil {
				f.Required = true
				break
			}
		}
	} else if md := microdata(doc); md != nil {
		// Microdata, where a page has no JSON-LD.
		a.Type = md.typ
		for i, p := range md.props {
			f := add(Field{Name: snake(p.name), Type: "string", Selects: []Selector{{XPath: p.xpath}}, From: "microdata " + md.typ + "." + p.name + ": " + sample(p.value)})
			if f != nil && i == 0 {
				f.Required = p.name == "name" || p.name == "headline"
			}
		}
	}

	// OpenGraph and article metadata: a fallback where the field exists, a field of its own where not.
	for _, og := range ogMap {
		v, ok := meta[og.prop]
		if !ok || v == "" {
			continue
		}
		sel := Selector{XPath: fmt.Sprintf("//meta[@property='%s']/@content", og.prop)}
		from := og.prop + ": " + sample(v)
		if f := findAny(a.Fields, og.same); f != nil {
			if f.Type != og.typ && !(f.Type == "url" && og.typ == "string") && !(f.Type == "string" && og.typ == "url") {
				continue // a list or an object: the page's one meta value is no fallback for it
			}
			f.Selects = append(f.Selects, sel)
			f.From += "; else " + og.prop
			continue
		}
		add(Field{Name: og.name, Type: og.typ, Selects: []Selector{sel}, From: from})
	}
	if title := find(a.Fields, "title"); title == nil && !anyRequired(a.Fields) {
		f := add(Field{Name: "title", Type: "string", Selects: []Selector{{XPath: "//title"}}, From: "<title>: " + sample(titleText(doc))})
		if f != nil {
			f.Required = true
		}
	}
	if href := linkHref(doc, "canonical"); href != "" {
		add(Field{Name: "canonical_url", Type: "url", Selects: []Selector{{XPath: "//link[@rel='canonical']/@href"}}, From: "<link rel=canonical>: " + sample(href)})
	}
	if lang := htmlLang(doc); lang != "" {
		add(Field{Name: "language", Type: "string", Selects: []Selector{{XPath: "//html/@lang"}}, From: "<html lang>: " + lang})
	}

	// Script-embedded JSON: the source, and the scalar values at its top (an author digs from there).
	for _, sj := range scriptMarkers {
		v, err := dom.ScriptJSON(body, sj.re)
		if err != nil || v == nil {
			continue
		}
		a.Sources = append(a.Sources, Source{Name: sj.name, Key: "script_json", Value: sj.marker, Note: "script-embedded JSON " + sj.marker})
		root, path := v, "src."+sj.name
		for _, k := range sj.dig {
			m, ok := root.(map[string]any)
			if !ok || m[k] == nil {
				break
			}
			root, path = m[k], path+"?."+k
		}
		m, ok := root.(map[string]any)
		if !ok {
			continue
		}
		n := 0
		for _, k := range sortedKeys(m) {
			if !identRe.MatchString(k) || n == 8 {
				continue
			}
			typ, ok := scalarType(m[k])
			if !ok {
				continue
			}
			if add(Field{Name: snake(sj.name + "_" + k), Type: typ, Selects: []Selector{{Expr: path + "?." + k}}, From: sj.marker + " " + k + ": " + sample(m[k])}) != nil {
				n++
			}
		}
	}
	// The required field first: it is what the page is about.
	sort.SliceStable(a.Fields, func(i, j int) bool { return a.Fields[i].Required && !a.Fields[j].Required })
	return a, nil
}

// FieldNames lists the proposed field names.
func (a *Analysis) FieldNames() []string {
	out := make([]string, len(a.Fields))
	for i, f := range a.Fields {
		out[i] = f.Name
	}
	return out
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// genericTypes are JSON-LD objects that describe the page or site rather than what it is about.
var genericTypes = map[string]bool{"WebSite": true, "WebPage": true, "Organization": true, "BreadcrumbList": true,
	"ImageObject": true, "Person": true, "SiteNavigationElement": true, "SearchAction": true, "ItemList": true,
	"NewsMediaOrganization": true, "CollectionPage": true, "VideoObject": true, "Corporation": true, "Brand": true}

// preferred main types, in order.
var preferred = []string{"Recipe", "NewsArticle", "ReportageNewsArticle", "AnalysisNewsArticle", "Article", "BlogPosting",
	"Product", "JobPosting", "Event", "Movie", "Book", "SoftwareApplication", "LocalBusiness", "Restaurant", "Course", "Review"}

func mainEntity(objs []map[string]any) map[string]any {
	for _, t := range preferred {
		if o := dom.FindJSONLD(objs, t); o != nil {
			return o
		}
	}
	var best map[string]any
	for _, o := range objs {
		if genericTypes[typeName(o["@type"])] {
			continue
		}
		if best == nil || len(o) > len(best) {
			best = o
		}
	}
	return best
}

func typeName(t any) string {
	switch x := t.(type) {
	case string:
		return x
	case []any:
		for _, y := range x {
			if s, ok := y.(string); ok && !genericTypes[s] {
				return s
			}
		}
		if len(x) > 0 {
			s, _ := x[0].(string)
			return s
		}
	}
	return ""
}

// ldField proposes a field for one JSON-LD property, by the shape of its value on this page.
func ldField(key string, v any, path string) (Field, bool) {
	if strings.HasPrefix(key, "@") || !identRe.MatchString(key) || key == "mainEntityOfPage" {
		return Field{}, false
	}
	f := Field{Name: snake(key), From: "JSON-LD " + key + ": " + sample(v)}
	if typ, ok := scalarType(v); ok {
		f.Type, f.Selects = typ, []Selector{{Expr: path}}
		if typ == "string" && isURLKey(key) && strings.HasPrefix(fmt.Sprint(v), "http") {
			f.Type = "url"
		}
		return f, true
	}
	switch x := v.(type) {
	case map[string]any:
		for _, sub := range []string{"name", "url", "text", "@id"} {
			if s, ok := x[sub].(string); ok && s != "" && (sub != "@id" || strings.HasPrefix(s, "http")) {
				f.Type, f.Selects = "string", []Selector{{Expr: path + "?." + sub}}
				if sub == "url" || sub == "@id" {
					f.Type, f.Selects = "url", []Selector{{Expr: path + "?.url"}}
				}
				return f, true
			}
		}
		// An object of scalars (nutrition, aggregateRating): an object field with a child per key.
		f.Type = "object"
		for _, k := range sortedKeys(x) {
			if !identRe.MatchString(k) {
				continue
			}
			if typ, ok := scalarType(x[k]); ok {
				f.Children = append(f.Children, Field{Name: snake(k), Type: typ, Selects: []Selector{{Expr: path + "?." + k}}})
			}
		}
		return f, len(f.Children) > 0
	case []any:
		if len(x) == 0 {
			return Field{}, false
		}
		strs, objs := true, true
		sub := ""
		for _, it := range x {
			_, isStr := it.(string)
			strs = strs && isStr
			m, isObj := it.(map[string]any)
			objs = objs && isObj
			if isObj && sub == "" {
				for _, k := range []string{"text", "name", "url"} {
					if _, ok := m[k].(string); ok {
						sub = k
						break
					}
				}
			}
		}
		switch {
		case strs:
			f.Type, f.Selects = "list<string>", []Selector{{Expr: path}}
			if isURLKey(key) {
				f.Type = "list<url>"
			}
		case objs && sub != "":
			f.Type, f.Selects = "list<string>", []Selector{{Expr: fmt.Sprintf("map(%s ?? [], #?.%s)", path, sub)}}
			if sub == "url" {
				f.Type = "list<url>"
			}
		default:
			return Field{}, false
		}
		return f, true
	}
	return Field{}, false
}

func isURLKey(k string) bool {
	k = strings.ToLower(k)
	return strings.Contains(k, "url") || strings.Contains(k, "image") || k == "logo" || k == "sameas"
}

func scalarType(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return "string", strings.TrimSpace(x) != ""
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return "int", true
		}
		return "float", true
	case bool:
		return "bool", true
	}
	return "", false
}

var ogMap = []struct {
	prop, name, typ string
	same            []string
}{
	{"og:title", "title", "string", []string{"name", "headline", "title"}},
	{"og:description", "description", "string", []string{"description"}},
	{"og:image", "image", "url", []string{"image", "thumbnail_url"}},
	{"og:site_name", "site_name", "string", []string{"site_name"}},
	{"article:published_time", "date_published", "string", []string{"date_published"}},
	{"article:modified_time", "date_modified", "string", []string{"date_modified"}},
	{"article:section", "article_section", "string", []string{"article_section"}},
	{"article:author", "og_author", "string", []string{"author"}},
}

var scriptMarkers = []struct {
	name, marker string
	re           *regexp.Regexp
	dig          []string
}{
	{"next", "__NEXT_DATA__", regexp.MustCompile(`__NEXT_DATA__`), []string{"props", "pageProps"}},
	{"nuxt", "__NUXT__", regexp.MustCompile(`window\.__NUXT__\s*=`), []string{"data"}},
	{"state", "__INITIAL_STATE__", regexp.MustCompile(`__INITIAL_STATE__\s*=`), nil},
	{"preloaded", "__PRELOADED_STATE__", regexp.MustCompile(`__PRELOADED_STATE__\s*=`), nil},
	{"apollo", "__APOLLO_STATE__", regexp.MustCompile(`__APOLLO_STATE__\s*=`), nil},
}

func find(fs []Field, name string) *Field {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i]
		}
	}
	return nil
}

func findAny(fs []Field, names []string) *Field {
	for _, n := range names {
		if f := find(fs, n); f != nil {
			return f
		}
	}
	return nil
}

func anyRequired(fs []Field) bool {
	for _, f := range fs {
		if f.Required {
			return true
		}
	}
	return false
}

// snake turns recipeIngredient into recipe_ingredient, and anything else into a valid field name.
func snake(s string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range s {
		switch {
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		case unicode.IsLower(r) || unicode.IsDigit(r):
			b.WriteRune(r)
			prevLower = true
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" || unicode.IsDigit(rune(out[0])) {
		out = "f_" + out
	}
	if !nameRe.MatchString(out) {
		return ""
	}
	return out
}

var nameRe = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

func sample(v any) string {
	s := ""
	switch x := v.(type) {
	case string:
		s = strconv.Quote(strings.Join(strings.Fields(x), " "))
	case []any:
		s = fmt.Sprintf("a list of %d", len(x))
	case map[string]any:
		s = "an object"
	default:
		s = fmt.Sprint(x)
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strings.ToValidUTF8(s, "")
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

var locales = map[string]string{"en": "en_US", "ja": "ja_JP", "zh": "zh_CN", "ko": "ko_KR", "pt": "pt_BR",
	"sv": "sv_SE", "da": "da_DK", "cs": "cs_CZ", "el": "el_GR", "he": "he_IL", "uk": "uk_UA", "hi": "hi_IN",
	"nb": "nb_NO", "no": "nb_NO", "fa": "fa_IR", "ar": "ar_SA", "vi": "vi_VN", "ms": "ms_MY", "sl": "sl_SI"}

// locale turns <html lang="en-GB"> into en_GB, and a bare language into its usual country.
func locale(lang string) string {
	lang = strings.ReplaceAll(strings.TrimSpace(lang), "_", "-")
	parts := strings.Split(lang, "-")
	l := strings.ToLower(parts[0])
	if len(l) < 2 || len(l) > 3 || !isLetters(l) {
		return "en_US"
	}
	if len(parts) > 1 && len(parts[1]) == 2 && isLetters(parts[1]) {
		return l + "_" + strings.ToUpper(parts[1])
	}
	if loc, ok := locales[l]; ok {
		return loc
	}
	if len(l) == 2 {
		return l + "_" + strings.ToUpper(l)
	}
	return "en_US"
}

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'A' || (r > 'Z' && r < 'a') || r > 'z' {
			return false
		}
	}
	return true
}

// The page's head, read without XPath (small and bounded).

func walk(n *html.Node, fn func(*html.Node) bool) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && !fn(c) {
			continue
		}
		walk(c, fn)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func metas(doc *html.Node) map[string]string {
	out := map[string]string{}
	walk(doc, func(n *html.Node) bool {
		if n.Data == "meta" {
			k := firstNonEmpty(attr(n, "property"), attr(n, "name"))
			if _, seen := out[k]; k != "" && !seen {
				out[k] = attr(n, "content")
			}
		}
		return true
	})
	return out
}

func linkHref(doc *html.Node, rel string) string {
	href := ""
	walk(doc, func(n *html.Node) bool {
		if href == "" && n.Data == "link" && strings.EqualFold(attr(n, "rel"), rel) {
			href = attr(n, "href")
		}
		return href == ""
	})
	return href
}

func htmlLang(doc *html.Node) string {
	lang := ""
	walk(doc, func(n *html.Node) bool {
		if n.Data == "html" {
			lang = attr(n, "lang")
		}
		return false
	})
	return lang
}

func titleText(doc *html.Node) string {
	t := ""
	walk(doc, func(n *html.Node) bool {
		if t == "" && n.Data == "title" && n.FirstChild != nil {
			t = strings.Join(strings.Fields(n.FirstChild.Data), " ")
		}
		return t == ""
	})
	return t
}

type mdItem struct {
	typ   string
	props []mdProp
}

type mdProp struct{ name, xpath, value string }

// microdata reads the first top-level itemscope with an itemtype: one property per distinct itemprop
// directly in it (nested items' own properties are theirs).
func microdata(doc *html.Node) *mdItem {
	var root *html.Node
	walk(doc, func(n *html.Node) bool {
		if root == nil && attr(n, "itemtype") != "" {
			if _, ok := attrOK(n, "itemscope"); ok {
				root = n
			}
		}
		return root == nil
	})
	if root == nil {
		return nil
	}
	itemtype := attr(root, "itemtype")
	typ := itemtype[strings.LastIndexAny(itemtype, "/#")+1:]
	it := &mdItem{typ: typ}
	seen := map[string]bool{}
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if p := strings.Fields(attr(c, "itemprop")); len(p) > 0 && identRe.MatchString(p[0]) && !seen[p[0]] {
				seen[p[0]] = true
				x := fmt.Sprintf("//*[@itemtype='%s']//*[@itemprop='%s']", itemtype, p[0])
				val := dom.StringValue(c)
				switch c.Data {
				case "meta":
					x, val = x+"/@content", attr(c, "content")
				case "link", "a":
					if c.Data == "link" || attr(c, "href") != "" && strings.TrimSpace(val) == "" {
						x, val = x+"/@href", attr(c, "href")
					}
				case "img":
					x, val = x+"/@src", attr(c, "src")
				case "time":
					if attr(c, "datetime") != "" {
						x, val = x+"/@datetime", attr(c, "datetime")
					}
				}
				if strings.TrimSpace(val) != "" {
					it.props = append(it.props, mdProp{name: p[0], xpath: x, value: val})
				}
			}
			if _, nested := attrOK(c, "itemscope"); nested {
				continue
			}
			visit(c)
		}
	}
	visit(root)
	if len(it.props) == 0 {
		return nil
	}
	// name or headline first: it is the required one.
	sort.SliceStable(it.props, func(i, j int) bool {
		return (it.props[i].name == "name" || it.props[i].name == "headline") && !(it.props[j].name == "name" || it.props[j].name == "headline")
	})
	return it
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}
