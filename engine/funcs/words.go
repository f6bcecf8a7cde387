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
func wordCount(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, w := decodeRune(s, i)
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
	for i < len(s) {
		r, w := decodeRune(s, i)
		if !isWordRune(r) {
			break
		}
		i += w
	}
	for i < len(s) {
		r, w := decodeRune(s, i)
		if r != '\'' && r != '’' && r != '-' {
			return i
		}
		j := i + w
		k := j
		for k < len(s) {
			r, w := decodeRune(s, k)
			if !isLetter(r) {
				break
			}
			k += w
		}
		if k == j {
			return i // a separator not followed by a letter is not part of the word
		}
		i = k
	}
	return i
}

func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isCJK(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.IsLetter(r)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.In(r, unicode.L, unicode.N, unicode.Mn)
}
