package regexfast

import (
	"regexp"
	"regexp/syntax"
	"unicode"
)

// minSplit is the input length from which a pattern with break bytes is searched piece by piece.
// Below it, the regexp package's backtracker already runs on the whole input; above it, the
// pattern is matched by its slower NFA, which on a whole article's body costs more than parsing
// the page did.
const minSplit = 1024

// asciiSet is a set of ASCII bytes.
type asciiSet [2]uint64

func (s *asciiSet) add(b rune) {
	if b >= 0 && b < 128 {
		s[b>>6] |= 1 << (b & 63)
	}
}

func (s *asciiSet) has(b byte) bool { return b < 128 && s[b>>6]&(1<<(b&63)) != 0 }

// breakBytes returns the ASCII bytes no match of re can contain, or nil when there are none or
// when re's matches depend on more than the text they cover. A text cut at those bytes then has
// exactly re's matches in its pieces: a match cannot straddle a cut, and the leftmost-first
// match at a position is the same whether the text goes on with a byte no match contains or
// ends there, as long as the pattern asserts nothing about what surrounds it (^, $, \A, \z, \b,
// \B) and never matches the empty string (FindAll's rule for empty matches looks at the previous
// match). An ASCII byte is never part of another character's UTF-8 encoding, so the cut never
// changes how the text around it decodes, invalid bytes included.
//
// A pattern with a literal prefix is left whole: the regexp package skips to its prefix's
// occurrences, which beats any cutting.
func breakBytes(re *regexp.Regexp) *asciiSet {
	if p, _ := re.LiteralPrefix(); p != "" {
		return nil
	}
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil || re.MatchString("") {
		return nil
	}
	var in asciiSet
	if !matchable(t, &in) {
		return nil
	}
	out := asciiSet{^in[0], ^in[1]}
	if out == (asciiSet{}) {
		return nil
	}
	return &out
}

// matchable adds to in every ASCII byte a match of t may contain; false when t asserts something
// about a match's surroundings.
func matchable(t *syntax.Regexp, in *asciiSet) bool {
	switch t.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch:
	case syntax.OpLiteral:
		for _, r := range t.Rune {
			in.add(r)
			if t.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					in.add(f)
				}
			}
		}
	case syntax.OpCharClass:
		for i := 0; i+1 < len(t.Rune); i += 2 {
			for r := t.Rune[i]; r <= t.Rune[i+1] && r < 128; r++ {
				in.add(r)
			}
		}
	case syntax.OpAnyCharNotNL:
		*in = asciiSet{^uint64(0), ^uint64(0)}
		in[0] &^= 1 << '\n'
	case syntax.OpAnyChar:
		*in = asciiSet{^uint64(0), ^uint64(0)}
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat, syntax.OpConcat, syntax.OpAlternate:
		for _, s := range t.Sub {
			if !matchable(s, in) {
				return false
			}
		}
	default: // ^, $, \A, \z, \b, \B
		return false
	}
	return true
}

// findAllSplit is FindAllStringSubmatchIndex on s cut at r.breaks: the pieces are short enough
// for the regexp package's backtracker, and a piece seen before (a text repeats its words) has
// the matches it had, without searching it again.
func (r *Regexp) findAllSplit(s string, n int) [][]int {
	seen := map[string][][]int{} // a piece's matches, as offsets in the piece
	total := 0
	r.eachPiece(s, func(_ int, piece string) bool {
		found, ok := seen[piece]
		if !ok {
			found = pieceMatches(r, piece, func(_ string, at int, m []int) []int { return shift(m, at) })
			seen[piece] = found
		}
		total += len(found)
		return n < 0 || total < n
	})
	if n >= 0 {
		total = min(total, n)
	}
	if total == 0 {
		return nil
	}
	// Counted first, so that the answer is allocated once: a text of words has nearly a match
	// a piece, and growing the list as it went allocated twice the bytes of the answer.
	out := make([][]int, 0, total)
	width := 2 * (r.re.NumSubexp() + 1)
	flat := make([]int, total*width)
	r.eachPiece(s, func(start int, piece string) bool {
		for _, m := range seen[piece] {
			if len(out) == total {
				return false
			}
			// A copy: the same piece elsewhere in s has the same matches at other offsets.
			c := flat[:width:width]
			copy(c, m)
			out = append(out, shift(c, start))
			flat = flat[width:]
		}
		return len(out) < total
	})
	return out
}

// pieceMatches is f of each match in piece, in order. A search from the end of the last match
// sees what FindAll's next search would: the pattern looks at nothing outside its match, and
// matches are never empty, so the search moves on.
func pieceMatches[T any](r *Regexp, piece string, f func(s string, at int, m []int) T) []T {
	var out []T
	for p := 0; p < len(piece); {
		m := r.re.FindStringSubmatchIndex(piece[p:])
		if m == nil {
			break
		}
		end := p + m[1] // before f, which may shift m
		out = append(out, f(piece[p:], p, m))
		p = end
	}
	return out
}

// FindAllFunc is f of each match of r in s, in the order of FindAllStringSubmatchIndex(s, -1),
// where f(t, m) reads the match through offsets m in t; an empty, non-nil list when there is
// none. f must answer from the text m points at alone: on an input cut at break bytes, t is the
// rest of a piece, and f's answers for a piece seen before are reused. This spares a caller
// that wants a value a match (reFindAll's strings) the copy of every match's offsets that
// FindAllStringSubmatchIndex makes, and the value for each repeated word.
func FindAllFunc[T any](r *Regexp, s string, f func(t string, m []int) T) []T {
	if r.breaks == nil || len(s) < r.minLen {
		ms := r.FindAllStringSubmatchIndex(s, -1)
		out := make([]T, len(ms))
		for i, m := range ms {
			out[i] = f(s, m)
		}
		return out
	}
	out := []T{}
	seen := map[string][]T{}
	r.eachPiece(s, func(_ int, piece string) bool {
		found, ok := seen[piece]
		if !ok {
			found = pieceMatches(r, piece, func(t string, _ int, m []int) T { return f(t, m) })
			seen[piece] = found
		}
		out = append(out, found...)
		return true
	})
	return out
}

// eachPiece calls f with each non-empty piece of s between break bytes and where it starts, in
// order, until f returns false.
func (r *Regexp) eachPiece(s string, f func(start int, piece string) bool) {
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !r.breaks.has(s[i]) {
			continue
		}
		if start < i && !f(start, s[start:i]) {
			return
		}
		start = i + 1
	}
}
