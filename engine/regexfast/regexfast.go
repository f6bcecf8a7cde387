// Package regexfast runs Go regular expressions faster on long inputs, with exactly the answers
// of the regexp package, by one of four strategies, tried in this order: a pattern cut by lazy
// wildcards is searched piece by piece (below); a pattern whose matches start with one of a few
// literals is tried where those occur (candidates), matched by one forward scan when it is a
// chain of literals and class runs that needs no backtracking (chain.go), else by the regexp
// package anchored there; any other pattern with no assertion and no empty match has its
// FindAll run on the input cut at the ASCII bytes no match can contain (breakBytes, in
// split.go). The pieces of a pattern cut by lazy wildcards are themselves searched by the
// second or third strategy where one applies.
//
// The first shape is a pattern cut by lazy wildcards, `(?s)<article.*?</article>` or
// `(?s)<div class="x[^>]*>(.*?)(?:<footer|<a )`: pieces joined by `.*?`. On an input longer than
// its backtracker takes (a few KB), the regexp package runs such a pattern on its NFA, which keeps
// several threads alive across the whole span a `.*?` covers: about 100 ns a byte, so cutting a
// 900 KB page into posts and reading each post's fields took a hundred milliseconds. Here each
// piece is searched alone (a literal-prefixed search, through the regexp package) from where
// the piece before it ended.
//
// Why the answers are the same: the regexp package answers the leftmost match, and among the
// matches starting there the one a backtracking search meets first, which tries a lazy
// wildcard's shorter spans first. So the match is found by taking the leftmost match of the first
// piece, then the leftmost match of each next piece from where the piece before it ended (its
// first match there being the one a backtracking search meets first), as long as every piece is
// found; a pattern whose pieces hold no assertion (^, $, \b) matches a piece the same wherever
// the input around it is cut. When a later piece is not found, another choice for an earlier
// piece might still succeed: that search, rare, is handed to the regexp package from the first
// piece's match on, where the leftmost match can start at the earliest, unless the piece is not
// found from there either (a post with no picture, for `(?s)<div class="_5rgu.*?<img src="`):
// every match from there on holds one.
package regexfast

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// minStaged is the input length from which the pieces are searched one by one; below it the
// regexp package's backtracker is as fast.
const minStaged = 2048

// minChain is the input length from which a chain is matched by its scan (chain.go): any. The
// backtracker the regexp package runs below minStaged still tries every position of its input and
// costs about 20 ns a byte on `[?&](?:refid|_ft_)=.*$` over a 2 KB link, where the chain only
// looks at the few places a prefix occurs; on a few bytes with no candidate both cost an Index.
const minChain = 0

// Regexp is a compiled regular expression; its methods answer as the regexp package's
// methods of the same name.
type Regexp struct {
	re     *regexp.Regexp
	pieces []piece // nil: re runs as it is
	// minLen is the input length from which the strategy applies (minStaged, or minSplit for
	// breaks; tests lower it).
	minLen int
	// prefixes: every match starts with one of these literals (nil: unknown). anchored is the
	// pattern anchored at the start of its input, tried where a prefix occurs.
	prefixes []string
	rare     []int // for each prefix, the index of its rarest byte (see indexRare)
	anchored *regexp.Regexp
	// chain: the pattern matched from a candidate start by one scan (chain.go), in place of
	// anchored.
	chain *chain
	// bounds[g] is, for a group g that spans pieces, the indexes in a piece-boundary list
	// (2i: where piece i starts, 2i+1: where it ends) of the group's start and end.
	bounds map[int][2]int
	// breaks: the bytes FindAll cuts a long input at (see breakBytes); only when neither of the
	// other two strategies applies, as they keep the search off the NFA already.
	breaks *asciiSet
	// run: the pattern is a greedy run of a class of ASCII characters (`\s+`), whose matches are
	// the maximal stretches of its bytes; nil otherwise (see ReplaceAllString).
	run *byteSet
	// lead: the one literal every match starts with, of a pattern run by the regexp package
	// (whole), which a search on a long input first looks for by its rarest byte (leadRare);
	// "" when there is none. leadMin is the input length from which it does (minLead; tests
	// lower it).
	lead     string
	leadRare int
	leadMin  int
}

// minLead is the input length from which a whole pattern's search skips to its lead: the regexp
// package finds its literal prefix by strings.Index, which stops at every occurrence of the
// literal's first byte (`publish_time` missed in a 250 KB facebook page: 90 µs of strings.Index).
const minLead = 1024

// piece is one stretch of the pattern between lazy wildcards.
type piece struct {
	re     *Regexp
	groups []int // the pattern's group numbers of the piece's groups 1, 2, ...
	// notNL: the wildcard before this piece is `.*?` without the s flag, which spans no '\n'.
	notNL bool
}

// New returns re prepared for the first of the three strategies that applies to its pattern.
func New(re *regexp.Regexp) *Regexp {
	r := &Regexp{re: re, minLen: minStaged}
	if re == nil {
		return r
	}
	if tree, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		switch {
		case !hasAssertion(tree):
			r.stage(tree)
			if r.pieces == nil {
				r.candidates(tree, true)
			}
		default:
			// `[?&](?:refid|_ft_)=.*$`, `...story_name[^\[]{0,200}\[` + id + `\b`: a chain tests
			// an assertion where it stands, on the whole input. Only as a chain: the regexp
			// package anchored at each candidate would see no input before it, and scan to the end
			// from each for a $.
			r.candidates(tree, false)
		}
	}
	if r.chain != nil && r.pieces == nil {
		r.minLen = minChain
	}
	if r.whole() {
		if r.breaks = breakBytes(re); r.breaks != nil {
			r.minLen = minSplit
		}
	}
	if r.whole() {
		r.setLead()
	}
	if tree, err := syntax.Parse(re.String(), syntax.Perl); err == nil && tree.Op == syntax.OpPlus && tree.Flags&syntax.NonGreedy == 0 {
		if set := classSet(tree.Sub[0]); set != nil && !set.has(utf8.RuneSelf) {
			r.run = set
		}
	}
	return r
}

// MustCompile is New(regexp.MustCompile(pattern)).
func MustCompile(pattern string) *Regexp { return New(regexp.MustCompile(pattern)) }

// Regexp returns the regular expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re }

// Staged reports whether the pattern is searched piece by piece on long inputs.
func (r *Regexp) Staged() bool { return r.pieces != nil }

// Prefixed reports whether the pattern is tried, anchored, where the literals its matches start
// with occur.
func (r *Regexp) Prefixed() bool { return r.anchored != nil }

// Chained reports whether the pattern is matched, where the literals its matches start with
// occur, by one scan (see chain).
func (r *Regexp) Chained() bool { return r.chain != nil }

// whole reports whether the pattern runs on the regexp package only (or cut at break bytes).
func (r *Regexp) whole() bool { return r.pieces == nil && r.prefixes == nil }

// Lead reports the literal a search on a long input skips to before the regexp package runs
// (see setLead), or "".
func (r *Regexp) Lead() string { return r.lead }

// Split reports whether FindAllStringSubmatchIndex cuts a long input at the bytes no match can
// contain.
func (r *Regexp) Split() bool { return r.breaks != nil }

// token kinds of a flattened pattern.
const (
	tPart  = iota // a part of a piece
	tStar         // a lazy wildcard
	tOpen         // a group that spans pieces opens
	tClose        // and closes
)

type token struct {
	kind  int
	re    *syntax.Regexp // tPart
	notNL bool           // tStar
	group int            // tOpen, tClose
}

func (r *Regexp) stage(tree *syntax.Regexp) {
	var toks []token
	if !flatten(tree, &toks) {
		return
	}
	type boundary struct{ group, at int }
	var opens, closes []boundary
	var parts []*syntax.Regexp
	var pieces []piece
	var notNL bool
	end := func() bool { // closes the piece being built
		if len(parts) == 0 {
			return false
		}
		p, ok := compilePiece(parts)
		if !ok {
			return false
		}
		p.notNL = notNL
		pieces = append(pieces, p)
		parts = nil
		return true
	}
	stars := 0
	for i, t := range toks {
		switch t.kind {
		case tPart:
			parts = append(parts, t.re)
		case tStar:
			if !end() {
				return // two wildcards in a row, or one first
			}
			notNL = t.notNL
			stars++
		case tOpen, tClose:
			// Between a wildcard (or the pattern's start) and a piece: where the piece starts.
			// After a piece's parts: where it ends, unless more of its parts follow.
			at := 2 * len(pieces)
			if len(parts) > 0 {
				j := i + 1
				for j < len(toks) && (toks[j].kind == tOpen || toks[j].kind == tClose) {
					j++
				}
				if j < len(toks) && toks[j].kind == tPart {
					return // a group boundary inside a piece
				}
				at++
			}
			b := boundary{t.group, at}
			if t.kind == tOpen {
				opens = append(opens, b)
			} else {
				closes = append(closes, b)
			}
		}
	}
	if stars == 0 || !end() {
		return
	}
	// The first piece must not match empty: every match then advances a FindAll, as the
	// regexp package's does after a non-empty match.
	if pieces[0].re.re.MatchString("") {
		return
	}
	bounds := map[int][2]int{}
	for _, o := range opens {
		bounds[o.group] = [2]int{o.at, -1}
	}
	for _, c := range closes {
		b := bounds[c.group]
		b[1] = c.at
		bounds[c.group] = b
	}
	r.pieces, r.bounds = pieces, bounds
}

// flatten lists the pattern's parts, lazy wildcards and the groups around wildcards in order;
// false when a wildcard sits anywhere else (in an alternation, a repetition).
func flatten(re *syntax.Regexp, out *[]token) bool {
	switch {
	case re.Op == syntax.OpConcat:
		for _, sub := range re.Sub {
			if !flatten(sub, out) {
				return false
			}
		}
		return true
	case isLazyWildcard(re):
		*out = append(*out, token{kind: tStar, notNL: re.Sub[0].Op == syntax.OpAnyCharNotNL})
		return true
	case re.Op == syntax.OpCapture && hasLazyWildcard(re.Sub[0]):
		*out = append(*out, token{kind: tOpen, group: re.Cap})
		if !flatten(re.Sub[0], out) {
			return false
		}
		*out = append(*out, token{kind: tClose, group: re.Cap})
		return true
	case hasLazyWildcard(re):
		return false
	}
	*out = append(*out, token{kind: tPart, re: re})
	return true
}

func isLazyWildcard(re *syntax.Regexp) bool {
	return re.Op == syntax.OpStar && re.Flags&syntax.NonGreedy != 0 &&
		(re.Sub[0].Op == syntax.OpAnyChar || re.Sub[0].Op == syntax.OpAnyCharNotNL)
}

func hasLazyWildcard(re *syntax.Regexp) bool {
	if isLazyWildcard(re) {
		return true
	}
	for _, sub := range re.Sub {
		if hasLazyWildcard(sub) {
			return true
		}
	}
	return false
}

// hasAssertion reports an empty-width assertion, whose answer depends on the input around a
// piece's match.
func hasAssertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range re.Sub {
		if hasAssertion(sub) {
			return true
		}
	}
	return false
}

// compilePiece compiles consecutive parts as a pattern of their own, noting which of the whole
// pattern's groups its groups are.
func compilePiece(parts []*syntax.Regexp) (piece, bool) {
	tree := parts[0]
	if len(parts) > 1 {
		tree = &syntax.Regexp{Op: syntax.OpConcat, Sub: parts}
	}
	std, err := regexp.Compile(tree.String())
	if err != nil {
		return piece{}, false
	}
	re := &Regexp{re: std, minLen: minStaged}
	re.candidates(tree, true)
	if re.chain != nil {
		re.minLen = minChain
	}
	var groups []int
	var walk func(*syntax.Regexp)
	walk = func(x *syntax.Regexp) {
		if x.Op == syntax.OpCapture {
			groups = append(groups, x.Cap)
		}
		for _, sub := range x.Sub {
			walk(sub)
		}
	}
	walk(tree)
	if len(groups) != std.NumSubexp() {
		return piece{}, false
	}
	return piece{re: re, groups: groups}, true
}

// setLead sets the literal every match starts with, when there is one and it is not the
// whole pattern's prefix in the regexp package's sense only: prefixes reads it from the
// pattern's tree, where an assertion first (`^x`, `\bx`) gives none, so no assertion is tested
// where a match starts and the regexp package answers the same on the input from the first place
// the literal occurs as on the whole of it (its matches start there or after; the assertions it
// tests after the literal see the same bytes around them).
func (r *Regexp) setLead() {
	tree, err := syntax.Parse(r.re.String(), syntax.Perl)
	if err != nil {
		return
	}
	if lits, _ := prefixes(tree, false); len(usable(lits, false)) == 1 && len(lits[0]) > 1 {
		r.lead, r.leadRare, r.leadMin = lits[0], rarests(lits)[0], minLead
	}
}

// find is the leftmost match in s[pos:] with its groups, as offsets in s; nil for none.
func find[T input](r *Regexp, s T, pos int, groups bool) []int {
	switch {
	case r.whole() && r.lead != "" && len(s)-pos >= r.leadMin:
		c := indexRare(s[pos:], r.lead, r.leadRare)
		if c < 0 {
			return nil
		}
		return shift(submatch(r.re, s[pos+c:], groups), pos+c)
	case len(s)-pos < r.minLen || r.whole():
		return shift(submatch(r.re, s[pos:], groups), pos)
	case r.pieces == nil:
		return findAnchored(r, s, pos, groups, nil)
	}
	first := find(r.pieces[0].re, s, pos, groups)
	if first == nil {
		return nil // every match starts with a match of the first piece
	}
	m := make([]int, 2)
	if groups {
		m = make([]int, 2*(r.re.NumSubexp()+1))
	}
	for i := range m {
		m[i] = -1
	}
	edges := make([]int, 0, 2*len(r.pieces))
	place := func(p piece, pm []int) {
		edges = append(edges, pm[0], pm[1])
		if !groups {
			return
		}
		for i, g := range p.groups {
			m[2*g], m[2*g+1] = pm[2*i+2], pm[2*i+3]
		}
	}
	place(r.pieces[0], first)
	for _, p := range r.pieces[1:] {
		from := edges[len(edges)-1]
		pm := find(p.re, s, from, groups)
		if pm == nil && find(p.re, s, first[0], false) == nil {
			// Every match from first[0] on holds a match of p.
			return nil
		}
		if pm == nil || p.notNL && indexByte(s[from:pm[0]], '\n') >= 0 {
			// Another choice for an earlier piece may still match: the regexp package
			// decides, from the earliest start a match can have.
			return shift(submatch(r.re, s[first[0]:], groups), first[0])
		}
		place(p, pm)
	}
	m[0], m[1] = edges[0], edges[len(edges)-1]
	if !groups {
		return m
	}
	for g, b := range r.bounds {
		m[2*g], m[2*g+1] = edges[b[0]], edges[b[1]]
	}
	return m
}

func shift(m []int, by int) []int {
	if m == nil || by == 0 {
		return m
	}
	for i, x := range m {
		if x >= 0 {
			m[i] = x + by
		}
	}
	return m
}

// FindStringSubmatchIndex is regexp.Regexp.FindStringSubmatchIndex.
func (r *Regexp) FindStringSubmatchIndex(s string) []int { return find(r, s, 0, true) }

// FindIndex is regexp.Regexp.FindIndex.
func (r *Regexp) FindIndex(b []byte) []int {
	if r.whole() || len(b) < r.minLen {
		return r.re.FindIndex(b)
	}
	return find(r, b, 0, false)
}

// input is what the regexp package searches: strings and byte slices.
type input interface{ ~string | ~[]byte }

// submatch is FindStringSubmatchIndex or FindSubmatchIndex, or without groups (which the
// regexp package's NFA would otherwise track) FindStringIndex or FindIndex.
func submatch[T input](re *regexp.Regexp, s T, groups bool) []int {
	switch x := any(s).(type) {
	case string:
		if !groups {
			return re.FindStringIndex(x)
		}
		return re.FindStringSubmatchIndex(x)
	case []byte:
		if !groups {
			return re.FindIndex(x)
		}
		return re.FindSubmatchIndex(x)
	}
	panic("unreachable")
}

func index[T input](s T, lit string) int {
	switch x := any(s).(type) {
	case string:
		return strings.Index(x, lit)
	case []byte:
		return bytes.Index(x, []byte(lit))
	}
	panic("unreachable")
}

// htmlByteRank is the frequency rank of bytes in HTML pages (higher is more common), measured on
// marketplace, search-engine, news and video pages; bytes not listed (controls, non-ASCII) are rarest.
var htmlByteRank = func() [256]uint8 {
	var r [256]uint8
	common := "ea tionsrdl-cp\"um.x0g:b2hfv,3\\w1_=A;/yk\n5{}64><)(8CE97BjTISzDFPLQMURNq#OVHGYKW&XZJ%'+][!|?$@*~\t"
	for i := 0; i < len(common); i++ {
		r[common[i]] = uint8(255 - i)
	}
	return r
}()

// HTMLByteRank is how common c is in HTML pages (higher is more common): a search for a needle
// anchored on its lowest-ranked byte stops at few places of a page.
func HTMLByteRank(c byte) uint8 { return htmlByteRank[c] }

func rarests(lits []string) []int {
	out := make([]int, len(lits))
	for i, l := range lits {
		for j := 1; j < len(l); j++ {
			if htmlByteRank[l[j]] < htmlByteRank[l[out[i]]] {
				out[i] = j
			}
		}
	}
	return out
}

// indexRare is index(s, lit), found by the byte of lit at r: a prefix such as
// `data-sigil="comment-body">` starts with a byte found at nearly every step of a page, where
// strings.Index stops to compare, while its `y` is rare. The places of that byte are met in
// order, so the first place lit is found is its first occurrence.
//
// The byte is chosen by its rank in HTML at large; a page may be full of it (facebook's class
// names are full of the `_` of publish_time). So when the byte keeps turning up (rechooseMisses
// misses, more than one per denseGap bytes), the bytes of lit are counted on rechooseWindow
// bytes spread over the rest of s and the search goes on by the rarest there, from the first
// start not yet ruled out. Once: a choice costs about as much as a hundred misses.
func indexRare[T input](s T, lit string, r int) int {
	if r == 0 {
		return index(s, lit)
	}
	return indexRareFrom(s, lit, r, rechooseMisses)
}

const (
	rechooseMisses = 64
	denseGap       = 256
	rechooseWindow = 1024
)

// indexRareFrom is indexRare, choosing another byte after the given misses (tests lower it).
func indexRareFrom[T input](s T, lit string, r, wait int) int {
	c := lit[r]
	misses, from := 0, r
	for i := from; i < len(s); {
		j := indexByte(s[i:], c)
		if j < 0 {
			return -1
		}
		if start := i + j - r; hasPrefixAt(s, start, lit) {
			return start
		}
		i += j + 1
		if misses++; misses != wait {
			continue
		}
		// Every start before i-r is ruled out: its byte at r is not c, or lit is not there.
		if i-from < misses*denseGap {
			start := i - r
			r = rarestIn(s[start:], lit, r)
			c, i = lit[r], start+r
		}
	}
	return -1
}

// rarestIn is the index in lit of its byte least often found in w, r on a tie, counted on
// rechooseWindow bytes spread evenly over w: a page's parts differ (markup, then a script, then
// a base64 blob), and the rest of the search crosses them all.
func rarestIn[T input](w T, lit string, r int) int {
	var n [256]int32
	step := max(1, len(w)/rechooseWindow)
	for i := 0; i < len(w); i += step {
		n[w[i]]++
	}
	for j := range len(lit) {
		if n[lit[j]] < n[lit[r]] {
			r = j
		}
	}
	return r
}

// Index is strings.Index(s, lit), found by lit's rarest byte in HTML (see indexRare): on a
// facebook page strings.Index took 186 µs to miss `aria-label="Verified` in 250 KB, as every
// `a` stops it, where the rare `V` stops the search 220 times (12 µs).
func Index(s, lit string) int {
	if len(lit) < 2 {
		return strings.Index(s, lit)
	}
	return indexRare(s, lit, rarests([]string{lit})[0])
}

// IndexBytes is Index on a byte slice: bytes.Index(b, []byte(lit)).
func IndexBytes(b []byte, lit string) int { return IndexBytesAt(b, lit, Rarest(lit)) }

// Rarest is the index in lit of its rarest byte in HTML at large, the byte IndexBytesAt starts
// from (0 for a literal of one byte).
func Rarest(lit string) int { return rarests([]string{lit})[0] }

// IndexBytesAt is IndexBytes with lit's byte r (Rarest) chosen beforehand: a literal searched in
// body after body is ranked once.
func IndexBytesAt(b []byte, lit string, r int) int {
	if len(lit) < 2 {
		return bytes.Index(b, []byte(lit))
	}
	return indexRare(b, lit, r)
}

func lastIndex[T input](s T, lit string) int {
	switch x := any(s).(type) {
	case string:
		return strings.LastIndex(x, lit)
	case []byte:
		return bytes.LastIndex(x, []byte(lit))
	}
	panic("unreachable")
}

func indexByte[T input](s T, c byte) int {
	switch x := any(s).(type) {
	case string:
		return strings.IndexByte(x, c)
	case []byte:
		return bytes.IndexByte(x, c)
	}
	panic("unreachable")
}

// FindAllStringSubmatchIndex is regexp.Regexp.FindAllStringSubmatchIndex.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	switch {
	case len(s) < r.minLen:
		return r.re.FindAllStringSubmatchIndex(s, n)
	case r.breaks != nil:
		return r.findAllSplit(s, n)
	case r.whole():
		return r.re.FindAllStringSubmatchIndex(s, n)
	}
	var out [][]int
	var st *chainState // shared by the searches: each run's scans go on where they stopped
	if r.chain != nil && r.pieces == nil {
		st = newChainState(r.chain, len(s), 2*(r.re.NumSubexp()+1))
	}
	// The pattern never matches empty: each search starts where the match before it ended, as
	// the regexp package's does after a non-empty match.
	for pos := 0; pos <= len(s) && (n < 0 || len(out) < n); {
		var m []int
		if st != nil {
			m = findAnchored(r, s, pos, true, st)
		} else {
			m = find(r, s, pos, true)
		}
		if m == nil {
			break
		}
		out = append(out, m)
		pos = m[1]
	}
	return out
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString. A staged or chained pattern never
// matches the empty string, so the regexp package's replacement walks the matches
// FindAllStringSubmatchIndex answers, each replaced by the template expanded as ExpandString
// does.
func (r *Regexp) ReplaceAllString(s, repl string) string {
	if r.run != nil && !strings.Contains(repl, "$") {
		return replaceRuns(s, r.run, repl)
	}
	if r.whole() || len(s) < r.minLen {
		return r.re.ReplaceAllString(s, repl)
	}
	ms := r.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var out []byte
	last := 0
	for _, m := range ms {
		out = append(out, s[last:m[0]]...)
		out = r.re.ExpandString(out, repl, s, m)
		last = m[1]
	}
	return string(append(out, s[last:]...))
}

// replaceRuns replaces each maximal stretch of the class's bytes with repl: the matches of a
// greedy run of ASCII characters, leftmost first, each as long as it goes (the regexp package's
// backtracker took 3 ms for `\s+` over a 40 KB chapter). A byte from 0x80 on, part of a
// non-ASCII character or an invalid one, is never in the class.
func replaceRuns(s string, set *byteSet, repl string) string {
	var out []byte
	last := 0
	for i := 0; i < len(s); {
		if !set.has(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && set.has(s[j]) {
			j++
		}
		if out == nil {
			out = make([]byte, 0, len(s))
		}
		out = append(append(out, s[last:i]...), repl...)
		last, i = j, j
	}
	if out == nil {
		return s
	}
	return string(append(out, s[last:]...))
}

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool {
	if r.whole() || len(s) < r.minLen {
		return r.re.MatchString(s)
	}
	return find(r, s, 0, false) != nil
}

// maxPrefixes bounds the literals a match may start with that are searched for.
const maxPrefixes = 8

// maxFailed is how many places where a prefix occurs but the pattern does not match are tried
// before the rest of the input is handed to the regexp package: a try may scan far (`[^"]+`
// finding no quote), so the work stays within maxFailed+1 times the regexp package's.
const maxFailed = 32

// candidates prepares the search by prefixes: the regexp package skips to its literal prefix
// only while no thread of its NFA is alive, and keeps one alive across every long attribute a
// prefix such as `<a href="` opens (and finds no prefix at all in `"(?:graphql|data)"`), while
// the pattern anchored where a prefix occurs either matches or fails within a few bytes.
//
// A chain may also start with a small class (`[?&](?:refid|_ft_)=.*$`), whose characters are then
// among the prefixes; the regexp package anchored is only tried where literals occur, as with
// a class first a pattern may rather be cut at its break bytes.
//
// Without anchored, only a chain is prepared.
func (r *Regexp) candidates(tree *syntax.Regexp, anchored bool) {
	if lits := usable(prefixes(tree, true)); lits != nil {
		if ch := newChain(tree); ch != nil {
			r.prefixes, r.rare, r.chain = lits, rarests(lits), ch
			return
		}
	}
	lits := usable(prefixes(tree, false))
	if lits == nil || !anchored {
		return
	}
	// r.re's source, not tree.String(): the two mean the same (tree is the parse of that source, or
	// of a piece compiled from its String), and printing a tree with case-folded classes costs
	// milliseconds (syntax's calcFlags folds every rune), a fifth of loading the catalogue.
	re, err := regexp.Compile(`^(?:` + r.re.String() + `)`)
	if err != nil || re.NumSubexp() != r.re.NumSubexp() {
		return
	}
	r.prefixes, r.rare, r.anchored = lits, rarests(lits), re
}

// usable is lits when they are few enough to search for and none is empty, else nil.
func usable(lits []string, _ bool) []string {
	if len(lits) == 0 || len(lits) > maxPrefixes || slices.Contains(lits, "") {
		return nil
	}
	return lits
}

// prefixes returns literals one of which every match of re starts with, and whether re matches
// exactly those; nil when unknown. With classes, a class of a few ASCII characters is those
// characters.
func prefixes(re *syntax.Regexp, classes bool) ([]string, bool) {
	switch re.Op {
	case syntax.OpCharClass:
		var out []string
		for i := 0; classes && i+1 < len(re.Rune) && len(out) <= maxPrefixes; i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1] && len(out) <= maxPrefixes; c++ {
				out = append(out, string(c))
			}
		}
		if len(out) == 0 || len(out) > maxPrefixes || out[len(out)-1][0] >= utf8.RuneSelf {
			return nil, false
		}
		return out, true
	case syntax.OpLiteral:
		// Folded case matches other bytes; U+FFFD also matches each invalid byte of the input.
		if re.Flags&syntax.FoldCase != 0 || slices.Contains(re.Rune, utf8.RuneError) {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCapture:
		return prefixes(re.Sub[0], classes)
	case syntax.OpAlternate:
		var out []string
		exact := true
		for _, sub := range re.Sub {
			l, e := prefixes(sub, classes)
			if l == nil {
				return nil, false
			}
			out, exact = append(out, l...), exact && e
		}
		return out, exact
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			l, e := prefixes(sub, classes)
			if l == nil {
				return out, false
			}
			if len(out)*len(l) > maxPrefixes {
				return out, false
			}
			var next []string
			for _, a := range out {
				for _, b := range l {
					next = append(next, a+b)
				}
			}
			out = next
			if !e {
				return out, false
			}
		}
		return out, true
	}
	return nil, false
}

// findAnchored is the leftmost match in s[pos:]: the first place a prefix occurs where the
// anchored pattern matches. Prefixes start with an ASCII or a UTF-8 leading byte, never inside a
// character, so each such place is one the regexp package's search tries too.
//
// A chain is matched by chainAt, with the state st (nil: a new one for this search).
func findAnchored[T input](r *Regexp, s T, pos int, groups bool, st *chainState) []int {
	var buf [maxPrefixes]int
	next := buf[:len(r.prefixes)] // where each prefix next occurs, from at
	for i := range next {
		next[i] = -1
	}
	failed := 0
	for at := pos; ; {
		c := -1
		for i, l := range r.prefixes {
			if next[i] < at && next[i] != len(s)+1 {
				if j := indexRare(s[at:], l, r.rare[i]); j >= 0 {
					next[i] = at + j
				} else {
					next[i] = len(s) + 1 // none left
				}
			}
			if next[i] <= len(s) && (c < 0 || next[i] < c) {
				c = next[i]
			}
		}
		if c < 0 {
			return nil
		}
		if r.chain != nil {
			if st == nil {
				// Made at the first candidate: most short inputs have none.
				caps := 2
				if groups {
					caps = 2 * (r.re.NumSubexp() + 1)
				}
				st = newChainState(r.chain, len(s)-pos, caps)
			}
			m, ok := chainAt(r.chain, s, c, st)
			if !ok {
				return shift(submatch(r.re, s[c:], groups), c)
			}
			if m != nil {
				return m
			}
			at = c + 1
			continue
		}
		if failed == maxFailed {
			return shift(submatch(r.re, s[c:], groups), c)
		}
		if m := submatch(r.anchored, s[c:], groups); m != nil {
			return shift(m, c)
		}
		failed++
		at = c + 1
	}
}
