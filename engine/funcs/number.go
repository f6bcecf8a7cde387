package funcs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Scraped numbers come in every convention at once: an Amazon.de page can show "4,5 von 5
// Sternen" next to a "4.6 out of 5" copied from Amazon.com, and a locale is only a hint. The
// parser therefore first cuts the text into digit groups and separators, then picks the reading
// that is structurally possible ("1.2" cannot be a thousands grouping), and only lets the locale
// (or a per-use default) decide the genuinely ambiguous case of one '.' or ',' followed by exactly
// three digits.

// Separators that can never be a decimal mark once normalised.
const (
	arabicDecimal = '\u066B' // ٫
	arabicGroup   = '\u066C' // ٬
)

// numTextBuf is the stack storage normalizeNumTextInto fills for the usual short text: a price, a
// count, a rating is a few dozen characters, and a card has several.
type numTextBuf [64]rune

// normalizeNumTextInto appends s to out (empty, with room it may use) with every script's digits
// mapped to ASCII, all whitespace to single spaces and the invisible marks (LRM, RLM, ZWSP, ...)
// that sites put between a currency and its amount dropped, so the scanners below only ever see
// ASCII digits and one kind of space.
func normalizeNumTextInto(out []rune, s string) []rune {
	for _, r := range s {
		switch {
		case isInvisible(r) || r == '\u200C' || r == '\u200D':
			continue
		case r == '\uFF0C':
			r = ','
		case r == '\uFF0E':
			r = '.'
		case r == '\u2212' || r == '\uFF0D':
			r = '-'
		case r == '\u2019' || r == '\u02BC' || r == '\u2032' || r == '`':
			r = '\''
		case unicode.IsSpace(r):
			r = ' '
		default:
			if d, ok := digitValue(r); ok {
				r = '0' + d
			}
		}
		if r == ' ' && (len(out) == 0 || out[len(out)-1] == ' ') {
			continue
		}
		out = append(out, r)
	}
	return out
}

// digitValue covers the digit blocks seen on localised storefronts: Arabic-Indic (amazon.sa,
// amazon.eg), Persian, Devanagari, Bengali, Thai and fullwidth (Japanese sites).
func digitValue(r rune) (rune, bool) {
	switch {
	case r >= '0' && r <= '9':
		return r - '0', true
	case r >= 0x0660 && r <= 0x0669:
		return r - 0x0660, true
	case r >= 0x06F0 && r <= 0x06F9:
		return r - 0x06F0, true
	case r >= 0x0966 && r <= 0x096F:
		return r - 0x0966, true
	case r >= 0x09E6 && r <= 0x09EF:
		return r - 0x09E6, true
	case r >= 0x0E50 && r <= 0x0E59:
		return r - 0x0E50, true
	case r >= 0xFF10 && r <= 0xFF19:
		return r - 0xFF10, true
	}
	return 0, false
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// isInvisible reports format characters that carry no text: they are removed rather than turned
// into spaces, because they often sit inside words. ZWJ and ZWNJ are not listed: they change how
// emoji and Persian or Indic words render.
func isInvisible(r rune) bool {
	switch {
	case r == '\u00AD', r == '\u061C', r == '\u200B', r == '\u200E', r == '\u200F', r == '\uFEFF':
		return true
	case r >= '\u202A' && r <= '\u202E', r >= '\u2060' && r <= '\u2064', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// numTok is a run of digit groups joined by single separators, as written; which separator is the
// decimal mark is decided later by value.
type numTok struct {
	start  int // rune index of the sign or first digit
	neg    bool
	groups []string
	seps   []rune
	ends   []int // ends[i] is the rune index just after groups[i]
}

// numTokBuf is the storage of a short token's slices.
type numTokBuf struct {
	groups [4]string
	seps   [3]rune
	ends   [4]int
}

func (t numTok) end() int { return t.ends[len(t.ends)-1] }

const maxSeps = 16

func isNumSep(r rune) bool {
	switch r {
	case '.', ',', ' ', '\'', arabicDecimal, arabicGroup:
		return true
	}
	return false
}

// groupOnly separators are never a decimal mark: a space or apostrophe only ever groups
// thousands, so they are only joined when a group of exactly three digits follows; otherwise
// "4 5 stars" or "rock'n'roll 2 3" would merge unrelated numbers.
func groupOnly(r rune) bool { return r == ' ' || r == '\'' || r == arabicGroup }

// digitGroups holds every group of one to three ASCII digits as a string, so that a token's
// groups ("1", "234", "56") are not each a new string: prices, counts and ratings are made of them.
var digitGroups = func() (t [1110]string) {
	for n := range t {
		switch {
		case n < 10:
			t[n] = strconv.Itoa(n)
		case n < 110:
			t[n] = fmt.Sprintf("%02d", n-10)
		default:
			t[n] = fmt.Sprintf("%03d", n-110)
		}
	}
	return t
}()

// digitGroup is string(r) for a run of ASCII digits, from digitGroups when it has three or fewer.
func digitGroup(r []rune) string {
	switch len(r) {
	case 1:
		return digitGroups[r[0]-'0']
	case 2:
		return digitGroups[10+(r[0]-'0')*10+(r[1]-'0')]
	case 3:
		return digitGroups[110+(r[0]-'0')*100+(r[1]-'0')*10+(r[2]-'0')]
	}
	return string(r)
}

// scanNumberInto returns the first number token at or after rune index from; its slices are
// buf's (the caller keeps buf while it keeps the token).
func scanNumberInto(r []rune, from int, buf *numTokBuf) (numTok, bool) {
	i := from
	for i < len(r) && !isDigit(r[i]) {
		i++
	}
	if i >= len(r) {
		return numTok{}, false
	}
	// Most numbers on a page are one to four groups ("12,99", "1.234,56"): their slices share
	// buf rather than growing one by one.
	t := numTok{start: i, groups: buf.groups[:0], seps: buf.seps[:0], ends: buf.ends[:0]}
	// A minus counts only when it cannot be a hyphen inside a word or a range ("B-52", "10-20").
	if i > 0 && r[i-1] == '-' && (i < 2 || !(unicode.IsLetter(r[i-2]) || isDigit(r[i-2]))) {
		t.neg = true
		t.start = i - 1
	}
	j := digitRun(r, i)
	t.groups = append(t.groups, digitGroup(r[i:j]))
	t.ends = append(t.ends, j)
	// Real numbers have at most a handful of groups; the bound keeps value, which tries every
	// prefix, linear on hostile input such as "1.2.3.4..." repeated a million times.
	for j+1 < len(r) && isNumSep(r[j]) && isDigit(r[j+1]) && len(t.seps) < maxSeps {
		sep := r[j]
		k := digitRun(r, j+1)
		if groupOnly(sep) {
			if k-(j+1) != 3 || len(t.groups[len(t.groups)-1]) > 3 {
				break
			}
			mixed := false
			for _, s := range t.seps {
				if s != sep {
					mixed = true
				}
			}
			if mixed {
				break
			}
		}
		t.seps = append(t.seps, sep)
		t.groups = append(t.groups, digitGroup(r[j+1:k]))
		t.ends = append(t.ends, k)
		j = k
	}
	return t, true
}

func digitRun(r []rune, i int) int {
	for i < len(r) && isDigit(r[i]) {
		i++
	}
	return i
}

// validGrouping reports whether groups joined by seps can be one integer with thousands
// separators: one separator kind, a first group of 1-3 digits without a leading zero, then groups
// of three, or the Indian lakh pattern (2-digit groups then a final 3).
func validGrouping(groups []string, seps []rune) bool {
	if len(seps) == 0 {
		return true
	}
	sep := seps[0]
	if sep == arabicDecimal {
		return false
	}
	for _, s := range seps {
		if s != sep {
			return false
		}
	}
	g0 := groups[0]
	if len(g0) > 3 || g0[0] == '0' {
		return false
	}
	all3 := true
	for _, g := range groups[1:] {
		if len(g) != 3 {
			all3 = false
		}
	}
	if all3 {
		return true
	}
	if sep != ',' || len(groups) < 3 || len(groups[len(groups)-1]) != 3 {
		return false
	}
	for _, g := range groups[1 : len(groups)-1] {
		if len(g) != 2 {
			return false
		}
	}
	return true
}

func canBeDecimal(r rune) bool { return r == '.' || r == ',' || r == arabicDecimal }

// value interprets the token. ambiguousIsDecimal decides the one case the structure cannot: a
// single '.' or ',' followed by exactly three digits ("1,234", "1.234"). When no reading of the
// whole token is possible ("13.03.2024", "1.2.3"), the longest prefix that has one is used. used
// is the number of groups consumed.
func (t numTok) value(ambiguousIsDecimal func(sep rune) bool) (v float64, used int, ok bool) {
	for k := len(t.seps); k >= 0; k-- {
		groups, seps := t.groups[:k+1], t.seps[:k]
		asInt := validGrouping(groups, seps)
		asDec := false
		if k >= 1 && canBeDecimal(seps[k-1]) {
			dec := seps[k-1]
			asDec = validGrouping(groups[:k], seps[:k-1])
			for _, s := range seps[:k-1] {
				if s == dec {
					asDec = false
				}
			}
		}
		if asInt && asDec {
			asInt = !ambiguousIsDecimal(seps[k-1])
			asDec = !asInt
		}
		// the digits as ParseFloat reads them, in a buffer on the stack for the usual lengths
		var buf [32]byte
		b := buf[:0]
		if t.neg {
			b = append(b, '-')
		}
		switch {
		case asInt:
			for _, g := range groups {
				b = append(b, g...)
			}
		case asDec:
			for _, g := range groups[:k] {
				b = append(b, g...)
			}
			b = append(b, '.')
			b = append(b, groups[k]...)
		default:
			continue
		}
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, 0, false
		}
		return f, k + 1, true
	}
	return 0, 0, false
}

// asciiLocale appends locale lower-cased with '-' as '_' to out, when locale is ASCII and fits
// in out's capacity: what strings.ToLower and ReplaceAll would give.
func asciiLocale(out []byte, locale string) ([]byte, bool) {
	if len(locale) > cap(out) {
		return nil, false
	}
	for i := 0; i < len(locale); i++ {
		c := locale[i]
		switch {
		case c >= 0x80:
			return nil, false
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == '-':
			c = '_'
		}
		out = append(out, c)
	}
	return out, true
}

// localeDecimal returns the decimal mark of a locale such as "de_DE", "de-DE", "pt-br" or "de",
// or 0 when the locale is empty or unknown.
func localeDecimal(locale string) rune {
	locale = strings.TrimSpace(locale)
	if locale == "" {
		return 0
	}
	// Lower-cased with '-' as '_' on the stack when it is short ASCII ("de_DE", "pt-BR"): every
	// price of a card reads its storefront's locale.
	var buf [16]byte
	if l, ok := asciiLocale(buf[:0], locale); ok {
		locale = string(l)
	} else {
		locale = strings.ReplaceAll(strings.ToLower(locale), "-", "_")
	}
	lang, region, _ := strings.Cut(locale, "_")
	if i := strings.IndexAny(region, "_.@"); i >= 0 {
		region = region[:i]
	}
	switch lang + "_" + region {
	case "de_ch", "de_li", "it_ch", "es_mx", "es_us", "es_pr", "es_do", "es_gt", "es_hn", "es_ni",
		"es_pa", "es_sv", "es_pe":
		return '.'
	}
	switch lang {
	case "en", "ja", "zh", "ko", "th", "he", "iw", "hi", "bn", "ta", "te", "mr", "gu", "kn", "ml",
		"pa", "ur", "ms", "fil", "tl", "ga", "cy", "mt", "sw", "ar", "fa", "my", "km", "lo", "ne", "si":
		return '.'
	case "de", "fr", "it", "es", "pt", "nl", "pl", "sv", "se", "da", "nb", "nn", "no", "fi", "cs",
		"sk", "hu", "ro", "ru", "uk", "be", "bg", "hr", "sr", "sl", "bs", "mk", "sq", "lt", "lv",
		"et", "el", "tr", "az", "kk", "uz", "ka", "hy", "id", "in", "vi", "is", "ca", "gl", "eu",
		"af", "br", "lb", "fo", "mn", "ky", "tk", "tg":
		return ','
	}
	return 0
}

// ParseNumber returns the first number in s. locale ("de_DE", "de-DE", "de", or "") only settles
// "1.234" / "1,234"; without it a ',' before exactly three digits groups thousands and a '.'
// is a decimal mark. Text longer than MaxNumberText has no number.
func ParseNumber(s, locale string) (float64, bool) {
	if len(s) > MaxNumberText {
		return 0, false
	}
	dec := localeDecimal(locale)
	var rb numTextBuf
	var tb numTokBuf
	r := normalizeNumTextInto(rb[:0], s)
	t, ok := scanNumberInto(r, 0, &tb)
	if !ok {
		return 0, false
	}
	v, _, ok := t.value(func(sep rune) bool {
		if dec != 0 {
			return sep == dec
		}
		return sep == '.'
	})
	return v, ok
}
