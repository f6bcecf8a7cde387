package xpatheval

import (
	"regexp"
	"strings"
	"unsafe"

	"asa/engine/regexfast"
)

// Rules, regex selectors and script markers search whole response bodies, often a megabyte of
// HTML. bytes.Index and the regexp package look for a needle's first byte, and needles that start
// with '"', '/' or a lower-case letter stop at nearly every byte of HTML. A literal search here
// anchors instead on the needle's rarest byte in typical HTML (memchr on the rare byte, then
// compare), which skips almost all of the body; a regular expression with a literal prefix first
// jumps to the prefix's first occurrence the same way.

// Literal is a byte string searched by its rarest byte (regexfast.IndexBytesAt, which chooses
// another byte when the page turns out to be full of that one).
type Literal struct {
	s    string
	rare int // index in s of its rarest byte
}

// NewLiteral returns s searched by its rarest byte; nil for an empty s.
func NewLiteral(s string) *Literal {
	if s == "" {
		return nil
	}
	return &Literal{s: s, rare: regexfast.Rarest(s)}
}

// Index returns the first offset of l in b, or -1.
func (l *Literal) Index(b []byte) int { return regexfast.IndexBytesAt(b, l.s, l.rare) }

// BodyRegexp is a regular expression searched over bodies, prefiltered by its literal prefix.
type BodyRegexp struct {
	re     *regexp.Regexp
	fast   *regexfast.Regexp
	prefix *Literal
}

// NewBodyRegexp returns re with its literal prefix searched by its rarest byte; nil for a nil re.
func NewBodyRegexp(re *regexp.Regexp) *BodyRegexp {
	if re == nil {
		return nil
	}
	br := &BodyRegexp{re: re, fast: regexfast.New(re)}
	// Flags such as (?i) change what the prefix matches; LiteralPrefix accounts for them.
	if p, _ := re.LiteralPrefix(); len(p) >= 3 {
		br.prefix = NewLiteral(p)
	}
	return br
}

// Start returns where a match can begin at the earliest, or -1 when there is none.
func (br *BodyRegexp) Start(b []byte) int {
	if br.prefix == nil {
		return 0
	}
	return br.prefix.Index(b)
}

// Match reports whether the body matches.
func (br *BodyRegexp) Match(b []byte) bool {
	i := br.Start(b)
	return i >= 0 && br.re.Match(b[i:])
}

// FindSubmatch returns the first match and its groups, like Regexp.FindSubmatch.
func (br *BodyRegexp) FindSubmatch(b []byte) [][]byte {
	i := br.Start(b)
	if i < 0 {
		return nil
	}
	return br.re.FindSubmatch(b[i:])
}

// FindAllSubmatch returns up to n matches with their groups.
func (br *BodyRegexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	i := br.Start(b)
	if i < 0 {
		return nil
	}
	return br.re.FindAllSubmatch(b[i:], n)
}

// rareString is a literal searched for in short strings (attribute values, a node's text) by its
// rarest byte: contains(@class, 's-video') runs on every element of every result card, and class
// values are full of the 's' and '-' a first-byte search stops at.
type rareString struct {
	s    string
	rare int
}

func newRareString(s string) rareString {
	if s == "" {
		return rareString{}
	}
	return rareString{s: s, rare: regexfast.Rarest(s)}
}

// in reports whether r.s occurs in v.
func (r rareString) in(v string) bool { return r.index(v) >= 0 }

// index returns the offset of the first r.s in v, or -1.
func (r rareString) index(v string) int {
	n := len(r.s)
	if n == 0 {
		return 0
	}
	if len(v) < n {
		return -1
	}
	c, last := r.s[r.rare], len(v)-n+r.rare
	for i := r.rare; i <= last; {
		j := strings.IndexByte(v[i:last+1], c)
		if j < 0 {
			return -1
		}
		i += j
		if v[i-r.rare:i-r.rare+n] == r.s {
			return i - r.rare
		}
		i++
	}
	return -1
}

// inBytes is in for a byte slice (the joined attribute values of a list item, see absent.go),
// read in place: v does not change during the call.
func (r rareString) inBytes(v []byte) bool {
	if len(v) == 0 {
		return r.in("")
	}
	return r.in(unsafe.String(&v[0], len(v)))
}

// Regexp returns the regular expression.
func (br *BodyRegexp) Regexp() *regexp.Regexp { return br.re }

// Fast returns the regular expression run by engine/regexfast, which answers as the regexp
// package does, faster on long bodies for some patterns (those cut by lazy wildcards, those
// whose matches start with one of a few literals).
func (br *BodyRegexp) Fast() *regexfast.Regexp { return br.fast }
