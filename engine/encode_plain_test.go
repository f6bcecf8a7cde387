package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// appendStringByByte is appendString as it was before plain8: every byte tested on its own. The
// encoder's output must stay byte for byte what it wrote.
func appendStringByByte(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// TestPlain8: the word test says plain exactly when each byte is, for every byte value at every
// place of words of plain, high and control bytes.
func TestPlain8(t *testing.T) {
	plainByte := func(c byte) bool { return c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf }
	for _, fill := range []byte{'a', ' ', '~', '!', 0x7f, 0x80, 0x1f, 0, 0xff, '#', '[', ']'} {
		for at := range 8 {
			for c := range 256 {
				w := bytes.Repeat([]byte{fill}, 8)
				w[at] = byte(c)
				want := true
				for _, x := range w {
					want = want && plainByte(x)
				}
				if got := plain8(string(w)); got != want {
					t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(20, 13))
	for range 200000 {
		var w [8]byte
		for i := range w {
			w[i] = byte(rng.IntN(256))
			if rng.IntN(2) == 0 {
				w[i] = byte(0x20 + rng.IntN(0x60))
			}
		}
		want := true
		for _, x := range w {
			want = want && plainByte(x)
		}
		if got := plain8(string(w[:])); got != want {
			t.Fatalf("plain8(%q) = %v, want %v", w, got, want)
		}
	}
}

// FuzzAppendStringByWord: appendString writes what the byte-by-byte encoder wrote.
func FuzzAppendStringByWord(f *testing.F) {
	for _, s := range []string{"", "plain", "https://www.ebay.de/itm/123456789012?hash=item1c&var=0", `"quoted" \ back`,
		"tab\tnew\nline\rcr and more text", "\x00\x01\x1f\x7f", "caf\u00e9 \u20ac \U0001F600 long ascii tail here",
		"bad \xff\xfe utf8 \xe2\x82", "sep \u2028 \u2029 end", "12345678\"12345678\\1234567\x01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendString([]byte("x"), s), appendStringByByte([]byte("x"), s); !bytes.Equal(got, want) {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	})
}

// plain8 is plainWord of a string's eight bytes, as appendString loads them.
func plain8(w string) bool {
	return plainWord(uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56)
}
