package funcs

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// countSuffix is an abbreviation or word multiplying the number before it ("1.2K", "1,5 Mio.",
// "12万").
type countSuffix struct {
	text []rune
	mult float64
	// cjk suffixes are written without a following space or word break ("12万回視聴").
	cjk bool
}

func suffixes(mult float64, words ...string) []countSuffix {
	out := make([]countSuffix, len(words))
	for i, w := range words {
		out[i] = countSuffix{text: []rune(strings.ToLower(w)), mult: mult}
	}
	return out
}

func cjkSuffixes(mult float64, words ...string) []countSuffix {
	out := suffixes(mult, words...)
	for i := range out {
		out[i].cjk = true
	}
	return out
}

func sortSuffixes(l []countSuffix) []countSuffix {
	sort.SliceStable(l, func(i, j int) bool { return len(l[i].text) > len(l[j].text) })
	return l
}

// defaultSuffixes are matched case-insensitively. Single letters follow English ("B" is a
// billion); the locales that use them otherwise are in localeSuffixes.
var defaultSuffixes = sortSuffixes(concat(
	suffixes(1e3, "k", "thousand", "thousands", "tsd", "tausend", "tys", "tyś", "тыс", "тис",
		"mil", "mille", "mila", "dzd", "tn", "tusen", "ألف", "آلاف", "الف", "हज़ार", "हजार", "אלף", "bin"),
	suffixes(1e5, "lakh", "lakhs", "lac", "lacs", "लाख"),
	suffixes(1e6, "m", "mn", "mln", "mio", "million", "millions", "millionen", "milioni", "milione",
		"millón", "millon", "millones", "milhão", "milhao", "milhões", "milhoes", "mi", "miljoen",
		"miljoner", "miljon", "millió", "milyon", "млн", "مليون", "ملايين"),
	suffixes(1e7, "crore", "crores", "cr", "करोड़", "करोड"),
	suffixes(1e9, "b", "bn", "billion", "billions", "mrd", "md", "mld", "mds", "milliard", "milliards",
		"milliarden", "miliardi", "miliardo", "bi", "miljard", "miljarder", "milyar", "млрд", "مليار",
		"mil millones", "mil milhões", "mil milhoes", "mil m"),
	cjkSuffixes(1e3, "千", "천", "พัน"),
	cjkSuffixes(1e4, "万", "萬", "만", "หมื่น"),
	cjkSuffixes(1e5, "แสน"),
	cjkSuffixes(1e6, "ล้าน"),
	cjkSuffixes(1e8, "亿", "億", "억"),
))

// localeSuffixes override the defaults where a language reuses a letter: Turkish "B" is bin
// (thousand), Indonesian "M" is miliar, Vietnamese writes N / Tr / T.
var localeSuffixes = map[string][]countSuffix{
	"tr": sortSuffixes(concat(suffixes(1e3, "b", "bin"), suffixes(1e6, "mn", "milyon"), suffixes(1e9, "mr", "milyar"))),
	"id": sortSuffixes(concat(suffixes(1e3, "rb", "ribu"), suffixes(1e6, "jt", "juta"), suffixes(1e9, "m", "miliar"))),
	"ms": sortSuffixes(concat(suffixes(1e3, "k", "ribu"), suffixes(1e6, "j", "juta"), suffixes(1e9, "b", "bilion"))),
	"vi": sortSuffixes(concat(suffixes(1e3, "n", "nghìn", "ngàn"), suffixes(1e6, "tr", "triệu"), suffixes(1e9, "t", "tỷ"))),
}

func concat[T any](ls ...[]T) []T {
	var out []T
	for _, l := range ls {
		out = append(out, l...)
	}
	return out
}

// matchSuffix returns the multiplier written at r[i:] (after an optional space), or 0.
func matchSuffix(r []rune, i int, tables ...[]countSuffix) float64 {
	if i < len(r) && r[i] == ' ' {
		i++
	}
	for _, table := range tables {
		for _, s := range table {
			end := i + len(s.text)
			if end > len(r) {
				continue
			}
			ok := true
			for k, c := range s.text {
				if unicode.ToLower(r[i+k]) != c {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			if !s.cjk && end < len(r) && unicode.IsLetter(r[end]) {
				continue
			}
			return s.mult
		}
	}
	return 0
}

// ParseCount returns the first count in s: "1.2K ratings" is 1200, "1,2 Mio." 1200000, "12万"
// 120000, "1.234 Bewertungen" 1234. See ParseCountLocale for the locales whose abbreviations
// clash with English ones.
func ParseCount(s string) (int64, bool) { return ParseCountLocale(s, "") }

// ParseCountLocale is ParseCount with a locale for the abbreviations that mean different things
// in different languages: Turkish "1,2 B" is 1200 (bin), Indonesian "1,2 M" is 1.2 billion
// (miliar), Vietnamese uses N / Tr / T.
// Text longer than MaxNumberText has no count.
func ParseCountLocale(s, locale string) (int64, bool) {
	if len(s) > MaxNumberText {
		return 0, false
	}
	var rb numTextBuf
	var tb numTokBuf
	r := normalizeNumTextInto(rb[:0], s)
	t, ok := scanNumberInto(r, 0, &tb)
	if !ok {
		return 0, false
	}
	lang, _, _ := strings.Cut(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(locale)), "-", "_"), "_")
	tables := [][]countSuffix{defaultSuffixes}
	if l, ok := localeSuffixes[lang]; ok {
		tables = [][]countSuffix{l, defaultSuffixes}
	}
	mult := matchSuffix(r, t.end(), tables...)
	// Without a multiplier a count is a whole number, so a lone "1.234" or "1,234" groups
	// thousands whatever the locale; with one, "1.234K" has decimals.
	v, used, ok := t.value(func(rune) bool { return mult != 0 })
	if !ok {
		return 0, false
	}
	if mult != 0 && used == len(t.groups) {
		v *= mult
	}
	v = math.Round(v)
	if v >= 9.2e18 || v <= -9.2e18 || math.IsNaN(v) {
		return 0, false
	}
	return int64(v), true
}
