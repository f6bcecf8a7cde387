package xpatheval

import (
	"regexp"
	"sort"
	"strings"
	"unsafe"

	"golang.org/x/net/html"
)

// A list item's fields are mostly descendant paths keyed by an attribute literal
// (.//span[contains(@class, 's-item__hotness')], .//a[contains(@href, '/sspa/click')]), and on most
// cards many of them select nothing: the badge, the strike-through price or the sponsored label is
// absent. Each such path scans all the item's elements to find that out. Instead, the values of one
// attribute over the item's elements are joined once per item, and a path one of whose steps
// requires a literal that occurs in none of them selects nothing without a scan. The elements that
// have the attribute are listed with the values, and a descendant step from the item scans only
// those: .//*[@itemprop='price'] looks at the few elements with an itemprop, not at all of them.

// attrNeed is what a step's predicates require of every node it selects: the attribute's value
// contains one of lits (a value contains() or starts-with() or = tests for contains the literal).
type attrNeed struct {
	attr string
	lits []rareString
}

var attrTestRe = regexp.MustCompile(`^(?:contains|starts-with)\(\s*@([A-Za-z_][A-Za-z0-9_:.-]*)\s*,\s*(?:'([^']*)'|"([^"]*)")\s*\)$`)

// predNeeds returns what a predicate of the native subset requires of the nodes it accepts, as a
// conjunction; nil when it requires nothing this knows of. It may return fewer needs than the
// predicate implies, never one it does not.
func predNeeds(s string) []attrNeed {
	s = strings.TrimSpace(s)
	if ors := splitWord(s, "or"); len(ors) > 1 {
		// one need when every alternative requires a literal of the same attribute
		var n attrNeed
		for _, o := range ors {
			ns := predNeeds(o)
			if len(ns) != 1 || n.attr != "" && ns[0].attr != n.attr {
				return nil
			}
			n.attr = ns[0].attr
			n.lits = append(n.lits, ns[0].lits...)
		}
		return []attrNeed{n}
	}
	if ands := splitWord(s, "and"); len(ands) > 1 {
		var out []attrNeed
		for _, a := range ands {
			out = append(out, predNeeds(a)...)
		}
		return out
	}
	if strings.HasPrefix(s, "(") && matching(s, 0) == len(s)-1 {
		return predNeeds(s[1 : len(s)-1])
	}
	if m := attrTestRe.FindStringSubmatch(s); m != nil {
		return []attrNeed{{attr: m[1], lits: []rareString{newRareString(m[2] + m[3])}}}
	}
	if m := eqRe.FindStringSubmatch(s); m != nil {
		return []attrNeed{{attr: m[1], lits: []rareString{newRareString(m[2] + m[3])}}}
	}
	if strings.HasPrefix(s, "contains(") && matching(s, len("contains")) == len(s)-1 {
		// contains(concat(' ', normalize-space(@class), ' '), ' tok '): the value holds tok
		args := splitTop(s[len("contains("):len(s)-1], ',')
		if len(args) == 2 {
			m := tokenRe.FindStringSubmatch(strings.TrimSpace(args[0]))
			lit, ok := xpathLiteral(strings.TrimSpace(args[1]))
			if tok := strings.TrimSpace(lit); m != nil && ok && tok != "" && !strings.ContainsAny(tok, " \t\n\r\f") {
				return []attrNeed{{attr: m[1], lits: []rareString{newRareString(tok)}}}
			}
		}
	}
	return nil
}

// pathNeeds returns the needs of p's steps when every node they select from a context is one of
// its descendants (child and descendant steps only), or nil.
func pathNeeds(p *nativePath) []attrNeed {
	if p.dot || p.group != nil {
		return nil
	}
	var out []attrNeed
	for i := range p.steps {
		st := &p.steps[i]
		if st.name == "#root" || st.parent || st.self || st.sibling != 0 || st.ancestor {
			return nil
		}
		out = append(out, st.needs...)
	}
	return out
}

// joinedAttr is one attribute's values over a subtree's elements, each followed by a zero byte,
// and the elements that have it, in document order; starts, when kept (the document index keeps
// it), is where each element's values start in vals.
type joinedAttr struct {
	name   string
	vals   []byte
	elems  []*html.Node
	starts []int
}

// withLiteral appends to out the elements of j whose values hold one of lits (none empty), in
// document order, each once: found by searching the joined values for each literal, not by testing
// every element. An element is a candidate only; the step's predicates decide. j has starts.
func (j *joinedAttr) withLiteral(lits []rareString, out []*html.Node) []*html.Node {
	var buf [8]int
	next := buf[:0]
	if len(lits) > len(buf) {
		next = make([]int, 0, len(lits))
	}
	for _, l := range lits {
		next = append(next, j.nextHolding(l, 0))
	}
	for {
		// the earliest element holding some literal, then each literal's next from past it
		k := -1
		for _, n := range next {
			if n >= 0 && (k < 0 || n < k) {
				k = n
			}
		}
		if k < 0 {
			return out
		}
		out = append(out, j.elems[k])
		for i, n := range next {
			if n == k {
				next[i] = j.nextHolding(lits[i], k+1)
			}
		}
	}
}

// nextHolding returns the first element from the k-th on whose values hold l, or -1.
func (j *joinedAttr) nextHolding(l rareString, k int) int {
	if k >= len(j.elems) {
		return -1
	}
	from := j.starts[k]
	i := l.index(unsafe.String(&j.vals[from], len(j.vals)-from))
	if i < 0 {
		return -1
	}
	// the element whose values the match starts in: the last start at or before it
	at := from + i
	return k + sort.Search(len(j.starts)-k, func(m int) bool { return j.starts[k+m] > at }) - 1
}

// values returns the joined values of attribute name over t's elements, building them once per
// item (the buffers are kept for the next item).
func (t *subtree) values(name string) *joinedAttr {
	for i := range t.njoined {
		if t.joined[i].name == name {
			return &t.joined[i]
		}
	}
	if t.njoined == len(t.joined) {
		t.joined = append(t.joined, joinedAttr{})
	}
	j := &t.joined[t.njoined]
	t.njoined++
	list := t.list()
	if j.elems == nil {
		// sized for the first item, whose buffers the next items reuse: a dozen growths otherwise
		j.vals, j.elems = make([]byte, 0, 16*len(list)), make([]*html.Node, 0, len(list))
	}
	j.name, j.vals, j.elems = name, j.vals[:0], j.elems[:0]
	for _, n := range list {
		has := false
		for _, a := range n.Attr {
			if a.Key == name { // whatever its namespace: attr reads the first of any
				j.vals = append(j.vals, a.Val...)
				j.vals = append(j.vals, 0)
				has = true
			}
		}
		if has {
			j.elems = append(j.elems, n)
		}
	}
	return j
}

// candidates returns the elements of t a descendant step with needs can select: those that have
// the attribute of one of its needs (the need with the fewest), or all of them.
func (t *subtree) candidates(needs []attrNeed) []*html.Node {
	elems := t.list()
	for _, nd := range needs {
		if j := t.values(nd.attr); len(j.elems) < len(elems) {
			elems = j.elems
		}
	}
	return elems
}

// selectsNothing reports whether the path, run from t's node, is sure to select nothing: some
// step requires a literal no element of the subtree has.
func (t *subtree) selectsNothing(ctx *html.Node, needs []attrNeed) bool {
	if t == nil || t.node != ctx || len(needs) == 0 {
		return false
	}
	for _, nd := range needs {
		vals := t.values(nd.attr).vals
		found := false
		for _, l := range nd.lits {
			if l.inBytes(vals) {
				found = true
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}
