package dom

import (
	"bytes"
	"reflect"
	"slices"
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
// values in a row ({..}{..} or {..},{..}) all kept. A block whose quotes are HTML character
// references (&quot;, &#34;, even "& #34;" as one real page has it) and that has no plain quote is
// unescaped first. A block that still fails is skipped.
//
// Nodes that share an "@id" describe one thing, whichever block or @graph they sit in (a page may
// put a Recipe's rating in one block and its name in another, or the whole Recipe as the
// mainEntity of a WebPage): see mergeByID.
func JSONLD(doc *html.Node) []map[string]any {
	if doc == nil {
		return nil
	}
	var out []map[string]any
	eachLDScript(doc, func(n *html.Node) {
		for _, v := range decodeLD(scriptText(n)) {
			flattenLD(v, &out)
		}
	})
	return mergeByID(out)
}

// JSONLDElements is JSONLD(doc) for a tree whose elements the parser listed in document order
// (ParseHTMLViewElements; nil when it could not): the list is read rather than the tree walked,
// which on a large page chases every text and comment node too (bestbuy's 1.1 MB product page).
func JSONLDElements(doc *html.Node, elems []*html.Node) []map[string]any {
	if doc == nil {
		return nil
	}
	if elems == nil {
		return JSONLD(doc)
	}
	var out []map[string]any
	for _, n := range elems {
		if n.DataAtom == atom.Script && n.Type == html.ElementNode && isLDScript(n) {
			for _, v := range decodeLD(scriptText(n)) {
				flattenLD(v, &out)
			}
		}
	}
	return mergeByID(out)
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
	if v, ok := decodeFastStringDepth(s); ok {
		// What checkDepth and unmarshal of a copy would answer, without the copies and the scan;
		// the value's strings are substrings of the script's text.
		return []any{v}
	}
	return decodeLDSlow(s)
}

// decodeLDSlow is decodeLD of a block (wrappers stripped, not empty) the fast decoder does not take.
func decodeLDSlow(s string) []any {
	b := []byte(s)
	if err := checkDepth(b); err != nil {
		return nil
	}
	if v, err := unmarshal(b); err == nil {
		return []any{v}
	}
	vs, _ := decodeLenient(b)
	if len(vs) == 0 {
		if u, ok := unescapeQuotes(b); ok {
			if err := checkDepth(u); err != nil {
				return nil
			}
			if v, err := unmarshal(u); err == nil {
				return []any{v}
			}
			vs, _ = decodeLenient(u)
		}
	}
	return vs
}

// unescapeQuotes undoes the HTML escaping of a JSON-LD block that was written with its quotes as
// character references (&quot; or &#34;, with stray spaces inside the reference as in "& #34;" or
// "&# 34;"), then every other reference. It refuses (false) a block with a plain '"' or without
// any escaped quote: that block is not HTML-escaped JSON. One pass, a bounded look-ahead per '&'.
func unescapeQuotes(b []byte) ([]byte, bool) {
	if bytes.IndexByte(b, '"') >= 0 {
		return nil, false
	}
	out := make([]byte, 0, len(b))
	found := false
	for i := 0; i < len(b); i++ {
		if b[i] != '&' {
			out = append(out, b[i])
			continue
		}
		if n := quoteRef(b[i:]); n > 0 {
			out = append(out, '"')
			found = true
			i += n - 1
			continue
		}
		out = append(out, '&')
	}
	if !found {
		return nil, false
	}
	return []byte(html.UnescapeString(string(out))), true
}

// quoteRef returns the length of the quote reference b starts with ("&quot;", "&#34;", "&#x22;",
// spaces allowed after '&', after '#' and before ';'), or 0.
func quoteRef(b []byte) int {
	i := 1
	skip := func() {
		for i < len(b) && i < 8 && b[i] == ' ' {
			i++
		}
	}
	skip()
	var name string
	switch {
	case bytes.HasPrefix(b[i:], []byte("quot")):
		i += 4
	case i < len(b) && b[i] == '#':
		i++
		skip()
		for _, n := range [...]string{"34", "x22", "X22"} {
			if bytes.HasPrefix(b[i:], []byte(n)) {
				name = n
				break
			}
		}
		if name == "" {
			return 0
		}
		i += len(name)
	default:
		return 0
	}
	skip()
	if i < len(b) && b[i] == ';' {
		return i + 1
	}
	return 0
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

// FindJSONLD returns the first object of objs whose @type is typ, or a list containing typ. An IRI
// such as "http://schema.org/Product" or "schema:Product" matches by its last segment.
//
// Real pages are lenient with types, so is the search, in this order: the first top-level object
// whose type is typ exactly; else the first one whose type is typ in another case ("recipe", as
// one grocer writes it); else the first object nested in a top-level one (breadth first, at most
// maxNested looked at) whose type is typ exactly, such as the Recipe a WebPage holds as its
// mainEntity. It returns nil when none matches.
func FindJSONLD(objs []map[string]any, typ string) map[string]any {
	if typ == "" {
		return nil
	}
	for _, fold := range [...]bool{false, true} {
		for _, o := range objs {
			if hasType(o, typ, fold) {
				return o
			}
		}
	}
	var found map[string]any
	walkNested(objs, func(m map[string]any) bool {
		if hasType(m, typ, false) {
			found = m
			return false
		}
		return true
	})
	return found
}

// hasType reports whether o's @type, or one of them, is typ (in any case when fold).
func hasType(o map[string]any, typ string, fold bool) bool {
	switch t := o["@type"].(type) {
	case string:
		return typeMatches(t, typ, fold)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && typeMatches(s, typ, fold) {
				return true
			}
		}
	}
	return false
}

func typeMatches(t, typ string, fold bool) bool {
	t = strings.TrimSpace(t)
	if t != typ {
		t = lastSegment(t)
	}
	if fold {
		return strings.EqualFold(t, typ)
	}
	return t == typ
}

// lastSegment cuts a type IRI ("http://schema.org/Recipe", "schema:Recipe") to its name.
func lastSegment(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.LastIndexAny(t, "/#:"); i >= 0 {
		return t[i+1:]
	}
	return t
}

// maxNested bounds the nested objects looked at by FindJSONLD and mergeByID on one page, and
// maxNestDepth how deep they look: a page's JSON-LD is small, and a hostile one is not walked whole.
const (
	maxNested    = 4096
	maxNestDepth = 16
)

// walkNested calls fn on every object nested in objs (not objs themselves), breadth first, at most
// maxNested of them and maxNestDepth deep, until fn returns false.
func walkNested(objs []map[string]any, fn func(map[string]any) bool) {
	type item struct {
		v     any
		depth int
	}
	queue := make([]item, 0, len(objs))
	for _, o := range objs {
		queue = append(queue, item{o, 0})
	}
	var keys []string // reused: the keys of one map that hold objects or arrays
	seen := 0
	for i := 0; i < len(queue); i++ {
		it := queue[i]
		switch v := it.v.(type) {
		case map[string]any:
			if it.depth > 0 {
				if seen++; seen > maxNested || !fn(v) {
					return
				}
			}
			if it.depth >= maxNestDepth {
				continue
			}
			keys = keys[:0]
			for k, e := range v {
				if isContainer(e) && (k != "@graph" || it.depth > 0) {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys) // so that "first" is the same on every run
			for _, k := range keys {
				queue = append(queue, item{v[k], it.depth + 1})
			}
		case []any:
			if it.depth >= maxNestDepth {
				continue
			}
			for _, e := range v {
				if isContainer(e) {
					queue = append(queue, item{e, it.depth + 1})
				}
			}
		}
	}
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// mergeByID merges the nodes of objs that share an "@id": every object with that @id, top-level or
// nested, breadth first in document order, lends the first top-level object with it the keys that
// object lacks, and a later top-level object so merged is dropped. A node is merged only when the
// types agree (one of them untyped, or a type in common): pages reuse their URL as the @id of a
// WebPage and of the Article on it, which are not one thing to a reader. A bare reference
// {"@id": ...} has nothing to lend.
func mergeByID(objs []map[string]any) []map[string]any {
	first := map[string]map[string]any{}
	for _, o := range objs {
		if id := ldID(o); id != "" && first[id] == nil {
			first[id] = o
		}
	}
	if len(first) == 0 {
		return objs
	}
	dropped := map[int]bool{}
	for i, o := range objs {
		if id := ldID(o); id != "" && first[id] != nil && !sameMap(first[id], o) && lend(first[id], o) {
			dropped[i] = true
		}
	}
	walkNested(objs, func(m map[string]any) bool {
		if id := ldID(m); id != "" && first[id] != nil && !sameMap(first[id], m) {
			lend(first[id], m)
		}
		return true
	})
	if len(dropped) == 0 {
		return objs
	}
	out := objs[:0:0]
	for i, o := range objs {
		if !dropped[i] {
			out = append(out, o)
		}
	}
	return out
}

// lend copies to dst the keys of src it lacks when their types agree, and reports whether it did.
// "@graph" is never lent: its members are top-level objects already, and a top-level object is
// reachable from nothing but an "@graph", so no merge can make an object hold itself.
func lend(dst, src map[string]any) bool {
	if len(src) < 2 || !typesAgree(dst, src) {
		return false
	}
	for k, v := range src {
		if _, ok := dst[k]; !ok && k != "@graph" {
			dst[k] = v
		}
	}
	return true
}

func typesAgree(a, b map[string]any) bool { return typeListsAgree(ldTypes(a), ldTypes(b)) }

func ldTypes(o map[string]any) []string {
	switch t := o["@type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func ldID(o map[string]any) string {
	id, _ := o["@id"].(string)
	return strings.TrimSpace(id)
}

// sameMap reports whether a and b are the same map (not equal maps: the same one).
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
