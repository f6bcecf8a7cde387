package readability

import (
	"math/rand/v2"
	nurl "net/url"
	"regexp"
	"strings"
	"testing"
)

// rxSrcsetURL and srcsetByRegexp are upstream's srcset rewriting, the reference of absSrcset.
var rxSrcsetURL = regexp.MustCompile(`(?i)(\S+)(\s+[\d.]+[xw])?(\s*(?:,|$))`)

func srcsetByRegexp(srcset string, base *nurl.URL) string {
	return rxSrcsetURL.ReplaceAllStringFunc(srcset, func(s string) string {
		p := rxSrcsetURL.FindStringSubmatch(s)
		return toAbsoluteURI(p[1], base) + p[2] + p[3]
	})
}

var srcsetBase, _ = nurl.Parse("http://fakehost/test/page.html")

func TestAbsSrcset(t *testing.T) {
	for _, s := range []string{
		"", " ", ",", ",,", "a", "a.jpg", "a.jpg 1x", "a.jpg 1x, b.jpg 2x", "a.jpg 100w,b.jpg 200W",
		"a.jpg 1.5X ,  b.jpg", "a,b c", "a,b,c d", "a.jpg 1x b.jpg", "a.jpg 1x\t,\n b.jpg\f2x\r",
		"a.jpg 1", "a.jpg x", "a.jpg 1xx, b", "a.jpg .x", "a.jpg 1x,", "a.jpg 1x ,", "a 1x 2x, b",
		"/img/a.jpg?w=100,h=200 100w, /img/b.jpg 200w", "//cdn/a.jpg 2x", "#frag 1x", "data:image/png;base64,AAAA 1x",
		"a.jpg\v1x", "a.jpg 1x\v, b", "é.jpg 1x, ü.jpg", "a\xff 1x", " ,a", "a ,", "https://x/a.jpg 640w, https://x/b.jpg 1280w",
		"a 1w,b 2w,c", "a 1w,,b", "a, b", "a,", ",a, b,", "a 12.5.6w", "a 1x,b 2x c 3x",
	} {
		if got, want := absSrcset(s, srcsetBase), srcsetByRegexp(s, srcsetBase); got != want {
			t.Errorf("absSrcset(%q) = %q, the regexp makes %q", s, got, want)
		}
	}
}

// FuzzAbsSrcset: absSrcset is upstream's regexp rewriting on any text, with or without a base.
func FuzzAbsSrcset(f *testing.F) {
	for _, s := range []string{"a.jpg 1x, b.jpg 2x", "a,b c", "a.jpg 1.5X ,  b.jpg", "/a.jpg?x=1,2 100w,\t//b 2x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, base := range []*nurl.URL{srcsetBase, nil} {
			if got, want := absSrcset(s, base), srcsetByRegexp(s, base); got != want {
				t.Fatalf("absSrcset(%q) = %q, the regexp makes %q", s, got, want)
			}
		}
	})
}

// TestAbsSrcsetRandom: texts of the bytes the pattern tells apart, mixed at random.
func TestAbsSrcsetRandom(t *testing.T) {
	alphabet := []string{"a", "/", "1", "2", ".", "x", "W", ",", " ", "\t", "\n", "\v", "#", "//", "\xff", "é"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := absSrcset(s, srcsetBase), srcsetByRegexp(s, srcsetBase); got != want {
			t.Fatalf("absSrcset(%q) = %q, the regexp makes %q", s, got, want)
		}
	}
}
