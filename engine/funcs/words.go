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
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case isCJK(r):
			n++
			i += w
		case isWordRune(r):
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
		r, w := utf8.DecodeRuneInString(s[i:])
		if kind == wordRune && !isWordRune(r) || kind == letterRune && !isLetter(r) {
			return i
		}
		i += w
	}
	return i
}

// What asciiWord says of an ASCII byte.
const (
	wordRune   = 1 << iota // isWordRune
	letterRune             // isLetter
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
