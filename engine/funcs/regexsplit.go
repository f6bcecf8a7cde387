package funcs

import (
	"regexp"
	"regexp/syntax"
	"unicode"

	"asa/engine/regexfast"
)

// minSplitLen is the text length from which reFindAll searches piece by piece (see breakBytes).
// Below it, the standard library's backtracker already runs on the whole text; above it, a
// pattern is matched by its slower NFA, which on a whole article's body costs more than parsing
// the page did.
const minSplitLen = 1024

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
// A pattern with a literal prefix is left whole: the standard library skips to its prefix's
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

// findAll is reFindAll's answer: the first group that took part in each match of re in s, or the
// whole match (firstGroup), in order. A long s with breaks (see breakBytes) is searched piece by
// piece: the pieces are short enough for the standard library's backtracker, and a piece seen
// before (a text repeats its words) has the matches it had, without searching it again.
func findAll(re *regexfast.Regexp, breaks *asciiSet, s string) []any {
	if breaks == nil || len(s) < minSplitLen {
		ms := re.FindAllStringSubmatchIndex(s, -1)
		out := make([]any, len(ms))
		for i, m := range ms {
			out[i] = firstGroup(s, m)
		}
		return out
	}
	var out []any
	seen := map[string][]any{}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && !breaks.has(s[i]) {
			continue
		}
		if piece := s[start:i]; piece != "" {
			found, ok := seen[piece]
			if !ok {
				// A search from the end of the last match sees what FindAll's next search would:
				// the pattern looks at nothing outside its match, and matches are never empty,
				// so p moves on.
				for p := 0; p < len(piece); {
					m := re.Regexp().FindStringSubmatchIndex(piece[p:])
					if m == nil {
						break
					}
					found = append(found, firstGroup(piece[p:], m))
					p += m[1]
				}
				seen[piece] = found
			}
			out = append(out, found...)
		}
		start = i + 1
	}
	if out == nil {
		out = []any{}
	}
	return out
}
