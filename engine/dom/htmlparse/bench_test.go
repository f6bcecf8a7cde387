package htmlparse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/net/html"
)

// benchPages are big corpus pages of different kinds: a marketplace page heavy in scripts, a
// search results page, an article.
var benchPages = []struct{ name, path string }{
	{"amazon", "amazon/product-co.uk-metascraper.html"},
	{"google", "google/serp-2026-01-20-why-is-the-sky-blue-7049404a2dd6.html"},
	{"wikipedia", "news/wikipedia/wikipedia-2.html"},
}

// BenchmarkParse compares x/net/html's Parse with this package's on the same pages.
func BenchmarkParse(b *testing.B) {
	dir := corpusDir()
	if dir == "" {
		b.Skip("no corpus (set ASA_CORPUS)")
	}
	for _, p := range benchPages {
		body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.path)))
		if err != nil {
			b.Skip(err)
		}
		b.Run(p.name+"/x-net-html", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := html.Parse(bytes.NewReader(body)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(p.name+"/htmlparse", func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
