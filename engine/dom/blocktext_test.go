package dom

import (
	"strings"
	"testing"
)

func TestBlockText(t *testing.T) {
	for _, tc := range []struct{ name, html, want string }{
		{"paragraphs", "<div id=x><p>One  two\n three.</p><p>Four.</p></div>", "One two three.\n\nFour."},
		{"br and inline", "<div id=x>a <b>bold</b><br>next<br>last</div>", "a bold\nnext\nlast"},
		// two <br> in a row leave the empty line a browser shows, never more than one
		{"br on an empty line", "<div id=x>one<br><br>two<br><br><br>three<p>para</p><br>four</div>", "one\n\ntwo\n\nthree\n\npara\n\nfour"},
		{"list items", "<div id=x><p>Steps:</p><ul><li>one</li><li>two <i>too</i></li></ul>after</div>", "Steps:\n\none\ntwo too\n\nafter"},
		{"code kept", "<div id=x><p>Try:</p><pre><code>def f():\n    return 1   \n\n\nprint(f())\n</code></pre><p>Done.</p></div>",
			"Try:\n\ndef f():\n    return 1\n\n\nprint(f())\n\nDone."},
		{"pre with markup and br", "<div id=x><pre><span class=k>if</span> x:<br>  y()</pre></div>", "if x:\n  y()"},
		{"table cells", "<div id=x><table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table></div>", "a b\nc d"},
		{"skipped", "<div id=x>shown<script>hidden()</script><style>p{}</style> too</div>", "shown too"},
		{"divs", "<div id=x><div>  first </div><div><div>second</div></div>third</div>", "first\nsecond\nthird"},
		{"heading", "<div id=x><h2>Title</h2>text</div>", "Title\n\ntext"},
		{"empty", "<div id=x> <p> </p><br></div>", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nav := selectFirst(t, mustHTML(t, tc.html), "//*[@id='x']")
			if got := BlockText(nav); got != tc.want {
				t.Errorf("BlockText = %q, want %q", got, tc.want)
			}
		})
	}
	// anything but an element is Text
	doc := mustHTML(t, "<a id=x href='  /p  q '>t</a>")
	if got := BlockText(selectFirst(t, doc, "//a/@href")); got != "/p q" {
		t.Errorf("attribute: %q", got)
	}
	if got := BlockText(nil); got != "" {
		t.Errorf("nil: %q", got)
	}
}

// FuzzBlockText: on any page, BlockText has the words of Text outside <pre> in the same order, no
// space or line break at its ends (but a <pre>'s indentation), and never three line breaks in a row without a <pre>.
func FuzzBlockText(f *testing.F) {
	for _, s := range []string{
		"<p>a</p><p>b</p>", "<ul><li>x<li>y</ul>", "<pre>  a\n\n\n b</pre>", "a<br><br><br>b",
		"<table><tr><td>1<td>2</table>", "<div><p>x<div>y</div>z</p></div>", "<script>s</script>t",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 1<<12 {
			return
		}
		doc, err := ParseHTML([]byte(s))
		if err != nil {
			return
		}
		nav := Navigator(doc)
		got := BlockText(nav)
		// a <pre>'s first line may start with its indentation
		if strings.TrimRight(got, " \t\n") != got || strings.HasPrefix(got, "\n") {
			t.Fatalf("edges: %q", got)
		}
		if strings.Contains(strings.ToLower(s), "<pre") {
			return
		}
		if strings.TrimSpace(got) != got {
			t.Fatalf("edges: %q", got)
		}
		if strings.Contains(got, "\n\n\n") {
			t.Fatalf("three line breaks: %q", got)
		}
		if w, g := strings.Fields(Text(nav)), strings.Fields(got); strings.Join(w, " ") != strings.Join(g, " ") {
			t.Fatalf("words differ:\nText      %q\nBlockText %q", w, g)
		}
	})
}
