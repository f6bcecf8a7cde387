package dom

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/antchfx/xpath"
)

// selectFirst evaluates expr against the document node and returns a navigator at the first
// node selected, or nil.
func selectFirst(t *testing.T, doc any, expr string) xpath.NodeNavigator {
	t.Helper()
	it := xpath.MustCompile(expr).Select(Navigator(doc))
	if !it.MoveNext() {
		return nil
	}
	return it.Current().Copy()
}

func mustHTML(t testing.TB, s string) any {
	t.Helper()
	doc, err := ParseHTML([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func mustXML(t testing.TB, s string) any {
	t.Helper()
	doc, err := ParseXML([]byte(s))
	if err != nil {
		t.Fatalf("ParseXML(%q): %v", s, err)
	}
	return doc
}

func TestTextHTML(t *testing.T) {
	tests := []struct{ name, html, xpath, want string }{
		{"inline", `<p id=x>Hello <b>world</b>!</p>`, `//p`, "Hello world!"},
		{"paragraphs", `<div id=x><p>one</p><p>two</p></div>`, `//div`, "one two"},
		{"list", `<ul><li>a</li><li>b</li><li>c</li></ul>`, `//ul`, "a b c"},
		{"br", `<span>line<br>next</span>`, `//span`, "line next"},
		{"table cells", `<table><tr><th>Price</th><td>$5</td></tr><tr><td>Tax</td><td>$1</td></tr></table>`, `//table`, "Price $5 Tax $1"},
		{"headings", `<div><h1>Title</h1>Body<h2>Sub</h2></div>`, `//div`, "Title Body Sub"},
		{"custom elements are inline", `<div><yt-formatted-string>a</yt-formatted-string><x-b>b</x-b></div>`, `//div`, "ab"}, // generic: "a b"
		{"skipped", `<div>a <script>var x = 1;</script><style>.x{}</style><noscript>enable JS</noscript><template><p>tpl</p></template><iframe>frame</iframe> b</div>`, `//div`, "a b"},
		{"selected script keeps its text", `<script type="application/ld+json">  {"a": 1} </script>`, `//script`, `{"a": 1}`},
		{"comments skipped", `<p>a<!-- hidden -->b</p>`, `//p`, "ab"},
		{"entities", `<p>caf&eacute; &amp; cr&egrave;me&nbsp;br&ucirc;l&eacute;e</p>`, `//p`, "café & crème brûlée"},
		{"unicode spaces", "<p>\u00a0 a\u00a0\u00a0b\u2003c\u3000d\u202fe\u2028f\n\t g </p>", `//p`, "a b c d e f g"},
		{"zero width", "<p>\ufeffa\u200bb\u2060c\u200b</p>", `//p`, "a b c"},
		{"joiners kept inside", "<p>\U0001F468\u200d\U0001F469 ab\u200cc</p>", `//p`, "\U0001F468\u200d\U0001F469 ab\u200cc"},
		{"joiners dropped at edges", "<p>\u200d x \u200c y\u200d </p>", `//p`, "x y"},
		{"no double space at boundaries", `<div> <p> a </p> <p> b </p> </div>`, `//div`, "a b"},
		{"empty", `<div><p></p><br></div>`, `//div`, ""},
		{"attribute", `<a title="  Buy&nbsp;now
			 please ">x</a>`, `//a/@title`, "Buy now please"},
		{"text node", `<p>  first <b>bold</b> second  </p>`, `//p/text()[1]`, "first"},
		{"document", `<html><head><title>T</title><style>x</style></head><body><p>a</p></body></html>`, `/`, "T a"},
		{"nested depth", strings.Repeat("<div>", 500) + "deep" + strings.Repeat("</div>", 500), `//body`, "deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nav := selectFirst(t, mustHTML(t, tt.html), tt.xpath)
			if nav == nil {
				t.Fatalf("%s selects nothing", tt.xpath)
			}
			if got := Text(nav); got != tt.want {
				t.Errorf("Text = %q, want %q", got, tt.want)
			}
			// The generic navigator walk must agree with the HTML one, except that it cannot tell
			// HTML from XML and so separates unknown elements.
			if got := Text(wrapNav{nav}); got != tt.want && !strings.HasPrefix(tt.name, "custom") {
				t.Errorf("Text via generic navigator = %q, want %q", got, tt.want)
			}
			if h, ok := nav.(*HTMLNavigator); ok && h.attr >= 0 {
				if got := AttrText(h.curr, h.attr); got != tt.want {
					t.Errorf("AttrText = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestTextXML(t *testing.T) {
	const rss = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel>
  <item>
    <title>First &amp; best</title>
    <description><![CDATA[<b>bold</b> &amp;   raw]]></description>
    <name><first>Ada</first><last>Lovelace</last></name>
    <p>Hello <b>world</b>!</p>
    <price currency=" USD ">10</price>
  </item>
</channel></rss>`
	tests := []struct{ name, xml, xpath, want string }{
		{"title", rss, `//item/title`, "First & best"},
		{"cdata", rss, `//item/description`, "<b>bold</b> &amp; raw"},
		{"cdata text node", rss, `//item/description/text()`, "<b>bold</b> &amp; raw"},
		{"elements separated", rss, `//name`, "Ada Lovelace"},
		{"html inline elements", rss, `//p`, "Hello world!"},
		{"attribute", rss, `//price/@currency`, "USD"},
		{"item", rss, `//item`, "First & best <b>bold</b> &amp; raw Ada Lovelace Hello world! 10"},
		{"html entities", `<a>caf&eacute;&nbsp;&nbsp;au&nbsp;lait &copy;</a>`, `/a`, "café au lait ©"},
		{"unknown entity kept", `<a>AT&T &bogus; x</a>`, `/a`, "AT&T &bogus; x"},
		{"document", `<a><b>x</b><c>y</c></a>`, `/`, "x y"},
		{"nested depth", strings.Repeat("<d>", 5000) + "deep" + strings.Repeat("</d>", 5000), `/`, "deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nav := selectFirst(t, mustXML(t, tt.xml), tt.xpath)
			if nav == nil {
				t.Fatalf("%s selects nothing", tt.xpath)
			}
			if got := Text(nav); got != tt.want {
				t.Errorf("Text = %q, want %q", got, tt.want)
			}
		})
	}
}

// wrapNav hides the concrete navigator type so that Text takes its generic path.
type wrapNav struct{ xpath.NodeNavigator }

func (w wrapNav) Copy() xpath.NodeNavigator { return wrapNav{w.NodeNavigator.Copy()} }

func TestTextNil(t *testing.T) {
	if Text(nil) != "" {
		t.Error("Text(nil) not empty")
	}
	if Navigator(nil) != nil || Navigator("x") != nil {
		t.Error("Navigator of a non-node not nil")
	}
	nav := Navigator(mustHTML(t, "<p>x</p>"))
	if Navigator(nav) != nav {
		t.Error("Navigator does not pass a navigator through")
	}
}

func TestCollapse(t *testing.T) {
	for in, want := range map[string]string{
		"":              "",
		"a":             "a",
		"a b":           "a b",
		" a":            "a",
		"a ":            "a",
		"a  b":          "a b",
		"a\tb":          "a b",
		"a\u00a0b":      "a b",
		"\u200b":        "",
		"  \n ":         "",
		"é ü":           "é ü",
		"a\u200d":       "a",
		"a\u200db":      "a\u200db",
		"a\xffb":        "a\xffb",
		"\u0085a\u0085": "a",
	} {
		if got := collapse(in); got != want {
			t.Errorf("collapse(%q) = %q, want %q", in, got, want)
		}
	}
	s := "already normalised text with é and ü"
	if n := testing.AllocsPerRun(10, func() { _ = collapse(s) }); n != 0 {
		t.Errorf("collapse of normalised text: %v allocs", n)
	}
}

// collapseByByte is collapse as it was written before textWriter.write took runs of visible
// ASCII at once: ASCII byte by byte.
func collapseByByte(s string) string {
	var w textWriter
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if isASCIISpace(c) {
				w.sep()
			} else {
				w.flush()
				w.b.WriteByte(c)
			}
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		w.write(s[i : i+n]) // one rune that is not ASCII: the part of write not changed
		i += n
	}
	return w.String()
}

var collapseSeeds = []string{
	"", "a", " a  b\tc\n", "{\"a\":\"x  y\",\"b\":\"\u00a0\"}", "ab\u200dcd \u200c\u200c\u200c\u200c\u200cef",
	"\u3000x\u3000\u3000y\u200b", "a b c  d e\u00a0f g ", "a b\tc \u200dd", "x \xff y z", "a\xffb  \xc3", "é ü  ö", "x\u200d\u200d y", "  \u0085\u2028z",
	// runs of eight bytes and more, as the word-at-a-time scan reads them
	"abcdefgh ijklmnop  qrstuvwx\tyz0123456789 abcdefghij", "{\"id\":123456,\"t\":\"a b  c\"} abcdefgh ", "abcdefg  hijklmnop", "abcdefgh\x7fijklmnop\x01qrst",
}

func TestCollapseSameAsByByte(t *testing.T) {
	for _, s := range collapseSeeds {
		if got, want := collapse(s), collapseByByte(s); got != want {
			t.Errorf("collapse(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzCollapse(f *testing.F) {
	for _, s := range collapseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapse(s), collapseByByte(s); got != want {
			t.Fatalf("collapse(%q) = %q, want %q", s, got, want)
		}
	})
}

func TestParseXMLErrors(t *testing.T) {
	for _, s := range []string{"", "not xml", "<a>", "</a>", "<a></b>"} {
		doc, err := ParseXML([]byte(s))
		if err == nil {
			// Lenient parsing may accept some; it must at least give a document.
			if doc == nil {
				t.Errorf("ParseXML(%q) = nil, nil", s)
			}
		}
	}
	// Latin-1 XML declared in the prolog, and UTF-16 with a BOM.
	doc := mustXML(t, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>caf\xe9</a>")
	if got := Text(selectFirst(t, doc, "/a")); got != "café" {
		t.Errorf("latin-1 XML: %q", got)
	}
	utf16 := "\xff\xfe" + encode(t, utf16LE, `<?xml version="1.0" encoding="UTF-16"?><a>Ж</a>`)
	doc = mustXML(t, utf16)
	if got := Text(selectFirst(t, doc, "/a")); got != "Ж" {
		t.Errorf("UTF-16 XML: %q", got)
	}
	// Already converted by ToUTF8: the declaration must not make the parser decode again.
	doc = mustXML(t, `<?xml version="1.0" encoding="windows-1251"?><a>Привет</a>`)
	if got := Text(selectFirst(t, doc, "/a")); got != "Привет" {
		t.Errorf("converted XML: %q", got)
	}
}

// x/net/html refuses documents nested deeper than 512 elements; ParseHTML reports it as an error.
func TestParseHTMLTooDeep(t *testing.T) {
	doc, err := ParseHTML([]byte(strings.Repeat("<div>", 600)))
	if err == nil || doc != nil {
		t.Errorf("ParseHTML of 600 nested divs = %v, %v; want an error", doc, err)
	}
	if _, err := ParseHTML([]byte(strings.Repeat("<p>", 100000))); err != nil {
		t.Errorf("ParseHTML of 100000 <p> (implicitly closed): %v", err)
	}
}

func TestParseHTMLBOM(t *testing.T) {
	doc := mustHTML(t, "\xEF\xBB\xBF<title>x</title>")
	if got := Text(selectFirst(t, doc, "/")); got != "x" {
		t.Errorf("Text = %q, want %q", got, "x")
	}
}

// normalisedByByte is normalised without the eight-byte steps: what they must agree with.
func normalisedByByte(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	prevSpace := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == ' ' {
				if prevSpace {
					return false
				}
				prevSpace = true
			} else if isASCIISpace(c) {
				return false
			} else {
				prevSpace = false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if isSpaceRune(r) || isJoiner(r) {
			return false
		}
		prevSpace = false
		i += n
	}
	return true
}

func TestNormalisedWords(t *testing.T) {
	for _, s := range []string{
		"", "a", "abcdefgh", "abcdefghi", "abcdefg h", "abcdefgh  ij", "abcdefgh\tij", "abcdefgh ij",
		"{\"k\":\"v\",\"l\":[1,2,3]}", "abcdefg\x7fhij", "abcdefg\x01hij", "abcdefghé ijkl", "abcdefgh\u00a0ijkl",
		"abcdefgh\u200dijklmnop", "x       y", "abcdefgh ", " abcdefgh", "abcdefgh\n", "abc defgh  ",
	} {
		if got, want := normalised(s), normalisedByByte(s); got != want {
			t.Errorf("normalised(%q) = %v, byte by byte %v", s, got, want)
		}
	}
}

func FuzzNormalised(f *testing.F) {
	for _, s := range []string{"abcdefgh ij", "abcdefgh  ij", "{\"a\":1}", "a\u00a0bcdefghij"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := normalised(s), normalisedByByte(s); got != want {
			t.Fatalf("normalised(%q) = %v, byte by byte %v", s, got, want)
		}
	})
}
