package funcs

import (
	"strings"
	"unicode/utf8"
)

// cssUnescape decodes the escapes of a CSS value as CSS Syntax Level 3 reads them (4.3.7 "consume
// an escaped code point"): a backslash and one to six hex digits, then one optional white space,
// stand for that code point (U+FFFD for zero, a surrogate or one past U+10FFFF); a backslash and
// a newline are nothing; a backslash and any other character are that character. Pages write
// style URLs so ("background-image: url('https\3a //host/a.jpg?x\3d 1')"). One pass, so linear
// in s; the output is at most twice as long as s (a "\0" of two bytes becomes U+FFFD's three).
func cssUnescape(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i == len(s) {
			break // a backslash that ends the value stands for nothing
		}
		if c := s[i]; c == '\n' || c == '\f' || c == '\r' {
			i++
			if c == '\r' && i < len(s) && s[i] == '\n' {
				i++
			}
			continue
		}
		j, cp := i, rune(0)
		for j < len(s) && j-i < 6 && isHexDigit(s[j]) {
			cp = cp<<4 | rune(hexValue(s[j]))
			j++
		}
		if j == i {
			// not hex: the character itself, whatever its length
			_, n := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		if cp == 0 || cp > utf8.MaxRune || 0xD800 <= cp && cp <= 0xDFFF {
			cp = utf8.RuneError
		}
		b.WriteRune(cp)
		i = j
		if i < len(s) {
			switch s[i] {
			case ' ', '\t', '\n', '\f':
				i++
			case '\r':
				i++
				if i < len(s) && s[i] == '\n' {
					i++
				}
			}
		}
	}
	return b.String()
}

func hexValue(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
