// Copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package htmlparse

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// These replacements permit compatibility with old numeric entities that
// assumed Windows-1252 encoding.
// https://html.spec.whatwg.org/multipage/syntax.html#consume-a-character-reference
var replacementTable = [...]rune{
	'\u20AC', // First entry is what 0x80 should be replaced with.
	'\u0081',
	'\u201A',
	'\u0192',
	'\u201E',
	'\u2026',
	'\u2020',
	'\u2021',
	'\u02C6',
	'\u2030',
	'\u0160',
	'\u2039',
	'\u0152',
	'\u008D',
	'\u017D',
	'\u008F',
	'\u0090',
	'\u2018',
	'\u2019',
	'\u201C',
	'\u201D',
	'\u2022',
	'\u2013',
	'\u2014',
	'\u02DC',
	'\u2122',
	'\u0161',
	'\u203A',
	'\u0153',
	'\u009D',
	'\u017E',
	'\u0178', // Last entry is 0x9F.
	// 0x00->'\uFFFD' is handled programmatically.
	// 0x0D->'\u000D' is a no-op.
}

// unescapeEntity attempts to consume a character reference from s[src:],
// returning the rune, potential second rune, and number of bytes consumed
// (which indicates the length of the character reference). It is assumed that
// the first byte of s is '&'. attribute should be true if parsing an attribute
// value.
func unescapeEntity(s []byte, attribute bool) (rune, rune, int) {
	// https://html.spec.whatwg.org/multipage/syntax.html#consume-a-character-reference

	// i starts at 1 because we already know that s[0] == '&'.
	i := 1

	if len(s) <= 1 {
		return '&', 0, 1
	}

	if s[i] == '#' {
		if len(s) <= 2 { // We need to have at least "&#".
			return '&', 0, 1
		}
		i++
		c := s[i]
		hex := false
		if c == 'x' || c == 'X' {
			hex = true
			i++
		}

		i0 := i
		x := '\x00'
		for i < len(s) {
			c = s[i]
			var d rune
			var mult rune
			if hex {
				mult = 16
				if '0' <= c && c <= '9' {
					d = rune(c) - '0'
				} else if 'a' <= c && c <= 'f' {
					d = rune(c) - 'a' + 10
				} else if 'A' <= c && c <= 'F' {
					d = rune(c) - 'A' + 10
				} else {
					break
				}
			} else {
				mult = 10
				if '0' <= c && c <= '9' {
					d = rune(c) - '0'
				} else {
					break
				}
			}
			if x <= 0x10FFFF {
				x = mult*x + d
			}
			i++
		}

		if i == i0 { // No characters matched.
			return '&', 0, 1
		}

		if i < len(s) && s[i] == ';' {
			i++
		}

		if 0x80 <= x && x <= 0x9F {
			// Replace characters from Windows-1252 with UTF-8 equivalents.
			x = replacementTable[x-0x80]
		} else if x == 0 || (0xD800 <= x && x <= 0xDFFF) || x > 0x10FFFF {
			// Replace invalid characters with the replacement character.
			x = '\uFFFD'
		}

		return x, 0, i
	}

	// Consume the maximum number of characters possible, with the
	// consumed characters matching one of the named references.

	for i < len(s) {
		c := s[i]
		i++
		// Lower-cased characters are more common in entities, so we check for them first.
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			continue
		}
		if c != ';' {
			i--
		}
		break
	}

	entityName := string(s[1:i])
	if entityName == "" {
		// No-op.
	} else if attribute && entityName[len(entityName)-1] != ';' && len(s) > i && s[i] == '=' {
		// No-op.
	} else if x := entity[entityName]; x != 0 {
		return x, 0, i
	} else if x := entity2[entityName]; x[0] != 0 {
		return x[0], x[1], i
	} else if !attribute {
		maxLen := min(len(entityName)-1, longestEntityWithoutSemicolon)
		for j := maxLen; j > 1; j-- {
			if x := entity[entityName[:j]]; x != 0 {
				return x, 0, j + 1
			}
		}
	}

	return '&', 0, 1
}

// unescape unescapes b's entites, so that "a&lt;b" becomes "a<b". It attempts
// to do so in place, but if the unescaped value is longer than the input it
// allocates a new slice. attribute should be true if parsing an attribute
// value.
func unescape(b []byte, attribute bool) []byte {
	firstAmp := slices.Index(b, '&')
	if firstAmp == -1 {
		return b
	}

	out := b[:firstAmp]
	src := firstAmp
	reusingB := true
	for src < len(b) {
		if b[src] != '&' {
			// The run up to the next '&' in one copy (upstream appends byte by byte); when out
			// shares b, it starts no later than the run, and append copies like memmove.
			j := bytes.IndexByte(b[src:], '&')
			if j < 0 {
				j = len(b) - src
			}
			out = append(out, b[src:src+j]...)
			src += j
			continue
		}

		if r, n := numericRef(b[src:]); n > 0 {
			// Never longer than its reference (see numericRef): written in place like the
			// short entities below.
			out = utf8.AppendRune(out, r)
			src += n
			continue
		}

		r1, r2, entityNameLen := unescapeEntity(b[src:], attribute)
		if entityNameLen == 1 && r1 == '&' {
			// Not an entity
			out = append(out, '&')
			src++
			continue
		}

		// Compute replacement length
		replLen := utf8.RuneLen(r1)
		if r2 != 0 {
			replLen += utf8.RuneLen(r2)
		}

		// If the name of the entity is shorter than the width of the
		// replacement runes then we need to expand the output slice to
		// fit the replacement.
		if replLen > entityNameLen {
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

		src += entityNameLen
	}

	return out
}

// numericRef reads the plain numeric character reference s starts with ("&#x9AD8;", "&#233;"):
// at most six hex or seven decimal digits, then ';', naming a character unescapeEntity keeps as
// it is (not 0, a Windows-1252 replacement, a surrogate or past U+10FFFF). It answers that
// character and the reference's length, which is then unescapeEntity's answer too, or n 0 for
// anything else, which unescapeEntity reads. Pages that write every non-ASCII character this way
// (a Japanese diary: 30,000 of them) spent a third of their parse in the general reader. The
// UTF-8 of the character is never longer than its reference: "&#N;" is at least four bytes for
// one, "&#128;" six for two, "&#2048;" seven for three, "&#65536;" eight for four.
func numericRef(s []byte) (r rune, n int) {
	if len(s) < 4 || s[1] != '#' {
		return 0, 0
	}
	i, base, maxDigits := 2, rune(10), 7
	if s[2] == 'x' || s[2] == 'X' {
		i, base, maxDigits = 3, 16, 6
	}
	start := i
	for i < len(s) && i-start <= maxDigits {
		d := rune(digitValue[s[i]])
		if d >= base {
			break
		}
		r = r*base + d
		i++
	}
	if i == start || i-start > maxDigits || i >= len(s) || s[i] != ';' {
		return 0, 0
	}
	if r == 0 || 0x80 <= r && r <= 0x9F || 0xD800 <= r && r <= 0xDFFF || r > 0x10FFFF {
		return 0, 0
	}
	return r, i + 1
}

// digitValue is a byte's value as a hex digit (0-9, a-f, A-F), 16 for any other byte.
var digitValue = func() (t [256]uint8) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = uint8(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = uint8(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[c] = uint8(c - 'A' + 10)
		default:
			t[c] = 16
		}
	}
	return t
}()

// lower lower-cases the A-Z bytes in b in-place, so that "aBc" becomes "abc".
func lower(b []byte) []byte {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// RefsMayYieldAlnum reports whether a character reference in s may stand for an ASCII letter or
// digit: a numeric one whose value is one, or a named one whose text has one (&fjlig; is "fj"),
// read as unescapeEntity reads them. When it is false, every ASCII letter and digit of s's text
// and attribute values is written as itself, so a run of them that an attribute value contains
// occurs in s as it is: a search of the raw bytes answers for the parsed values (see
// engine's scan literals).
func RefsMayYieldAlnum(s []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(s[i:], '&')
		if j < 0 {
			return false
		}
		i += j
		if i+1 < len(s) {
			switch c := s[i+1]; {
			case c == '#':
				if r, _, _ := unescapeEntity(s[i:], true); isASCIIAlnum(r) {
					return true
				}
			case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
				for _, name := range alnumEntities {
					if bytes.HasPrefix(s[i+1:], name) {
						return true
					}
				}
			}
		}
		i++
	}
}

// alnumEntities are the names of the named references whose text has an ASCII letter or digit
// (TestAlnumEntities checks the table for others).
var alnumEntities = [][]byte{[]byte("fjlig;")}

func isASCIIAlnum(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}
