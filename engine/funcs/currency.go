package funcs

import (
	"sort"
	"strings"
	"unicode"
)

// currencyMarker is a way a currency is written next to an amount.
type currencyMarker struct {
	text []rune
	code string
	// alts are the currencies the same symbol also stands for ("$", "¥", "kr"); a caller's
	// fallback currency among them wins, because the page's storefront knows better.
	alts []string
	// adjacent markers are ordinary words or acronyms too ("TL", "Rs", "PHP", "CAD"), so they
	// only count next to a digit.
	adjacent bool
}

var (
	dollarAlts = []string{"USD", "CAD", "AUD", "NZD", "MXN", "SGD", "HKD", "TWD", "ARS", "CLP", "COP",
		"UYU", "BSD", "BBD", "BZD", "BMD", "BND", "KYD", "XCD", "FJD", "GYD", "JMD", "LRD", "NAD",
		"SBD", "SRD", "TTD", "ZWL"}
	yenAlts    = []string{"JPY", "CNY"}
	kronaAlts  = []string{"SEK", "NOK", "DKK", "ISK"}
	rupeeAlts  = []string{"INR", "PKR", "LKR", "NPR", "MUR", "SCR"}
	rialAlts   = []string{"SAR", "IRR", "OMR", "QAR", "YER"}
	poundAlts  = []string{"GBP", "EGP", "GIP", "FKP", "SHP", "LBP", "SYP"}
	dirhamAlts = []string{"AED", "MAD"}
)

// currencyIndex maps a marker's first rune to the markers starting with it, longest first, so
// that "US$" wins over "$" and "R$" is never read as a dollar.
var currencyIndex = func() map[rune][]currencyMarker {
	type m = currencyMarker
	list := []m{
		{text: []rune("$"), code: "USD", alts: dollarAlts},
		{text: []rune("US$"), code: "USD"}, {text: []rune("U$S"), code: "USD"},
		{text: []rune("A$"), code: "AUD"}, {text: []rune("AU$"), code: "AUD"},
		{text: []rune("C$"), code: "CAD"}, {text: []rune("CA$"), code: "CAD"},
		{text: []rune("MX$"), code: "MXN"}, {text: []rune("S$"), code: "SGD"},
		{text: []rune("SG$"), code: "SGD"}, {text: []rune("NZ$"), code: "NZD"},
		{text: []rune("HK$"), code: "HKD"}, {text: []rune("NT$"), code: "TWD"},
		{text: []rune("R$"), code: "BRL"},
		// eBay writes a listing's own currency with a space ("C $19.95" on ebay.ca, "US $12.99" and
		// "AU $" for a foreign listing on any storefront) and amazon.ca wrote "CDN$ 24.99": read as
		// "$" they would take the storefront's currency.
		{text: []rune("US $"), code: "USD"}, {text: []rune("US\u00a0$"), code: "USD"},
		{text: []rune("C $"), code: "CAD"}, {text: []rune("C\u00a0$"), code: "CAD"},
		{text: []rune("CDN$"), code: "CAD"}, {text: []rune("CDN $"), code: "CAD"},
		{text: []rune("AU $"), code: "AUD"}, {text: []rune("AU\u00a0$"), code: "AUD"},
		{text: []rune("€"), code: "EUR"},
		{text: []rune("£"), code: "GBP", alts: poundAlts}, {text: []rune("E£"), code: "EGP"},
		{text: []rune("₹"), code: "INR"},
		{text: []rune("₨"), code: "INR", alts: rupeeAlts},
		{text: []rune("Rs"), code: "INR", alts: rupeeAlts, adjacent: true},
		{text: []rune("Rs."), code: "INR", alts: rupeeAlts},
		{text: []rune("¥"), code: "JPY", alts: yenAlts}, {text: []rune("￥"), code: "JPY", alts: yenAlts},
		{text: []rune("円"), code: "JPY"}, {text: []rune("元"), code: "CNY"}, {text: []rune("RMB"), code: "CNY"},
		{text: []rune("₩"), code: "KRW"}, {text: []rune("원"), code: "KRW"},
		{text: []rune("zł"), code: "PLN"}, {text: []rune("ZŁ"), code: "PLN"},
		{text: []rune("kr"), code: "SEK", alts: kronaAlts}, {text: []rune("Kr"), code: "SEK", alts: kronaAlts},
		{text: []rune("kr."), code: "SEK", alts: kronaAlts},
		{text: []rune("₺"), code: "TRY"}, {text: []rune("TL"), code: "TRY", adjacent: true},
		{text: []rune("د.إ"), code: "AED"}, {text: []rune("درهم"), code: "AED", alts: dirhamAlts},
		{text: []rune("ر.س"), code: "SAR"}, {text: []rune("﷼"), code: "SAR", alts: rialAlts},
		{text: []rune("ج.م"), code: "EGP"}, {text: []rune("جنيه"), code: "EGP"},
		{text: []rune("LE"), code: "EGP", adjacent: true}, {text: []rune("L.E."), code: "EGP"},
		{text: []rune("د.ك"), code: "KWD"}, {text: []rune("ر.ق"), code: "QAR"},
		{text: []rune("د.ب"), code: "BHD"}, {text: []rune("ر.ع"), code: "OMR"},
		{text: []rune("د.أ"), code: "JOD"}, {text: []rune("د.م"), code: "MAD"},
		{text: []rune("₽"), code: "RUB"}, {text: []rune("руб"), code: "RUB"},
		{text: []rune("рублей"), code: "RUB"}, {text: []rune("рубля"), code: "RUB"}, {text: []rune("рубль"), code: "RUB"},
		{text: []rune("₴"), code: "UAH"}, {text: []rune("грн"), code: "UAH"},
		{text: []rune("₪"), code: "ILS"}, {text: []rune("NIS"), code: "ILS", adjacent: true},
		{text: []rune("฿"), code: "THB"}, {text: []rune("บาท"), code: "THB"},
		{text: []rune("₫"), code: "VND"}, {text: []rune("₱"), code: "PHP"},
		{text: []rune("Rp"), code: "IDR", adjacent: true}, {text: []rune("RM"), code: "MYR", adjacent: true},
		{text: []rune("Kč"), code: "CZK"}, {text: []rune("Ft"), code: "HUF", adjacent: true},
		{text: []rune("lei"), code: "RON", adjacent: true}, {text: []rune("лв"), code: "BGN"},
		{text: []rune("S/"), code: "PEN"}, {text: []rune("S/."), code: "PEN"},
		{text: []rune("SFr."), code: "CHF"}, {text: []rune("KSh"), code: "KES"},
		{text: []rune("₦"), code: "NGN"}, {text: []rune("৳"), code: "BDT"}, {text: []rune("₸"), code: "KZT"},
		{text: []rune("₾"), code: "GEL"}, {text: []rune("₡"), code: "CRC"}, {text: []rune("₲"), code: "PYG"},
		{text: []rune("₵"), code: "GHS"},
	}
	// ISO codes written as such. Codes that are also common words or acronyms need a digit
	// beside them.
	for _, c := range strings.Fields(`EUR USD GBP INR JPY CNY BRL PLN SEK NOK DKK ISK AED SAR EGP
		AUD MXN SGD NZD HKD TWD KRW RUB UAH ILS THB VND IDR MYR ZAR CHF CZK HUF RON BGN KWD QAR
		BHD OMR JOD ARS CLP COP NGN KES PKR BDT LKR KZT UYU`) {
		list = append(list, m{text: []rune(c), code: c})
	}
	for _, c := range strings.Fields(`CAD TRY PHP MAD PEN`) {
		list = append(list, m{text: []rune(c), code: c, adjacent: true})
	}
	idx := map[rune][]currencyMarker{}
	for _, c := range list {
		idx[c.text[0]] = append(idx[c.text[0]], c)
	}
	for _, l := range idx {
		sort.SliceStable(l, func(i, j int) bool { return len(l[i].text) > len(l[j].text) })
	}
	return idx
}()

// currencyMatch is a marker found at r[start:end].
type currencyMatch struct {
	start, end int
	m          *currencyMarker
}

// resolve picks the ISO code for the match given the caller's fallback currency.
func (c currencyMatch) resolve(fallback string) string {
	for _, a := range c.m.alts {
		if a == fallback {
			return fallback
		}
	}
	return c.m.code
}

// findCurrenciesInto appends the non-overlapping currency markers in r to out (empty, with room it
// may use), in order; with first set it stops after the first.
func findCurrenciesInto(out []currencyMatch, r []rune, first bool) []currencyMatch {
	for i := 0; i < len(r); i++ {
		cands := currencyIndex[r[i]]
		if len(cands) == 0 {
			continue
		}
		for ci := range cands {
			c := &cands[ci]
			end := i + len(c.text)
			if end > len(r) || !runesEqual(r[i:end], c.text) {
				continue
			}
			// A marker made of letters must be a word of its own ("kr" in "kroner" is not one),
			// but "EUR12" and "12zł" are fine: digits are a boundary.
			if unicode.IsLetter(c.text[0]) && i > 0 && unicode.IsLetter(r[i-1]) {
				continue
			}
			if unicode.IsLetter(c.text[len(c.text)-1]) && end < len(r) && unicode.IsLetter(r[end]) {
				continue
			}
			if c.adjacent && !nextToDigit(r, i, end) {
				continue
			}
			out = append(out, currencyMatch{start: i, end: end, m: c})
			if first {
				return out
			}
			i = end - 1
			break
		}
	}
	return out
}

func runesEqual(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// nextToDigit reports whether r[start:end] has a digit (or a sign) beside it, across at most one
// space.
func nextToDigit(r []rune, start, end int) bool {
	b := start - 1
	if b >= 0 && r[b] == ' ' {
		b--
	}
	if b >= 0 && isDigit(r[b]) {
		return true
	}
	a := end
	if a < len(r) && r[a] == ' ' {
		a++
	}
	return a < len(r) && (isDigit(r[a]) || (r[a] == '-' && a+1 < len(r) && isDigit(r[a+1])))
}

func normCurrencyCode(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) != 3 {
		return ""
	}
	for i := 0; i < 3; i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return ""
		}
	}
	return s
}

// ParseCurrency returns the ISO 4217 code of the first currency symbol or code in s. fallback
// (an ISO code, typically the storefront's currency, or "") disambiguates shared symbols: "$" is
// CAD with fallback "CAD", "kr" is NOK with "NOK", "¥" is CNY with "CNY". When s names no
// currency, or is longer than MaxNumberText, ParseCurrency returns fallback and false.
func ParseCurrency(s, fallback string) (string, bool) {
	fallback = normCurrencyCode(fallback)
	if len(s) > MaxNumberText {
		return fallback, false
	}
	var rb numTextBuf
	var mb [1]currencyMatch
	m := findCurrenciesInto(mb[:0], normalizeNumTextInto(rb[:0], s), true)
	if len(m) == 0 {
		return fallback, false
	}
	return m[0].resolve(fallback), true
}

// threeDecimal currencies have 1000 minor units, so "KWD 1.250" is one and a quarter dinars.
func threeDecimal(code string) bool {
	switch code {
	case "KWD", "BHD", "OMR", "JOD", "TND", "LYD", "IQD":
		return true
	}
	return false
}

// ParsePrice returns the amount of the first price in s: the first number written next to a
// currency symbol or code, else the first number. Unlike ParseNumber, a lone "1.299" or "1,299"
// without a locale is read as thousands, because prices almost never have three decimals (the
// dinar-like currencies that do are recognised by their code). Text longer than MaxNumberText
// has no price.
func ParsePrice(s, locale string) (float64, bool) {
	if len(s) > MaxNumberText {
		return 0, false
	}
	dec := localeDecimal(locale)
	// On the stack for the usual short text: the rune text, its currency marks, and the tokens
	// (the first number, kept while the later ones are read into the other buffer).
	var rb numTextBuf
	var mb [4]currencyMatch
	var tb [2]numTokBuf
	r := normalizeNumTextInto(rb[:0], s)
	marks := findCurrenciesInto(mb[:0], r, false)

	var tok numTok
	var mark *currencyMatch
	found := false
	next := 0 // marks[:next] end at or before the current token
	for from := 0; ; {
		buf := &tb[0]
		if found {
			buf = &tb[1]
		}
		t, ok := scanNumberInto(r, from, buf)
		if !ok {
			break
		}
		if !found {
			tok, found = t, true
		}
		for next < len(marks) && marks[next].end <= t.start {
			next++
		}
		if m := adjacentMark(r, marks, next, t); m != nil {
			tok, mark = t, m
			break
		}
		from = t.end()
	}
	if !found {
		return 0, false
	}
	code := ""
	if mark != nil {
		code = mark.m.code
	} else if len(marks) > 0 {
		code = marks[0].m.code
	}
	v, used, ok := tok.value(func(sep rune) bool {
		if threeDecimal(code) {
			return true
		}
		if dec != 0 {
			return sep == dec
		}
		return false
	})
	if !ok {
		return 0, false
	}
	// "-$5.00": the sign sits before the symbol.
	if mark != nil && !tok.neg && mark.end <= tok.start && mark.start > 0 && r[mark.start-1] == '-' &&
		(mark.start < 2 || !(unicode.IsLetter(r[mark.start-2]) || isDigit(r[mark.start-2]))) {
		v = -v
	}
	// "12€99", the French shelf-label style: the symbol is the decimal mark.
	if used == 1 && len(tok.groups) == 1 && mark != nil && mark.start == tok.end() {
		e := mark.end
		if e+2 <= len(r) && isDigit(r[e]) && isDigit(r[e+1]) && (e+2 == len(r) || !isDigit(r[e+2])) {
			cents := float64(r[e]-'0')*10 + float64(r[e+1]-'0')
			if v < 0 {
				cents = -cents
			}
			v += cents / 100
		}
	}
	return v, true
}

// adjacentMark returns the currency marker written right before or after t (at most one space
// between), or nil. marks[:next] are the markers that end before t starts.
func adjacentMark(r []rune, marks []currencyMatch, next int, t numTok) *currencyMatch {
	if next > 0 {
		if m := &marks[next-1]; m.end == t.start || (m.end+1 == t.start && r[m.end] == ' ') {
			return m
		}
	}
	end := t.end()
	if next < len(marks) {
		if m := &marks[next]; m.start == end || (m.start == end+1 && r[end] == ' ') {
			return m
		}
	}
	return nil
}
