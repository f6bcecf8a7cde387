package universal

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"asa/engine/dom"
)

func renderHTML(t *testing.T, n *html.Node) string {
	t.Helper()
	var b bytes.Buffer
	if err := html.Render(&b, n); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameTree fails unless a and b have the same shape and the same node contents, with no node or
// attribute array shared between them and every link of b's nodes pointing inside b.
func sameTree(t *testing.T, a, b *html.Node) {
	t.Helper()
	if a.Type != b.Type || a.DataAtom != b.DataAtom || a.Data != b.Data || a.Namespace != b.Namespace ||
		len(a.Attr) != len(b.Attr) || (a.Attr == nil) != (b.Attr == nil) {
		t.Fatalf("node %q (%d) copied as %q (%d)", a.Data, a.Type, b.Data, b.Type)
	}
	for i := range a.Attr {
		if a.Attr[i] != b.Attr[i] {
			t.Fatalf("attribute %v copied as %v", a.Attr[i], b.Attr[i])
		}
	}
	if len(b.Attr) > 0 && &a.Attr[0] == &b.Attr[0] {
		t.Fatalf("<%s> shares its attributes with the original", a.Data)
	}
	if cap(b.Attr) != len(b.Attr) {
		t.Fatalf("<%s>'s copied attributes have room for %d more", a.Data, cap(b.Attr)-len(b.Attr))
	}
	ka, kb := a.FirstChild, b.FirstChild
	var prev *html.Node
	for ; ka != nil && kb != nil; ka, kb = ka.NextSibling, kb.NextSibling {
		if ka == kb || kb.Parent != b || kb.PrevSibling != prev {
			t.Fatalf("the copy of %q is not linked inside the copy", ka.Data)
		}
		sameTree(t, ka, kb)
		prev = kb
	}
	if ka != nil || kb != nil || b.LastChild != prev {
		t.Fatalf("<%s> has a different number of children in the copy", a.Data)
	}
}

func TestCloneTree(t *testing.T) {
	for _, tc := range []struct {
		name, page string
	}{
		{"empty", ``},
		{"text only", `just text`},
		{"attributes", `<!DOCTYPE html><html lang="en"><body><p class="a b" id="x">one<b data-x="">two</b>three</p><img src=a.png alt></body></html>`},
		{"comments and foreign content", `<div><!-- a comment --><svg viewBox="0 0 1 1"><path d="M0 0"/></svg><math><mi>x</mi></math></div>`},
		{"template and table", `<template><p>inside</p></template><table><tr><td>1<td>2</table>`},
		{"deep", strings.Repeat(`<div><span title="t">`, 250) + `x` + strings.Repeat(`</span></div>`, 250)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := dom.ParseHTML([]byte(tc.page))
			if err != nil {
				t.Fatal(err)
			}
			want := renderHTML(t, doc)
			c := cloneTree(doc)
			if c.Parent != nil || c.PrevSibling != nil || c.NextSibling != nil {
				t.Fatal("the copy's root is linked to something")
			}
			sameTree(t, doc, c)
			if got := renderHTML(t, c); got != want {
				t.Fatalf("copy renders\n%s\nwant\n%s", got, want)
			}
			// The extractor prunes and rewrites its copy: the original stays as it was.
			walkTree(c, func(n *html.Node) {
				if n.Type == html.ElementNode {
					n.Attr = append(n.Attr, html.Attribute{Key: "data-readability", Val: "1"})
					if len(n.Attr) > 1 {
						n.Attr[0].Val = "changed"
					}
				}
			})
			for c.FirstChild != nil {
				c.RemoveChild(c.FirstChild)
			}
			if got := renderHTML(t, doc); got != want {
				t.Fatalf("the original renders\n%s\nafter its copy changed, want\n%s", got, want)
			}
		})
	}
}

// A subtree's copy is that subtree alone, not linked to the rest of the page.
func TestCloneTreeSubtree(t *testing.T) {
	doc, err := dom.ParseHTML([]byte(`<body><p>before</p><article><p>in <i>it</i></p></article><p>after</p></body>`))
	if err != nil {
		t.Fatal(err)
	}
	var art *html.Node
	walkTree(doc, func(n *html.Node) {
		if n.Data == "article" {
			art = n
		}
	})
	c := cloneTree(art)
	if c.Parent != nil || c.NextSibling != nil || c.PrevSibling != nil {
		t.Fatal("the copy's root is linked to something")
	}
	sameTree(t, art, c)
	if got, want := renderHTML(t, c), `<article><p>in <i>it</i></p></article>`; got != want {
		t.Errorf("copy renders %s, want %s", got, want)
	}
}

// wordCountRunes is WordCount as it was first written, over a []rune of the text: the reference
// the in-place decoding must agree with.
func wordCountRunes(s string) int {
	n := 0
	in := false
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			n++
			in = false
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if !in {
				n++
			}
			in = true
		case in && (r == '\'' || r == '’' || r == '-') && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
		default:
			in = false
		}
	}
	return n
}

func TestWordCountAsRunes(t *testing.T) {
	alphabet := []string{"a", "Z", "9", "é", "e\u0301", "東", "カ", "ひ", "서", "'", "’", "-", " ", "\n", ".", "\xff", "\xe6\x9d", "٣", "Ⅻ", "_", "“", "”", "—", "\u2070", "\u2071"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if got, want := WordCount(b.String()), wordCountRunes(b.String()); got != want {
			t.Fatalf("WordCount(%q) = %d, want %d", b.String(), got, want)
		}
	}
}

// FuzzWordCount: WordCount agrees with wordCountRunes on any text.
func FuzzWordCount(f *testing.F) {
	for _, s := range []string{"", "don't well-known", "l’été — “quoted” 東京タワー", "a-", "x'\xff", "9’9 é\u0301", "「東京」、ー・ＡＢ１２！\u3000ｶﾅ", "\xe1\x80", "\xe1\x80\x80\xec\xbf\xbf\xed\x9f\xbfx\xe3\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := WordCount(s), wordCountRunes(s); got != want {
			t.Fatalf("WordCount(%q) = %d, want %d", s, got, want)
		}
	})
}

// TestWordRuneKind: wordRuneKind sorts every rune from U+0080 as the Unicode tables do.
func TestWordRuneKind(t *testing.T) {
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune+1; r++ {
		want := runeOther
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			want = runeCJK
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			want = runeLetter
		}
		if got := wordRuneKind(r); got != want {
			t.Errorf("U+%04X: %d, want %d", r, got, want)
		}
	}
}

// TestIsCommonCJK: every rune isCommonCJK reports is Han, hiragana or katakana, which WordCount
// counts it as without asking unicode.In.
func TestIsCommonCJK(t *testing.T) {
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if isCommonCJK(r) {
			n++
			if !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
				t.Errorf("U+%04X is not Han, hiragana or katakana", r)
			}
		}
	}
	if n == 0 {
		t.Fatal("no rune")
	}
}

// tidyTextSplit is tidyText as first written, over strings.Split's lines.
func tidyTextSplit(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var b strings.Builder
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\u00a0")
		if strings.TrimSpace(l) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			if blank > 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(strings.TrimLeft(l, " \t\u00a0"))
	}
	return b.String()
}

// FuzzTidyText: tidyText is tidyTextSplit.
func FuzzTidyText(f *testing.F) {
	for _, s := range []string{"", "\n", "a\n", "\na", " a \r\n\r\n\n b\u00a0\n\t\nc", "\r\r\n\n\u00a0\u3000x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := tidyText(s), tidyTextSplit(s); got != want {
			t.Fatalf("tidyText(%q) = %q, want %q", s, got, want)
		}
	})
}
