package xpatheval

import (
	"regexp"
	"sort"
	"strings"
	"unsafe"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
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
			// contains(concat(' ', @itemprop, ' '), ' name '): " "+value+" " holds the literal, so
			// the value holds it without its first and last space (which may be the added ones); an
			// absent attribute makes "  ", which holds no literal of three bytes or more.
			if m := spacedAttrRe.FindStringSubmatch(strings.TrimSpace(args[0])); m != nil && ok && len(lit) > 2 && lit[0] == ' ' && lit[len(lit)-1] == ' ' {
				return []attrNeed{{attr: m[1], lits: []rareString{newRareString(lit[1 : len(lit)-1])}}}
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
		if st.name == "#root" || st.parent || st.self || st.sibling != 0 || st.ancestor || st.preceding {
			return nil
		}
		out = append(out, st.needs...)
	}
	return out
}

// joinedAttr is one attribute's values over a subtree's elements, each followed by a zero byte,
// and the elements that have it, in document order; starts and pos, when kept (the document index
// keeps them), are where each element's values start in vals and where the element is in the
// document's elements (docIndex.all).
type joinedAttr struct {
	name   string
	vals   []byte
	elems  []*html.Node
	starts []int
	pos    []int32

	// base is where vals starts in the values starts count in: an item's part of the document's
	// values keeps the document's starts (see within).
	base int

	// cursor, in the document's (which belongs to one run's evaluator), is where the last item's
	// part ended in pos: items come in document order, so the next part is looked for from there.
	cursor int

	// masks, in the document's, is the literals asked of its values and the masks of its
	// elements' values (see masks.go), made on the first ask; doc, in an item's part, is the
	// document's.
	masks *litMasks
	doc   *joinedAttr
}

// within returns the part of j (the document's) over the elements all[lo:hi]: a list item's
// values, read where the document index joined them rather than joined again.
func (j *joinedAttr) within(lo, hi int) joinedAttr {
	a := j.firstFrom(lo, j.cursor)
	b := j.firstFrom(hi, a)
	j.cursor = b
	end := len(j.vals)
	if b < len(j.starts) {
		end = j.starts[b]
	}
	from := end
	if a < b {
		from = j.starts[a]
	}
	return joinedAttr{name: j.name, vals: j.vals[from:end:end], elems: j.elems[a:b:b], starts: j.starts[a:b:b], base: from, doc: j}
}

// firstFrom returns the first k with pos[k] >= v (len(pos) when none), as sort.Search over all of
// pos answers, looked for forward from hint by doubling steps when pos[hint-1] < v: a list's items
// are in document order, and a search of the whole document's positions per item read a dozen
// places of a list far bigger than the cache, most of them missed.
func (j *joinedAttr) firstFrom(v, hint int) int {
	n := len(j.pos)
	hint = min(max(hint, 0), n)
	if hint > 0 && int(j.pos[hint-1]) >= v {
		return sort.Search(n, func(k int) bool { return int(j.pos[k]) >= v })
	}
	// every k < lo has pos[k] < v; the answer is at most hi
	lo, hi := hint, hint
	for step := 1; hi < n && int(j.pos[hi]) < v; step *= 2 {
		lo, hi = hi+1, hi+step
	}
	hi = min(hi, n)
	return lo + sort.Search(hi-lo, func(k int) bool { return int(j.pos[lo+k]) >= v })
}

// withLiteral appends to out the elements of j whose values hold one of lits (none empty), in
// document order, each once: found by searching the joined values for each literal, not by testing
// every element. An element is a candidate only; the step's predicates decide. j has starts.
func (j *joinedAttr) withLiteral(lits []rareString, out []*html.Node) []*html.Node {
	out, _ = j.withLiteralUpTo(lits, out, -1)
	return out
}

// withLiteralUpTo is withLiteral, which gives up (ok false) once it has found more than limit
// elements (limit < 0: no limit).
func (j *joinedAttr) withLiteralUpTo(lits []rareString, out []*html.Node, limit int) (_ []*html.Node, ok bool) {
	start := len(out)
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
			return out, true
		}
		if limit >= 0 && len(out)-start >= limit {
			return out, false
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
	from := j.starts[k] - j.base
	i := l.index(unsafe.String(&j.vals[from], len(j.vals)-from))
	if i < 0 {
		return -1
	}
	// the element whose values the match starts in: the last start at or before it
	at := j.base + from + i
	return k + sort.Search(len(j.starts)-k, func(m int) bool { return j.starts[k+m] > at }) - 1
}

// values returns the joined values of attribute name over t's elements, building them once per
// item (the buffers are kept for the next item), or reading them from the document index's.
// Building them joins, in the same walk of the item's elements, every other attribute the
// previous item built its values of: the items of a list have the same fields, which ask for the
// same attributes (Amazon's cards some eight: href, id, data-cy, data-component-type...), and
// one walk testing each attribute against a few names costs much less than a walk per name.
func (t *subtree) values(name string) *joinedAttr {
	return &t.joinedOf(name).joinedAttr
}

// joinedOf is values with the item's entry, whose masks (when read from the document index) answer
// for literals instead of a search.
func (t *subtree) joinedOf(name string) *itemJoined {
	for i := range t.njoined {
		if t.joined[i].name == name {
			return &t.joined[i]
		}
	}
	list := t.list()
	if t.lo >= 0 {
		if dj := t.doc.joined[name]; dj != nil && dj.pos != nil {
			j := t.claim(name)
			j.walked = false
			j.joinedAttr = dj.within(t.lo, t.hi)
			j.masks.reset()
			return j
		}
	}
	first := t.njoined
	t.claim(name).walked = true
	for i := t.njoined; i < len(t.joined); i++ {
		if t.joined[i].walked {
			t.joined[t.njoined], t.joined[i] = t.joined[i], t.joined[t.njoined]
			t.njoined++
		}
	}
	joinWalked(t.joined[first:t.njoined], list)
	return &t.joined[first]
}

// claim returns the entry of t.joined for name, now the item's (the entries past njoined are the
// previous items', whose storage is reused, its own name's when it has one).
func (t *subtree) claim(name string) *itemJoined {
	k := -1
	for i := t.njoined; i < len(t.joined); i++ {
		if t.joined[i].name == name {
			k = i
			break
		}
	}
	if k < 0 {
		t.joined = append(t.joined, itemJoined{})
		k = len(t.joined) - 1
		t.joined[k].name = name
	}
	t.joined[t.njoined], t.joined[k] = t.joined[k], t.joined[t.njoined]
	t.njoined++
	return &t.joined[t.njoined-1]
}

// joinWalked builds the values of each of js over list in one walk.
func joinWalked(js []itemJoined, list []*html.Node) {
	for k := range js {
		j := &js[k]
		if j.bufElems == nil {
			// sized for the first item, whose buffers the next items reuse: a dozen growths otherwise
			j.bufVals, j.bufElems, j.bufStarts = make([]byte, 0, 16*len(list)), make([]*html.Node, 0, len(list)), make([]int, 0, len(list))
		}
		j.bufVals, j.bufElems, j.bufStarts = j.bufVals[:0], j.bufElems[:0], j.bufStarts[:0]
	}
	// A name's length, as a bit: most attributes of a card (class, src, style, alt...) have a
	// length no wanted name has, and are passed over without reading their key, a substring of
	// the body the element's tag was read from.
	var lens uint64
	long := false
	for k := range js {
		if l := len(js[k].name); l < 64 {
			lens |= 1 << l
		} else {
			long = true
		}
	}
	for _, n := range list {
		for _, a := range n.Attr {
			if l := len(a.Key); l < 64 && lens&(1<<l) == 0 || l >= 64 && !long {
				continue
			}
			for k := range js {
				j := &js[k]
				if a.Key != j.name { // whatever its namespace: attr reads the first of any
					continue
				}
				if e := j.bufElems; len(e) == 0 || e[len(e)-1] != n {
					j.bufElems, j.bufStarts = append(j.bufElems, n), append(j.bufStarts, len(j.bufVals))
				}
				j.bufVals = append(j.bufVals, a.Val...)
				j.bufVals = append(j.bufVals, 0)
				break
			}
		}
	}
	for k := range js {
		j := &js[k]
		j.joinedAttr = joinedAttr{name: j.name, vals: j.bufVals, elems: j.bufElems, starts: j.bufStarts}
	}
}

// itemJoined is a list item's joined values of one attribute, and the storage kept for the next
// item's (the values may instead be a range of the document index's, which is never written).
type itemJoined struct {
	joinedAttr
	bufVals   []byte
	bufElems  []*html.Node
	bufStarts []int
	walked    bool // built by walking the item's elements (not read from the document index)

	masks cardMasks // when read from the document index (doc set): the literals its elements hold
}

// candidates returns the elements of t a descendant step with needs and tag atom a (0: any) can
// select, a superset in document order: the elements of its tag, or those with the attribute of
// the need the fewest elements have, the fewer; and of those, when a search of the item's joined
// values finds few holding one of the need's literals, only these (.//span[contains(@class,
// 'a-price')] looks at the few elements whose class holds a-price, not at every span). A literal
// held by many (or empty: held by all) is not worth the search: the search stops past a quarter of
// the elements it would replace. pooled: the list is t.hits, handed back with release.
func (t *subtree) candidates(needs []attrNeed, a atom.Atom) (elems []*html.Node, pooled bool) {
	elems = t.list()
	var best *attrNeed
	var bj *itemJoined
	for i := range needs {
		if j := t.joinedOf(needs[i].attr); len(j.elems) < len(elems) || best == nil && len(j.elems) == len(elems) {
			elems, best, bj = j.elems, &needs[i], j
		}
	}
	if a != 0 && len(elems) > 0 {
		// match rejects an element of another atom whenever the step's name has one
		if tagged := t.withTag(a); len(tagged) < len(elems) {
			elems = tagged
		}
	}
	if best == nil || len(elems) < minHitSearch || len(best.lits) > len(t.litBuf) {
		return elems, false
	}
	for _, l := range best.lits {
		if l.s == "" {
			return elems, false
		}
	}
	out := t.hits[:0]
	if t.hitsBusy {
		out = nil // a scan inside a scan: a list of its own
	}
	var ok bool
	if want := bj.litBits(best.lits); want != 0 {
		bj.masks.holds(&bj.joinedAttr, bj.doc.masks, want)
		out, ok = bj.masks.elemsHolding(&bj.joinedAttr, want, out, len(elems)/4)
	} else {
		lits := t.litBuf[:0]
		for _, l := range best.lits {
			lits = append(lits, t.rarest(best.attr, bj.vals, l))
		}
		out, ok = bj.withLiteralUpTo(lits, out, len(elems)/4)
	}
	if !ok {
		return elems, false
	}
	if t.hitsBusy {
		return out, false
	}
	t.hits, t.hitsBusy = out, true
	return out, true
}

// minHitSearch is the fewest candidates a search of the joined values for a literal may replace:
// matching a few elements costs less than the search.
const minHitSearch = 8

// release hands back the list candidates returned (pooled: it was t.hits).
func (t *subtree) release(pooled bool) {
	if pooled {
		t.hitsBusy = false
	}
}

// selectsNothing reports whether the path, run from t's node, is sure to select nothing: some
// step requires a literal no element of the subtree has.
func (t *subtree) selectsNothing(ctx *html.Node, needs []attrNeed) bool {
	if t == nil || t.node != ctx || len(needs) == 0 {
		return false
	}
	for _, nd := range needs {
		j := t.joinedOf(nd.attr)
		if want := j.litBits(nd.lits); want != 0 {
			if j.masks.holds(&j.joinedAttr, j.doc.masks, want) == 0 {
				return true
			}
			continue
		}
		vals := j.vals
		found := false
		for _, l := range nd.lits {
			if t.rarest(nd.attr, vals, l).inBytes(vals) {
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

// litBits returns the bits of lits in the document's masks when j is an item's part of the
// document's values and every one of lits has a bit (see litMasks.bitOf), else 0: they are
// searched for.
func (j *itemJoined) litBits(lits []rareString) uint64 {
	if j.doc == nil {
		return 0
	}
	m := j.doc.masks
	if m == nil {
		m = &litMasks{}
		j.doc.masks = m
	}
	var want uint64
	for _, l := range lits {
		b := m.bitOf(l.s)
		if b == 0 {
			return 0
		}
		want |= b
	}
	return want
}

// byteCounts is how often each byte occurs in an attribute's values, counted over the first list
// items that ask for them (up to sampleBytes): a literal's rarest byte in HTML at large is not its
// rarest in class values (eBay's are full of the '_' of s-item__price, which a search for
// s-item__hotness then stopped at), and the items of a list are alike.
type byteCounts struct {
	attr  string
	n     [256]uint16
	total int        // bytes counted
	last  *html.Node // the item counted last
}

// sampleBytes is the most bytes of values counted.
const sampleBytes = 16 << 10

// rarest returns l searched by its rarest byte in the values of attr, as counted over the values
// of the items that asked for them first (vals, t's item's); a byte no item had yet keeps the
// HTML rank's choice.
func (t *subtree) rarest(attr string, vals []byte, l rareString) rareString {
	var c *byteCounts
	for i := range t.counts {
		if t.counts[i].attr == attr {
			c = &t.counts[i]
			break
		}
	}
	if c == nil {
		t.counts = append(t.counts, byteCounts{attr: attr})
		c = &t.counts[len(t.counts)-1]
	}
	if c.total < sampleBytes && (c.total == 0 || c.last != t.node) {
		c.last = t.node
		more := vals[:min(len(vals), sampleBytes-c.total)]
		for _, b := range more {
			c.n[b]++
		}
		c.total += len(more)
	}
	for i := 0; i < len(l.s); i++ {
		if c.n[l.s[i]] < c.n[l.s[l.rare]] {
			l.rare = i
		}
	}
	return l
}
