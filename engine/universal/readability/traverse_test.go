package readability

import (
	"testing"
	"unicode"
)

// runeCounts is upstream's charCounter and commaCounter, rune by rune: what scanText, add and join
// must give.
type runeCounts struct {
	total, commas        int
	lastSpace, seenNonSp bool
}

func (c *runeCounts) count(s string) {
	for _, r := range s {
		switch r {
		case '\u002C', '\u060C', '\uFE50', '\uFE10', '\uFE11', '\u2E41', '\u2E34', '\u2E32', '\uFF0C':
			c.commas++
		}
		if unicode.IsSpace(r) {
			c.lastSpace = true
			continue
		}
		if c.lastSpace && c.seenNonSp {
			c.total += 2
		} else {
			c.total++
		}
		c.lastSpace, c.seenNonSp = false, true
	}
}

// FuzzScanText: a counter fed a, then b, counts what upstream's counted rune by rune, whether it
// adds the runs of a and b one after the other or their join.
func FuzzScanText(f *testing.F) {
	for _, s := range []string{"", " ", "a", " a b ", "a,b ,c", "\u00a0x\u3000y\u060c", "\xff \xfe", "x\u0085y", "  ", "ab  cd\n\tef "} {
		f.Add(s, " "+s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var want runeCounts
		want.count(a)
		want.count(b)
		ta, tb := scanText(a), scanText(b)
		var c charCounter
		c.add(ta)
		c.add(tb)
		var j charCounter
		tj := join(ta, tb)
		j.add(tj)
		if c.Total != want.total || j.Total != want.total || ta.commas+tb.commas != want.commas || tj.commas != want.commas {
			t.Fatalf("%q + %q: want %d chars %d commas, got %d (added) %d (joined), %d commas", a, b, want.total, want.commas, c.Total, j.Total, tj.commas)
		}
		if c.lastCharWasSpace != want.lastSpace || c.seenNonSpace != want.seenNonSp {
			t.Fatalf("%q + %q: counter state differs", a, b)
		}
	})
}

// TestIsSpaceMultiByte: isSpaceMultiByte is unicode.IsSpace on every rune it is given (from U+0080).
func TestIsSpaceMultiByte(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune+1; r++ {
		if got, want := isSpaceMultiByte(r), unicode.IsSpace(r); got != want {
			t.Errorf("U+%04X: %v, unicode.IsSpace %v", r, got, want)
		}
	}
}
