package api_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"asa/api"
)

// BenchmarkCacheRepeatedLoad sends a repeated-request load (200 products, Zipf-distributed as real
// traffic to popular pages is) with max_age=600 to one server over loopback HTTP and reports the hit
// ratio and the latency of hits and misses as the client sees them (p50, p99). The closing note of
// issue 19 quotes it:
//
//	go test ./api -run '^$' -bench BenchmarkCacheRepeatedLoad -benchtime 2000x
func BenchmarkCacheRepeatedLoad(b *testing.B) {
	e := startCache(b, 1<<30, api.Config{})
	rng := rand.New(rand.NewPCG(19, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, 199)
	var hits, misses []time.Duration
	for b.Loop() {
		// The server's clock moves 50 ms a request: the key's rate limit (25 a second) never refuses.
		e.clock.Advance(50 * time.Millisecond)
		q := "AB" + strconv.Itoa(1000+int(zipf.Uint64()))
		start := time.Now()
		r := e.get(b, "/api/v1/shop/product?max_age=600&query="+q, "X-API-Key", e.live)
		d := time.Since(start)
		if r.status != 200 {
			b.Fatalf("%d %s", r.status, r.raw)
		}
		if r.header.Get("Asa-Cache") == "hit" {
			hits = append(hits, d)
		} else {
			misses = append(misses, d)
		}
	}
	pct := func(ds []time.Duration, p float64) float64 {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return float64(ds[min(len(ds)-1, int(p*float64(len(ds))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(len(hits))/float64(len(hits)+len(misses)), "hit-ratio")
	b.ReportMetric(pct(hits, 0.5), "hit-p50-ms")
	b.ReportMetric(pct(hits, 0.99), "hit-p99-ms")
	b.ReportMetric(pct(misses, 0.5), "miss-p50-ms")
	b.ReportMetric(pct(misses, 0.99), "miss-p99-ms")
}
