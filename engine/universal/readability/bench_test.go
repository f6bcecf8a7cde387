package readability_test

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"asa/engine/dom"
	"asa/engine/universal/readability"
)

// slowPages are the corpus pages whose extraction go-readability dominated (issue 20).
var slowPages = []string{
	"news/engadget/engadget.html",
	"news/royalroad/royal-road.html",
	"news/wikipedia/wikipedia-2.html",
	"news/nytimes/nytimes-5.html",
	"news/theverge/theverge.html",
	"news/salon/salon-1.html",
	"news/mentalfloss/mentalfloss-1.html",
	"news/takagi-hiromitsu/takagi-hiromitsu-1.html",
	"news/cbssports/cbssports-1.html",
	"recipes/costco.com/costco.html",
}

// BenchmarkParse runs ParseAndMutate on each slow page (one tree parsed per op, outside the timer).
func BenchmarkParse(b *testing.B) {
	base, _ := url.Parse("http://fakehost/test/page.html")
	for _, p := range slowPages {
		body, err := os.ReadFile(filepath.Join(corpusDir(), p))
		if err != nil {
			b.Skipf("no corpus page %s (set ASA_CORPUS)", p)
		}
		b.Run(filepath.Base(filepath.Dir(p)), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				doc, err := dom.ParseHTML(body)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				ps := readability.NewParser()
				if _, err := ps.ParseAndMutate(doc, base); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
