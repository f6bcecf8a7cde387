package xpatheval

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"asa/engine/dom"
)

// Card-by-card selectors (.//span[contains(@class, 'a-price')]/span[@class='a-offscreen']) run
// dozens of times per page, and antchfx spends most of that in its generic machinery: a navigator
// copy per attribute read, a query object per predicate. Paths made only of child and descendant
// steps with name tests and attribute predicates (=, contains, starts-with, presence, not, and, or),
// optionally ending in an attribute, are evaluated here directly on the *html.Node tree. The steps
// run as antchfx runs them (context by context, document order within each, a node reached from
// two nested contexts twice); a path's nodes are then a node set, in document order, each once
// (eval), as the engine's antchfx path sorts them too. Anything else runs through antchfx.

type nativeXPath struct {
	wrapper  string // "" or "boolean" or "count"
	branches []*nativePath
}

type nativePath struct {
	steps []nativeStep
	attr  string // a final /@attr step
	dot   bool   // "." alone: the context node itself

	// (X)[N] or (X)[last()] before the steps: the Nth (or last) node of X in document order, the
	// steps then run from it. antchfx answers nothing for (.//x)[last()], so the engine picks itself.
	group     *nativeXPath
	groupPos  int
	groupLast bool
	// afterGroup is the path without its group: what runs from the node the group picks, however
	// it was found (see Expr.groupFast).
	afterGroup *nativePath

	// needs is what the steps require of the attributes of the nodes they select, when they only
	// select descendants of the context (see absent.go).
	needs []attrNeed

	// firstEarliest: the node first finds is the earliest the path selects (see firstIsEarliest).
	firstEarliest bool
}

type nativeStep struct {
	descendant bool
	parent     bool   // ..
	self       bool   // self::name
	sibling    int    // 1: following-sibling::, -1: preceding-sibling::
	ancestor   bool   // ancestor:: (nearest first)
	preceding  bool   // preceding:: (in antchfx's order, see each)
	pos        int    // a final [N]: only the Nth match in axis order (1 is the nearest)
	across     int    // a final [N] after other predicates of a descendant step: the Nth match over all parents (see each)
	last       bool   // a final [last()]
	text       bool   // the text() node test
	name       string // element name or "*" (or "text()")
	atom       atom.Atom
	preds      []nodePred
	needs      []attrNeed // what preds require of a node's attributes (see absent.go)
	byParent   bool       // a descendant step antchfx runs parent by parent (see each)
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
	for _, b := range nx.branches {
		b.firstEarliest = b.firstIsEarliest()
	}
	return nx
}

// firstIsEarliest reports whether the node first finds is the earliest in document order of those
// p selects, and stays so among those having p's attribute: a card's (.//h3//a | .//a[@title])[1]
// or .//strong[...] | .//dl[...] then needs each branch's first node, not each branch's every node
// sorted. It holds when the contexts of each step come in document order and those of a later
// step cannot be nested: child steps before any descendant step (siblings' subtrees do not
// overlap), descendant steps without a position (a nested context's nodes repeat an outer one's),
// self:: filters and the root. The nodes then come in document order but for repeats.
func (p *nativePath) firstIsEarliest() bool {
	if p.dot {
		return true
	}
	desc := false
	for i := range p.steps {
		st := &p.steps[i]
		switch {
		case st.name == "#root":
			if i > 0 {
				return false
			}
		case st.self:
		case st.parent || st.sibling != 0 || st.ancestor || st.preceding:
			return false
		case st.descendant:
			if st.pos > 0 || st.last || st.byParent || st.across > 0 {
				return false
			}
			desc = true
		case desc:
			return false // a child step from contexts that may nest
		}
	}
	return true
}

// earliest returns the union's first node in document order and its attribute's index (-1: the
// node), or nil, as firstInOrder picks it from eval's nodes (the first of equals: an element's
// attributes in the order of the branches): a branch whose first node is its earliest
// (firstEarliest) gives only that node, the others all theirs.
func (nx *nativeXPath) earliest(root, ctx *html.Node, sub *subtree) (best *html.Node, bestAt int) {
	bestAt = -1
	consider := func(n *html.Node, at int) {
		if best == nil || dom.OrderNodes(n, at, best, bestAt) < 0 {
			best, bestAt = n, at
		}
	}
	for _, b := range nx.branches {
		if b.firstEarliest {
			if n, at := b.first(root, ctx, sub); n != nil {
				consider(n, at)
			}
			continue
		}
		for _, nav := range b.evalOrder(root, ctx, sub, false) {
			h := nav.(*dom.HTMLNavigator)
			consider(h.Current(), h.Attr())
		}
	}
	return best, bestAt
}

func parseNativePath(s string) *nativePath {
	p := &nativePath{}
	// single: every step so far yields at most one node per context. antchfx counts a position
	// that follows another predicate ([@x][2]) across all the contexts of the step, not per
	// context, so such a position is native only where there is one context.
	single := true
	switch {
	case strings.HasPrefix(s, "("):
		group, pos, last, rest, ok := splitGroup(s)
		if !ok {
			return nil
		}
		inner := compileNative(group)
		if inner == nil || inner.wrapper != "" {
			return nil
		}
		for _, b := range inner.branches {
			if b.attr != "" {
				return nil
			}
		}
		p.group, p.groupPos, p.groupLast = inner, pos, last
		p.afterGroup = &nativePath{}
		s = rest
		if s == "" {
			return p
		}
	case s == ".":
		p.dot = true
		return p
	case strings.HasPrefix(s, "self::") || strings.HasPrefix(s, "ancestor::"):
		// self::name[...] or ancestor::name[...] as the first step, then the usual steps
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
			if p.afterGroup != nil {
				p.afterGroup.steps, p.afterGroup.attr = p.steps, p.attr
			}
			return p
		}
		if strings.HasPrefix(s, "..") && !desc {
			p.steps = append(p.steps, nativeStep{parent: true})
			s = s[2:]
			continue
		}
		self, sibling, ancestor, preceding := false, 0, false, false
		switch {
		case strings.HasPrefix(s, "self::"):
			if desc || len(p.steps) > 0 {
				return nil
			}
			self, s = true, s[len("self::"):]
		case strings.HasPrefix(s, "ancestor::") && !desc:
			ancestor, s = true, s[len("ancestor::"):]
		case strings.HasPrefix(s, "following-sibling::") && !desc:
			sibling, s = 1, s[len("following-sibling::"):]
		case strings.HasPrefix(s, "preceding-sibling::") && !desc:
			sibling, s = -1, s[len("preceding-sibling::"):]
		case strings.HasPrefix(s, "preceding::") && !desc:
			preceding, s = true, s[len("preceding::"):]
		}
		st := nativeStep{descendant: desc, self: self, sibling: sibling, ancestor: ancestor, preceding: preceding}
		var costly []nodePred
		if strings.HasPrefix(s, "text()") {
			// text nodes: children of the context only
			if desc || self || sibling != 0 || ancestor || preceding {
				return nil
			}
			st.text, st.name, s = true, "text()", s[len("text()"):]
		} else {
			i := 0
			for i < len(s) && (isNameChar(s[i]) || s[i] == '*') {
				i++
			}
			name := s[:i]
			if name != "*" && !isName(name) {
				return nil
			}
			st.name, s = name, s[i:]
			if strings.ToLower(name) == name {
				st.atom = atom.Lookup([]byte(name))
			}
		}
		for strings.HasPrefix(s, "[") {
			end := matching(s, 0)
			if end < 0 {
				return nil
			}
			if pos, last, ok := position(s[1:end]); ok {
				// [N] and [last()] count the matches of the step so far, in axis order (nearest
				// first on the reverse axes); only as the last predicate, since a predicate after
				// them would count from a different set.
				if self || st.pos > 0 || st.last || (len(s) > end+1 && s[end+1] == '[') {
					return nil
				}
				if preceding && (last || len(st.preds)+len(costly) > 0) {
					return nil // counted by antchfx in ways each does not follow
				}
				if last && (ancestor || sibling != 0) {
					return nil // antchfx's last() on these axes is not the XPath one: leave it to antchfx
				}
				if len(st.preds)+len(costly) > 0 && desc && single && !last {
					// //x[@a][N] from one context: antchfx takes the parents one by one (as for
					// //x[N]) but counts the matches across all of them, so the step selects one
					// node, the Nth match in that order (Google's first non-empty snippet part).
					st.across = pos
					s = s[end+1:]
					continue
				}
				if len(st.preds)+len(costly) > 0 && !ancestor && (desc || !single || last) {
					// counted across contexts by antchfx (see single); its last() after another
					// predicate counts what the predicate did not filter. On the ancestor axis
					// antchfx counts only the ancestors no earlier context reached; here each
					// context counts its own, as XPath has it (a departure the tests allow for).
					return nil
				}
				st.pos, st.last = pos, last
				s = s[end+1:]
				continue
			}
			if st.pos > 0 || st.last || st.across > 0 {
				return nil
			}
			pred := parsePred(strings.TrimSpace(s[1:end]))
			if pred == nil {
				return nil
			}
			if readsText(s[1:end]) || walksUp(s[1:end]) {
				costly = append(costly, pred)
			} else {
				st.preds = append(st.preds, pred)
			}
			st.needs = append(st.needs, predNeeds(s[1:end])...)
			st.byParent = st.byParent || desc && numericPred(strings.TrimSpace(s[1:end]))
			s = s[end+1:]
		}
		// A step's predicates are filters of the node alone (positions are st.pos and st.last), so
		// their order does not change what the step selects: those reading the node's text, whose
		// string value is a walk of its subtree, and those walking its ancestors run last, in the
		// order written, on the nodes the others let through.
		st.preds = append(st.preds, costly...)
		p.steps = append(p.steps, st)
		single = single && (st.name == "#root" || st.self || st.parent || !st.descendant && !st.preceding && (st.pos > 0 || st.last))
	}
	if len(p.steps) == 0 {
		return nil
	}
	p.needs = pathNeeds(p)
	if p.afterGroup != nil {
		p.afterGroup.steps, p.afterGroup.attr = p.steps, p.attr
	}
	return p
}

// readsText reports whether a predicate may read a node's string value or walk below its children
// (., text(), normalize-space() or string-length() of the node, a descendant path): any '.' or
// "()" outside a literal, which also takes in some cheap ones.
func readsText(p string) bool { text, _ := predReads(p); return text }

// walksUp reports whether a predicate has an ancestor step outside a literal: a test of every
// ancestor up to the root. Google's result links are tested for a dozen kinds of enclosing block
// (not(ancestor::*[@data-initq or ...])), twenty levels deep, and then for a heading (.//h3): the
// heading, which few links have, is the cheaper test to run first.
func walksUp(p string) bool { _, up := predReads(p); return up }

// predReads scans a predicate outside its literals for what readsText and walksUp look for; an
// unclosed literal counts as reading text.
func predReads(p string) (text, up bool) {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\'', '"':
			j := strings.IndexByte(p[i+1:], c)
			if j < 0 {
				return true, up
			}
			i += j + 1
		case '.':
			text = true
		case '(':
			text = text || i+1 < len(p) && p[i+1] == ')'
		case 'a':
			up = up || strings.HasPrefix(p[i:], "ancestor::") || strings.HasPrefix(p[i:], "ancestor-or-self::")
		}
	}
	return text, up
}

// numericPred reports whether antchfx deems a predicate of the native subset numeric (its
// positionalCondition: a count or string-length reached through and, or, not and parentheses);
// antchfx then evaluates a descendant step as child steps parent by parent.
func numericPred(s string) bool {
	s = strings.TrimSpace(s)
	for _, word := range []string{"or", "and"} {
		if parts := splitWord(s, word); len(parts) > 1 {
			for _, p := range parts {
				if numericPred(p) {
					return true
				}
			}
			return false
		}
	}
	if strings.HasPrefix(s, "(") && matching(s, 0) == len(s)-1 {
		return numericPred(s[1 : len(s)-1])
	}
	if strings.HasPrefix(s, "not(") && matching(s, 3) == len(s)-1 {
		return numericPred(s[4 : len(s)-1])
	}
	return strings.HasPrefix(s, "count(") || strings.HasPrefix(s, "string-length(")
}

// splitGroup splits a group with a position, (X)[N]rest or (X)[last()]rest; ok is false for
// anything else.
func splitGroup(s string) (inner string, pos int, last bool, rest string, ok bool) {
	if !strings.HasPrefix(s, "(") {
		return
	}
	end := matching(s, 0)
	if end < 0 || !strings.HasPrefix(s[end+1:], "[") {
		return
	}
	pend := matching(s, end+1)
	if pend < 0 {
		return
	}
	pos, last, ok = position(s[end+2 : pend])
	return s[1:end], pos, last, s[pend+1:], ok
}

// position parses a positional predicate: a positive integer, or last().
func position(p string) (pos int, last, ok bool) {
	p = strings.TrimSpace(p)
	if p == "last()" {
		return 0, true, true
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || strconv.Itoa(n) != p {
		return 0, false, false
	}
	return n, false, true
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
		if p := anyContains(ors); p != nil {
			return p
		}
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
	if us := splitTop(s, '|'); len(us) > 1 {
		// not(@content | @datetime): a union of attributes as a boolean, whether the node has
		// any of them (a union of other paths is left to antchfx).
		var names []string
		for _, u := range us {
			u = strings.TrimSpace(u)
			if !strings.HasPrefix(u, "@") || !isName(u[1:]) {
				return nil
			}
			names = append(names, u[1:])
		}
		return func(n *html.Node) bool {
			for _, name := range names {
				if _, ok := attr(n, name); ok {
					return true
				}
			}
			return false
		}
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
	if m := lengthRe.FindStringSubmatch(s); m != nil {
		// string-length(@data-asin) = 10: characters, as antchfx counts them; an absent attribute
		// has length 0.
		get, _ := strArg(strings.TrimSpace(m[1]))
		want, err := strconv.ParseFloat(m[3], 64)
		if get == nil || err != nil {
			return nil
		}
		op := m[2]
		return func(n *html.Node) bool { return compareNum(float64(utf8.RuneCountInString(get(n))), op, want) }
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
			return stringTest(fn, strings.TrimSpace(args[0]), strings.TrimSpace(args[1]))
		}
	}
	if s == "normalize-space(.)" || s == "normalize-space()" {
		return hasText
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
	if m := countRe.FindStringSubmatch(s); m != nil {
		// count(td) = 2: child elements of one name (or *)
		name, op := m[1], m[2]
		want, err := strconv.Atoi(m[3])
		if err != nil {
			return nil
		}
		return func(n *html.Node) bool {
			k := 0
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (name == "*" || c.Data == name) {
					k++
				}
			}
			return compareNum(float64(k), op, float64(want))
		}
	}
	if rest, ok := strings.CutPrefix(s, "self::"); ok && (rest == "*" || isName(rest)) {
		return func(n *html.Node) bool { return n.Type == html.ElementNode && (rest == "*" || n.Data == rest) }
	}
	if strings.HasPrefix(s, "following-sibling::") || strings.HasPrefix(s, "preceding-sibling::") || strings.HasPrefix(s, "ancestor::") {
		s = "./" + s
	} else if relPathRe.MatchString(s) {
		s = "./" + s // a[...], span[2], li/span: a path from the node
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

var attrContainsRe = regexp.MustCompile(`^contains\(\s*@([A-Za-z_][A-Za-z0-9_:.-]*)\s*,\s*(?:'([^']*)'|"([^"]*)")\s*\)$`)

// anyContains compiles contains(@a, 'x') or contains(@a, 'y') or ... on one attribute, the usual
// way of testing for one of several classes, reading the attribute once; nil for other shapes.
func anyContains(ors []string) nodePred {
	name := ""
	var lits []rareString
	for _, o := range ors {
		m := attrContainsRe.FindStringSubmatch(strings.TrimSpace(o))
		if m == nil || name != "" && m[1] != name {
			return nil
		}
		name = m[1]
		lits = append(lits, newRareString(m[2]+m[3]))
	}
	return func(n *html.Node) bool {
		v, ok := attr(n, name)
		if !ok {
			return false // an empty node set: false even against '' (antchfx)
		}
		for _, l := range lits {
			if l.in(v) {
				return true
			}
		}
		return false
	}
}

var (
	countRe   = regexp.MustCompile(`^count\(\s*(?:\./)?(\*|[A-Za-z_][A-Za-z0-9_.-]*)\s*\)\s*(!=|<=|>=|=|<|>)\s*([0-9]+)$`)
	relPathRe = regexp.MustCompile(`^(\*|[A-Za-z_][A-Za-z0-9_.-]*)[\[/]`)
)

func compareNum(l float64, op string, r float64) bool {
	switch op {
	case "=":
		return l == r
	case "!=":
		return l != r
	case "<":
		return l < r
	case "<=":
		return l <= r
	case ">":
		return l > r
	}
	return l >= r
}

var lengthRe = regexp.MustCompile(`^string-length\(([^()]+|normalize-space\([^()]*\))\)\s*(!=|<=|>=|=|<|>)\s*([0-9]+(?:\.[0-9]+)?)$`)

var cmpRe = regexp.MustCompile(`^(.+?)\s*(!=|=)\s*(?:'([^']*)'|"([^"]*)")$`)

// strArg compiles the string arguments the native subset knows: an attribute, the node's string
// value, their normalize-space, and the class-token idiom concat(' ', normalize-space(@class), ' ').
// present, when not nil, says whether the argument is a node set that is not empty.
func strArg(a string) (get func(*html.Node) string, present func(*html.Node) bool) {
	switch {
	case a == ".":
		return stringValue, nil
	case strings.HasPrefix(a, "@") && isName(a[1:]):
		name := a[1:]
		return func(n *html.Node) string { v, _ := attr(n, name); return v },
			func(n *html.Node) bool { _, ok := attr(n, name); return ok }
	}
	if m := tokenRe.FindStringSubmatch(a); m != nil {
		name := m[1]
		return func(n *html.Node) string { v, _ := attr(n, name); return " " + normSpaceX(v) + " " }, nil
	}
	if raw := normalizedArg(a); raw != nil {
		return func(n *html.Node) string { return normSpaceX(raw(n)) }, nil
	}
	// normalize-space(translate(., ':', '')) = 'Manufacturer': eBay's item specifics rows, whose
	// labels end in a colon or not. antchfx builds a strings.Replacer on every call.
	if args, ok := call(a, "translate"); ok && len(args) == 3 {
		get, _ := strArg(args[0])
		from, ok1 := xpathLiteral(args[1])
		to, ok2 := xpathLiteral(args[2])
		if get != nil && ok1 && ok2 {
			if tr, ok := newASCIITranslation(from, to); ok {
				return func(n *html.Node) string { return tr.apply(get(n)) }, nil
			}
		}
	}
	return nil, nil
}

// call returns the trimmed arguments of a call of fn that is the whole of a, ok false when a is
// something else.
func call(a, fn string) (args []string, ok bool) {
	if !strings.HasPrefix(a, fn+"(") || matching(a, len(fn)) != len(a)-1 {
		return nil, false
	}
	for _, x := range splitTop(a[len(fn)+1:len(a)-1], ',') {
		args = append(args, strings.TrimSpace(x))
	}
	return args, true
}

// asciiTranslation is XPath's translate(s, from, to) for from and to of ASCII alone, as antchfx
// computes it: each byte of from is replaced by the byte at its index in to, or removed when to is
// shorter; a byte from names twice is replaced as its first place says.
type asciiTranslation struct {
	to [128]int16 // -1: kept, -2: removed, else the byte written
}

func newASCIITranslation(from, to string) (*asciiTranslation, bool) {
	for i := 0; i < len(from); i++ {
		if from[i] >= utf8.RuneSelf {
			return nil, false
		}
	}
	for i := 0; i < len(to); i++ {
		if to[i] >= utf8.RuneSelf {
			return nil, false
		}
	}
	tr := &asciiTranslation{}
	for i := range tr.to {
		tr.to[i] = -1
	}
	for i := 0; i < len(from); i++ {
		c := from[i]
		if tr.to[c] != -1 {
			continue // the first place wins
		}
		tr.to[c] = -2
		if i < len(to) {
			tr.to[c] = int16(to[i])
		}
	}
	return tr, true
}

func (tr *asciiTranslation) apply(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf && tr.to[c] != -1 {
			break
		}
	}
	if i == len(s) {
		return s // most labels hold none of the bytes: no copy
	}
	b := make([]byte, i, len(s))
	copy(b, s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || tr.to[c] == -1 {
			b = append(b, c)
		} else if tr.to[c] >= 0 {
			b = append(b, byte(tr.to[c]))
		}
	}
	return string(b)
}

// normalizedArg returns, for normalize-space(x) of a string argument x that strArg reads (none:
// the node's text), the getter of x itself; nil for any other argument.
func normalizedArg(a string) func(*html.Node) string {
	args, ok := call(a, "normalize-space")
	if !ok || len(args) != 1 {
		return nil
	}
	if args[0] == "" {
		return stringValue
	}
	get, _ := strArg(args[0])
	return get
}

// longestWord is the longest run of lit between spaces (as normSpaceX reads them), "" for none.
func longestWord(lit string) string {
	best := ""
	for _, w := range strings.Fields(lit) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// xpathLiteral returns the text of a quoted XPath literal.
func xpathLiteral(a string) (string, bool) {
	if len(a) >= 2 && (a[0] == '\'' || a[0] == '"') && a[len(a)-1] == a[0] && !strings.ContainsRune(a[1:len(a)-1], rune(a[0])) {
		return a[1 : len(a)-1], true
	}
	return "", false
}

// stringTest compiles contains(a, b) or starts-with(a, b). The shapes that run on every element of
// every card (an attribute against a literal, the class-token idiom) are compiled to code that does
// not build the strings the general form concatenates: they run tens of thousands of times a page.
func stringTest(fn, a, b string) nodePred {
	test := strings.Contains
	if fn == "starts-with" {
		test = strings.HasPrefix
	}
	if lit, ok := xpathLiteral(b); ok {
		if fn == "contains" {
			rs := newRareString(lit)
			test = func(v, _ string) bool { return rs.in(v) }
		}
		if strings.HasPrefix(a, "@") && isName(a[1:]) {
			name := a[1:]
			// An absent attribute is an empty node set, and antchfx makes the test false then,
			// even against ''.
			return func(n *html.Node) bool { v, ok := attr(n, name); return ok && test(v, lit) }
		}
		// contains(concat(' ', normalize-space(@class), ' '), ' tok '): tok is one of the tokens.
		if m := tokenRe.FindStringSubmatch(a); m != nil && fn == "contains" {
			if tok := lit[min(1, len(lit)):max(len(lit)-1, 0)]; len(lit) > 2 && lit[0] == ' ' && lit[len(lit)-1] == ' ' && tok != "" && !strings.ContainsAny(tok, " \t\n\r\f") {
				name := m[1]
				return func(n *html.Node) bool { v, _ := attr(n, name); return hasToken(v, tok) }
			}
		}
		// contains(concat(' ', @itemprop, ' '), ' name '): the same without normalize-space, so
		// only single spaces separate the tokens; tested without building the string.
		if m := spacedAttrRe.FindStringSubmatch(a); m != nil && fn == "contains" && len(lit) > 2 && lit[0] == ' ' && lit[len(lit)-1] == ' ' {
			name := m[1]
			return func(n *html.Node) bool { v, _ := attr(n, name); return inSpaced(v, lit) }
		}
		// contains(normalize-space(.), 'by Etsy seller'): normalize-space changes only the runs of
		// spaces, so each word of the literal is in the text as it is when the test holds. Most
		// nodes (every span of every card) lack the literal's longest word and are ruled out
		// without the normalized copy of their text.
		if raw := normalizedArg(a); raw != nil {
			if word := longestWord(lit); word != "" {
				rw := newRareString(word)
				return func(n *html.Node) bool {
					v := raw(n)
					return rw.in(v) && test(normSpaceX(v), lit)
				}
			}
		}
		if get, _ := strArg(a); get != nil {
			return func(n *html.Node) bool { return test(get(n), lit) }
		}
	}
	if lit, ok := xpathLiteral(a); ok {
		// contains(' von by de ', concat(' ', normalize-space(.), ' ')): the word list against a
		// node's normalized text; a text longer than the list cannot be in it.
		if m := spacedNormRe.FindStringSubmatch(b); m != nil {
			get, _ := strArg(m[1])
			if get != nil {
				return func(n *html.Node) bool {
					v := get(n)
					// normalize-space only drops spaces, so a text with more other bytes than the
					// list has cannot be in it; most nodes are ruled out here without a copy.
					if len(v) > len(lit) && nonSpaceOver(v, len(lit)) {
						return false
					}
					w := normSpaceX(v)
					if fn == "starts-with" {
						return strings.HasPrefix(lit, " "+w+" ")
					}
					return containsSpaced(lit, w)
				}
			}
		}
	}
	x, y := strOrLit(a), strOrLit(b)
	if x == nil || y == nil {
		return nil
	}
	px, py := attrPresence(a), attrPresence(b)
	return func(n *html.Node) bool {
		if px != nil && !px(n) || py != nil && !py(n) {
			return false // an absent attribute: an empty node set
		}
		return test(x(n), y(n))
	}
}

var spacedAttrRe = regexp.MustCompile(`^concat\(\s*' '\s*,\s*@([A-Za-z_][A-Za-z0-9_.:-]*)\s*,\s*' '\s*\)$`)

// inSpaced reports whether lit, which starts and ends with a space and is longer than two bytes,
// occurs in " "+v+" ", without building it: inside v, or as a prefix or suffix of v with the added
// space, or as the whole.
func inSpaced(v, lit string) bool {
	inner := lit[1 : len(lit)-1]
	switch {
	case v == inner, strings.Contains(v, lit):
		return true
	case len(v) > len(inner) && v[len(inner)] == ' ' && v[:len(inner)] == inner:
		return true
	}
	return len(v) > len(inner) && v[len(v)-len(inner)-1] == ' ' && v[len(v)-len(inner):] == inner
}

var spacedNormRe = regexp.MustCompile(`^concat\(\s*' '\s*,\s*normalize-space\(([^()]*)\)\s*,\s*' '\s*\)$`)

// containsSpaced reports whether " "+w+" " occurs in s, without building it.
func containsSpaced(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		if j > 0 && s[j-1] == ' ' && j+len(w) < len(s) && s[j+len(w)] == ' ' {
			return true
		}
		i = j + 1
		if i > len(s) {
			return false
		}
	}
}

// nonSpaceOver reports whether s has more than limit bytes outside its spaces (unicode.IsSpace, as
// strings.Fields), reading s only until it knows: the word-list test runs on every leaf span of
// every card, and a title's first bytes already rule it out.
func nonSpaceOver(s string, limit int) bool {
	if limit < 0 {
		return true
	}
	k := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !isXMLSpace(c) {
				k++
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsSpace(r) {
				k += size
			}
			i += size
		}
		if k > limit {
			return true
		}
	}
	return false
}

// hasToken reports whether tok is one of the whitespace-separated tokens of v.
func hasToken(v, tok string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] >= utf8.RuneSelf {
			// a Unicode space separates tokens too: the general form
			return strings.Contains(" "+normSpaceX(v)+" ", " "+tok+" ")
		}
	}
	for i := 0; ; {
		j := strings.Index(v[i:], tok)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(tok)
		if (j == 0 || isXMLSpace(v[j-1])) && (end == len(v) || isXMLSpace(v[end])) {
			return true
		}
		i = j + 1
	}
}

// isXMLSpace is the ASCII whitespace strings.Fields splits on.
func isXMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func allSpace(s string) bool { return strings.TrimSpace(s) == "" }

// hasText is normalize-space() as a predicate: whether n's string value holds anything but white
// space. Google's result blocks are tested for it node by node, and building a block's whole text
// to find its first letter cost a tenth of a SERP's extraction; the text nodes are read in order
// instead, up to the first byte that is not ASCII space. A byte outside ASCII may start a space
// (U+00A0, U+2003...), or, in a page that is not valid UTF-8, complete a sequence begun in the
// previous text node: then the string value is built and tested as it was.
func hasText(n *html.Node) bool {
	if n.Type != html.ElementNode && n.Type != html.DocumentNode {
		return !allSpace(stringValue(n))
	}
	for t := range dom.TextPieces(n) {
		for i := 0; i < len(t); i++ {
			switch b := t[i]; {
			case b >= utf8.RuneSelf:
				return !allSpace(stringValue(n))
			case b != ' ' && (b < '\t' || b > '\r'):
				return true
			}
		}
	}
	return false
}

// attrPresence returns, for an @attr argument, whether a node has the attribute; nil otherwise.
func attrPresence(a string) func(*html.Node) bool {
	if strings.HasPrefix(a, "@") && isName(a[1:]) {
		name := a[1:]
		return func(n *html.Node) bool { _, ok := attr(n, name); return ok }
	}
	return nil
}

// strOrLit compiles a string argument: a quoted literal, a strArg, or a concat of them.
func strOrLit(a string) func(*html.Node) string {
	if lit, ok := xpathLiteral(a); ok {
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

// stringValue is the XPath string-value of an element: all its descendant text, as antchfx has it
// (the navigator's Value), without a navigator per node tested: text predicates run on every
// candidate of every card.
func stringValue(n *html.Node) string {
	if n.Type == html.CommentNode {
		return n.Data // what Value gives a comment; StringValue reads only text nodes
	}
	return dom.StringValue(n)
}

// normSpaceX is XPath's normalize-space as antchfx implements it (Unicode white space). Most values
// are normalized already (one word, or words one space apart): they are returned as they are, not
// split and joined again.
func normSpaceX(s string) string {
	space := true // the previous byte was a space, or there is none: a space here is not kept
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= utf8.RuneSelf, c == ' ' && space, c != ' ' && isXMLSpace(c):
			return strings.Join(strings.Fields(s), " ")
		default:
			space = c == ' '
		}
	}
	if space && s != "" {
		return strings.Join(strings.Fields(s), " ") // a trailing space
	}
	return s
}

// exists reports whether the path selects anything from ctx (for path predicates).
func (p *nativePath) exists(ctx *html.Node) bool {
	n, _ := p.first(nil, ctx, nil)
	return n != nil
}

// subtree is the elements under one node, in document order, listed in one walk the first time a
// descendant step asks for them. A list item's fields each start with a descendant step from the
// item (.//h2, .//span[...], .//img): a slice of its elements is several times cheaper to scan than
// the tree, whose walk visits every text node and climbs back up through parents.
type subtree struct {
	node  *html.Node
	elems []*html.Node
	built bool
	own   []*html.Node // the storage of elems when they were walked, kept for the next item

	// doc, when not nil, is the document's index, whose elements in document order hold the
	// node's descendants as a range: all[lo:hi] (lo < 0 when not known), read instead of walked.
	doc    *docIndex
	lo, hi int

	joined  []itemJoined // attribute values joined (see absent.go): the first njoined are this node's
	njoined int

	tagged  []taggedElems // the elements of one tag each: the first ntagged are this node's
	ntagged int

	counts []byteCounts // of attributes' values, kept across items (see rarest)

	// hits is the storage of the elements candidates found holding a literal, kept for the next
	// step; hitsBusy while a scan reads it. litBuf holds a need's literals by their rarest bytes.
	hits     []*html.Node
	hitsBusy bool
	litBuf   [4]rareString
}

// taggedElems is the elements of a subtree whose tag is one atom, in document order.
type taggedElems struct {
	atom  atom.Atom
	elems []*html.Node
}

// reset points the subtree at n, keeping the slices' storage; doc, when not nil, is the index of
// n's document.
func (t *subtree) reset(n *html.Node, doc *docIndex) {
	t.node, t.elems, t.built, t.njoined, t.ntagged = n, nil, false, 0, 0
	t.doc, t.lo, t.hi = doc, -1, -1
}

// withTag returns the elements of t whose tag is a, listed once per item: a card's fields mostly
// start with a descendant step of a named tag (.//h2, .//span[...], .//a[...]), each of which
// scanned all the card's elements (or all those with a class) to keep the few of its tag.
func (t *subtree) withTag(a atom.Atom) []*html.Node {
	for i := range t.ntagged {
		if t.tagged[i].atom == a {
			return t.tagged[i].elems
		}
	}
	if t.ntagged == len(t.tagged) {
		t.tagged = append(t.tagged, taggedElems{})
	}
	tg := &t.tagged[t.ntagged]
	t.ntagged++
	tg.atom, tg.elems = a, tg.elems[:0]
	for _, n := range t.list() {
		if n.DataAtom == a {
			tg.elems = append(tg.elems, n)
		}
	}
	return tg.elems
}

// scan returns the elements of t a descendant step can select, a superset in document order: those
// of its tag or those with the attributes its predicates require (see candidates), the fewer.
func (t *subtree) scan(st *nativeStep) (elems []*html.Node, pooled bool) {
	return t.candidates(st.needs, st.atom)
}

func (t *subtree) list() []*html.Node {
	if !t.built {
		t.built = true
		if t.doc != nil {
			if i := t.doc.find(t.node); i >= 0 {
				t.lo, t.hi = i+1, t.doc.after(i)
				t.elems = t.doc.all[t.lo:t.hi:t.hi]
				return t.elems
			}
		}
		own := t.own[:0]
		for n := t.node.FirstChild; n != nil; n = nextNode(n, t.node) {
			if n.Type == html.ElementNode {
				own = append(own, n)
			}
		}
		t.own, t.elems = own, own
	}
	return t.elems
}

// each calls yield with every node the step selects from c, in order (repeats kept, as antchfx
// has them), and stops early when yield returns false. It returns false when it was stopped.
func (st *nativeStep) each(c, root *html.Node, sub *subtree, yield func(*html.Node) bool) bool {
	switch {
	case st.name == "#root":
		return yield(root)
	case st.parent:
		if c.Parent != nil {
			return yield(c.Parent)
		}
		return true
	case st.self:
		if st.match(c) {
			return yield(c)
		}
		return true
	case st.preceding:
		// antchfx's preceding axis: the previous siblings of c, nearest first, each followed by
		// its descendants in document order, then the same from c's parent, and so on up; a
		// position counts afresh at each step up (so [1] is the first match of each level).
		k := 0
		for n := c; ; {
			for n.PrevSibling == nil {
				if n = n.Parent; n == nil {
					return true
				}
				k = 0
			}
			n = n.PrevSibling
			for m := n; m != nil; m = nextNode(m, n) {
				if !st.match(m) {
					continue
				}
				if k++; st.pos == 0 || k == st.pos {
					if !yield(m) {
						return false
					}
				}
			}
		}
	case st.descendant && st.across > 0:
		// the parents in document order, each one's children in order, as for //x[N], with
		// one count of the matches over them all: only the Nth is selected
		each := *st
		each.across, each.byParent = 0, true
		k, stopped := 0, false
		each.each(c, root, sub, func(n *html.Node) bool {
			if k++; k < st.across {
				return true
			}
			stopped = !yield(n)
			return false
		})
		return !stopped
	case st.descendant && (st.pos > 0 || st.last || st.byParent):
		// //x[N] is descendant-or-self::node()/child::x[N]: antchfx takes the parents in document
		// order and yields each one's Nth x, so a nested parent's x can come before an outer one's.
		// It does the same for any predicate it deems numeric (count, string-length).
		child := *st
		child.descendant = false
		if !child.each(c, root, nil, yield) {
			return false
		}
		if sub != nil && sub.node == c {
			for _, n := range sub.list() {
				if !child.each(n, root, nil, yield) {
					return false
				}
			}
			return true
		}
		for n := c.FirstChild; n != nil; n = nextNode(n, c) {
			if n.Type == html.ElementNode && !child.each(n, root, nil, yield) {
				return false
			}
		}
		return true
	case st.descendant:
		if sub != nil && sub.node == c {
			// Only the elements of the step's tag that have the attributes the predicates
			// require can match.
			elems, pooled := sub.scan(st)
			for _, n := range elems {
				if st.match(n) && !yield(n) {
					sub.release(pooled)
					return false
				}
			}
			sub.release(pooled)
			return true
		}
		for n := c.FirstChild; n != nil; n = nextNode(n, c) {
			if st.match(n) && !yield(n) {
				return false
			}
		}
		return true
	}
	// The axes positions count on: child, siblings, ancestors.
	var start *html.Node
	next := func(n *html.Node) *html.Node { return n.NextSibling }
	switch {
	case st.sibling > 0:
		start = c.NextSibling
	case st.sibling < 0:
		start, next = c.PrevSibling, func(n *html.Node) *html.Node { return n.PrevSibling }
	case st.ancestor:
		start, next = c.Parent, func(n *html.Node) *html.Node { return n.Parent }
	default:
		start = c.FirstChild
	}
	k := 0
	var last *html.Node
	for n := start; n != nil; n = next(n) {
		if !st.match(n) {
			continue
		}
		k++
		switch {
		case st.last:
			last = n
		case st.pos == 0:
			if !yield(n) {
				return false
			}
		case k == st.pos:
			return yield(n)
		}
	}
	if last != nil {
		return yield(last)
	}
	return true
}

// apply takes one step from every node of cur, in order (repeats kept, as antchfx has them).
func (st *nativeStep) apply(cur []*html.Node, root *html.Node, sub *subtree) []*html.Node {
	var next []*html.Node
	add := func(n *html.Node) bool { next = append(next, n); return true }
	if st.ancestor && len(cur) > 1 {
		// antchfx yields an ancestor once, however many contexts reach it
		seen := map[*html.Node]bool{}
		add = func(n *html.Node) bool {
			if !seen[n] {
				seen[n] = true
				next = append(next, n)
			}
			return true
		}
	}
	for _, c := range cur {
		st.each(c, root, sub, add)
	}
	return next
}

// first returns the first node (and attribute index, or -1) the path selects from ctx, in the order
// eval has them, walking no further than it needs: a card's title is usually near its top.
func (p *nativePath) first(root, ctx *html.Node, sub *subtree) (*html.Node, int) {
	if p.dot {
		return ctx, -1
	}
	if p.group != nil {
		if ctx = p.groupNode(root, ctx, sub); ctx == nil {
			return nil, -1
		}
		sub = nil
	}
	if sub.selectsNothing(ctx, p.needs) {
		return nil, -1
	}
	var found *html.Node
	at := -1
	var walk func(i int, c *html.Node) bool
	walk = func(i int, c *html.Node) bool {
		if i == len(p.steps) {
			if p.attr == "" {
				found = c
				return false
			}
			for j, a := range c.Attr {
				if a.Key == p.attr {
					found, at = c, j
					return false
				}
			}
			return true
		}
		return p.steps[i].each(c, root, sub, func(n *html.Node) bool { return walk(i+1, n) })
	}
	walk(0, ctx)
	return found, at
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
	if st.text {
		if n.Type != html.TextNode {
			return false
		}
	} else if n.Type != html.ElementNode || (st.name != "*" && (st.atom != 0 && n.DataAtom != st.atom || n.Data != st.name)) {
		// The atom comparison rejects most elements without touching their name's bytes.
		return false
	}
	for _, p := range st.preds {
		if !p(n) {
			return false
		}
	}
	return true
}

// eval runs the plan from ctx (an element or the document node). sub, when not nil, lists the
// elements under one node that descendant steps from that node scan instead of the tree.
func (nx *nativeXPath) eval(root, ctx *html.Node, sub *subtree) any {
	return nx.evalAll(root, ctx, sub, true)
}

// evalAll is eval; with all false, a node set holds at most its first node, found without walking
// further than needed.
func (nx *nativeXPath) evalAll(root, ctx *html.Node, sub *subtree, all bool) any {
	if nx.wrapper == "boolean" || !all && nx.wrapper == "" && len(nx.branches) == 1 {
		for _, b := range nx.branches {
			if n, at := b.first(root, ctx, sub); n != nil {
				if nx.wrapper == "boolean" {
					return true
				}
				if at >= 0 {
					return []xpath.NodeNavigator{dom.AttrNavigatorAt(root, n, at)}
				}
				return []xpath.NodeNavigator{dom.NavigatorAt(root, n)}
			}
		}
		if nx.wrapper == "boolean" {
			return false
		}
		return []xpath.NodeNavigator(nil)
	}
	if !all && nx.wrapper == "" {
		n, at := nx.earliest(root, ctx, sub)
		switch {
		case n == nil:
			return []xpath.NodeNavigator(nil)
		case at >= 0:
			return []xpath.NodeNavigator{dom.AttrNavigatorAt(root, n, at)}
		}
		return []xpath.NodeNavigator{dom.NavigatorAt(root, n)}
	}
	var found []xpath.NodeNavigator
	for _, b := range nx.branches {
		found = append(found, b.eval(root, ctx, sub)...)
	}
	if len(nx.branches) > 1 {
		// A union is in document order, each node once (XPath), where antchfx has the left's
		// nodes first: the first node of a | b is the earlier on the page.
		if !all && nx.wrapper == "" {
			found = firstInOrder(found)
		} else {
			found = sortUnique(found)
		}
	}
	if nx.wrapper == "count" {
		return float64(len(found))
	}
	return found
}

// eval returns the nodes p selects from ctx, in document order, each once, as an XPath node set is.
func (p *nativePath) eval(root, ctx *html.Node, sub *subtree) []xpath.NodeNavigator {
	return p.evalOrder(root, ctx, sub, true)
}

// evalOrder is eval; without ordered, the nodes come in the order the steps reach them (context by
// context, a node reached from two nested contexts twice, as antchfx yields them), which is enough
// for a caller that picks the earliest itself.
func (p *nativePath) evalOrder(root, ctx *html.Node, sub *subtree, ordered bool) []xpath.NodeNavigator {
	if p.dot {
		return []xpath.NodeNavigator{dom.NavigatorAt(root, ctx)}
	}
	if p.group != nil {
		if ctx = p.groupNode(root, ctx, sub); ctx == nil {
			return nil
		}
		sub = nil
	}
	if sub.selectsNothing(ctx, p.needs) {
		return nil
	}
	cur := []*html.Node{ctx}
	// A step from several contexts may reach a node twice (//div[@id='rso']//div[@class='c']//a with
	// one div.c inside another: a grouped result of a phone SERP came out twice) or out of order (a
	// child step from nested contexts); a reverse axis yields the nearest node first, a positional
	// descendant step parent by parent.
	reorder := false
	for i := range p.steps {
		st := &p.steps[i]
		if len(cur) > 1 && !st.self || st.ancestor || st.preceding || st.sibling < 0 ||
			st.descendant && (st.byParent || st.pos > 0 || st.last || st.across > 0) {
			reorder = true
		}
		if cur = st.apply(cur, root, sub); len(cur) == 0 {
			return nil
		}
	}
	if reorder && ordered {
		cur = inDocOrder(cur)
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

// inDocOrder returns ns in document order, each node once: ns itself when it already is.
func inDocOrder(ns []*html.Node) []*html.Node {
	for i := 1; i < len(ns); i++ {
		if dom.CompareNodes(ns[i-1], -1, ns[i], -1) >= 0 {
			slices.SortStableFunc(ns, func(a, b *html.Node) int { return dom.CompareNodes(a, -1, b, -1) })
			return slices.Compact(ns)
		}
	}
	return ns
}

// groupNode is the node (X)[N] or (X)[last()] picks: X's nodes in document order, once each.
func (p *nativePath) groupNode(root, ctx *html.Node, sub *subtree) *html.Node {
	if p.groupPos == 1 && !p.groupLast && p.group.wrapper == "" {
		n, _ := p.group.earliest(root, ctx, sub) // the group's branches end on no attribute
		return n
	}
	ns, _ := p.group.eval(root, ctx, sub).([]xpath.NodeNavigator)
	return p.pick(ns)
}

// pick is the node of X's nodes (in any order, repeats allowed) the group picks, or nil.
func (p *nativePath) pick(ns []xpath.NodeNavigator) *html.Node {
	ns = sortUnique(ns)
	switch {
	case p.groupLast && len(ns) > 0:
		return ns[len(ns)-1].(*dom.HTMLNavigator).Current()
	case !p.groupLast && p.groupPos <= len(ns):
		return ns[p.groupPos-1].(*dom.HTMLNavigator).Current()
	}
	return nil
}
