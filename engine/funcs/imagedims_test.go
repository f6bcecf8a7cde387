package funcs

import (
	"regexp"
	"strconv"
	"testing"
	"unicode"
)

// The patterns imageDims and queryDim read as one scan each.
var (
	imageDimsRe = regexp.MustCompile(`(?:^|[^0-9])(\d{3,5})[xX](\d{3,5})(?:[^0-9]|$)`)
	imageQueryW = regexp.MustCompile(`(?i)[?&](?:w|width)=(\d{3,5})`)
	imageQueryH = regexp.MustCompile(`(?i)[?&](?:h|height)=(\d{3,5})`)
)

var imageDimsCases = []string{
	"", "https://x.test/a.jpg", "https://x.test/img/1200x800/a.jpg", "https://x.test/a-1200X800.jpg",
	"1200x800", "12x800_300x200", "123456x800/300x200", "1200x123456-640x480", "a1200x8000", "1200x80", "x1200x800x600",
	"https://x.test/a.jpg?w=1200&h=800", "https://x.test/a.jpg?WIDTH=1200&Height=800", "?w=12&w=1234567&h=999",
	"?width=1200", "&h=800&w=640", "?wi=1200&h=800", "?w=120x300&h=0800", "?W=\u0131\u212a", "?wıdth=1200&h=800",
	"https://x.test/1200x800?w=1&h=2", "\xff1200x800\xff", "٣٣٣x٣٣٣", "?w=١٢٣&h=123",
}

func TestImageDims(t *testing.T) {
	for _, u := range imageDimsCases {
		checkImageDims(t, u)
	}
	// asciiFold holds for the names' letters because their case folding holds no other rune.
	for _, r := range "widthegh" {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f != unicode.ToUpper(r) {
				t.Errorf("%q folds to %q", r, f)
			}
		}
	}
}

func FuzzImageDims(f *testing.F) {
	for _, u := range imageDimsCases {
		f.Add(u)
	}
	f.Fuzz(checkImageDims)
}

func checkImageDims(t *testing.T, u string) {
	w, h, ok := imageDims(u)
	var ww, wh int
	m := imageDimsRe.FindStringSubmatch(u)
	if m != nil {
		ww, _ = strconv.Atoi(m[1])
		wh, _ = strconv.Atoi(m[2])
	}
	if ok != (m != nil) || w != ww || h != wh {
		t.Fatalf("imageDims(%q) = %d %d %v, the pattern %q", u, w, h, ok, m)
	}
	for _, c := range []struct {
		re          *regexp.Regexp
		short, long string
	}{{imageQueryW, "w", "width"}, {imageQueryH, "h", "height"}} {
		n, ok := queryDim(u, c.short, c.long)
		m := c.re.FindStringSubmatch(u)
		want := 0
		if m != nil {
			want, _ = strconv.Atoi(m[1])
		}
		if ok != (m != nil) || n != want {
			t.Fatalf("queryDim(%q, %q) = %d %v, the pattern %q", u, c.long, n, ok, m)
		}
	}
}
