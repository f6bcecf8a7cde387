package universal_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"asa/engine/dom"
	"asa/engine/universal"
)

// corpusDir is the shared corpus beside the repository, or $ASA_CORPUS.
func corpusDir() string {
	if d := os.Getenv("ASA_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "shared", "corpus")
}

func newsPages(tb testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join(corpusDir(), "news", "*", "*.html"))
	var pages [][]byte
	for _, f := range files {
		if strings.HasSuffix(f, ".expected.html") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		pages = append(pages, b)
	}
	if len(pages) == 0 {
		tb.Skipf("no corpus news pages under %s (set ASA_CORPUS)", corpusDir())
	}
	return pages
}

// BenchmarkExtractAuto runs parse=auto over every news page of the corpus; one op is one page.
// It reports the median and p99 milliseconds per page (make bench-universal).
func BenchmarkExtractAuto(b *testing.B) {
	pages := newsPages(b)
	var times []time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pages[i%len(pages)]
		t0 := time.Now()
		if _, err := universal.Extract(p, "text/html", "http://fakehost/test/page.html", universal.Auto); err != nil {
			b.Fatal(err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	q := func(f float64) float64 {
		i := min(len(times)-1, int(f*float64(len(times))))
		return float64(times[i].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.5), "ms-median/page")
	b.ReportMetric(q(0.99), "ms-p99/page")
}

// TestCorpusNews: every news page of the corpus gives a title and a text of some length.
func TestCorpusNews(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for i, p := range newsPages(t) {
		res, err := universal.Extract(p, "text/html", "http://fakehost/test/page.html", universal.Auto)
		if err != nil {
			t.Errorf("page %d: %v", i, err)
			continue
		}
		if res.Title == "" || len(res.Text) < 500 {
			t.Errorf("page %d: title %q, %d bytes of text", i, res.Title, len(res.Text))
		}
	}
}

// BenchmarkExtractText runs parse=text (the main text alone) over every news page of the corpus;
// one op is one page.
func BenchmarkExtractText(b *testing.B) {
	pages := newsPages(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := universal.Extract(pages[i%len(pages)], "text/html", "http://fakehost/test/page.html", universal.Text); err != nil {
			b.Fatal(err)
		}
	}
}

// mainTextPages are the article pages of 200 KB or more furthest from 3x parsel (issue 20), with
// the URL their endpoint passes.
var mainTextPages = []struct{ file, url string }{
	{"news/royalroad/royal-road.html", "https://www.royalroad.com/fiction/63759/super-supportive/chapter/1449598/one-hundred-two-what-kind-of-wordchain"},
	{"news/takagi-hiromitsu/takagi-hiromitsu-1.html", "http://takagi-hiromitsu.jp/diary/20190211.html"},
	{"news/theverge/theverge.html", "https://www.theverge.com/23752959/apple-vision-pro-headset-hands-on-demo-impressions"},
	{"news/salon/salon-1.html", "https://www.salon.com/"},
	{"news/seattletimes/seattletimes-1.html", "https://www.seattletimes.com/"},
}

// BenchmarkMainText is ExtractMainTextFrom alone on one parsed tree per page (what the article
// family's main_text source costs once the page is parsed). cpu-ms/op is the process's CPU time
// per op, the garbage collector's included: on a loaded machine it says more than the wall time.
func BenchmarkMainText(b *testing.B) {
	for _, p := range mainTextPages {
		body, err := os.ReadFile(filepath.Join(corpusDir(), p.file))
		if err != nil {
			b.Skipf("no corpus page %s (set ASA_CORPUS)", p.file)
		}
		doc, err := dom.ParseHTML(body)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(filepath.Dir(p.file)), func(b *testing.B) {
			b.ReportAllocs()
			t0 := cpuTime()
			for b.Loop() {
				if _, err := universal.ExtractMainTextFrom(doc, p.url); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-t0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
