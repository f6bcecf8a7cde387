package htmlparse

import (
	"bytes"
	"slices"
	"testing"
	"unicode/utf8"
)

// unescapeGeneral is unescape before numericRef: every reference read by unescapeEntity.
func unescapeGeneral(b []byte, attribute bool) []byte {
	firstAmp := slices.Index(b, '&')
	if firstAmp == -1 {
		return b
	}
	out := b[:firstAmp]
	src := firstAmp
	reusingB := true
	for src < len(b) {
		if b[src] != '&' {
			out = append(out, b[src])
			src++
			continue
		}
		r1, r2, n := unescapeEntity(b[src:], attribute)
		if n == 1 && r1 == '&' {
			out = append(out, '&')
			src++
			continue
		}
		replLen := utf8.RuneLen(r1)
		if r2 != 0 {
			replLen += utf8.RuneLen(r2)
		}
		if replLen > n {
			if reusingB {
				out = slices.Clone(out)
				reusingB = false
			}
			out = slices.Grow(out, replLen)
		}
		out = utf8.AppendRune(out, r1)
		if r2 != 0 {
			out = utf8.AppendRune(out, r2)
		}
		src += n
	}
	return out
}

// checkNumericRef holds numericRef to unescapeEntity on s, and unescape to unescapeGeneral.
func checkNumericRef(t *testing.T, s []byte) {
	t.Helper()
	if len(s) > 0 && s[0] == '&' {
		if r, n := numericRef(s); n > 0 {
			for _, attr := range []bool{false, true} {
				r1, r2, n1 := unescapeEntity(s, attr)
				if r1 != r || r2 != 0 || n1 != n {
					t.Fatalf("numericRef(%q) = %q, %d; unescapeEntity = %q, %q, %d", s, r, n, r1, r2, n1)
				}
			}
			if utf8.RuneLen(r) > n {
				t.Fatalf("numericRef(%q): %q is longer than its reference", s, r)
			}
		}
	}
	for _, attr := range []bool{false, true} {
		got := unescape(bytes.Clone(s), attr)
		want := unescapeGeneral(bytes.Clone(s), attr)
		if !bytes.Equal(got, want) {
			t.Fatalf("unescape(%q, %v) = %q, want %q", s, attr, got, want)
		}
	}
}

func TestNumericRef(t *testing.T) {
	for _, s := range []string{
		"&#x9AD8;", "&#X9ad8;", "&#233;", "&#9;", "&#65;", "&#128;", "&#x80;", "&#x9F;", "&#159;",
		"&#160;", "&#0;", "&#x0;", "&#xD800;", "&#xDFFF;", "&#55296;", "&#x10FFFF;", "&#1114111;",
		"&#x110000;", "&#1114112;", "&#x0009AD8;", "&#00000065;", "&#0000065;", "&#x000041;",
		"&#x;", "&#;", "&#", "&#x", "&#x9AD8", "&#233", "&#x9AD8 ", "&#12a;", "&#xG;", "&amp;",
		"&#x1F600;", "&#128512;", "&#2048;", "&#x800;", "&#65536;", "&#x7FF;", "&#2047;",
		"&#x9AD8;&#x6728;&#x6D69;&#x5149;", "a&#x9AD8;b&lt;&#233c&#x1F600;", "&#x9AD8;&amp",
		"x&#128;&#x9AD8;&notit;&#65;", "&#99999999;", "&#xFFFFFFF;", "&#xFFFFFFFFFF;",
	} {
		checkNumericRef(t, []byte(s))
	}
	// Every character a reference may name, in hex and decimal, with and without its ';'.
	step := rune(1)
	if raceDetector {
		step = 97
	}
	var buf []byte
	for r := rune(0); r <= 0x110001; r += step {
		for _, form := range []string{"&#x%X;", "&#%d;", "&#x%x", "&#%d"} {
			buf = fmtRef(buf[:0], form, r)
			if r, n := numericRef(buf); n > 0 {
				r1, r2, n1 := unescapeEntity(buf, false)
				if r1 != r || r2 != 0 || n1 != n {
					t.Fatalf("numericRef(%q) = %q, %d; unescapeEntity = %q, %q, %d", buf, r, n, r1, r2, n1)
				}
			}
		}
	}
}

// fmtRef writes r as form says (hex upper, hex lower without ';', decimal with or without it)
// without fmt, which would be most of the test's time.
func fmtRef(b []byte, form string, r rune) []byte {
	const hexDigits = "0123456789ABCDEF"
	b = append(b, '&', '#')
	var digits [16]byte
	i := len(digits)
	base := rune(10)
	if form[2] == 'x' {
		b, base = append(b, 'x'), 16
	}
	for v := r; ; v /= base {
		i--
		digits[i] = hexDigits[v%base]
		if v < base {
			break
		}
	}
	b = append(b, digits[i:]...)
	if form[len(form)-1] == ';' {
		b = append(b, ';')
	}
	return b
}

func FuzzNumericRef(f *testing.F) {
	for _, s := range []string{"&#x9AD8;", "&#233;a", "a&#x10FFFF;&#1114112;&lt;", "&#x0009AD8;", "&#128;&#159;&#160;"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkNumericRef(t, b)
	})
}
