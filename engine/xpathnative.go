package engine

import (
	"regexp"
	"strings"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"

	"asa/engine/dom"
)

// Card-by-card selectors (.//span[contains(@class, 'a-price')]/span[@class='a-offscreen']) run
// dozens of times per page, and antchfx spends most of that in its generic machinery: a navigator
// copy per attribute read, a query object per predicate. Paths made only of child and descendant
// steps with name tests and attribute predicates (=, contains, starts-with, presence, not, and, or),
// optionally ending in an attribute, are evaluated here directly on the *html.Node tree, in the
// same order antchfx yields them (context by context, document order within each, repeats kept).
// Anything else runs through antchfx.

type nativeXPath struct {
	wrapper  string // "" or "boolean" or "count"
	branches []*nativePath
}

type nativePath struct {
	steps []nativeStep
	attr  string // a final /@attr step
}

type nativeStep struct {
	descendant bool
	parent     bool   // ..
	self       bool   // self::name
	sibling    int    // 1: following-sibling::, -1: preceding-sibling::
	first      bool   // a final [1]: only the nearest match (child and sibling axes)
	name       string // element name or "*"
	preds      []nodePred
}

type nodePred func(n *html.Node) bool

// compileNative returns the native plan of src, or nil.
func compileNative(src string) *nativeXPath {
	s := strings.TrimSpace(src)
	nx := &nativeXPath{}
	if m := wrapperRe.FindStringSubmatch(s); m != nil {
		if m[1] != "boolean" && m[1] != "count" {
			return nil
		}
		open := len(m[0]) - 1
		if matching(s, open) != len(s)-1 {
			return nil
		}
		nx.wrapper = m[1]
		s = strings.TrimSpace(s[open+1 : len(s)-1])
	}
	for _, b := range splitTop(s, '|') {
		p := parseNativePath(strings.TrimSpace(b))
		if p == nil {
			return nil
		}
		nx.branches = append(nx.branches, p)
	}
	if len(nx.branches) == 0 {
		return nil
	}
	return nx
}

func parseNativePath(s string) *nativePath {
	p := &nativePath{}
	switch {
	case strings.HasPrefix(s, "self::"):
		// self::name[...] as the first step, then the usual steps
		s = "/" + s
	case strings.HasPrefix(s, ".//") || strings.HasPrefix(s, "./"):
		s = s[1:]
	case strings.HasPrefix(s, "//"):
		// absolute: evaluated from the document root
		p.steps = append(p.steps, nativeStep{name: "#root"})
	default:
		return nil
	}
	for s != "" {
		desc := false
		switch {
		case strings.HasPrefix(s, "//"):
			desc, s = true, s[2:]
		case strings.HasPrefix(s, "/"):
			s = s[1:]
		default:
			return nil
		}
		if strings.HasPrefix(s, "@") {
			name := s[1:]
			if desc || !isName(name) {
				return nil
			}
			p.attr = name
			return p
		}
		if strings.HasPrefix(s, "..") && !desc {
			p.steps = append(p.steps, nativeStep{parent: true})
			s = s[2:]
			continue
		}
		self, sibling := false, 0
		switch {
		case strings.HasPrefix(s, "self::"):
			if desc || len(p.steps) > 0 {
				return nil
			}
			self, s = true, s[len("self::"):]
		case strings.HasPrefix(s, "following-sibling::") && !desc:
			sibling, s = 1, s[len("following-sibling::"):]
		case strings.HasPrefix(s, "preceding-sibling::") && !desc:
			sibling, s = -1, s[len("preceding-sibling::"):]
		}
		i := 0
		for i < len(s) && (isNameChar(s[i]) || s[i] == '*') {
			i++
		}
		name := s[:i]
		if name != "*" && !isName(name) {
			return nil
		}
		st := nativeStep{descendant: desc, self: self, sibling: sibling, name: name}
		s = s[i:]
		for strings.HasPrefix(s, "[") {
			end := matching(s, 0)
			if end < 0 {
				return nil
			}
			if strings.TrimSpace(s[1:end]) == "1" {
				// [1] is the nearest match on the child and sibling axes, and only as the last
				// predicate (a predicate after it would count from a different set).
				if desc || self || st.first || (len(s) > end+1 && s[end+1] == '[') {
					return nil
				}
				st.first = true
				s = s[end+1:]
				continue
			}
			if st.first {
				return nil
			}
			pred := parsePred(strings.TrimSpace(s[1:end]))
			if pred == nil {
				return nil
			}
			st.preds = append(st.preds, pred)
			s = s[end+1:]
		}
		p.steps = append(p.steps, st)
	}
	if len(p.steps) == 0 {
		return nil
	}
	return p
}

func isName(s string) bool {
	if s == "" || !(s[0] == '_' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

// parsePred compiles an attribute predicate, or returns nil when it is not of the native subset.
func parsePred(s string) nodePred {
	s = strings.TrimSpace(s)
	if ors := splitWord(s, "or"); len(ors) > 1 {
		var ps []nodePred
		for _, o := range ors {
			p := parsePred(o)
			if p == nil {
				return nil
			}
			ps = append(ps, p)
		}
		return func(n *html.Node) bool {
			for _, p := range ps {
				if p(n) {
					return true
				}
			}
			return false
		}
	}
	if ands := splitWord(s, "and"); len(ands) > 1 {
		var ps []nodePred
		for _, a := range ands {
			p := parsePred(a)
			if p == nil {
				return nil
			}
			ps = append(ps, p)
		}
		return func(n *html.Node) bool {
			for _, p := range ps {
				if !p(n) {
					return false
				}
			}
			return true
		}
	}
	if strings.HasPrefix(s, "(") && matching(s, 0) == len(s)-1 {
		return parsePred(s[1 : len(s)-1])
	}
	if strings.HasPrefix(s, "not(") && matching(s, 3) == len(s)-1 {
		inner := parsePred(s[4 : len(s)-1])
		if inner == nil {
			return nil
		}
		return func(n *html.Node) bool { return !inner(n) }
	}
	if m := eqRe.FindStringSubmatch(s); m != nil {
		name, val := m[1], m[2]+m[3]
		return func(n *html.Node) bool {
			v, ok := attr(n, name)
			return ok && v == val
		}
	}
	if m := cmpRe.FindStringSubmatch(s); m != nil {
		arg, present := strArg(strings.TrimSpace(m[1]))
		if arg == nil {
			return nil
		}
		val, neq := m[3]+m[4], m[2] == "!="
		return func(n *html.Node) bool {
			// A comparison with an absent attribute (an empty node set) is false either way.
			if present != nil && !present(n) {
				return false
			}
			return (arg(n) == val) != neq
		}
	}
	for _, fn := range []string{"contains", "starts-with"} {
		if strings.HasPrefix(s, fn+"(") && matching(s, len(fn)) == len(s)-1 {
			args := splitTop(s[len(fn)+1:len(s)-1], ',')
			if len(args) != 2 {
				return nil
			}
			a, b := strOrLit(strings.TrimSpace(args[0])), strOrLit(strings.TrimSpace(args[1]))
			if a == nil || b == nil {
				return nil
			}
			if fn == "contains" {
				return func(n *html.Node) bool { return strings.Contains(a(n), b(n)) }
			}
			return func(n *html.Node) bool { return strings.HasPrefix(a(n), b(n)) }
		}
	}
	if s == "normalize-space(.)" || s == "normalize-space()" {
		return func(n *html.Node) bool { return normSpaceX(stringValue(n)) != "" }
	}
	if s == "*" || isName(s) {
		name := s
		return func(n *html.Node) bool {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (name == "*" || c.Data == name) {
					return true
				}
			}
			return false
		}
	}
	if strings.HasPrefix(s, "following-sibling::") || strings.HasPrefix(s, "preceding-sibling::") {
		s = "./" + s
	}
	if strings.HasPrefix(s, "./") || strings.HasPrefix(s, ".//") {
		if p := parseNativePath(s); p != nil && p.attr == "" {
			return func(n *html.Node) bool { return p.exists(n) }
		}
		return nil
	}
	if strings.HasPrefix(s, "@") && isName(s[1:]) {
		name := s[1:]
		return func(n *html.Node) bool {
			_, ok := attr(n, name)
			return ok
		}
	}
	return nil
}

var cmpRe = regexp.MustCompile(`^(.+?)\s*(!=|=)\s*(?:'([^']*)'|"([^"]*)")$`)

// strArg compiles the string arguments the native subset knows: an attribute, the node's string
// value, their normalize-space, and the class-token idiom concat(' ', normalize-space(@class), ' ').
// present, when not nil, says whether the argument is a node set that is not empty.
func strArg(a string) (get func(*html.Node) string, present func(*html.Node) bool) {
	switch {
	case a == ".":
		return stringValue, nil
	case a == "normalize-space(.)" || a == "normalize-space()":
		return func(n *html.Node) string { return normSpaceX(stringValue(n)) }, nil
	case strings.HasPrefix(a, "@") && isName(a[1:]):
		name := a[1:]
		return func(n *html.Node) string { v, _ := attr(n, name); return v },
			func(n *html.Node) bool { _, ok := attr(n, name); return ok }
	case strings.HasPrefix(a, "normalize-space(@") && strings.HasSuffix(a, ")") && isName(a[len("normalize-space(@"):len(a)-1]):
		name := a[len("normalize-space(@") : len(a)-1]
		return func(n *html.Node) string { v, _ := attr(n, name); return normSpaceX(v) }, nil
	}
	if m := tokenRe.FindStringSubmatch(a); m != nil {
		name := m[1]
		return func(n *html.Node) string { v, _ := attr(n, name); return " " + normSpaceX(v) + " " }, nil
	}
	return nil, nil
}

// strOrLit compiles a string argument: a quoted literal, a strArg, or a concat of them.
func strOrLit(a string) func(*html.Node) string {
	if len(a) >= 2 && (a[0] == '\'' || a[0] == '"') && a[len(a)-1] == a[0] && !strings.ContainsRune(a[1:len(a)-1], rune(a[0])) {
		lit := a[1 : len(a)-1]
		return func(*html.Node) string { return lit }
	}
	if get, _ := strArg(a); get != nil {
		return get
	}
	if strings.HasPrefix(a, "concat(") && matching(a, len("concat")) == len(a)-1 {
		var parts []func(*html.Node) string
		for _, p := range splitTop(a[len("concat("):len(a)-1], ',') {
			f := strOrLit(strings.TrimSpace(p))
			if f == nil {
				return nil
			}
			parts = append(parts, f)
		}
		return func(n *html.Node) string {
			var b strings.Builder
			for _, f := range parts {
				b.WriteString(f(n))
			}
			return b.String()
		}
	}
	return nil
}

var tokenRe = regexp.MustCompile(`^concat\(\s*' '\s*,\s*normalize-space\(@([A-Za-z_][A-Za-z0-9_.:-]*)\)\s*,\s*' '\s*\)$`)

// stringValue is the XPath string-value of an element: all its descendant text, as antchfx has it.
func stringValue(n *html.Node) string { return dom.NavigatorAt(n, n).Value() }

// normSpaceX is XPath's normalize-space as antchfx implements it (Unicode white space).
func normSpaceX(s string) string { return strings.Join(strings.Fields(s), " ") }

// exists reports whether the path selects anything from ctx (for path predicates).
func (p *nativePath) exists(ctx *html.Node) bool {
	cur := []*html.Node{ctx}
	for i := range p.steps {
		if cur = p.steps[i].apply(cur, nil); len(cur) == 0 {
			return false
		}
	}
	return true
}

// apply takes one step from every node of cur, in order (repeats kept, as antchfx has them).
func (st *nativeStep) apply(cur []*html.Node, root *html.Node) []*html.Node {
	if st.name == "#root" {
		return []*html.Node{root}
	}
	var next []*html.Node
	for _, c := range cur {
		switch {
		case st.parent:
			if c.Parent != nil {
				next = append(next, c.Parent)
			}
		case st.self:
			if st.match(c) {
				next = append(next, c)
			}
		case st.sibling > 0:
			for n := c.NextSibling; n != nil; n = n.NextSibling {
				if st.match(n) {
					next = append(next, n)
					if st.first {
						break
					}
				}
			}
		case st.sibling < 0:
			for n := c.PrevSibling; n != nil; n = n.PrevSibling {
				if st.match(n) {
					next = append(next, n)
					if st.first {
						break
					}
				}
			}
		case st.descendant:
			for n := c.FirstChild; n != nil; n = nextNode(n, c) {
				if st.match(n) {
					next = append(next, n)
				}
			}
		default:
			for n := c.FirstChild; n != nil; n = n.NextSibling {
				if st.match(n) {
					next = append(next, n)
					if st.first {
						break
					}
				}
			}
		}
	}
	return next
}

func attr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func (st *nativeStep) match(n *html.Node) bool {
	if n.Type != html.ElementNode || (st.name != "*" && n.Data != st.name) {
		return false
	}
	for _, p := range st.preds {
		if !p(n) {
			return false
		}
	}
	return true
}

// eval runs the plan from ctx (an element or the document node).
func (nx *nativeXPath) eval(root, ctx *html.Node) any {
	var found []xpath.NodeNavigator
	type key struct {
		n *html.Node
		a int
	}
	var seen map[key]bool
	for bi, b := range nx.branches {
		got := b.eval(root, ctx)
		if nx.wrapper == "boolean" && len(got) > 0 {
			return true
		}
		if bi == 0 {
			found = got
			continue
		}
		// A union keeps the left's nodes first and drops repeats, as antchfx does.
		if seen == nil {
			seen = map[key]bool{}
			for _, n := range found {
				h := n.(*dom.HTMLNavigator)
				seen[key{h.Current(), h.Attr()}] = true
			}
		}
		for _, n := range got {
			h := n.(*dom.HTMLNavigator)
			if k := (key{h.Current(), h.Attr()}); !seen[k] {
				seen[k] = true
				found = append(found, n)
			}
		}
	}
	switch nx.wrapper {
	case "boolean":
		return len(found) > 0
	case "count":
		return float64(len(found))
	}
	return found
}

func (p *nativePath) eval(root, ctx *html.Node) []xpath.NodeNavigator {
	cur := []*html.Node{ctx}
	for i := range p.steps {
		if cur = p.steps[i].apply(cur, root); len(cur) == 0 {
			return nil
		}
	}
	out := make([]xpath.NodeNavigator, 0, len(cur))
	for _, n := range cur {
		if p.attr == "" {
			out = append(out, dom.NavigatorAt(root, n))
			continue
		}
		for i, a := range n.Attr {
			if a.Key == p.attr {
				out = append(out, dom.AttrNavigatorAt(root, n, i))
			}
		}
	}
	return out
}
