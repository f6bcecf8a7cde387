package readability

import (
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"asa/engine/dom/htmlparse"
	"github.com/go-shiori/dom"
	"golang.org/x/net/html"
)

// runeCounts is upstream's charCounter and commaCounter, rune by rune: what scanText, add and join
// must give.
type runeCounts struct {
	total, commas        int
	lastSpace, seenNonSp bool
}

func (c *runeCounts) count(s string) {
	for _, r := range s {
		switch r {
		case '\u002C', '\u060C', '\uFE50', '\uFE10', '\uFE11', '\u2E41', '\u2E34', '\u2E32', '\uFF0C':
			c.commas++
		}
		if unicode.IsSpace(r) {
			c.lastSpace = true
			continue
		}
		if c.lastSpace && c.seenNonSp {
			c.total += 2
		} else {
			c.total++
		}
		c.lastSpace, c.seenNonSp = false, true
	}
}

// FuzzScanText: a counter fed a, then b, counts what upstream's counted rune by rune, whether it
// adds the runs of a and b one after the other or their join.
func FuzzScanText(f *testing.F) {
	for _, s := range []string{"", " ", "a", " a b ", "a,b ,c", "\u00a0x\u3000y\u060c", "\xff \xfe", "x\u0085y", "  ", "ab  cd\n\tef ",
		"日本語\u3000の、テキスト，です。", "語\u3000\u3000の\u3000", "\xe3\x80", "\xe4\xbd\xe3\x80\x80\xec\xbf\xbf\xed\x9f\xbf 한국어",
		"\n                    a                \t        b,        ", "         \u00a0        ",
		"\xef\xd8\x8c\xe2\xef\xbc\x8c\xef\xbc\xef\xb9\x90\xe2\xb8\xb2\xe2\xb8\xb4\xe2\xb9\x81\xef\xb8\x90\xef\xb8\x91\xd8", "語，語\ufe50、"} {
		f.Add(s, " "+s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var want runeCounts
		want.count(a)
		want.count(b)
		ta, tb := scanText(a), scanText(b)
		var c charCounter
		c.add(ta)
		c.add(tb)
		var j charCounter
		tj := join(ta, tb)
		j.add(tj)
		if c.Total != want.total || j.Total != want.total || ta.commas+tb.commas != want.commas || tj.commas != want.commas {
			t.Fatalf("%q + %q: want %d chars %d commas, got %d (added) %d (joined), %d commas", a, b, want.total, want.commas, c.Total, j.Total, tj.commas)
		}
		if n := countCommas(a) + countCommas(b); n != want.commas {
			t.Fatalf("%q + %q: want %d commas, countCommas %d", a, b, want.commas, n)
		}
		if c.lastCharWasSpace != want.lastSpace || c.seenNonSpace != want.seenNonSp {
			t.Fatalf("%q + %q: counter state differs", a, b)
		}
	})
}

// TestIsSpaceMultiByte: isSpaceMultiByte is unicode.IsSpace on every rune it is given (from U+0080).
func TestIsSpaceMultiByte(t *testing.T) {
	for r := rune(0x80); r <= unicode.MaxRune+1; r++ {
		if got, want := isSpaceMultiByte(r), unicode.IsSpace(r); got != want {
			t.Errorf("U+%04X: %v, unicode.IsSpace %v", r, got, want)
		}
	}
}

// FuzzEarlyCounts: commasAtLeast and countCharsUpTo, which stop counting early, agree with
// countCharsAndCommas on every element of a page, and linkDensityBelow with getLinkDensity.
func FuzzEarlyCounts(f *testing.F) {
	for _, s := range []string{"", "<p>a, b, c</p>", "<div>x,<p>y,,<b>z\uff0c</b></p>, ,</div><ul><li>a , b</ul>",
		"<div><div>" + "w, " + "w, w, w, w, w, w, w, w, w, w</div> tail</div>", "<p> a  b\u3000c\u060c </p><!-- c, , -->",
		"<div><p>" + strings.Repeat(" a long text, with commas, ", 4) + "</p><p>" + strings.Repeat("\u3000語、", 30) + "</p></div>",
		`<div><p>text <a href="#x">link</a> more</p><a href=" /y">y<svg><a>z</a></svg></a></div>`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) {
		doc, err := htmlparse.Parse([]byte(page))
		if err != nil {
			return
		}
		runs := runCache{} // shared by every walk below, as a pass shares it: its runs are the texts'
		ps := &Parser{runs: runs}
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.ElementNode {
				chars, commas := countCharsAndCommas(n, nil)
				d := ps.getLinkDensity(n)
				for _, lim := range []float64{0.25, d, math.Nextafter(d, 1), 1} {
					if lim > 0 && ps.linkDensityBelow(n, lim) != (d < lim) {
						t.Fatalf("%q: linkDensityBelow(<%s>, %v) with a density of %v", page, n.Data, lim, d)
					}
				}
				for range 2 {
					if c, k := countCharsAndCommas(n, runs); c != chars || k != commas {
						t.Fatalf("%q: <%s> with the cache: %d chars %d commas, want %d %d", page, n.Data, c, k, chars, commas)
					}
				}
				if got := countCharsUpTo(n, chars+1, runs); got != chars {
					t.Fatalf("%q: countCharsUpTo(<%s>) with the cache: %d, want %d", page, n.Data, got, chars)
				}
				for _, k := range []int{1, commas, commas + 1, 10} {
					if got, want := commasAtLeast(n, k, nil), commas >= k; got != want {
						t.Fatalf("%q: commasAtLeast(<%s>, %d) = %v with %d commas", page, n.Data, k, got, commas)
					}
					if got, want := commasAtLeast(n, k, runs), commas >= k; got != want {
						t.Fatalf("%q: commasAtLeast(<%s>, %d) with the cache = %v with %d commas", page, n.Data, k, got, commas)
					}
				}
				for _, lim := range []int{1, chars, chars + 1, 25, 500} {
					got := countCharsUpTo(n, lim, nil)
					if chars < lim && got != chars || chars >= lim && got < lim {
						t.Fatalf("%q: countCharsUpTo(<%s>, %d) = %d with %d chars", page, n.Data, lim, got, chars)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	})
}

// TestAdWordsLen: rxAdWords and rxLoadingWords match no text longer than maxAdWordsLen, which
// cleanConditionally does not give them: the longest texts they match, in the widest case folds.
func TestAdWordsLen(t *testing.T) {
	for _, s := range []string{"advertisement", "ADVERTISEMENT", "adverti\u017fement", "chargement...", "CHARGEMENT…", "Реклама", "广告", "正在加载…", "Загрузка...", "werbung", "publicité", "Anuncio", "cargando…"} {
		if !rxAdWords.MatchString(s) && !rxLoadingWords.MatchString(s) {
			t.Errorf("%q: no match", s)
		}
		if utf8.RuneCountInString(s) > 13 || len(s) > maxAdWordsLen {
			t.Errorf("%q: longer than the bound", s)
		}
	}
	for _, rx := range []*regexp.Regexp{rxAdWords, rxLoadingWords} {
		re, err := syntax.Parse(rx.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if n := maxRunes(re); n < 0 || n > 13 {
			t.Errorf("%s matches up to %d runes (-1: unbounded)", rx, n)
		}
	}
}

// maxRunes is the most runes re matches, or -1 when it has no bound.
func maxRunes(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0
	case syntax.OpLiteral:
		return len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1
	case syntax.OpCapture:
		return maxRunes(re.Sub[0])
	case syntax.OpQuest:
		return maxRunes(re.Sub[0])
	case syntax.OpConcat:
		n := 0
		for _, s := range re.Sub {
			m := maxRunes(s)
			if m < 0 {
				return -1
			}
			n += m
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, s := range re.Sub {
			m := maxRunes(s)
			if m < 0 {
				return -1
			}
			n = max(n, m)
		}
		return n
	case syntax.OpRepeat:
		if re.Max < 0 {
			return -1
		}
		m := maxRunes(re.Sub[0])
		if m < 0 {
			return -1
		}
		return m * re.Max
	}
	return -1
}

// FuzzStripCDATA: stripCDATA is rxCDATA.ReplaceAllString(s, "").
func FuzzStripCDATA(f *testing.F) {
	for _, s := range []string{"", "<![CDATA[", "]]>", " \n<![CDATA[{\"a\":[[1]]}]]> \t", "<![CDATA[]]>", "x]]>y]]> ", "\v<![CDATA[x", " <![CDATA[ <![CDATA[x]]>]]>\v", "]]>\f\r", "a]]]>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripCDATA(s), rxCDATA.ReplaceAllString(s, ""); got != want {
			t.Fatalf("%q: got %q, want %q", s, got, want)
		}
	})
}

// FuzzAllNodesWithTag: getAllNodesWithTag's one walk gives what a walk per name, joined, gave.
func FuzzAllNodesWithTag(f *testing.F) {
	for _, s := range []string{"", "<p>a<img><script>x</script><noscript><img></noscript><figure><img><picture></picture></figure>",
		"<h1>a</h1><div><h2>b</h2><h1>c<h2>d</h2></h1></div>"} {
		f.Add(s)
	}
	names := [][]string{{"script", "noscript"}, {"img", "picture", "figure", "video", "audio", "source"}, {"h1", "h2"}, {"img", "img"}, {"*", "p"}, {"a"}}
	f.Fuzz(func(t *testing.T, page string) {
		doc, err := htmlparse.Parse([]byte(page))
		if err != nil {
			return
		}
		var ps Parser
		for _, tags := range names {
			var want []*html.Node
			for _, tag := range tags {
				want = append(want, getElementsByTagName(doc, tag)...)
			}
			got := ps.getAllNodesWithTag(doc, tags...)
			if len(got) != len(want) {
				t.Fatalf("%q %v: %d nodes, want %d", page, tags, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%q %v: node %d differs", page, tags, i)
				}
			}
		}
	})
}

// FuzzClassName: className is dom.ClassName on any class attribute.
func FuzzClassName(f *testing.F) {
	for _, s := range []string{"", "a", "a b", " a", "a ", "a  b", "a\tb", "a\u00a0b", "\u00a0", "é b", "a \x85b", "x\xffy", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, class string) {
		n := &html.Node{Type: html.ElementNode, Data: "div", Attr: []html.Attribute{{Key: "id", Val: "i"}, {Key: "class", Val: class}}}
		if got, want := className(n), dom.ClassName(n); got != want {
			t.Fatalf("className(%q) = %q, want %q", class, got, want)
		}
	})
}

// sameCopy reports whether a and b copy the same tree as dom.Clone does: the same fields, Attr
// non-nil and equal, children alike.
func sameCopy(a, b *html.Node) bool {
	if a.Type != b.Type || a.DataAtom != b.DataAtom || a.Data != b.Data || a.Namespace != b.Namespace ||
		(a.Attr == nil) != (b.Attr == nil) || len(a.Attr) != len(b.Attr) {
		return false
	}
	for i := range a.Attr {
		if a.Attr[i] != b.Attr[i] {
			return false
		}
	}
	ca, cb := a.FirstChild, b.FirstChild
	var pa, pb *html.Node
	for ; ca != nil && cb != nil; ca, cb = ca.NextSibling, cb.NextSibling {
		if ca.Parent != a || cb.Parent != b || ca.PrevSibling != pa || cb.PrevSibling != pb || !sameCopy(ca, cb) {
			return false
		}
		pa, pb = ca, cb
	}
	return ca == nil && cb == nil && a.LastChild == pa && b.LastChild == pb
}

// FuzzCloneDocument: cloneDocument copies every node of a page as dom.Clone(n, true) does.
func FuzzCloneDocument(f *testing.F) {
	for _, s := range []string{"", "<p class=a id=b>x<span>y</span></p>", "<svg><path d=x></path></svg><math><mi>x</mi></math>", "<div><!-- c --><br></div>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) {
		doc, err := htmlparse.Parse([]byte(page))
		if err != nil {
			return
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			c := cloneDocument(n)
			if c.Parent != nil || c.PrevSibling != nil || c.NextSibling != nil || !sameCopy(c, dom.Clone(n, true)) {
				t.Fatalf("the copy of a %q node differs from dom.Clone's", n.Data)
			}
			for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
				walk(ch)
			}
		}
		walk(doc)
	})
}

// FuzzElementsByTagName: getElementsByTagName lists what dom.GetElementsByTagName lists, under
// every node of a page.
func FuzzElementsByTagName(f *testing.F) {
	for _, s := range []string{"", "<p>a<img><p>b<a>c</a></p><div><p><span>d</span></p></div>", "<table><tr><td><p>x</table><p>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) {
		doc, err := htmlparse.Parse([]byte(page))
		if err != nil {
			return
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			for _, tag := range []string{"*", "p", "img", "a"} {
				got, want := getElementsByTagName(n, tag), dom.GetElementsByTagName(n, tag)
				if len(got) != len(want) {
					t.Fatalf("%q under a %q node: %d nodes, want %d", tag, n.Data, len(got), len(want))
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%q under a %q node: node %d differs", tag, n.Data, i)
					}
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	})
}

// firstRunes adds to set every rune a match of re can start with, and reports whether re can match
// the empty text (the runes of what follows may start it then). Case folds count: a literal with
// FoldCase starts with any rune of its first rune's orbit.
func firstRunes(re *syntax.Regexp, set map[rune]bool) (nullable bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpEndText, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		r := re.Rune[0]
		set[r] = true
		if re.Flags&syntax.FoldCase != 0 {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				set[f] = true
			}
		}
		return false
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set[r] = true
			}
		}
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return firstRunes(re.Sub[0], set)
	case syntax.OpQuest, syntax.OpStar:
		firstRunes(re.Sub[0], set)
		return true
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !firstRunes(s, set) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		nullable := false
		for _, s := range re.Sub {
			if firstRunes(s, set) {
				nullable = true
			}
		}
		return nullable
	}
	panic(fmt.Sprintf("op %v", re.Op))
}

// TestAdWordsFirstBytes: every text rxAdWords or rxLoadingWords may match starts with a byte
// mayBeAdWords lets through (neither matches the empty text).
func TestAdWordsFirstBytes(t *testing.T) {
	for _, rx := range []*regexp.Regexp{rxAdWords, rxLoadingWords} {
		re, err := syntax.Parse(rx.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		set := map[rune]bool{}
		if firstRunes(re, set) || rx.MatchString("") {
			t.Fatalf("%s may match the empty text", rx)
		}
		for r := range set {
			if s := string(r); !mayBeAdWords(s) {
				t.Errorf("%s may match a text starting with %q", rx, s)
			}
		}
	}
}

// FuzzStyleMatches: styleMatches is rxDisplayNone's and rxVisibilityHidden's MatchString.
func FuzzStyleMatches(f *testing.F) {
	for _, s := range []string{"", "display:none", "DISPLAY : NONE", "display:\t\n\f\r nonE", "display\v:none", "display: block; text-transform: none",
		"displaydisplay:none", "display:", "visibility :hidden", "Visibility:Hidden;", "di\u017fplay:none", "vi\u017fibility:hidden", "display: none\u00e9", "display:nonx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, style string) {
		if got, want := styleMatches(style, "display", "none", rxDisplayNone), rxDisplayNone.MatchString(style); got != want {
			t.Fatalf("display %q: %v, want %v", style, got, want)
		}
		if got, want := styleMatches(style, "visibility", "hidden", rxVisibilityHidden), rxVisibilityHidden.MatchString(style); got != want {
			t.Fatalf("visibility %q: %v, want %v", style, got, want)
		}
	})
}

// TestMultiByteCommas: multiByteCommas are the runes isCommaMultiByte reports, each once.
func TestMultiByteCommas(t *testing.T) {
	var want []string
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if isCommaMultiByte(r) {
			want = append(want, string(r))
		}
	}
	got := map[string]bool{}
	for _, c := range multiByteCommas {
		got[c] = true
	}
	if len(got) != len(want) || len(multiByteCommas) != len(want) {
		t.Fatalf("%q, want %q", multiByteCommas, want)
	}
	for _, c := range want {
		if !got[c] {
			t.Errorf("%q missing", c)
		}
	}
}

// FuzzHasContent: hasContent reports a rune other than white space (unicode.IsSpace), an invalid
// byte being one (U+FFFD).
func FuzzHasContent(f *testing.F) {
	for _, s := range []string{"", " ", "\n                  ", "                x", "        \u00a0       ", "         \xff", "\t\v\f\r \u3000\u0085", "  a  "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := hasContent(s), strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsSpace(r) }); got != want {
			t.Fatalf("hasContent(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzCleanTags: cleanTags leaves a page as clean on each tag in turn leaves it.
func FuzzCleanTags(f *testing.F) {
	for _, s := range []string{"", "<object data=x><embed src=y><p>a</p></object><footer><link><aside>b</aside></footer>",
		"<iframe src=https://www.youtube.com/embed/x></iframe><object><embed src=https://vimeo.com></object><form><input><textarea>t</textarea><select><option>o</select><button>b</button></form>",
		"<aside><object><param value=https://www.youtube.com/v/x></object></aside><embed src=z>"} {
		f.Add(s)
	}
	groups := [][]string{{"object", "embed", "footer", "link", "aside"}, {"iframe", "input", "textarea", "select", "button"}}
	f.Fuzz(func(t *testing.T, page string) {
		a, err := htmlparse.Parse([]byte(page))
		if err != nil {
			return
		}
		b, _ := htmlparse.Parse([]byte(page))
		ps := NewParser()
		for _, g := range groups {
			for _, tag := range g {
				ps.clean(a, tag)
			}
			ps.cleanTags(b, g...)
		}
		var wa, wb strings.Builder
		if err := html.Render(&wa, a); err != nil {
			return
		}
		_ = html.Render(&wb, b)
		if wa.String() != wb.String() {
			t.Fatalf("%q: %q, want %q", page, wb.String(), wa.String())
		}
	})
}

// FuzzLDJSONScripts: ldJSONScripts lists what dom.QuerySelectorAll lists for
// script[type="application/ld+json"], under every node of a page.
func FuzzLDJSONScripts(f *testing.F) {
	for _, s := range []string{
		"",
		`<script type="application/ld+json">{}</script><p><script type="application/ld+json" type="x">[]</script>`,
		`<svg><script type="application/ld+json">1</script></svg><script TYPE="application/ld+json"></script>`,
		`<script type="Application/ld+json"></script><script type="application/ld+json ">2</script><script type=x type="application/ld+json">`,
		`<div><noscript><script type="application/ld+json">3</script></noscript></div>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) {
		doc, err := htmlparse.Parse([]byte(page))
		if err != nil {
			return
		}
		var walk func(n *html.Node)
		walk = func(n *html.Node) {
			got, want := ldJSONScripts(n), dom.QuerySelectorAll(n, `script[type="application/ld+json"]`)
			if len(got) != len(want) {
				t.Fatalf("under a %q node: %d scripts, want %d", n.Data, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("under a %q node: script %d differs", n.Data, i)
				}
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(doc)
	})
}

// TestNulString: the string is its parts and a null, whatever the buffer held before.
func TestNulString(t *testing.T) {
	var ps Parser
	for _, c := range [][3]string{{"", "", ""}, {"a b", " ", "id"}, {"x", "", ""}, {"", " ", ""}, {"long class name", " ", ""}} {
		if got, want := ps.nulString(c[0], c[1], c[2]), c[0]+c[1]+c[2]+"\x00"; got != want {
			t.Errorf("nulString(%q, %q, %q) = %q, want %q", c[0], c[1], c[2], got, want)
		}
	}
}
