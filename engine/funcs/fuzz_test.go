package funcs

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

var numberSeeds = []string{
	"4,5 von 5 Sternen", "4.6 out of 5 stars", "1.234,56", "1,234.56", "1,23,456.78", "1 234,56",
	"1\u202f234,56", "1'234.50", "١٬٢٣٤٫٥٦", "１２３", "-12%", "13.03.2024", "1.2.3", "", "-", "..",
	"9999999999999999999999999999999999", "0,0,0", "1,,2", "1..2", "1 2 3", ",5", ".5", "5.", "5,",
	"−0", "\u200e-\u200f5", "1'''2", "٫٫", "1٬2", strings.Repeat("9", 400), strings.Repeat("1,", 200),
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// groupThousands writes the integer digits of an unsigned decimal string with sep every three.
func groupThousands(digits, sep string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteString(sep)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// formatPrice writes cents the way en_US and de_DE storefronts do.
func formatPrice(cents uint64, locale string) string {
	whole := strconv.FormatUint(cents/100, 10)
	frac := strconv.FormatUint(cents%100+100, 10)[1:]
	if locale == "de_DE" {
		return groupThousands(whole, ".") + "," + frac + "\u00a0€"
	}
	return "$" + groupThousands(whole, ",") + "." + frac
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s, "", 1234.5)
		f.Add(s, "de_DE", -0.25)
	}
	f.Add("x", "en_IN", 1e21)
	f.Fuzz(func(t *testing.T, s, locale string, x float64) {
		if v, ok := ParseNumber(s, locale); ok && !finite(v) {
			t.Fatalf("ParseNumber(%q, %q) = %v", s, locale, v)
		}
		if !finite(x) {
			return
		}
		// A number Go prints plainly reads back unchanged without a locale.
		plain := strconv.FormatFloat(x, 'f', -1, 64)
		if v, ok := ParseNumber(plain, ""); !ok || v != x && !(v == 0 && x == 0) {
			t.Fatalf("ParseNumber(%q) = %v, %v; want %v", plain, v, ok, x)
		}
	})
}

func FuzzParsePrice(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s, "", uint64(129999))
	}
	for _, s := range []string{"1.234,56 €", "€1.234,56", "₹1,299.00", "$1,299", "EUR 12,99", "R$ 1.299,90",
		"¥1,280", "12,99 zł", "1 299,00 kr", "AED 1,299.00", "US$ 12.99", "$12.99 - $19.99", "12€99",
		"KWD 1.250", "-$5", "$-", "$$$", "€€1", "ر.س", "TL1"} {
		f.Add(s, "de_DE", uint64(5))
	}
	f.Fuzz(func(t *testing.T, s, locale string, cents uint64) {
		if v, ok := ParsePrice(s, locale); ok && !finite(v) {
			t.Fatalf("ParsePrice(%q, %q) = %v", s, locale, v)
		}
		if _, ok := ParseCurrency(s, locale); ok && len(s) == 0 {
			t.Fatal("currency found in empty string")
		}
		cents %= 1e15 // stay within float64's exact integers
		want := float64(cents) / 100
		for _, loc := range []string{"en_US", "de_DE"} {
			text := formatPrice(cents, loc)
			for _, l := range []string{loc, ""} {
				got, ok := ParsePrice(text, l)
				if !ok || math.Abs(got-want) > 1e-9*math.Max(1, want) {
					t.Fatalf("ParsePrice(%q, %q) = %v, %v; want %v", text, l, got, ok, want)
				}
			}
		}
	})
}

func FuzzParseCount(f *testing.F) {
	for _, s := range numberSeeds {
		f.Add(s, uint64(1234567))
	}
	for _, s := range []string{"1.2K ratings", "3.4M", "1,2 Mio.", "2.5B", "10K+", "12万", "5 mil", "1,5 млн",
		"1 mil millones", "9e9B", "1.2万5", "k", "M1", "1 ألف", "99999999999B"} {
		f.Add(s, uint64(0))
	}
	f.Fuzz(func(t *testing.T, s string, n uint64) {
		ParseCount(s)
		ParseCountLocale(s, "tr")
		n %= 1 << 53
		for _, text := range []string{
			strconv.FormatUint(n, 10),
			groupThousands(strconv.FormatUint(n, 10), ","),
			groupThousands(strconv.FormatUint(n, 10), ".") + " Bewertungen",
			groupThousands(strconv.FormatUint(n, 10), "\u202f") + " avis",
		} {
			if got, ok := ParseCount(text); !ok || got != int64(n) {
				t.Fatalf("ParseCount(%q) = %d, %v; want %d", text, got, ok, n)
			}
		}
	})
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2024-03-13T10:00:00+01:00", "Wed, 13 Mar 2024 10:00:00 GMT", "Mar 13, 2024, 2:30 PM",
		"13. März 2024", "13 de marzo de 2024", "2024年3月13日", "03/04/2024", "20240313", "1710324000000",
		"2024. március 13.", "13.03.24 um 10:00 Uhr", "31/02/2024", "0000-00-00", "", "9999999999999999"} {
		f.Add(s, "")
		f.Add(s, "en_GB")
	}
	f.Add("13/03/2024 14:30", "%d/%m/%Y %H:%M")
	f.Fuzz(func(t *testing.T, s, hint string) {
		got, ok := parseDate(s, hint)
		if !ok {
			return
		}
		if len(s) > MaxDateText {
			t.Fatalf("parseDate of %d bytes = %q", len(s), got)
		}
		if _, err := time.Parse("2006-01-02", got); err != nil {
			if _, err := time.Parse(time.RFC3339, got); err != nil {
				t.Fatalf("parseDate(%q, %q) = %q: neither a date nor RFC 3339", s, hint, got)
			}
		}
	})
}

func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"PT1H2M3S", "P1DT2H", "1:02:03", "2:05", "1:02:03.5", "90s", "1h 30m",
		"2 Std. 5 Min.", "1 hora 5 minutos", "1時間2分", "-PT5S", "P", "PT", "1e308h", "", "9:99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := parseDuration(s)
		if !ok {
			return
		}
		if len(s) > MaxDurationText || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("parseDuration(%q) = %v", s, v)
		}
	})
}
