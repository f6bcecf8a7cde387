package funcs

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

type numCase struct {
	in, locale string
	want       float64
	ok         bool
}

func yes(in, locale string, want float64) numCase { return numCase{in, locale, want, true} }
func no(in, locale string) numCase                { return numCase{in: in, locale: locale} }

func runNum(t *testing.T, name string, f func(string, string) (float64, bool), cases []numCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(name+"/"+c.locale+"/"+c.in, func(t *testing.T) {
			got, ok := f(c.in, c.locale)
			if ok != c.ok || (ok && math.Abs(got-c.want) > 1e-9*math.Max(1, math.Abs(c.want))) {
				t.Errorf("%s(%q, %q) = %v, %v; want %v, %v", name, c.in, c.locale, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestParseNumber(t *testing.T) {
	runNum(t, "ParseNumber", ParseNumber, []numCase{
		// Ratings as Amazon, Google and app stores write them.
		yes("4,5 von 5 Sternen", "", 4.5),
		yes("4,5 von 5 Sternen", "de_DE", 4.5),
		yes("4.6 out of 5 stars", "", 4.6),
		yes("4.6 out of 5 stars", "de_DE", 4.6), // English UI on amazon.de
		yes("4,6 sur 5 étoiles", "fr_FR", 4.6),
		yes("4,6 su 5 stelle", "it_IT", 4.6),
		yes("4,6 de 5 estrellas", "es_ES", 4.6),
		yes("5つ星のうち4.3", "ja_JP", 5), // the first number: take the rest with reFind
		yes("5 颗星，最多 4.3 颗", "zh_CN", 5),
		yes("Rated 4.5 out of 5", "en_US", 4.5),
		yes("٤٫٥ من ٥ نجوم", "ar_AE", 4.5),
		yes("4,5 de 5 estrelas", "pt_BR", 4.5),
		yes("4,5 z 5 gwiazdek", "pl_PL", 4.5),
		yes("4,5 av 5 stjärnor", "sv_SE", 4.5),
		yes("5 üzerinden 4,5 yıldız", "tr_TR", 5),
		yes("4,5 van 5 sterren", "nl_NL", 4.5),
		// Grouping and decimals per locale.
		yes("1.234,56", "de_DE", 1234.56),
		yes("1.234,56", "", 1234.56),
		yes("1.234,56", "en_US", 1234.56), // structure wins over the locale
		yes("1,234.56", "", 1234.56),
		yes("1,234.56", "de_DE", 1234.56),
		yes("1,234.56", "en_GB", 1234.56),
		yes("1,23,456.78", "en_IN", 123456.78),
		yes("12,34,56,789", "en_IN", 123456789),
		yes("1 234,56", "fr_FR", 1234.56),
		yes("1\u202f234,56", "fr_FR", 1234.56),
		yes("1\u00a0234,56", "pl_PL", 1234.56),
		yes("1\u2009234,56", "sv_SE", 1234.56),
		yes("12 345 678", "", 12345678),
		yes("1'234.50", "", 1234.5),
		yes("1’234.50", "de_CH", 1234.5),
		yes("1.234", "de_DE", 1234),
		yes("1.234", "de-DE", 1234),
		yes("1.234", "de", 1234),
		yes("1.234", "", 1.234),
		yes("1.234", "en_US", 1.234),
		yes("1,234", "", 1234),
		yes("1,234", "en_US", 1234),
		yes("1,234", "de_DE", 1.234),
		yes("1,234", "fr", 1.234),
		yes("1.234", "es_MX", 1.234),
		yes("1.234", "pt_BR", 1234),
		yes("1.234.567", "", 1234567),
		yes("1,234,567", "", 1234567),
		yes("1.234.567,89", "it_IT", 1234567.89),
		yes("4,5", "", 4.5),
		yes("4,5", "en_US", 4.5),
		yes("12,99", "", 12.99),
		yes("0,125", "", 0.125), // a leading 0 cannot be a thousands group
		yes("0.500", "de", 0.5),
		yes("1234,567", "en", 1234.567),
		yes("1,2345", "", 1.2345),
		yes("١٬٢٣٤٫٥٦", "", 1234.56),
		yes("１２３４", "", 1234),
		yes("१२३", "hi_IN", 123),
		// Picking the first number out of text.
		yes("Save 20%", "", 20),
		yes("-12%", "", -12),
		yes("−3,5 °C", "de", -3.5),
		yes("B-52", "", 52),
		yes("10-20", "", 10),
		yes("About 1,230,000 results (0.42 seconds)", "", 1230000),
		yes("Ungefähr 1.230.000 Ergebnisse (0,42 Sekunden)", "de", 1230000),
		yes("13.03.2024", "", 13.03),
		yes("1.2.3", "", 1.2),
		yes("Page 2 of 10", "", 2),
		yes("4 5 stars", "", 4),
		yes("Rated 4.5 123 reviews", "", 4.5),
		yes("2024 123", "", 2024),
		yes("Größe: 42", "", 42),
		yes("\u200e4,5\u200f", "de", 4.5),
		yes("00042", "", 42),
		no("", ""),
		no("n/a", ""),
		no("-", ""),
		no("...", ""),
		no("€", ""),
		yes("1e400", "", 1), // no exponents: scraped text does not use them
	})
}

func TestParseNumberHuge(t *testing.T) {
	huge := make([]byte, 400)
	for i := range huge {
		huge[i] = '9'
	}
	if v, ok := ParseNumber(string(huge), ""); ok {
		t.Errorf("400 digits: got %v, want no number (not +Inf)", v)
	}
}

func TestParsePrice(t *testing.T) {
	runNum(t, "ParsePrice", ParsePrice, []numCase{
		yes("1.234,56 €", "", 1234.56),
		yes("1.234,56 €", "de_DE", 1234.56),
		yes("€1.234,56", "", 1234.56),
		yes("€ 12,99", "", 12.99),
		yes("12,99\u00a0€", "fr_FR", 12.99),
		yes("1\u202f299,99\u00a0€", "fr_FR", 1299.99),
		yes("₹1,299.00", "", 1299),
		yes("₹1,29,999.00", "en_IN", 129999),
		yes("$1,299", "", 1299),
		yes("$1,299", "en_US", 1299),
		yes("$1,299.99", "en_US", 1299.99),
		yes("EUR 12,99", "", 12.99),
		yes("£12.99", "en_GB", 12.99),
		yes("R$ 1.299,90", "pt_BR", 1299.9),
		yes("R$ 1.299,90", "", 1299.9),
		yes("R$1.299", "pt_BR", 1299),
		yes("¥1,280", "ja_JP", 1280),
		yes("￥1,280", "", 1280),
		yes("1,280円", "ja_JP", 1280),
		yes("₩12,900", "ko_KR", 12900),
		yes("12,99 zł", "pl_PL", 12.99),
		yes("1 299,00 zł", "pl_PL", 1299),
		yes("1 299,00 kr", "sv_SE", 1299),
		yes("1.299,00 TL", "tr_TR", 1299),
		yes("₺1.299,00", "tr_TR", 1299),
		yes("AED 1,299.00", "en_AE", 1299),
		yes("AED\u00a01,299.00", "", 1299),
		yes("SAR 99.95", "", 99.95),
		yes("١٬٢٩٩٫٠٠ ر.س", "ar_SA", 1299),
		yes("ر.س.\u200f 1,299.00", "ar_SA", 1299),
		yes("1,299.00 ج.م.\u200f", "ar_EG", 1299),
		yes("EGP 1,299.00", "en_EG", 1299),
		yes("US$ 12.99", "", 12.99),
		yes("US$12.99", "", 12.99),
		yes("US $1,299.00", "de", 1299),
		yes("C $19.95", "", 19.95),
		yes("CDN$ 1.299,00", "fr_CA", 1299),
		yes("CA$12.99", "", 12.99),
		yes("A$ 19.95", "en_AU", 19.95),
		yes("MX$1,299.00", "es_MX", 1299),
		yes("$1,299.00", "es_MX", 1299),
		yes("S$ 12.90", "en_SG", 12.9),
		yes("CHF 1'299.–", "de_CH", 1299),
		yes("$12.99 - $19.99", "", 12.99),
		yes("$12.99 – $19.99", "en_US", 12.99),
		yes("12,99 € - 19,99 €", "de", 12.99),
		yes("Price: $5", "", 5),
		yes("2 for $10", "", 10),
		yes("Save 20% — now $39.99", "", 39.99),
		yes("List Price: $49.99 Details", "", 49.99),
		yes("1.299 €", "", 1299),
		yes("1,299 €", "", 1299),
		yes("€1.299,-", "de_DE", 1299),
		yes("1.299,– €", "de_DE", 1299),
		yes("12€99", "", 12.99),
		yes("$1.299", "en_US", 1.299),
		yes("KWD 1.250", "", 1.25),
		yes("1.250 د.ك", "", 1.25),
		yes("-$5.00", "", -5),
		yes("$-5.00", "", -5),
		yes("from-$5", "", 5),
		yes("$10-$20", "", 10),
		yes("12.99", "", 12.99),
		yes("1299", "", 1299),
		yes("Rs. 1,299", "en_IN", 1299),
		yes("Rp 15.000", "id_ID", 15000),
		yes("RM 12.90", "ms_MY", 12.9),
		yes("₫250.000", "vi_VN", 250000),
		yes("250.000 ₫", "vi", 250000),
		yes("฿1,290", "th_TH", 1290),
		yes("1 290 ₽", "ru_RU", 1290),
		yes("1 290,50 руб.", "ru_RU", 1290.5),
		yes("Kč 1 299", "cs_CZ", 1299),
		no("", ""),
		no("Currently unavailable.", ""),
		no("Free", ""),
		no("€", ""),
		no("$.", ""),
	})
}

func TestParseCurrency(t *testing.T) {
	cases := []struct {
		in, fallback, want string
		ok                 bool
	}{
		{"1.234,56 €", "", "EUR", true},
		{"€1.234,56", "", "EUR", true},
		{"£12.99", "", "GBP", true},
		{"₹1,299.00", "", "INR", true},
		{"¥1,280", "", "JPY", true},
		{"￥1,280", "", "JPY", true},
		{"¥1,280", "CNY", "CNY", true},
		{"1,280円", "", "JPY", true},
		{"99元", "", "CNY", true},
		{"R$ 1.299,90", "", "BRL", true},
		{"R$ 1.299,90", "USD", "BRL", true},
		{"12,99 zł", "", "PLN", true},
		{"1 299,00 kr", "", "SEK", true},
		{"1 299,00 kr", "NOK", "NOK", true},
		{"kr. 1.299,00", "DKK", "DKK", true},
		{"1 299,00 kr", "EUR", "SEK", true},
		{"₺1.299,00", "", "TRY", true},
		{"1.299,00 TL", "", "TRY", true},
		{"TL", "", "", false}, // a lone word is not a price
		{"AED 1,299.00", "", "AED", true},
		{"SAR 99", "", "SAR", true},
		{"٩٩ ر.س", "", "SAR", true},
		{"د.إ.\u200f 1,299.00", "", "AED", true},
		{"EGP 1,299", "", "EGP", true},
		{"1,299 ج.م", "", "EGP", true},
		{"A$19.95", "", "AUD", true},
		{"AU$19.95", "", "AUD", true},
		{"C$19.95", "", "CAD", true},
		{"CA$19.95", "", "CAD", true},
		{"MX$1,299", "", "MXN", true},
		{"S$12.90", "", "SGD", true},
		{"US$12.99", "", "USD", true},
		{"US$12.99", "CAD", "USD", true},
		{"US $12.99", "CAD", "USD", true},
		{"US\u00a0$12.99", "AUD", "USD", true},
		{"C $19.95", "USD", "CAD", true},
		{"C\u00a0$19.95", "", "CAD", true},
		{"CDN$ 24.99", "USD", "CAD", true},
		{"AU $12.99", "USD", "AUD", true},
		{"ABC $5", "CAD", "CAD", true}, // C ends a word here: the "$" is the storefront's
		{"$12.99", "", "USD", true},
		{"$12.99", "CAD", "CAD", true},
		{"$12.99", "AUD", "AUD", true},
		{"$12.99", "mxn", "MXN", true},
		{"$12.99", "SGD", "SGD", true},
		{"$12.99", "EUR", "USD", true},
		{"12.99 USD", "", "USD", true},
		{"USD12.99", "", "USD", true},
		{"Price in EUR", "", "EUR", true},
		{"EUROPE", "", "", false},
		{"CAD 19.95", "", "CAD", true},
		{"CAD drawing", "", "", false},
		{"Rs. 1,299", "", "INR", true},
		{"Rs 1,299", "PKR", "PKR", true},
		{"₩12,900", "", "KRW", true},
		{"12.900원", "", "KRW", true},
		{"1 290 ₽", "", "RUB", true},
		{"100 рублей", "", "RUB", true},
		{"₫250.000", "", "VND", true},
		{"Rp 15.000", "", "IDR", true},
		{"RM 12.90", "", "MYR", true},
		{"CHF 12.90", "", "CHF", true},
		{"Kč 1 299", "", "CZK", true},
		{"12,99", "", "", false},
		{"12,99", "EUR", "EUR", false},
		{"12,99", "eur", "EUR", false},
		{"12,99", "euro", "", false},
		{"", "", "", false},
		{"kroner", "", "", false},
	}
	for _, c := range cases {
		t.Run(c.fallback+"/"+c.in, func(t *testing.T) {
			got, ok := ParseCurrency(c.in, c.fallback)
			if got != c.want || ok != c.ok {
				t.Errorf("ParseCurrency(%q, %q) = %q, %v; want %q, %v", c.in, c.fallback, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestParseCount(t *testing.T) {
	cases := []struct {
		in, locale string
		want       int64
		ok         bool
	}{
		{"1.2K ratings", "", 1200, true},
		{"1.2k", "", 1200, true},
		{"12,345 global ratings", "", 12345, true},
		{"12.345 Sternebewertungen", "", 12345, true},
		{"3.4M", "", 3400000, true},
		{"3.4M views", "", 3400000, true},
		{"1,2 Mio.", "", 1200000, true},
		{"1,2 Mio. Aufrufe", "", 1200000, true},
		{"1,2 Mrd.", "", 1200000000, true},
		{"2.5B", "", 2500000000, true},
		{"2.5 billion", "", 2500000000, true},
		{"1.5 million views", "", 1500000, true},
		{"1.234 Bewertungen", "", 1234, true},
		{"1.234 Bewertungen", "de_DE", 1234, true},
		{"1,234 ratings", "en_US", 1234, true},
		{"10K+ downloads", "", 10000, true},
		{"10M+", "", 10000000, true},
		{"1 234 avis", "", 1234, true},
		{"1\u202f234 évaluations", "fr_FR", 1234, true},
		{"1,2 k", "fr", 1200, true},
		{"1,2 M de vues", "fr", 1200000, true},
		{"1,2 Md de vues", "fr", 1200000000, true},
		{"5 mil", "", 5000, true},
		{"5 mil visualizaciones", "es", 5000, true},
		{"1,2 mil M de visualizaciones", "es", 1200000000, true},
		{"1,2 mil millones", "es", 1200000000, true},
		{"1,2 M de visualizaciones", "es", 1200000, true},
		{"1,2 mi de visualizações", "pt_BR", 1200000, true},
		{"1,2 bi de visualizações", "pt_BR", 1200000000, true},
		{"5 mil visualizações", "pt", 5000, true},
		{"5 miles", "", 5, true}, // "mil" must be a whole word
		{"1,5 млн", "", 1500000, true},
		{"1,5 млн просмотров", "ru", 1500000, true},
		{"12 тыс. просмотров", "ru", 12000, true},
		{"1,2 млрд", "", 1200000000, true},
		{"1,2 tys. wyświetleń", "pl", 1200, true},
		{"1,2 mln wyświetleń", "pl", 1200000, true},
		{"1,2 mln. weergaven", "nl", 1200000, true},
		{"1,2 Mln di visualizzazioni", "it", 1200000, true},
		{"1,2 tn visningar", "sv", 1200, true},
		{"1,2 mn visningar", "sv", 1200000, true},
		{"12万", "", 120000, true},
		{"12万回視聴", "ja", 120000, true},
		{"1.2万", "", 12000, true},
		{"3億", "", 300000000, true},
		{"3亿次观看", "zh", 300000000, true},
		{"1.2만회", "ko", 12000, true},
		{"1.2천", "ko", 1200, true},
		{"3.5억", "ko", 350000000, true},
		{"1.2 ألف مشاهدة", "ar", 1200, true},
		{"١٫٢ مليون مشاهدة", "ar", 1200000, true},
		{"1.2 lakh views", "en_IN", 120000, true},
		{"2 crore", "", 20000000, true},
		{"1,2 B görüntüleme", "tr", 1200, true},
		{"1,2 Mn görüntüleme", "tr", 1200000, true},
		{"1,2 Mr görüntüleme", "tr", 1200000000, true},
		{"1,2 rb x ditonton", "id", 1200, true},
		{"1,2 jt x ditonton", "id", 1200000, true},
		{"1,2 M x ditonton", "id", 1200000000, true},
		{"1,2 N lượt xem", "vi", 1200, true},
		{"1,2 Tr lượt xem", "vi", 1200000, true},
		{"1,2 พันครั้ง", "th", 1200, true},
		{"1.2 ล้าน", "th", 1200000, true},
		{"(1,234)", "", 1234, true},
		{"1.5", "", 2, true},
		{"0", "", 0, true},
		{"12 Bewertungen", "", 12, true},
		{"1 rating", "", 1, true},
		{"No reviews", "", 0, false},
		{"", "", 0, false},
		{"99999999999999999999", "", 0, false},
		{"9999999999B", "", 0, false},
	}
	for _, c := range cases {
		t.Run(c.locale+"/"+c.in, func(t *testing.T) {
			got, ok := ParseCountLocale(c.in, c.locale)
			if got != c.want || ok != c.ok {
				t.Errorf("ParseCountLocale(%q, %q) = %d, %v; want %d, %v", c.in, c.locale, got, ok, c.want, c.ok)
			}
			if c.locale == "" {
				if g2, ok2 := ParseCount(c.in); g2 != got || ok2 != ok {
					t.Errorf("ParseCount(%q) = %d, %v; ParseCountLocale gives %d, %v", c.in, g2, ok2, got, ok)
				}
			}
		})
	}
}

func TestLocaleDecimal(t *testing.T) {
	for in, want := range map[string]rune{
		"de_DE": ',', "de-DE": ',', "de": ',', "DE_de": ',', "pt_BR": ',', "pt-br": ',', "fr_FR": ',',
		"en_US": '.', "en_GB": '.', "en_IN": '.', "ja_JP": '.', "es_MX": '.', "es_ES": ',', "de_CH": '.',
		"ar_AE": '.', "tr_TR": ',', "sv_SE": ',', "pl_PL": ',', "nl_NL": ',', "it_IT": ',',
		"": 0, "xx": 0, "  ": 0, "en_US.UTF-8": '.',
	} {
		if got := localeDecimal(in); got != want {
			t.Errorf("localeDecimal(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkParsePrice(b *testing.B) {
	inputs := []struct{ s, locale string }{
		{"1.234,56 €", "de_DE"},
		{"$1,299.99", "en_US"},
		{"R$ 1.299,90", "pt_BR"},
		{"List Price: $49.99 Details", ""},
		{"١٬٢٩٩٫٠٠ ر.س", "ar_SA"},
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		in := inputs[i%len(inputs)]
		if _, ok := ParsePrice(in.s, in.locale); !ok {
			b.Fatal(in.s)
		}
	}
}

func BenchmarkParseCount(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := ParseCount("1,2 Mio. Aufrufe"); !ok {
			b.Fatal()
		}
	}
}

// TestNumbersDoNotAllocate: a price, a number or a count of the usual length is read on the
// stack (each card of a search page has several), with the groups of one to three digits taken
// from a table; digitGroup gives every such group as string(r) would.
func TestNumbersDoNotAllocate(t *testing.T) {
	for _, in := range []struct{ s, locale string }{
		{"1.234,56 €", "de_DE"}, {"$1,299.99", "en_US"}, {"R$ 1.299,90", "pt_BR"},
		{"List Price: $49.99 Details", ""}, {"١٬٢٩٩٫٠٠ ر.س", "ar_SA"}, {"EUR 12,99 - EUR 15,49", "de_DE"},
	} {
		if n := testing.AllocsPerRun(5, func() { _, _ = ParsePrice(in.s, in.locale) }); n != 0 {
			t.Errorf("ParsePrice(%q): %v allocations", in.s, n)
		}
		if n := testing.AllocsPerRun(5, func() { _, _ = ParseNumber(in.s, in.locale) }); n != 0 {
			t.Errorf("ParseNumber(%q): %v allocations", in.s, n)
		}
		if n := testing.AllocsPerRun(5, func() { _, _ = ParseCurrency(in.s, "") }); n != 0 {
			t.Errorf("ParseCurrency(%q): %v allocations", in.s, n)
		}
	}
	if n := testing.AllocsPerRun(5, func() { _, _ = ParseCount("1,2 Mio. Aufrufe") }); n != 0 {
		t.Errorf("ParseCount: %v allocations", n)
	}
	for n := 0; n < 1000; n++ {
		for _, s := range []string{strconv.Itoa(n), fmt.Sprintf("%02d", n), fmt.Sprintf("%03d", n)} {
			if len(s) <= 3 {
				if got := digitGroup([]rune(s)); got != s {
					t.Fatalf("digitGroup(%q) = %q", s, got)
				}
			}
		}
	}
	for _, l := range []string{"de_DE", "pt-BR", "EN", "es_419", "de_CH.UTF-8@euro", "İstanbul", "x-very-long-locale-name-here", ""} {
		want := strings.ReplaceAll(strings.ToLower(l), "-", "_")
		var buf [16]byte
		if got, ok := asciiLocale(buf[:0], l); ok && string(got) != want {
			t.Errorf("asciiLocale(%q) = %q, want %q", l, got, want)
		}
	}
	if got := digitGroup([]rune("12345")); got != "12345" {
		t.Fatalf("digitGroup(12345) = %q", got)
	}
}
