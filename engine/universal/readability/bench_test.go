package readability_test

import (
	"net/url"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

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

// cpuTime is the CPU time the process has used: on a machine other programs load, the wall time
// of an op says more about them than about the op.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkParse runs ParseAndMutate on each slow page (one tree parsed per op, outside the timer).
// cpu-ms/op is the CPU time of ParseAndMutate alone, the garbage collector's included (run it
// with GOMAXPROCS=1 so that no other goroutine adds to it).
func BenchmarkParse(b *testing.B) {
	base, _ := url.Parse("http://fakehost/test/page.html")
	for _, p := range slowPages {
		body, err := os.ReadFile(filepath.Join(corpusDir(), p))
		if err != nil {
			b.Skipf("no corpus page %s (set ASA_CORPUS)", p)
		}
		b.Run(filepath.Base(filepath.Dir(p)), func(b *testing.B) {
			b.ReportAllocs()
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				doc, err := dom.ParseHTML(body)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0 := cpuTime()
				ps := readability.NewParser()
				if _, err := ps.ParseAndMutate(doc, base); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - t0
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
