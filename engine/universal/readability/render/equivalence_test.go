package render_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	upstream "codeberg.org/readeck/go-readability/v2/render"

	"asa/engine/dom"
	"asa/engine/universal/readability/render"
)

// corpusDir is the shared corpus beside the repository, or $ASA_CORPUS.
func corpusDir() string {
	if d := os.Getenv("ASA_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "..", "..", "shared", "corpus")
}

// compare renders page's whole tree with upstream's InnerText and the fork's, which must agree.
func compare(t *testing.T, name string, page []byte) {
	t.Helper()
	doc, err := dom.ParseHTML(page)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if want, got := upstream.InnerText(doc), render.InnerText(doc); want != got {
		i := 0
		for i < len(want) && i < len(got) && want[i] == got[i] {
			i++
		}
		t.Errorf("%s: differs at byte %d: want …%q, got …%q", name, i, want[max(0, i-40):min(len(want), i+40)], got[max(0, i-40):min(len(got), i+40)])
	}
}

// TestEquivalentPages runs both on every HTML page of the corpus (when present) and of the
// repository's fixtures.
func TestEquivalentPages(t *testing.T) {
	n := 0
	for _, root := range []string{corpusDir(), filepath.Join("..", "..", "..", "..", "fixtures")} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm")) {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, p, b)
			n++
			return nil
		})
	}
	if n == 0 {
		t.Fatal("no pages")
	}
	t.Logf("%d pages", n)
}

func FuzzEquivalent(f *testing.F) {
	for _, s := range []string{
		"", "a b", " a\u00a0b\u3000c\u0085d\u2000e ", "<p>x<br>y</p><pre> a  b </pre>", "\xff \xfe\xc2\xa0x",
		"<ul><li>a<li>b</ul><table><tr><td>1<td>2</table>", "<div aria-hidden=true>h</div><span>v</span>",
		"日本語\u3000の、テキスト\xe3\x80\x80x\xe3\x80\xec\xbf\xbf\xed\x9f\xbf 한국어\xe3\x80",
		"<div>\n                <span>a</span>                \t        b        \u00a0          c</div>",
		"<script type=\"math/tex; mode=display\">x^2</script><math display=block><annotation encoding=\"application/x-tex\">y</annotation></math>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, page string) {
		if len(page) > 1<<16 {
			return
		}
		compare(t, "fuzzed page", []byte(page))
	})
}
