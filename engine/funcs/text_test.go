package funcs

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormSpace(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "",
		"   ":                             "",
		"a":                               "a",
		"  Hello\u00a0\n\t world ":        "Hello world",
		"Publisher \u200f: \u200eSony":    "Publisher : Sony",
		"a\u200bb":                        "ab",
		"a\u2009\u202f\u3000b":            "a b",
		"line1\r\nline2\u2028line3":       "line1 line2 line3",
		"\ufeffBOM":                       "BOM",
		"soft\u00adhyphen":                "softhyphen",
		"👨\u200d👩\u200d👧 family":          "👨\u200d👩\u200d👧 family",
		"Men\u00a0\u00a0\u00a0Clothing  ": "Men Clothing",
	} {
		if got := normSpace(in); got != want {
			t.Errorf("normSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripTags(t *testing.T) {
	for in, want := range map[string]string{
		"<p>Fast &amp; <b>light</b></p>":                  "Fast & light",
		"a<br>b":                                          "a\nb",
		"a<br/>b<BR />c":                                  "a\nb\nc",
		"<ul><li>one</li><li>two</li></ul>":               "one\n\ntwo",
		"x<script>var a = '<b>';</script>y":               "xy",
		"x<SCRIPT type=\"text/javascript\">1<2</SCRIPT>y": "xy",
		"x<style>p{}</style>y":                            "xy",
		"a<!-- hidden <b> -->b":                           "ab",
		"1 < 2 and 3 > 2":                                 "1 < 2 and 3 > 2",
		`<a href="x>y" title='a>b'>link</a>`:              "link",
		"<span class=\"a-offscreen\">$12.99</span>":       "$12.99",
		"cut <b":               "cut",
		"&lt;b&gt; is escaped": "<b> is escaped",
		"<!DOCTYPE html><html><body>Hi</body></html>": "Hi",
		"unclosed <script>alert(1)":                   "unclosed",
		"&nbsp;":                                      "",
		"":                                            "",
		"<img src=x onerror=alert(1)>caption":         "caption",
		"<p>Größe: <strong>42</strong> &ndash; schwarz</p>\n": "Größe: 42 – schwarz",
	} {
		if got := stripTags(in); got != want {
			t.Errorf("stripTags(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"Hello, world", 5, "Hello"},
		{"Hello", 5, "Hello"},
		{"Hello", 50, "Hello"},
		{"Größe", 3, "Grö"},
		{"日本語テキスト", 3, "日本語"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"", 3, ""},
	} {
		if got := truncate(c.in, c.n); got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestSplitLines(t *testing.T) {
	for in, want := range map[string][]string{
		"a\n\n  b  \r\nc":        {"a", "b", "c"},
		"":                       {},
		"\n\n":                   {},
		"one":                    {"one"},
		"a\rb\u2028c\u2029d":     {"a", "b", "c", "d"},
		" \u00a0x\u00a0 \n\ty\t": {"x", "y"},
		"\u200e\n":               {},
	} {
		if got := splitLines(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitLines(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBetween(t *testing.T) {
	for _, c := range []struct {
		s, a, b, want string
		ok            bool
	}{
		{"<title>Foo</title>", "<title>", "</title>", "Foo", true},
		{"key=value; other=x;", "other=", ";", "x", true},
		{"a[1] b[2]", "[", "]", "1", true},
		{"abc", "x", "c", "", false},
		{"abc", "a", "x", "", false},
		{"abc", "", "c", "ab", true},
		{"abc", "a", "", "bc", true},
		{"abc", "", "", "abc", true},
		{"aXbXc", "X", "X", "b", true},
		{"start-end", "start", "-", "", true},
	} {
		got, ok := between(c.s, c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("between(%q, %q, %q) = %q, %v; want %q, %v", c.s, c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}

func TestDigitsOf(t *testing.T) {
	for in, want := range map[string]string{
		"+49 (0) 30 1234-567": "490301234567",
		"٤٫٥":                 "45",
		"１２３":                 "123",
		"abc":                 "",
		"B01GOH7PKA":          "017",
	} {
		if got, ok := digitsOf(in); !ok || got != want {
			t.Errorf("digitsOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripTagsLargeInput(t *testing.T) {
	// Linear time on pathological input: many '<' that never close.
	in := strings.Repeat("<a ", 50000)
	if got := stripTags(in); got != "" {
		t.Errorf("got %d bytes", len(got))
	}
	in = strings.Repeat("a < b ", 50000)
	if got := stripTags(in); len(got) == 0 {
		t.Error("text lost")
	}
}

func TestBlockText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"plain text", "plain text"},
		// the markup's own line breaks are spaces; only tags break lines
		{"one\ntwo  <b>three</b>\r\n", "one two three"},
		{"<p>First\n paragraph.</p><p>Second one.</p>", "First paragraph.\n\nSecond one."},
		{"<p>a</p>\n\n<p></p>\n<p>b</p>", "a\n\nb"},
		{"line one<br>line two<br/><br />line three", "line one\nline two\nline three"},
		{"<p>Intro<br>more</p><div>after</div>", "Intro\nmore\n\nafter"},
		{"before<p>inside</p>after", "before\n\ninside\n\nafter"},
		{"<ul><li>x</li><li> y </li></ul>", "x\ny"},
		{"<P>Upper</P><P>case</P>", "Upper\n\ncase"},
		{"Tom &amp; Jerry&nbsp;&nbsp;go", "Tom & Jerry go"},
		{"<p>kept</p><script>var p = '<p>x</p>';</script><style>p{}</style><!-- <p>c</p> -->", "kept"},
		{"a\u200bb <span>\u00a0</span> c", "ab c"},
		{"cut <b", "cut"},
		{"1 < 2<br>3 > 2", "1 < 2\n3 > 2"},
	} {
		if got := blockText(c.in); got != c.want {
			t.Errorf("blockText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// blockText's text is stripTags' text laid out: the same words in the same order, whatever the
// input; no line is empty or has an edge space; no more than one blank line in a row.
func FuzzBlockText(f *testing.F) {
	for _, s := range []string{"<p>a\nb</p><p>c<br>d</p>", "x<div> </div>y", "<script>a</script>b", "&amp;<p", "\u2029<p>\u2029"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := blockText(s)
		if !utf8.ValidString(s) {
			return
		}
		if w, s := strings.Fields(normSpace(got)), strings.Fields(normSpace(stripTags(s))); !slices.Equal(w, s) {
			t.Fatalf("words %q, stripTags' %q", w, s)
		}
		if strings.Contains(got, "\n\n\n") {
			t.Fatalf("%q: more than one blank line", got)
		}
		for line := range strings.SplitSeq(strings.ReplaceAll(got, "\n\n", "\n"), "\n") {
			if got != "" && (line == "" || line != strings.TrimSpace(line)) {
				t.Fatalf("%q: line %q", got, line)
			}
		}
	})
}
