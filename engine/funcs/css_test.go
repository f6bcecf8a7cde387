package funcs

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCSSUnescape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"https://a.example/x.jpg", "https://a.example/x.jpg"},
		// Facebook's style URLs: a hex escape and the one space that ends it
		{`https\3a //scontent.example/v/t1.jpg?stp\3d dst-jpg\26 _nc_ht\3d x\25 20y`, "https://scontent.example/v/t1.jpg?stp=dst-jpg&_nc_ht=x%20y"},
		{`\3a\3a`, "::"},
		{`\3a  x`, ": x"},   // one white space ends the escape, the next is text
		{`\3ab`, "\u03ab"},  // hex digits run on: that is why a page writes the space
		{`\00003a1`, ":1"},  // six digits at most
		{"\\3a\r\nx", ":x"}, // CRLF counts as one white space
		{"\\3a\tx", ":x"},
		{`\'q\'`, "'q'"}, // any other character stands for itself
		{`\é`, "é"},
		{"a\\\nb", "ab"}, // an escaped newline is nothing
		{`\0`, "\uFFFD"},
		{`\D800`, "\uFFFD"},
		{`\110000`, "\uFFFD"},
		{`\1F600`, "\U0001F600"},
		{`end\`, "end"},
	} {
		if got := cssUnescape(c.in); got != c.want {
			t.Errorf("cssUnescape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzCSSUnescape: the decoder runs on page text. It never grows the text beyond twice its
// length, keeps text without a backslash as it is, and gives valid UTF-8 for valid UTF-8.
func FuzzCSSUnescape(f *testing.F) {
	for _, s := range []string{`https\3a //a.example/x\3d 1`, `\0`, `\`, "\\\r\n", `\FFFFFF`, `\é`, "a\\\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := cssUnescape(s)
		if len(got) > 2*len(s) {
			t.Fatalf("cssUnescape(%q) = %q: longer than twice its input", s, got)
		}
		if !strings.Contains(s, `\`) && got != s {
			t.Fatalf("cssUnescape(%q) = %q: changed text without an escape", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("cssUnescape(%q) = %q: not UTF-8", s, got)
		}
	})
}
