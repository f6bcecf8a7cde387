package funcs

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // parseDate's zones must not depend on the machine's zoneinfo
)

// Documentation sections, in the order docs/functions.md shows them.
const (
	groupNumbers = "Numbers, prices and counts"
	groupText    = "Text"
	groupURLs    = "URLs"
	groupRegex   = "Regular expressions"
	groupDates   = "Dates and durations"
	groupData    = "JSON and data"
)

var groupOrder = []string{groupNumbers, groupText, groupURLs, groupRegex, groupDates, groupData}

func ex(pairs ...string) []Example {
	out := make([]Example, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, Example{Expr: pairs[i], Want: pairs[i+1]})
	}
	return out
}

// Signatures. Return types are `any` wherever nil is a possible result: a concrete type would let
// expr compile comparisons into typed opcodes that fail on nil at run time. Parsers take `any`
// first arguments because JSON gives numbers where HTML gives text ("price": 12.99); text
// functions take strings, so that normSpace(fields.count) on an int field is caught at load.
var (
	tS    = new(func(string) any)
	tSS   = new(func(string, string) any)
	tSSS  = new(func(string, string, string) any)
	tA    = new(func(any) any)
	tAA   = new(func(any, any) any)
	tAS   = new(func(any, string) any)
	tASS  = new(func(any, string, string) any)
	tSI   = new(func(string, int) any)
	tVar  = new(func(...any) any)
	tBool = new(func(string, string) bool)
)

// text adapts f to a function whose first argument is text: a nil or non-text first argument
// gives nil. Numbers are accepted as text, because JSON often has "price": 12.99 where HTML has
// "12,99 €".
func text(name string, min, max int, f func(s string, args []any) (any, error)) func(args ...any) (any, error) {
	return func(args ...any) (any, error) {
		if err := arity(name, args, min, max); err != nil {
			return nil, err
		}
		s, ok := stringOf(args[0])
		if !ok {
			return nil, nil
		}
		return f(s, args)
	}
}

// orNil turns Go's (value, ok) into expr's value-or-nil.
func orNil[T any](v T, ok bool) (any, error) {
	if !ok {
		return nil, nil
	}
	return v, nil
}

func (s *Set) definitions() []def {
	return []def{
		// Numbers, prices and counts.
		{
			name: "parseNumber", group: groupNumbers, sig: "parseNumber(s [, locale]) → float | nil",
			summary: "The first number in s, in any locale's notation: `1.234,56`, `1,234.56`, `1 234,56` (also with " +
				"no-break and thin spaces), `1'234.50`, Indian `1,23,456.78`, Arabic-Indic and fullwidth digits. " +
				"`locale` (`de_DE`, `de-DE` or `de`) only decides the ambiguous `1.234` / `1,234`; a reading the text " +
				"rules out (`4.6` cannot be a thousands grouping) wins over the locale, so an English rating on a German " +
				"page still parses. Without a locale a `,` before exactly three digits groups thousands and a `.` is a " +
				"decimal mark.",
			types: []any{tA, tAS},
			fn: text("parseNumber", 1, 2, func(str string, args []any) (any, error) {
				return orNil(ParseNumber(str, optString(args, 1)))
			}),
			examples: ex(
				`parseNumber("4,5 von 5 Sternen")`, `4.5`,
				`parseNumber("4.6 out of 5 stars")`, `4.6`,
				`parseNumber("1.234,56", "de_DE")`, `1234.56`,
				`parseNumber("1,234.56")`, `1234.56`,
				`parseNumber("1 234,56 €")`, `1234.56`,
				`parseNumber("₹1,23,456.78", "en_IN")`, `123456.78`,
				`parseNumber("1'234.50")`, `1234.5`,
				`parseNumber("1.234")`, `1.234`,
				`parseNumber("1.234", "de")`, `1234`,
				`parseNumber("1,234")`, `1234`,
				`parseNumber("-12%")`, `-12`,
				`parseNumber("n/a")`, `null`,
			),
		},
		{
			name: "parsePrice", group: groupNumbers, sig: "parsePrice(s [, locale]) → float | nil",
			summary: "The amount of the first price in s: the first number written next to a currency symbol or code " +
				"(`2 for $10` gives 10), else the first number. Notation as in parseNumber, except that without a " +
				"locale a lone `1.299` or `1,299` is read as thousands, since prices almost never have three " +
				"decimals (the three-decimal dinars, `KWD 1.250`, are recognised by their code). Ranges give their " +
				"first price; `12€99` shelf-label style is 12.99.",
			types: []any{tA, tAS},
			fn: text("parsePrice", 1, 2, func(str string, args []any) (any, error) {
				return orNil(ParsePrice(str, optString(args, 1)))
			}),
			examples: ex(
				`parsePrice("1.234,56 €")`, `1234.56`,
				`parsePrice("€1.234,56")`, `1234.56`,
				`parsePrice("₹1,299.00")`, `1299`,
				`parsePrice("R$ 1.299,90")`, `1299.9`,
				`parsePrice("￥1,280")`, `1280`,
				`parsePrice("12,99 zł")`, `12.99`,
				`parsePrice("1 299,00 kr")`, `1299`,
				`parsePrice("AED 1,299.00")`, `1299`,
				`parsePrice("$12.99 - $19.99")`, `12.99`,
				`parsePrice("2 for $10")`, `10`,
				`parsePrice("1.299 €")`, `1299`,
				`parsePrice("$1.299", "en_US")`, `1.299`,
				`parsePrice("12€99")`, `12.99`,
				`parsePrice("Currently unavailable.")`, `null`,
			),
		},
		{
			name: "parseCurrency", group: groupNumbers, sig: "parseCurrency(s [, default]) → string | nil",
			summary: "The ISO 4217 code of the first currency symbol or code in s (`€`, `R$`, `zł`, `₺`, `TL`, " +
				"`ر.س`, `د.إ`, `ج.م`, `A$`, `C$`, `MX$`, `S$`, `US$`, `EUR`, ...). `default`, typically " +
				"`domain.currency`, settles shared symbols (`$` is CAD with default CAD, `kr` is NOK with default " +
				"NOK, `¥` is CNY with default CNY) and is the result when s names no currency. Word-like markers " +
				"(`TL`, `Rs`, `RM`, `CAD`) only count next to a digit.",
			types: []any{tS, tSS},
			fn: text("parseCurrency", 1, 2, func(str string, args []any) (any, error) {
				c, _ := ParseCurrency(str, optString(args, 1))
				return orNil(c, c != "")
			}),
			examples: ex(
				`parseCurrency("1.234,56 €")`, `"EUR"`,
				`parseCurrency("R$ 1.299,90")`, `"BRL"`,
				`parseCurrency("$1,299")`, `"USD"`,
				`parseCurrency("$1,299", "CAD")`, `"CAD"`,
				`parseCurrency("1 299,00 kr", "NOK")`, `"NOK"`,
				`parseCurrency("١٬٢٩٩٫٠٠ ر.س")`, `"SAR"`,
				`parseCurrency("1.299,00 TL")`, `"TRY"`,
				`parseCurrency("12,99")`, `null`,
				`parseCurrency("12,99", "EUR")`, `"EUR"`,
			),
		},
		{
			name: "parseCount", group: groupNumbers, sig: "parseCount(s [, locale]) → int | nil",
			summary: "The first count in s, with its multiplier: `K`, `M`, `B`, `Mio.`, `Mrd.`, `mil` (es/pt " +
				"thousands), `mi`/`bi` (pt), `mln`, `tys.`, `тыс.`, `млн`, `万`, `億`, `만`, `lakh`, `crore`, " +
				"`ألف`, ... Without a multiplier a lone `1.234` or `1,234` is a thousands grouping (a count is " +
				"whole). `locale` is only needed where an abbreviation clashes with English: Turkish `B` (bin, " +
				"thousand), Indonesian `M` (miliar), Vietnamese `N`/`Tr`/`T`. The result is rounded.",
			types: []any{tA, tAS},
			fn: text("parseCount", 1, 2, func(str string, args []any) (any, error) {
				n, ok := ParseCountLocale(str, optString(args, 1))
				return orNil(int(n), ok)
			}),
			examples: ex(
				`parseCount("1.2K ratings")`, `1200`,
				`parseCount("12,345 global ratings")`, `12345`,
				`parseCount("3.4M")`, `3400000`,
				`parseCount("1,2 Mio. Aufrufe")`, `1200000`,
				`parseCount("2.5B")`, `2500000000`,
				`parseCount("1.234 Bewertungen")`, `1234`,
				`parseCount("10K+ downloads")`, `10000`,
				`parseCount("1 234 avis")`, `1234`,
				`parseCount("5 mil visualizaciones")`, `5000`,
				`parseCount("1,5 млн просмотров")`, `1500000`,
				`parseCount("12万回視聴")`, `120000`,
				`parseCount("1,2 B görüntüleme", "tr")`, `1200`,
				`parseCount("No reviews")`, `null`,
			),
		},
		{
			name: "parseInt", group: groupNumbers, sig: "parseInt(x) → int | nil",
			summary: "The integer made of all the digits in x, whatever is between them (`#1,234 in Books` is 1234); " +
				"nil when there are none. Signs and decimal marks are ignored: use parseNumber for those. A number " +
				"is truncated.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("parseInt", args, 1, 1); err != nil {
					return nil, err
				}
				if _, isStr := args[0].(string); !isStr {
					if f, ok := toFloat(args[0]); ok {
						return orNil(toInt(f))
					}
				}
				str, ok := stringOf(args[0])
				if !ok {
					return nil, nil
				}
				ds, ok := digitsOf(str)
				if !ok {
					return nil, nil
				}
				n, err := strconv.ParseInt(ds, 10, 64)
				if err != nil {
					return nil, nil
				}
				return int(n), nil
			},
			examples: ex(
				`parseInt("#1,234 in Books")`, `1234`,
				`parseInt("Page 2 of 10")`, `210`,
				`parseInt(12.9)`, `12`,
				`parseInt("none")`, `null`,
			),
		},
		{
			name: "digits", group: groupNumbers, sig: "digits(s) → string | nil",
			summary: "The digits of s only, as ASCII (Arabic-Indic, Devanagari and fullwidth digits are converted).",
			types:   []any{tA},
			fn: text("digits", 1, 1, func(str string, _ []any) (any, error) {
				return orNil(digitsOf(str))
			}),
			examples: ex(
				`digits("+49 (0) 30 1234-567")`, `"490301234567"`,
				`digits("٤٫٥")`, `"45"`,
			),
		},
		{
			name: "toInt", group: groupNumbers, sig: "toInt(x) → int | nil",
			summary: "x as an integer: numbers are truncated, numeric strings (`\"42\"`, `\" 12.7 \"`, `\"1e3\"`) are " +
				"converted, anything else is nil. expr's own `int()` fails the whole expression on bad input.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("toInt", args, 1, 1); err != nil {
					return nil, err
				}
				return orNil(toInt(args[0]))
			},
			examples: ex(
				`toInt("42")`, `42`,
				`toInt(" 12.7 ")`, `12`,
				`toInt(3.9)`, `3`,
				`toInt("12 items")`, `null`,
			),
		},
		{
			name: "toFloat", group: groupNumbers, sig: "toFloat(x) → float | nil",
			summary: "x as a float: numbers as they are, numeric strings converted, anything else nil. For text " +
				"such as `1.234,5` use parseNumber.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("toFloat", args, 1, 1); err != nil {
					return nil, err
				}
				return orNil(toFloat(args[0]))
			},
			examples: ex(
				`toFloat("12.5")`, `12.5`,
				`toFloat(2)`, `2`,
				`toFloat("1,5")`, `null`,
			),
		},

		// Text.
		{
			name: "normSpace", group: groupText, sig: "normSpace(s) → string | nil",
			summary: "s with every whitespace run (spaces, tabs, line breaks, NBSP, thin and ideographic spaces) " +
				"collapsed to one space and trimmed. Invisible marks (zero-width space, LRM/RLM, soft hyphen, BOM) " +
				"are removed, not turned into spaces.",
			types: []any{tS},
			fn: text("normSpace", 1, 1, func(str string, _ []any) (any, error) {
				return normSpace(str), nil
			}),
			examples: ex(
				`normSpace("  Hello\u00a0\n\t world ")`, `"Hello world"`,
				`normSpace("Publisher \u200f: \u200eSony")`, `"Publisher : Sony"`,
			),
		},
		{
			name: "wordCount", group: groupText, sig: "wordCount(s) → int | nil",
			summary: "The words of s: each Chinese or Japanese character (Han, Hiragana, Katakana) is one word, " +
				"and so is each run of letters, digits and combining marks, joined across an apostrophe (' or ’) or " +
				"hyphen followed by letters (\"don't\", \"well-known\"). The same count as " +
				"len(reFindAll(s, `[\\p{Han}\\p{Hiragana}\\p{Katakana}]|[\\p{L}\\p{N}\\p{Mn}]+(?:['’-][\\p{L}]+)*`)), " +
				"many times faster on long Japanese or Chinese text.",
			types: []any{tS},
			fn: text("wordCount", 1, 1, func(str string, _ []any) (any, error) {
				return wordCount(str), nil
			}),
			examples: ex(
				`wordCount("Tokyo Tower's well-known view")`, `4`,
				`wordCount("東京タワー 2024")`, `6`,
			),
		},
		{
			name: "stripTags", group: groupText, sig: "stripTags(s) → string | nil",
			summary: "s without HTML tags and comments, with entities unescaped and trimmed. The content of " +
				"`script`, `style`, `template` and `noscript` is dropped; `<br>` and block elements (`p`, `div`, " +
				"`li`, ...) become line breaks. Works on fragments and broken markup.",
			types: []any{tS},
			fn: text("stripTags", 1, 1, func(str string, _ []any) (any, error) {
				return stripTags(str), nil
			}),
			examples: ex(
				`stripTags("<p>Fast &amp; <b>light</b></p>")`, `"Fast & light"`,
				`stripTags("a<br>b<script>x()</script>")`, `"a\nb"`,
			),
		},
		{
			name: "blockText", group: groupText, sig: "blockText(s) → string | nil",
			summary: "The text of an HTML fragment laid out as a browser shows it: the text's own whitespace " +
				"(line breaks of the markup, a `pre`'s too) collapsed, `<br>` and block elements (`div`, `li`, ...) " +
				"ending a line, paragraphs (`p`) a blank line apart, each line trimmed and empty lines dropped. " +
				"Entities, comments, `script` and `style` as in stripTags. For a post's text kept in its paragraphs.",
			types: []any{tS},
			fn: text("blockText", 1, 1, func(str string, _ []any) (any, error) {
				return blockText(str), nil
			}),
			examples: ex(
				"blockText(\"<p>Hello\\n world!</p><p>Line one<br>line &amp; two</p>\")", `"Hello world!\n\nLine one\nline & two"`,
				`blockText("<div>a</div><div> </div><div>b</div>")`, `"a\nb"`,
			),
		},
		{
			name: "unescapeHTML", group: groupText, sig: "unescapeHTML(s) → string | nil",
			summary: "s with HTML entities (`&amp;`, `&#8211;`, `&nbsp;`, ...) replaced by their characters.",
			types:   []any{tS},
			fn: text("unescapeHTML", 1, 1, func(str string, _ []any) (any, error) {
				return htmlUnescape(str), nil
			}),
			examples: ex(
				`unescapeHTML("Tom &amp; Jerry &#8211; &quot;Classic&quot;")`, `"Tom & Jerry – \"Classic\""`,
			),
		},
		{
			name: "unescapeCSS", group: groupText, sig: "unescapeCSS(s) → string | nil",
			summary: "s with CSS escapes replaced by their characters, as a browser reads a style value: `\\3a ` (hex digits, then " +
				"one optional space) is `:`, `\\'` is `'` (for URLs in `style=\"background-image: url(...)\"`).",
			types: []any{tS},
			fn: text("unescapeCSS", 1, 1, func(str string, _ []any) (any, error) {
				return cssUnescape(str), nil
			}),
			examples: ex(
				"unescapeCSS(`https\\3a //cdn.example/a.jpg?w\\3d 640\\26 h\\3d 480`)", `"https://cdn.example/a.jpg?w=640&h=480"`,
			),
		},
		{
			name: "truncate", group: groupText, sig: "truncate(s, n) → string | nil",
			summary: "The first n characters of s (counted in Unicode code points, so no character is cut in " +
				"half); s itself when it is shorter. No ellipsis is added.",
			types: []any{tSI},
			fn: text("truncate", 2, 2, func(str string, args []any) (any, error) {
				n, ok := intOf(args[1])
				if !ok {
					return nil, nil
				}
				return truncate(str, int(min(n, int64(len(str))))), nil
			}),
			examples: ex(
				`truncate("Hello, world", 5)`, `"Hello"`,
				`truncate("Größe", 3)`, `"Grö"`,
			),
		},
		{
			name: "splitLines", group: groupText, sig: "splitLines(s) → list<string> | nil",
			summary: "The non-empty lines of s, each trimmed. Any line terminator counts (`\\n`, `\\r\\n`, `\\r`, " +
				"U+2028).",
			types: []any{tS},
			fn: text("splitLines", 1, 1, func(str string, _ []any) (any, error) {
				lines := splitLines(str)
				out := make([]any, len(lines))
				for i, l := range lines {
					out[i] = l
				}
				return out, nil
			}),
			examples: ex(
				`splitLines("a\n\n  b  \r\nc")`, `["a","b","c"]`,
			),
		},
		{
			name: "joinLines", group: groupText, sig: "joinLines(list) → string | nil",
			summary: "The non-empty items of list, trimmed, joined with `\\n`. nil items are skipped; numbers are " +
				"written as text.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("joinLines", args, 1, 1); err != nil {
					return nil, err
				}
				l, ok := listOf(args[0])
				if !ok {
					return nil, nil
				}
				parts := make([]string, 0, len(l))
				for _, x := range l {
					if str, ok := stringOf(x); ok {
						if str = strings.TrimSpace(str); str != "" {
							parts = append(parts, str)
						}
					}
				}
				return strings.Join(parts, "\n"), nil
			},
			examples: ex(
				`joinLines(["a", "", " b ", nil])`, `"a\nb"`,
			),
		},
		{
			name: "between", group: groupText, sig: "between(s, start, end) → string | nil",
			summary: "The text between the first `start` in s and the next `end` after it; nil when either is " +
				"missing. An empty `start` means the beginning of s, an empty `end` its end.",
			types: []any{tSSS},
			fn: text("between", 3, 3, func(str string, args []any) (any, error) {
				a, ok1 := stringOf(args[1])
				b, ok2 := stringOf(args[2])
				if !ok1 || !ok2 {
					return nil, nil
				}
				return orNil(between(str, a, b))
			}),
			examples: ex(
				`between("<title>Foo</title>", "<title>", "</title>")`, `"Foo"`,
				`between("key=value; other", "key=", ";")`, `"value"`,
				`between("abc", "x", "c")`, `null`,
			),
		},

		// URLs.
		{
			name: "absURL", group: groupURLs, sig: "absURL(ref, base) → string | nil",
			summary: "ref resolved against base, if the result is an http(s) URL. ref may be absolute, " +
				"protocol-relative (`//host/path`: https when base is missing) or relative; `javascript:`, `data:`, " +
				"`mailto:` and empty refs give nil. Tabs and line breaks inside ref are removed, as browsers do.",
			types: []any{tSS},
			fn: text("absURL", 2, 2, func(str string, args []any) (any, error) {
				return orNil(absURL(str, optString(args, 1)))
			}),
			examples: ex(
				`absURL("/dp/B01GOH7PKA?th=1", "https://www.amazon.de/s?k=x")`, `"https://www.amazon.de/dp/B01GOH7PKA?th=1"`,
				`absURL("//m.media-amazon.com/images/I/a.jpg", "https://www.amazon.com/")`, `"https://m.media-amazon.com/images/I/a.jpg"`,
				`absURL("../b?x=1", "https://example.com/a/c/d")`, `"https://example.com/a/b?x=1"`,
				`absURL("javascript:void(0)", "https://example.com/")`, `null`,
			),
		},
		{
			name: "urlParam", group: groupURLs, sig: "urlParam(u, name) → string | nil",
			summary: "The first value of query parameter `name` in u (absolute or relative), decoded; nil when " +
				"absent, `\"\"` when present without a value.",
			types: []any{tSS},
			fn: text("urlParam", 2, 2, func(str string, args []any) (any, error) {
				name, ok := stringOf(args[1])
				if !ok {
					return nil, nil
				}
				return orNil(urlParam(str, name))
			}),
			examples: ex(
				`urlParam("https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s", "v")`, `"dQw4w9WgXcQ"`,
				`urlParam("/search?q=caf%C3%A9+au+lait", "q")`, `"café au lait"`,
				`urlParam("/search?q=x", "page")`, `null`,
			),
		},
		{
			name: "queryEscape", group: groupURLs, sig: "queryEscape(s) → string | nil",
			summary: "s encoded for a URL query value or a form body (`application/x-www-form-urlencoded`): UTF-8, " +
				"`%XX` for every byte but letters, digits, `-`, `_`, `.` and `~`, a space as `+`. For a query " +
				"string written by hand (`request.query` encodes its values itself) or a POST body. nil for nil; " +
				"one pass over s.",
			types: []any{tS},
			fn: text("queryEscape", 1, 1, func(str string, _ []any) (any, error) {
				return url.QueryEscape(str), nil
			}),
			examples: ex(
				`queryEscape("café au lait & co")`, `"caf%C3%A9+au+lait+%26+co"`,
				`queryEscape("[\"a\"]")`, `"%5B%22a%22%5D"`,
				`"f.req=" + queryEscape(toJSON([["x", nil]]))`, `"f.req=%5B%5B%22x%22%2Cnull%5D%5D"`,
			),
		},
		{
			name: "pathUnescape", group: groupURLs, sig: "pathUnescape(s) → string | nil",
			summary: "s with its `%XX` escapes decoded, as a URL path segment is (a `+` stays a `+`): an id " +
				"or alias taken from a URL a browser copied (`caf%C3%A9-du-monde`). nil when an escape is " +
				"malformed, and for nil.",
			types: []any{tS},
			fn: text("pathUnescape", 1, 1, func(str string, _ []any) (any, error) {
				v, err := url.PathUnescape(str)
				if err != nil {
					return nil, nil
				}
				return v, nil
			}),
			examples: ex(
				`pathUnescape("caf%C3%A9-du-monde-new-orleans")`, `"café-du-monde-new-orleans"`,
				`pathUnescape("a+b%20c")`, `"a+b c"`,
				`pathUnescape("100%")`, `null`,
			),
		},
		{
			name: "urlHost", group: groupURLs, sig: "urlHost(u) → string | nil",
			summary: "The host name of u, lower-case, without port; nil for relative URLs.",
			types:   []any{tS},
			fn: text("urlHost", 1, 1, func(str string, _ []any) (any, error) {
				return orNil(urlHost(str))
			}),
			examples: ex(
				`urlHost("https://WWW.Amazon.de:443/dp/X")`, `"www.amazon.de"`,
				`urlHost("/dp/X")`, `null`,
			),
		},
		{
			name: "urlPath", group: groupURLs, sig: "urlPath(u) → string | nil",
			summary: "The decoded path of u (`/` for a bare host).",
			types:   []any{tS},
			fn: text("urlPath", 1, 1, func(str string, _ []any) (any, error) {
				return orNil(urlPath(str))
			}),
			examples: ex(
				`urlPath("https://www.amazon.de/dp/B01GOH7PKA?th=1")`, `"/dp/B01GOH7PKA"`,
				`urlPath("https://example.com")`, `"/"`,
			),
		},
		{
			name: "unwrapURL", group: groupURLs, sig: "unwrapURL(u) → string | nil",
			summary: "The target of a redirector link, else u unchanged. Knows Google (`/url?q=` and `url=`, " +
				"`/imgres?imgurl=`, `/aclk?adurl=`, or its `q=` on the ads of about 2008-2010), YouTube `/redirect?q=`, Facebook `l.php?u=`, DuckDuckGo " +
				"`/l/?uddg=` and its ads' `/y.js?u3=`, Bing `/ck/a?u=a1...`, its ads' `/aclick?u=...` (base64, or until about 2018 the escaped URL; also `/aclk`, `/click` and the other ad paths Bing lists) and Bing Rebates' `/rebates/welcome?url=`, Yahoo `RU=` (and the older `srd`/`rds.yahoo.com/.../*-http://` " +
				"and `**http%3a//` links), out.reddit.com, Amazon sponsored `/sspa/click?url=` " +
				"and generic `/redirect`, `/out`, `/away` links with `url=`; nested wrappers are followed.",
			types: []any{tS},
			fn: text("unwrapURL", 1, 1, func(str string, _ []any) (any, error) {
				return unwrapURL(str), nil
			}),
			examples: ex(
				`unwrapURL("/url?q=https://example.com/page%3Fa%3D1&sa=U&ved=2ah")`, `"https://example.com/page?a=1"`,
				`unwrapURL("https://www.youtube.com/redirect?event=video_description&q=https%3A%2F%2Fexample.com%2F")`, `"https://example.com/"`,
				`unwrapURL("https://example.com/")`, `"https://example.com/"`,
			),
		},

		// Regular expressions.
		{
			name: "reFind", group: groupRegex, sig: "reFind(s, pattern) → string | nil",
			summary: "The first match of pattern (Go RE2 syntax) in s: its first capture group that took part in " +
				"the match, or the whole match when the pattern has no groups; nil when nothing matches. Use " +
				"backquoted strings for patterns, and `(?i)` for case-insensitive matching.",
			types: []any{tSS},
			fn: text("reFind", 2, 2, func(str string, args []any) (any, error) {
				p, err := patternArg("reFind", args[1])
				if err != nil {
					return nil, err
				}
				m, ok, err := s.reFind(str, p)
				if err != nil {
					return nil, err
				}
				return orNil(m, ok)
			}),
			examples: ex(
				"reFind(\"ASIN: B01GOH7PKA\", `ASIN: ([A-Z0-9]{10})`)", `"B01GOH7PKA"`,
				"reFind(`{\"id\":\"42\"}`, `id=(\\d+)|\"id\":\"(\\d+)\"`)", `"42"`,
				"reFind(\"no digits\", `\\d+`)", `null`,
			),
		},
		{
			name: "reFindAll", group: groupRegex, sig: "reFindAll(s, pattern) → list<string> | nil",
			summary: "Every match of pattern in s, each reduced as in reFind; an empty list when nothing matches.",
			types:   []any{tSS},
			fn: text("reFindAll", 2, 2, func(str string, args []any) (any, error) {
				p, err := patternArg("reFindAll", args[1])
				if err != nil {
					return nil, err
				}
				return s.reFindAll(str, p)
			}),
			examples: ex(
				"reFindAll(\"#go #expr #yaml\", `#(\\w+)`)", `["go","expr","yaml"]`,
			),
		},
		{
			name: "reMatch", group: groupRegex, sig: "reMatch(s, pattern) → bool",
			summary: "Whether pattern matches anywhere in s (anchor with `^...$` for the whole string). A nil s is " +
				"false, so reMatch can be used directly in `when:`.",
			types: []any{tBool},
			fn: func(args ...any) (any, error) {
				if err := arity("reMatch", args, 2, 2); err != nil {
					return nil, err
				}
				p, err := patternArg("reMatch", args[1])
				if err != nil {
					return nil, err
				}
				str, ok := stringOf(args[0])
				if !ok {
					// Still compile: a bad pattern must fail even when the input is missing.
					_, err := s.re.get(p)
					return false, err
				}
				return s.reMatch(str, p)
			},
			examples: ex(
				"reMatch(\"B01GOH7PKA\", `^[A-Z0-9]{10}$`)", `true`,
				"reMatch(\"Sponsored\", `(?i)^sponsored$`)", `true`,
			),
		},
		{
			name: "reReplace", group: groupRegex, sig: "reReplace(s, pattern, repl) → string | nil",
			summary: "s with every match of pattern replaced by repl, in which `$1` or `${name}` insert groups.",
			types:   []any{tSSS},
			fn: text("reReplace", 3, 3, func(str string, args []any) (any, error) {
				p, err := patternArg("reReplace", args[1])
				if err != nil {
					return nil, err
				}
				repl, ok := stringOf(args[2])
				if !ok {
					repl = ""
				}
				return s.reReplace(str, p, repl)
			}),
			examples: ex(
				"reReplace(\"2024-03-13\", `(\\d+)-(\\d+)-(\\d+)`, \"$3.$2.$1\")", `"13.03.2024"`,
				"reReplace(\"a  b   c\", ` +`, \" \")", `"a b c"`,
			),
		},

		// Dates and durations.
		{
			name: "parseDate", group: groupDates, sig: "parseDate(x [, layout [, zone]]) → string | nil",
			summary: "The date in x as `2006-01-02`, or as RFC 3339 in UTC (`2006-01-02T15:04:05Z`) when x has a " +
				"time of day. Reads RFC 3339 / ISO 8601, RFC 1123 (HTTP), `20240313`, Unix timestamps (numbers or " +
				"digit strings; milliseconds and microseconds are recognised by size), numeric dates (`13.03.2024`, " +
				"`2024/03/13`, `03/13/2024`) and written dates with month names in English, German, French, Spanish, " +
				"Italian, Portuguese, Dutch, Polish, Swedish, Danish, Norwegian, Turkish, Russian, Ukrainian, Czech, " +
				"Hungarian, Romanian and Arabic " +
				"(`Mar 13, 2024`, `13. März 2024`, `13 de marzo de 2024`, `2024年3月13日`), with an optional time " +
				"after them. The second argument is either a layout, Go (`02.01.2006`) or strftime (`%d.%m.%Y`), " +
				"which is then the only format tried, or a locale that orders ambiguous slashed dates: `03/04/2024` " +
				"is March 4 without a locale or with `en_US`, April 3 with `en_GB`, `de`, ... Dots and dashes are " +
				"day-first. Relative dates (`3 days ago`) are not read: they depend on the current time. The third " +
				"argument is an IANA time zone (`America/New_York`) in which a time of day written without a zone " +
				"is read (else UTC), for a site that shows its local time (`3:33 PM ET`); the answer then keeps the offset " +
				"the time was read in (the text's own, else the zone's: `2024-03-13T10:00:00+01:00`), the page's clock as " +
				"well as the instant. Pass `\"\"` as the layout to keep the automatic formats. A date alone stays a date. Zone names are read with their offsets: " +
				"North America's (EST, EDT, CST, CDT, MST, MDT, PST, PDT, AKST, AKDT, HST) and the ones of Europe, Asia and " +
				"Oceania that name one zone (WET, WEST, BST, CET, CEST, MEZ, MESZ, EET, EEST, MSK, JST, KST, HKT, SGT, AWST, " +
				"ACST, ACDT, AEST, AEDT, NZST, NZDT); a name of two zones (IST: India, Ireland and Israel) is read as no zone, " +
				"the site's clock.",
			types: []any{tA, tAS, tASS},
			fn: func(args ...any) (any, error) {
				if err := arity("parseDate", args, 1, 3); err != nil {
					return nil, err
				}
				if str, ok := args[0].(string); ok && len(str) > MaxDateText {
					return nil, nil // refused before the zone is loaded: no work on over-long text
				}
				loc := time.UTC
				if z := optString(args, 2); z != "" {
					var err error
					if loc, err = time.LoadLocation(z); err != nil {
						return nil, fmt.Errorf("parseDate: zone %q: %w", z, err) // the sitedef's mistake
					}
				}
				if _, isStr := args[0].(string); !isStr {
					if f, ok := floatOf(args[0]); ok {
						t, ok := unixTime(f)
						if !ok {
							return nil, nil
						}
						return orNil(formatDate(t, true))
					}
				}
				str, ok := stringOf(args[0])
				if !ok {
					return nil, nil
				}
				return orNil(parseDateIn(str, optString(args, 1), loc))
			},
			examples: ex(
				`parseDate("2024-03-13T10:00:00+01:00")`, `"2024-03-13T09:00:00Z"`,
				`parseDate("2024-03-13")`, `"2024-03-13"`,
				`parseDate("Wed, 13 Mar 2024 10:00:00 GMT")`, `"2024-03-13T10:00:00Z"`,
				`parseDate("Mar 13, 2024")`, `"2024-03-13"`,
				`parseDate("Reviewed in the United States on March 13, 2024")`, `"2024-03-13"`,
				`parseDate("13. März 2024")`, `"2024-03-13"`,
				`parseDate("13 de marzo de 2024")`, `"2024-03-13"`,
				`parseDate("2024年3月13日")`, `"2024-03-13"`,
				`parseDate("13.03.2024")`, `"2024-03-13"`,
				`parseDate("03/04/2024")`, `"2024-03-04"`,
				`parseDate("03/04/2024", "en_GB")`, `"2024-04-03"`,
				`parseDate("13/03/2024 14:30", "%d/%m/%Y %H:%M")`, `"2024-03-13T14:30:00Z"`,
				`parseDate("Mar 13, 2024, 2:30 PM")`, `"2024-03-13T14:30:00Z"`,
				`parseDate("Mar 13, 2024, 2:30 PM ET", "", "America/New_York")`, `"2024-03-13T14:30:00-04:00"`,
				`parseDate("2024-03-13T10:00:00+01:00", "", "America/New_York")`, `"2024-03-13T10:00:00+01:00"`,
				`parseDate(1710324000)`, `"2024-03-13T10:00:00Z"`,
				`parseDate("yesterday")`, `null`,
			),
		},
		{
			name: "fromUnix", group: groupDates, sig: "fromUnix(n) → string | nil",
			summary: "The Unix timestamp n (a number or a digit string) as RFC 3339 in UTC. Values of 1e11 and more " +
				"are taken as milliseconds, of 1e14 and more as microseconds.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("fromUnix", args, 1, 1); err != nil {
					return nil, err
				}
				f, ok := toFloat(args[0])
				if !ok {
					return nil, nil
				}
				t, ok := unixTime(f)
				if !ok {
					return nil, nil
				}
				return orNil(formatDate(t, true))
			},
			examples: ex(
				`fromUnix(1710324000)`, `"2024-03-13T10:00:00Z"`,
				`fromUnix("1710324000000")`, `"2024-03-13T10:00:00Z"`,
			),
		},
		{
			name: "parseDuration", group: groupDates, sig: "parseDuration(x) → float | nil",
			summary: "The duration x in seconds: ISO 8601 (`PT1H2M3S`, `P1DT2H`), clock notation (`1:02:03`, " +
				"`2:05`, `1:02:03.5`), numbers with units in the storefront languages (`90s`, `1h 30m`, " +
				"`2 Std. 5 Min.`, `1 hora 5 minutos`, `1時間2分`), or a plain number of seconds.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("parseDuration", args, 1, 1); err != nil {
					return nil, err
				}
				if _, isStr := args[0].(string); !isStr {
					if f, ok := toFloat(args[0]); ok {
						return f, nil
					}
				}
				str, ok := stringOf(args[0])
				if !ok {
					return nil, nil
				}
				return orNil(parseDuration(str))
			},
			examples: ex(
				`parseDuration("PT1H2M3S")`, `3723`,
				`parseDuration("1:02:03")`, `3723`,
				`parseDuration("2:05")`, `125`,
				`parseDuration("90s")`, `90`,
				`parseDuration("2 Std. 5 Min.")`, `7500`,
				`parseDuration("soon")`, `null`,
			),
		},

		// JSON and data.
		{
			name: "parseJSON", group: groupData, sig: "parseJSON(s) → any | nil",
			summary: "The first JSON value in s (what follows it is ignored, so a `{...};` captured from a script " +
				"decodes); nil when s does not start with JSON. Numbers decode as floats. A JavaScript literal's " +
				"undefined, NaN and Infinity values, which JSON lacks, decode as null. A value that is already " +
				"decoded (a map or list) is returned as it is.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("parseJSON", args, 1, 1); err != nil {
					return nil, err
				}
				switch x := args[0].(type) {
				case string:
					return orNil(parseJSON(x))
				case []byte:
					return orNil(parseJSON(string(x)))
				}
				if _, ok := listOf(args[0]); ok {
					return args[0], nil
				}
				if _, ok := entriesOf(args[0]); ok {
					return args[0], nil
				}
				return nil, nil
			},
			examples: ex(
				"parseJSON(`{\"a\": [1, 2.5, \"x\"]}`)", `{"a":[1,2.5,"x"]}`,
				"parseJSON(`{\"a\": 1}; var b = 2;`)", `{"a":1}`,
				"parseJSON(`{\"a\": undefined, \"b\": [NaN, \"undefined\"]}`)", `{"a":null,"b":[null,"undefined"]}`,
				`parseJSON("<html>")`, `null`,
			),
		},
		{
			name: "base64Decode", group: groupData, sig: "base64Decode(s) → string | nil",
			summary: "s decoded from base64, the standard or the URL alphabet, with or without padding, line " +
				"breaks and spaces ignored: the state a page carries as base64 text in a script " +
				"(`parseJSON(base64Decode(value))`). nil when s is not base64, when it decodes to bytes that " +
				"are not UTF-8 text, and for nil.",
			types: []any{tS},
			fn: text("base64Decode", 1, 1, func(str string, _ []any) (any, error) {
				return orNil(decodeBase64(str))
			}),
			examples: ex(
				`base64Decode("eyJhIjogMX0=")`, `"{\"a\": 1}"`,
				`base64Decode("eyJhIjogMX0")`, `"{\"a\": 1}"`,
				`base64Decode("aHR0cHM6Ly9leGFtcGxlLmNvbS8_cT0x")`, `"https://example.com/?q=1"`,
				`base64Decode("not base64!")`, `null`,
			),
		},
		{
			name: "toJSON", group: groupData, sig: "toJSON(v) → string | nil",
			summary: "v encoded as compact JSON, map keys sorted, without escaping `<`, `>` and `&`. Replaces " +
				"expr's builtin, which indents. nil for nil and for values JSON cannot encode.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("toJSON", args, 1, 1); err != nil {
					return nil, err
				}
				if args[0] == nil {
					return nil, nil
				}
				return orNil(toJSON(args[0]))
			},
			examples: ex(
				`toJSON({"b": [1, 2], "a": "x<y"})`, `"{\"a\":\"x<y\",\"b\":[1,2]}"`,
			),
		},
		{
			name: "get", group: groupData, sig: "get(v, path) → any | nil",
			summary: "The value at path in v, nil when any step is missing. path is a dotted string (`a.b.0.c`, " +
				"also `a.b[0].c`), where numeric segments index lists and negative ones count from the end, a " +
				"`*` segment maps the rest of the path over every item (or map value) and gives a flat list of the " +
				"non-nil results, like yt-dlp's traverse_obj. path may also be an integer index or a list of " +
				"segments (for keys that contain dots). Replaces expr's builtin `get(v, key)`, which it extends: a " +
				"key that literally equals path still wins.",
			types: []any{tAA},
			fn: func(args ...any) (any, error) {
				if err := arity("get", args, 2, 2); err != nil {
					return nil, err
				}
				return get(args[0], args[1]), nil
			},
			examples: ex(
				`get({"a": {"b": [10, 20, 30]}}, "a.b.1")`, `20`,
				`get({"a": {"b": [10, 20, 30]}}, "a.b[-1]")`, `30`,
				`get({"items": [{"id": 1}, {"x": 0}, {"id": 3}]}, "items.*.id")`, `[1,3]`,
				`get({"og.title": "T"}, "og.title")`, `"T"`,
				`get({"a": {"b.c": 1}}, ["a", "b.c"])`, `1`,
				`get([5, 6], -1)`, `6`,
				`get({"a": 1}, "x.y")`, `null`,
			),
		},
		{
			name: "find", group: groupData, sig: "find(v, key) → any | nil",
			summary: "The first non-nil value stored under `key` at any depth of v, searching depth-first: list " +
				"items in order, map keys in sorted order (decoded JSON objects do not keep their order), a key's " +
				"own value before what is nested in it. Meant for big embedded JSON such as YouTube's " +
				"`ytInitialData`, whose paths change. expr's builtin `find(list, predicate)` keeps working: a " +
				"second argument that uses `#` or `.field` is a predicate.",
			types:    []any{tAS},
			hiddenAs: hiddenFind,
			fn: func(args ...any) (any, error) {
				if err := arity("find", args, 2, 2); err != nil {
					return nil, err
				}
				key, ok := args[1].(string)
				if !ok {
					return nil, nil
				}
				if r := findKey(args[0], key, false); len(r) > 0 {
					return r[0], nil
				}
				return nil, nil
			},
			examples: ex(
				`find({"header": {"title": "H"}, "contents": [{"videoRenderer": {"videoId": "abc"}}, {"videoRenderer": {"videoId": "def"}}]}, "videoId")`, `"abc"`,
				`find({"a": {"b": {"c": 1}}}, "c")`, `1`,
				`find({"a": 1}, "z")`, `null`,
				`find([1, 5, 10], # > 3)`, `5`,
			),
		},
		{
			name: "findAll", group: groupData, sig: "findAll(v, key) → list",
			summary: "Every non-nil value stored under `key` at any depth of v, in find's order, including " +
				"matches nested inside other matches; an empty list when there are none.",
			types: []any{tAS},
			fn: func(args ...any) (any, error) {
				if err := arity("findAll", args, 2, 2); err != nil {
					return nil, err
				}
				key, ok := args[1].(string)
				if !ok {
					return []any{}, nil
				}
				r := findKey(args[0], key, true)
				if r == nil {
					r = []any{}
				}
				return r, nil
			},
			examples: ex(
				`findAll({"a": {"id": 1}, "b": [{"id": 2}, {"id": 3}]}, "id")`, `[1,2,3]`,
				`findAll({"a": 1}, "id")`, `[]`,
			),
		},
		{
			name: "uniq", group: groupData, sig: "uniq(list) → list | nil",
			summary: "list without repeated items, keeping the first occurrence. Numbers compare by value (1 and " +
				"1.0 are the same), maps and lists by their JSON encoding. Replaces expr's builtin of the same " +
				"behaviour, which could not compare maps.",
			types: []any{tA},
			fn:    listFn("uniq", func(l []any) any { return uniq(l) }),
			examples: ex(
				`uniq([1, 1.0, "1", {"a": 1}, {"a": 1}, "x", "x"])`, `[1,"1",{"a":1},"x"]`,
			),
		},
		{
			name: "compact", group: groupData, sig: "compact(list) → list | nil",
			summary: "list without nil, `\"\"`, empty lists and empty maps (the values a field treats as " +
				"missing). `0` and `false` are kept.",
			types: []any{tA},
			fn: listFn("compact", func(l []any) any {
				out := make([]any, 0, len(l))
				for _, x := range l {
					if !isEmpty(x) {
						out = append(out, x)
					}
				}
				return out
			}),
			examples: ex(
				`compact([1, nil, "", [], {}, 0, false, "a"])`, `[1,0,false,"a"]`,
			),
		},
		{
			name: "flatten", group: groupData, sig: "flatten(list) → list | nil",
			summary: "list with nested lists spliced in, at any depth. Same as expr's builtin, but nil for a " +
				"non-list instead of an error.",
			types: []any{tA},
			fn:    listFn("flatten", func(l []any) any { return flatten(l, 0, make([]any, 0, len(l))) }),
			examples: ex(
				`flatten([1, [2, [3, 4]], [], 5])`, `[1,2,3,4,5]`,
			),
		},
		{
			name: "zipObject", group: groupData, sig: "zipObject(keys, values) → map | nil",
			summary: "A map from keys[i] to values[i]. Keys are strings (numbers are written as text; nil keys " +
				"are skipped); missing values are nil; extra values are ignored.",
			types: []any{tAA},
			fn: func(args ...any) (any, error) {
				if err := arity("zipObject", args, 2, 2); err != nil {
					return nil, err
				}
				keys, ok := listOf(args[0])
				if !ok {
					return nil, nil
				}
				vals, _ := listOf(args[1])
				out := make(map[string]any, len(keys))
				for i, k := range keys {
					ks, ok := stringOf(k)
					if !ok {
						continue
					}
					var v any
					if i < len(vals) {
						v = vals[i]
					}
					out[ks] = v
				}
				return out, nil
			},
			examples: ex(
				`zipObject(["a", "b", "c"], [1, 2])`, `{"a":1,"b":2,"c":null}`,
			),
		},
		{
			name: "keys", group: groupData, sig: "keys(map) → list | nil",
			summary: "The keys of map, sorted, so that outputs are the same on every run. Replaces expr's " +
				"builtin, whose order changes from run to run. nil for a non-map.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("keys", args, 1, 1); err != nil {
					return nil, err
				}
				es, ok := sortedEntries(args[0])
				if !ok {
					return nil, nil
				}
				out := make([]any, len(es))
				for i, e := range es {
					out[i] = e.key
				}
				return out, nil
			},
			examples: ex(
				`keys({"b": 1, "a": 2, "c": 3})`, `["a","b","c"]`,
				`keys(fromPairs([["y", 1], ["x", 2]]))`, `["x","y"]`,
				`keys(groupBy([1, 2, 3], # % 2))`, `["0","1"]`,
				`keys("text")`, `null`,
			),
		},
		{
			name: "values", group: groupData, sig: "values(map) → list | nil",
			summary: "The values of map in the order of its sorted keys (see keys). Replaces expr's builtin, " +
				"whose order changes from run to run. nil for a non-map.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("values", args, 1, 1); err != nil {
					return nil, err
				}
				es, ok := sortedEntries(args[0])
				if !ok {
					return nil, nil
				}
				out := make([]any, len(es))
				for i, e := range es {
					out[i] = e.val
				}
				return out, nil
			},
			examples: ex(
				`values({"b": 1, "a": 2})`, `[2,1]`,
			),
		},
		{
			name: "fromPairs", group: groupData, sig: "fromPairs(list) → map | nil",
			summary: "A map from a list of `[key, value]` pairs; a later pair wins over an earlier one with the " +
				"same key. Keys are strings (numbers are written as text); items that are not a pair with a " +
				"text key are skipped. Replaces expr's builtin, whose maps (keyed by any value) an object field " +
				"could not take.",
			types: []any{tA},
			fn: listFn("fromPairs", func(l []any) any {
				out := make(map[string]any, len(l))
				for _, p := range l {
					kv, ok := listOf(p)
					if !ok || len(kv) != 2 {
						continue
					}
					if k, ok := stringOf(kv[0]); ok {
						out[k] = kv[1]
					}
				}
				return out
			}),
			examples: ex(
				`fromPairs([["a", 1], ["b", [2]], ["a", 3]])`, `{"a":3,"b":[2]}`,
				`fromPairs(map(["x", "y"], [#, upper(#)]))`, `{"x":"X","y":"Y"}`,
				`fromPairs([[1, "one"], ["bad"], [nil, 2]])`, `{"1":"one"}`,
			),
		},
		{
			name: "coalesce", group: groupData, sig: "coalesce(a, b, ...) → any | nil",
			summary: "The first argument that is not empty: not nil, `\"\"`, an empty list or an empty map. " +
				"(`a ?? b` only skips nil.)",
			types: []any{tVar},
			fn: func(args ...any) (any, error) {
				for _, a := range args {
					if !isEmpty(a) {
						return a, nil
					}
				}
				return nil, nil
			},
			examples: ex(
				`coalesce(nil, "", [], "x", "y")`, `"x"`,
				`coalesce(nil, "")`, `null`,
			),
		},
		{
			name: "textOf", group: groupData, sig: "textOf(v) → string | nil",
			summary: "The text of a Google-style JSON text object: `simpleText`, the concatenated `runs[].text`, " +
				"`content` (YouTube's newer view models) or `text`; a string is returned as it is, anything else " +
				"is nil. YouTube's ytInitialData and many other Google APIs use these objects.",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("textOf", args, 1, 1); err != nil {
					return nil, err
				}
				return orNil(textOf(args[0]))
			},
			examples: ex(
				`textOf({"runs": [{"text": "Hello, "}, {"text": "world", "bold": true}]})`, `"Hello, world"`,
				`textOf({"simpleText": "1.2M views"})`, `"1.2M views"`,
				`textOf({"content": "New title"})`, `"New title"`,
				`textOf(42)`, `null`,
			),
		},
	}
}

func listFn(name string, f func([]any) any) func(args ...any) (any, error) {
	return func(args ...any) (any, error) {
		if err := arity(name, args, 1, 1); err != nil {
			return nil, err
		}
		l, ok := listOf(args[0])
		if !ok {
			return nil, nil
		}
		return f(l), nil
	}
}
