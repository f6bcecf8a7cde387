package funcs

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// wordPattern is the article family's word pattern before wordCount: its FindAll is the contract.
var wordPattern = regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{L}\p{N}\p{Mn}]+(?:['’-][\p{L}]+)*`)

func TestWordCountSameAsPattern(t *testing.T) {
	for _, s := range []string{
		"", " ", "word", "two words", "don't", "don't2", "well-known", "well--known", "end-", "'quoted'",
		"rock’n’roll", "a-1", "1-a", "x'", "東京タワーに行きました", "abc漢字", "漢字abc", "ゝ゛ー", "ー",
		"café naïve", "e\u0301t\u0301e", "\u0301alone", "½ ² Ⅻ ٣", "a\xffb", "\xff\xfe", "東'京", "a-東",
		"l'été d’hiver", "ＡＢＣ１２３", "Ωμέγα-λέξη", "а-б в", "x-'y", "x-\u0301", "\u200b\u00a0word",
	} {
		if got, want := wordCount(s), len(wordPattern.FindAllStringIndex(s, -1)); got != want {
			t.Errorf("wordCount(%q) = %d, the pattern finds %d", s, got, want)
		}
	}
}

// TestWordCountRandom: texts of the runes the pattern distinguishes, mixed at random.
func TestWordCountRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 20000 {
		s := randomWords(r, r.IntN(40))
		if got, want := wordCount(s), len(wordPattern.FindAllStringIndex(s, -1)); got != want {
			t.Fatalf("wordCount(%q) = %d, the pattern finds %d", s, got, want)
		}
	}
}

var wordAlphabet = []string{"a", "Z", "7", " ", "'", "’", "-", "東", "た", "カ", "ー", "゛", "é", "\u0301", "½",
	"Ⅻ", "Ω", "\xff", "\xe3\x81", ".", "\n", "ｱ", "ㇰ", "〆", "々", "_"}

func randomWords(r *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(wordAlphabet[r.IntN(len(wordAlphabet))])
	}
	return b.String()
}

func FuzzWordCount(f *testing.F) {
	f.Add("l'été d’hiver 東京タワー don't2 \xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := wordCount(s), len(wordPattern.FindAllStringIndex(s, -1)); got != want {
			t.Fatalf("wordCount(%q) = %d, the pattern finds %d", s, got, want)
		}
	})
}

func BenchmarkWordCount(b *testing.B) {
	s := strings.Repeat("東京タワーに行きました。Tokyo Tower's well-known view, 2024年。", 2000)
	b.Run("wordCount", func(b *testing.B) {
		for b.Loop() {
			wordCount(s)
		}
	})
	// Han-heavy, with the CJK punctuation and fullwidth forms of Japanese and Chinese texts.
	han := strings.Repeat("情報処理学会の研究報告書で、個人情報保護法の改正案（２０１９年）について論じた。「匿名加工情報」とは何か？", 1000)
	b.Run("wordCount-han", func(b *testing.B) {
		for b.Loop() {
			wordCount(han)
		}
	})
	latin := strings.Repeat("It's a well-known view of the tower, seen in 2024 from the river’s bank.\n\n", 1000)
	b.Run("wordCount-latin", func(b *testing.B) {
		for b.Loop() {
			wordCount(latin)
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			wordPattern.FindAllStringIndex(s, -1)
		}
	})
}

// TestIsCJKCommonBlocks: every rune of the blocks isCJK answers without the tables is in one of
// the three scripts, and isCJK agrees with the tables on every rune.
func TestIsCJKCommonBlocks(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
		if got := isCJK(r); got != want {
			t.Fatalf("isCJK(%U) = %v, the tables say %v", r, got, want)
		}
	}
}

// TestWordCountLatinText: a long text of ASCII words and separators, with the multi-byte runes
// the scan treats apart, as the regexp counts it.
func TestWordCountLatinText(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	latin := []string{"word", "It's", "well-known", " ", "  ", ",", ".", "\n", "-", "'", "’", "x’y", "2024", "é", "東京", "a_b", "\t", "“", "”", "—", "…", "\u2060", "\u2070"}
	for range 2000 {
		var b strings.Builder
		for range r.IntN(200) {
			b.WriteString(latin[r.IntN(len(latin))])
		}
		s := b.String()
		if got, want := wordCount(s), len(wordPattern.FindAllStringIndex(s, -1)); got != want {
			t.Fatalf("wordCount(%q) = %d, the pattern finds %d", s, got, want)
		}
	}
}

// TestGeneralPunctuation: no rune of the block isWordRune and isLetter answer without the tables
// is a letter, number or non-spacing mark.
func TestGeneralPunctuation(t *testing.T) {
	for r := rune(0x2000); r <= 0x206F; r++ {
		if unicode.In(r, unicode.L, unicode.N, unicode.Mn) || unicode.IsLetter(r) {
			t.Fatalf("%U is a letter, number or mark", r)
		}
		if !isGeneralPunctuation(r) {
			t.Fatalf("%U: not in the block", r)
		}
	}
}

// TestRuneKindEveryRune: runeKind's decoding and tables agree with utf8 and the functions on every
// rune from U+0080 (followed by a byte, so that a rune at the end of the text is tested apart);
// under -race, where all of them take 15 s, those to U+FFFF (the tables and the decoding are
// there).
func TestRuneKindEveryRune(t *testing.T) {
	last := rune(unicode.MaxRune)
	if raceDetector {
		last = 0xFFFF
	}
	for r := rune(0x80); r <= last; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		for _, s := range []string{string(r), string(r) + "a"} {
			f, w := runeKind(s, 0)
			if wf, ww := kindFlags(r), utf8.RuneLen(r); f != wf || w != ww {
				t.Fatalf("runeKind(%q) = %03b, %d; want %03b, %d", s, f, w, wf, ww)
			}
		}
	}
}

// TestRuneKindInvalid: a lead byte from 0x80 with each kind of byte after it, cut short or not,
// reads as utf8 reads it (U+FFFD of width one where it is invalid).
func TestRuneKindInvalid(t *testing.T) {
	next := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE3, 0xED, 0xF0, 0xFF}
	for b0 := 0x80; b0 <= 0xFF; b0++ {
		for _, b1 := range next {
			for _, b2 := range next {
				for _, s := range []string{
					string([]byte{byte(b0)}), string([]byte{byte(b0), b1}),
					string([]byte{byte(b0), b1, b2}), string([]byte{byte(b0), b1, b2, 0x80}),
				} {
					f, w := runeKind(s, 0)
					r, ww := utf8.DecodeRuneInString(s)
					if wf := kindFlags(r); f != wf || w != ww {
						t.Fatalf("runeKind(%q) = %03b, %d; want %03b, %d", s, f, w, wf, ww)
					}
				}
			}
		}
	}
}
