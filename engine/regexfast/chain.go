package regexfast

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// A chain is a pattern whose match from a given start is decided by one forward scan, without
// backtracking: `<a href="([^"]+)"[^>]*><abbr`, `<span class="like_def[^"]*">([^<]+)</span>`,
// `<(?:a [^>]*aria-label="Open story"|div class="_5rgu|footer)`. Its pieces are literals,
// single characters of a class, and greedy runs of a class ([^"]+, [^>]*, \s*) that end where
// the class does: the run either stops at the first character outside its class and what
// follows starts there (the next literal starts with a character the class excludes, `[^"]+"`),
// or stops a fixed number of bytes before it (`[^>]*a>`: the literal's `a` is in the class, its
// `>` is not), or, last in the pattern, at the last place the final literal occurs before it
// (`[^>]*aria-label="Open story"`, every byte of which the class takes). Groups may surround any
// of these, and an alternation is tried branch by branch, each branch followed by the rest of
// the pattern (so the rest is duplicated into every branch, and a chain is a tree of sequences);
// an optional part of more than a character is the alternation of it and nothing. A counted run
// of a class (`[0-9]{9,11}`, `[^\[]{0,200}`) ends as a greedy run does where what follows starts
// outside its class, at most max characters on; a lazy one before the pattern's last literal
// (`.{0,600}?aria-label="Verified`) at that literal's first occurrence. A word boundary (\b, \B)
// is tested where it stands, on the whole input, anywhere but right after a run or an optional
// item (whose end it would decide).
//
// Why the answer is the regexp package's: its match is the leftmost, and among those at that
// start the one a backtracking search meets first, which tries a greedy run's longer spans
// first and an alternation's branches in order. Every shorter span of a run leaves a character
// of the class where what follows must start with one outside it, so the longest span is the
// only one that can succeed (the same holds for a lazy run, which tries the same single span);
// for a final literal inside the run's class, the longest span is the one before its last
// occurrence. So the match from a start is computed directly, and the starts tried are the
// places where one of the literals every match starts with occurs, in order (see findAnchored).
//
// The regexp package's search on a long input runs its NFA, about 100 ns a byte for as long as
// a thread is alive: `<a href="([^"]+)"[^>]*><abbr` keeps one alive through every link of a
// page. A chain compares a few bytes at each candidate and scans each run with a byte table.
//
// Linear by construction: a run's scan is remembered (where it started and the end it found),
// and a later try that enters the same run inside that stretch takes the end without scanning.
// The place a try enters an item is a non-decreasing function of the candidate it started from
// (literals add their length, a run's end does not move back as its start moves forward, each
// item has one path from the start since branches are copied), so the stretches one item scans
// do not overlap, and the bytes scanned are at most the input's length times the runs in the
// pattern. That bound is also checked as the scan goes (spent against budget): a search that
// spends it hands the rest to the regexp package, which is linear too.
type chain struct {
	seq  []item // the pattern's items, in order; an alternation is the last item of its sequence
	runs int    // the pattern's runs: each has its memo (item.id)
	// groups numbers the tree's groups as the pattern compiled from it does (a piece of a
	// staged pattern numbers its groups from 1).
	groups map[int]int
	tight  bool // tests: no budget, so that searches go to the regexp package
}

type itemKind uint8

const (
	iLit   itemKind = iota // a literal
	iClass                 // one character of a class
	iRun                   // a greedy run of a class
	iOpen                  // a group opens
	iClose                 // and closes
	iAlt                   // an alternation: the branches, each with the rest of the pattern
	iOpt                   // an optional literal or character, which what follows cannot start as
	iEnd                   // the input's end (\z, or $ without the m flag)
	iWord                  // a word boundary (\b), or with neg none (\B)
)

// How a run ends.
const (
	endStop  = iota // at the first character outside its class
	endBack         // back bytes before it: where the next literal starts
	endLast         // at the last occurrence of lit before it (the pattern's last literal)
	endFirst        // a lazy counted run: at the first occurrence of lit (the pattern's last literal)
)

type item struct {
	kind itemKind
	lit  string   // iLit, iOpt (or set); iRun with endLast: the literal
	set  *byteSet // iClass, iRun, iOpt (or lit)
	min  int      // iRun: 0 (*) or 1 (+); counted: characters
	lazy bool     // iRun: *? or +?
	// counted: an iRun of a counted repetition ({n,m}, [0-9]{9,11}, [^\[]{0,200}) of at least min
	// and at most max characters (max -1: no bound), scanned character by character at each try,
	// without the memo (its bound keeps a try short; the budget keeps the search linear).
	counted bool
	max     int
	neg     bool     // iWord: \B
	end     int      // iRun: endStop, endBack, endLast
	back    int      // iRun with endBack
	id      int      // iRun: its memo's index
	group   int      // iOpen, iClose
	alts    [][]item // iAlt
	// unset: for each branch, the slots of the groups it sets (a group it opens: start and end;
	// one opened before the alternation: its end), which are unset when the branch fails.
	unset [][]int
}

// byteSet is a class of characters every non-ASCII one of which it holds, or none: a byte says
// whether its character is in the class (an invalid byte is U+FFFD, non-ASCII too).
type byteSet struct {
	in [256]bool
	// stop is the only byte not in the class, or -1: the run's end is then an IndexByte.
	stop int
}

// maxChainItems bounds a chain's items, branches' copies of the rest included.
const maxChainItems = 128

// newChain returns the chain of a pattern, or nil when it is not one or when its matches need
// not start with a literal (no candidates to try).
func newChain(tree *syntax.Regexp) *chain {
	c := &chain{groups: map[int]int{}}
	var number func(*syntax.Regexp)
	number = func(re *syntax.Regexp) {
		if re.Op == syntax.OpCapture {
			c.groups[re.Cap] = len(c.groups) + 1
		}
		for _, sub := range re.Sub {
			number(sub)
		}
	}
	number(tree)
	n := 0
	seq, ok := c.sequence([]node{{re: tree}}, &n)
	if !ok || n > maxChainItems || !c.ends(seq) || !startsWithLiteral(seq) {
		return nil
	}
	c.seq = seq
	return c
}

// node is a pattern's part still to be made into items, or the close of a group.
type node struct {
	re    *syntax.Regexp
	close int // with re nil: the group that closes
}

// sequence makes the items of the nodes, in order; false when a part is not a chain's.
func (c *chain) sequence(work []node, n *int) ([]item, bool) {
	var out []item
	for len(work) > 0 {
		if *n++; *n > maxChainItems {
			return nil, false
		}
		nd := work[0]
		work = work[1:]
		if nd.re == nil {
			out = append(out, item{kind: iClose, group: nd.close})
			continue
		}
		re := nd.re
		switch re.Op {
		case syntax.OpEmptyMatch:
		case syntax.OpEndText:
			out = append(out, item{kind: iEnd})
		case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			// Tested where it stands, against the input around it: chainAt matches on the whole
			// input (what follows a run never starts with one: see ends).
			out = append(out, item{kind: iWord, neg: re.Op == syntax.OpNoWordBoundary})
		case syntax.OpConcat:
			subs := make([]node, 0, len(re.Sub)+len(work))
			for _, s := range re.Sub {
				subs = append(subs, node{re: s})
			}
			work = append(subs, work...)
		case syntax.OpCapture:
			g := c.groups[re.Cap]
			out = append(out, item{kind: iOpen, group: g})
			work = append([]node{{re: re.Sub[0]}, {close: g}}, work...)
		case syntax.OpLiteral:
			if re.Flags&syntax.FoldCase != 0 {
				return nil, false
			}
			for _, r := range re.Rune {
				if r == utf8.RuneError || !utf8.ValidRune(r) {
					return nil, false // U+FFFD also matches an invalid byte
				}
			}
			out = append(out, item{kind: iLit, lit: string(re.Rune)})
		case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			set := classSet(re)
			if set == nil {
				return nil, false
			}
			out = append(out, item{kind: iClass, set: set})
		case syntax.OpStar, syntax.OpPlus:
			set := classSet(re.Sub[0])
			if set == nil {
				return nil, false
			}
			it := item{kind: iRun, set: set, lazy: re.Flags&syntax.NonGreedy != 0, id: c.runs}
			if re.Op == syntax.OpPlus {
				it.min = 1
			}
			c.runs++
			out = append(out, it)
		case syntax.OpRepeat:
			set := classSet(re.Sub[0])
			if set == nil {
				return nil, false
			}
			it := item{kind: iRun, set: set, lazy: re.Flags&syntax.NonGreedy != 0, id: c.runs,
				counted: true, min: re.Min, max: re.Max}
			c.runs++
			out = append(out, it)
		case syntax.OpQuest:
			// A literal or a character, checked as one; what follows is checked in ends.
			if re.Flags&syntax.NonGreedy != 0 {
				return nil, false
			}
			sub, ok := c.sequence([]node{{re: re.Sub[0]}}, n)
			if !ok {
				return nil, false
			}
			if len(sub) != 1 || sub[0].kind != iLit && sub[0].kind != iClass {
				// More than that, `(?:\\*&quot;|\\*")?`: the alternation of it and nothing, which
				// a backtracking search tries in that order too.
				alt := &syntax.Regexp{Op: syntax.OpAlternate, Sub: []*syntax.Regexp{re.Sub[0], {Op: syntax.OpEmptyMatch}}}
				work = append([]node{{re: alt}}, work...)
				continue
			}
			out = append(out, item{kind: iOpt, lit: sub[0].lit, set: sub[0].set})
		case syntax.OpAlternate:
			alt := item{kind: iAlt}
			for _, s := range re.Sub {
				branch, ok := c.sequence(append([]node{{re: s}}, work...), n)
				if !ok {
					return nil, false
				}
				alt.alts = append(alt.alts, branch)
				alt.unset = append(alt.unset, slotsSet(branch))
			}
			return append(out, alt), true
		default: // repetitions of more than a character, counted ones, ?, assertions
			return nil, false
		}
	}
	return out, true
}

// classSet is the byteSet of a character class (or a single case-sensitive character), nil
// when it holds some non-ASCII characters and not others.
func classSet(re *syntax.Regexp) *byteSet {
	var ranges []rune
	switch re.Op {
	case syntax.OpCharClass:
		ranges = re.Rune
	case syntax.OpAnyChar:
		ranges = []rune{0, utf8.MaxRune}
	case syntax.OpAnyCharNotNL:
		ranges = []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}
	case syntax.OpLiteral:
		if len(re.Rune) != 1 || re.Flags&syntax.FoldCase != 0 || re.Rune[0] >= utf8.RuneSelf {
			return nil
		}
		ranges = []rune{re.Rune[0], re.Rune[0]}
	default:
		return nil
	}
	s := &byteSet{stop: -1}
	high := 0 // how many characters from 0x80 on the class holds (its ranges do not overlap)
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for r := lo; r <= hi && r < utf8.RuneSelf; r++ {
			s.in[r] = true
		}
		if hi >= utf8.RuneSelf {
			high += int(hi - max(lo, utf8.RuneSelf) + 1)
		}
	}
	switch high {
	case 0:
	case utf8.MaxRune - utf8.RuneSelf + 1:
		for b := utf8.RuneSelf; b < 256; b++ {
			s.in[b] = true
		}
	default:
		return nil
	}
	for b := range 256 {
		if !s.in[b] {
			if s.stop >= 0 {
				s.stop = -1
				break
			}
			s.stop = b
		}
	}
	return s
}

// has reports whether the character that starts with byte b is in the class.
func (s *byteSet) has(b byte) bool { return s.in[b] }

func (s *byteSet) disjoint(o *byteSet) bool {
	for b := range 256 {
		if s.in[b] && o.in[b] {
			return false
		}
	}
	return true
}

// ends decides how each run of seq (and of its branches) ends, from what follows it; false
// when that is not decided by the run's class alone.
func (c *chain) ends(seq []item) bool {
	for i := range seq {
		it := &seq[i]
		if it.kind == iAlt {
			for _, b := range it.alts {
				if !c.ends(b) {
					return false
				}
			}
			continue
		}
		if it.kind != iRun && it.kind != iOpt {
			continue
		}
		j := i + 1
		for j < len(seq) && (seq[j].kind == iOpen || seq[j].kind == iClose) {
			j++
		}
		if it.counted {
			if !countedEnds(it, seq[j:]) {
				return false
			}
			continue
		}
		if it.kind == iOpt {
			// Taken where it occurs: what follows could not match there anyway.
			if !optionalFirst(it, seq[j:]) {
				return false
			}
			continue
		}
		if j == len(seq) {
			// The pattern ends: the longest span (a lazy run would take the shortest).
			if it.lazy {
				return false
			}
			it.end = endStop
			continue
		}
		if next := seq[j]; next.kind == iLit {
			back := 0
			for back < len(next.lit) && it.set.has(next.lit[back]) {
				_, w := utf8.DecodeRuneInString(next.lit[back:])
				back += w
			}
			switch {
			case back < len(next.lit):
				it.end, it.back = endBack, back
			case !it.lazy && onlyCloses(seq[j+1:]):
				it.end, it.lit = endLast, next.lit
			default:
				return false
			}
			continue
		}
		if !startsOutside(seq[j:], it.set) {
			return false
		}
		it.end = endStop
	}
	return true
}

// optionalFirst reports whether what follows the optional item opt (rest) cannot match where
// opt does: then opt is taken wherever it matches, as a backtracking search would first try.
func optionalFirst(opt *item, rest []item) bool {
	if len(rest) > 0 && rest[0].kind == iWord {
		return false
	}
	if opt.set != nil {
		return startsOutside(rest, opt.set)
	}
	if len(rest) > 0 && rest[0].kind == iLit {
		n := min(len(rest[0].lit), len(opt.lit))
		return rest[0].lit[:n] != opt.lit[:n]
	}
	first := &byteSet{stop: -1}
	first.in[opt.lit[0]] = true
	return startsOutside(rest, first)
}

// countedEnds decides how a counted run ends from what follows it (rest): at the first character
// outside its class or its max-th character, the longest span, when what follows is nothing or
// starts outside the class (a shorter span leaves a character of the class where it must start);
// lazy, only before the pattern's last literal, at its first occurrence (the shortest span, the
// first a backtracking search tries).
func countedEnds(it *item, rest []item) bool {
	if len(rest) > 0 && rest[0].kind == iLit && onlyCloses(rest[1:]) && it.lazy && it.max >= 0 {
		it.end, it.lit = endFirst, rest[0].lit
		return true
	}
	if it.lazy {
		return false
	}
	if len(rest) > 0 && rest[0].kind == iLit {
		it.end = endStop
		return !it.set.has(rest[0].lit[0])
	}
	it.end = endStop
	return startsOutside(rest, it.set)
}

func onlyCloses(seq []item) bool {
	for _, it := range seq {
		if it.kind != iClose {
			return false
		}
	}
	return true
}

// startsOutside reports whether seq's match starts with a character outside set, or is empty.
func startsOutside(seq []item, set *byteSet) bool {
	for _, it := range seq {
		switch it.kind {
		case iOpen, iClose:
			continue
		case iWord:
			return false // decided by the characters around it, not the next one alone
		case iLit:
			return !set.has(it.lit[0])
		case iClass:
			return set.disjoint(it.set)
		case iRun, iOpt:
			if it.kind == iOpt && it.set == nil {
				if set.has(it.lit[0]) {
					return false
				}
			} else if !set.disjoint(it.set) {
				return false
			}
			if it.kind == iRun && it.min > 0 {
				return true
			}
			// An empty run, or no optional item: what follows starts the match.
		case iAlt:
			for _, b := range it.alts {
				if !startsOutside(b, set) {
					return false
				}
			}
			return true
		}
	}
	return true
}

// startsWithLiteral reports whether every match of seq starts with a literal or a class: a chain
// is tried where its literals (or the class's few characters: see candidates) occur.
func startsWithLiteral(seq []item) bool {
	for _, it := range seq {
		switch it.kind {
		case iOpen, iClose:
			continue
		case iLit, iClass:
			return true
		case iAlt:
			for _, b := range it.alts {
				if !startsWithLiteral(b) {
					return false
				}
			}
			return true
		}
		return false
	}
	return false
}

// chainState is what a search remembers of the input between tries: each run's last scan.
type chainState struct {
	memo   []runMemo
	caps   []int
	spent  int // bytes scanned
	budget int
	// Room for the memo and caps of most chains, in the state's one allocation: a chain is tried
	// on short inputs too (a link, an attribute), where these were most of a search's cost.
	memoBuf [4]runMemo
	capsBuf [8]int
}

// runMemo: from from, the run's class holds every character up to to, where it stops (or the
// input ends); last is where the run's literal last occurs in between (endLast), or -1.
type runMemo struct{ from, to, last int }

func newChainState(c *chain, n, caps int) *chainState {
	st := &chainState{budget: (c.runs + 1) * n}
	if c.runs <= len(st.memoBuf) {
		st.memo = st.memoBuf[:c.runs]
	} else {
		st.memo = make([]runMemo, c.runs)
	}
	if caps <= len(st.capsBuf) {
		st.caps = st.capsBuf[:caps]
	} else {
		st.caps = make([]int, caps)
	}
	if c.tight {
		st.budget = 0
	}
	for i := range st.memo {
		st.memo[i] = runMemo{from: -1, to: -1, last: -1}
	}
	return st
}

// at is the chain's match starting at c, with its groups when caps has room for them (st.caps
// is reused: copied out); nil for none. ok is false when the search spent its budget.
func chainAt[T input](ch *chain, s T, c int, st *chainState) (m []int, ok bool) {
	for i := range st.caps {
		st.caps[i] = -1
	}
	end := matchSeq(ch.seq, s, c, st)
	if st.spent > st.budget {
		return nil, false
	}
	if end < 0 {
		return nil, true
	}
	st.caps[0], st.caps[1] = c, end
	return slices.Clone(st.caps), true
}

// matchSeq matches the items from p on: where the match ends, or -1.
func matchSeq[T input](seq []item, s T, p int, st *chainState) int {
	for i := range seq {
		it := &seq[i]
		switch it.kind {
		case iLit:
			if !hasPrefixAt(s, p, it.lit) {
				return -1
			}
			p += len(it.lit)
		case iClass:
			if p >= len(s) || !it.set.has(s[p]) {
				return -1
			}
			p += runeLen(s, p)
		case iRun:
			if p = runEnd(it, s, p, st); p < 0 {
				return -1
			}
		case iOpen:
			if 2*it.group < len(st.caps) {
				st.caps[2*it.group] = p
			}
		case iClose:
			if 2*it.group < len(st.caps) {
				st.caps[2*it.group+1] = p
			}
		case iEnd:
			if p != len(s) {
				return -1
			}
		case iWord:
			if wordBoundary(s, p) == it.neg {
				return -1
			}
		case iOpt:
			switch {
			case it.set == nil:
				if hasPrefixAt(s, p, it.lit) {
					p += len(it.lit)
				}
			case p < len(s) && it.set.has(s[p]):
				p += runeLen(s, p)
			}
		case iAlt:
			for i, b := range it.alts {
				if end := matchSeq(b, s, p, st); end >= 0 {
					return end
				}
				for _, slot := range it.unset[i] {
					if slot < len(st.caps) {
						st.caps[slot] = -1
					}
				}
			}
			return -1
		}
	}
	return p
}

// runEnd is where the run that starts at p ends, or -1 when it cannot.
func runEnd[T input](it *item, s T, p int, st *chainState) int {
	if it.counted {
		return countedEnd(it, s, p, st)
	}
	m := &st.memo[it.id]
	if p < m.from || p > m.to {
		q := p
		if it.set.stop >= 0 {
			if j := indexByte(s[p:], byte(it.set.stop)); j >= 0 {
				q += j
			} else {
				q = len(s)
			}
		} else {
			for q < len(s) && it.set.has(s[q]) {
				q++
			}
		}
		*m = runMemo{from: p, to: q, last: -1}
		st.spent += q - p
		if it.end == endLast {
			if j := lastIndex(s[p:q], it.lit); j >= 0 {
				m.last = p + j
			}
			st.spent += q - p
		}
	}
	switch it.end {
	case endStop:
		if m.to-p < it.min {
			return -1
		}
		return m.to
	case endBack:
		if t := m.to - it.back; t >= p+it.min {
			return t
		}
		return -1
	}
	if m.last >= p+it.min {
		return m.last
	}
	return -1
}

// countedEnd is runEnd for a counted run: its characters counted one by one, as the regexp
// package counts them (an invalid byte is one).
func countedEnd[T input](it *item, s T, p int, st *chainState) int {
	q := p
	defer func() { st.spent += q - p }()
	for k := 0; ; k++ {
		if it.end == endFirst && k >= it.min && hasPrefixAt(s, q, it.lit) {
			return q
		}
		if k == it.max || q >= len(s) || !it.set.has(s[q]) {
			if it.end == endFirst || k < it.min {
				return -1
			}
			return q
		}
		q += runeLen(s, q)
	}
}

// wordBoundary reports whether p is between a word character (ASCII letter, digit, _) and another
// character or an end of the input, as \b is; a byte from 0x80 on is never one's start.
func wordBoundary[T input](s T, p int) bool {
	before := p > 0 && isWordByte(s[p-1])
	return before != (p < len(s) && isWordByte(s[p]))
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// slotsSet lists the slots of caps a sequence may set.
func slotsSet(seq []item) []int {
	var out []int
	for _, it := range seq {
		switch it.kind {
		case iOpen:
			out = append(out, 2*it.group, 2*it.group+1)
		case iClose:
			out = append(out, 2*it.group+1)
		case iAlt:
			for _, u := range it.unset {
				out = append(out, u...)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func hasPrefixAt[T input](s T, at int, lit string) bool {
	if len(s)-at < len(lit) {
		return false
	}
	for i := range len(lit) {
		if s[at+i] != lit[i] {
			return false
		}
	}
	return true
}

// runeLen is the length of the character at p, as the regexp package decodes it (an invalid
// byte is one character).
func runeLen[T input](s T, p int) int {
	if s[p] < utf8.RuneSelf {
		return 1
	}
	switch x := any(s).(type) {
	case string:
		_, w := utf8.DecodeRuneInString(x[p:])
		return w
	case []byte:
		_, w := utf8.DecodeRune(x[p:])
		return w
	}
	panic("unreachable")
}
