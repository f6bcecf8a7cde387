package funcs

import (
	"unicode"
	"unicode/utf8"
)

// wordCount counts the words of s as FindAll of
//
//	[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{L}\p{N}\p{Mn}]+(?:['’-][\p{L}]+)*
//
// finds them (the article family's count, where a Chinese or Japanese character is a word), in one
// pass and without a match list: the regexp package walks that pattern's Unicode classes rune by
// rune at every position, which was most of the time on Japanese article pages. The pattern is
// deterministic, so the scan decides each match without backtracking: at a position, a CJK
// character is a match of its own (the first alternative wins); else a run of letters, numbers and
// marks is taken whole (greedy, and the rest may be empty), then each apostrophe or hyphen followed
// by letters extends it. An invalid byte is U+FFFD of width one, as the regexp package reads it.
// ASCII, most of a Latin text, is sorted a byte at a time by one table (asciiWord), off the
// decoding and the Unicode tables.
func wordCount(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiWord[c]&wordRune != 0 {
				n++
				i = wordEnd(s, i+1)
			} else {
				i++
			}
			continue
		}
		f, w := runeKind(s, i)
		switch {
		case f&cjkRune != 0:
			n++
			i += w
		case f&wordRune != 0:
			n++
			i = wordEnd(s, i+w)
		default:
			i += w
		}
	}
	return n
}

// wordEnd returns where a word whose first rune ends at i ends: the rest of its run of letters,
// numbers and marks, then each ['’-] followed by a run of letters.
func wordEnd(s string, i int) int {
	i = runEnd(s, i, wordRune)
	for i < len(s) {
		var j int
		switch {
		case s[i] == '\'' || s[i] == '-':
			j = i + 1
		case len(s)-i >= 3 && s[i:i+3] == "’":
			j = i + 3
		default:
			return i
		}
		k := runEnd(s, j, letterRune)
		if k == j {
			return i // a separator not followed by a letter is not part of the word
		}
		i = k
	}
	return i
}

// runEnd returns where the run of runes of kind (wordRune: isWordRune, letterRune: isLetter) from
// i ends, ASCII read a byte at a time.
func runEnd(s string, i int, kind uint8) int {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiWord[c]&kind == 0 {
				return i
			}
			i++
			continue
		}
		f, w := runeKind(s, i)
		if f&kind == 0 {
			return i
		}
		i += w
	}
	return i
}

// runeKind is what the scan asks of the rune at s[i] (from U+0080 or an invalid byte, U+FFFD of
// width one): isCJK, isWordRune and isLetter as flags, and its width. The runes of the blocks
// Japanese, Chinese and European texts are mostly made of are decoded here and looked up in
// tables made of those functions (runeTables); utf8's slow path and the Unicode tables' searches,
// two per punctuation mark, were most of the count on a Japanese article.
func runeKind(s string, i int) (flags uint8, width int) {
	c := s[i]
	switch {
	case 0xC2 <= c && c <= 0xDF && i+1 < len(s) && s[i+1]&0xC0 == 0x80:
		// Two bytes: U+0080 to U+07FF, every such sequence valid.
		return runeTables.low[rune(c&0x1F)<<6|rune(s[i+1]&0x3F)], 2
	case 0xE3 <= c && c <= 0xEF && c != 0xED && i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80:
		// Three bytes led by E3 to EF but ED (the surrogates' lead): U+3000 to U+FFFF, every such
		// sequence valid.
		r := rune(c&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
		switch {
		case 0x4E00 <= r && r <= 0x9FFF:
			// Han (isCJK's first range): every rune of the block is a letter (Lo), which
			// TestRuneKindEveryRune holds to the functions.
			return cjkRune | wordRune | letterRune, 3
		case r>>8 == 0x30:
			return runeTables.kana[r&0xFF], 3
		case r>>8 == 0xFF:
			return runeTables.fullwidth[r&0xFF], 3
		}
		return kindFlags(r), 3
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return kindFlags(r), w
}

// kindFlags is runeKind's flags of r from the functions themselves.
func kindFlags(r rune) uint8 {
	var f uint8
	if isCJK(r) {
		f |= cjkRune
	}
	if isWordRune(r) {
		f |= wordRune
	}
	if isLetter(r) {
		f |= letterRune
	}
	return f
}

// runeTables are kindFlags of U+0000 to U+07FF (Latin with its diacritics, Greek, Cyrillic,
// Hebrew, Arabic), of U+3000 to U+30FF (CJK punctuation, hiragana, katakana) and of U+FF00 to
// U+FFFF (the fullwidth punctuation of Chinese texts): 2,560 runes, read once at start.
var runeTables = func() (t struct {
	low             [0x800]uint8
	kana, fullwidth [256]uint8
}) {
	for r := range rune(0x800) {
		t.low[r] = kindFlags(r)
	}
	for b := range rune(256) {
		t.kana[b] = kindFlags(0x3000 | b)
		t.fullwidth[b] = kindFlags(0xFF00 | b)
	}
	return t
}()

// What asciiWord says of an ASCII byte.
const (
	wordRune   = 1 << iota // isWordRune
	letterRune             // isLetter
	cjkRune                // isCJK (runeKind's only)
)

// asciiWord is isWordRune and isLetter of each ASCII byte (0 from 0x80).
var asciiWord = func() (t [256]uint8) {
	for c := range utf8.RuneSelf {
		if isWordRune(rune(c)) {
			t[c] |= wordRune
		}
		if isLetter(rune(c)) {
			t[c] |= letterRune
		}
	}
	return t
}()

func isCJK(r rune) bool {
	if 0x4E00 <= r && r <= 0x9FFF || 0x3041 <= r && r <= 0x3096 || 0x30A1 <= r && r <= 0x30FA {
		// The blocks of Han, hiragana and katakana a Japanese or Chinese text is mostly made of,
		// every rune of them in one of the three scripts (TestIsCJKCommonBlocks), answered without
		// unicode.In's table search.
		return true
	}
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	if isGeneralPunctuation(r) {
		return false
	}
	return unicode.IsLetter(r)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	if isGeneralPunctuation(r) {
		return false
	}
	return unicode.In(r, unicode.L, unicode.N, unicode.Mn)
}

// isGeneralPunctuation reports the General Punctuation block (U+2000 to U+206F: curly quotes,
// dashes, ellipses, the spaces and format characters of Latin texts), none of whose runes is a
// letter, number or mark (TestGeneralPunctuation): answered without the Unicode tables.
func isGeneralPunctuation(r rune) bool {
	return 0x2000 <= r && r <= 0x206F
}
