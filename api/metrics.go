package api

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// metrics is a small Prometheus text-format registry: the handful of series the service exports do
// not justify client_golang and its dependency tree.
type metrics struct {
	mu          sync.Mutex
	requests    map[[2]string]uint64 // endpoint, code
	latency     map[string]*histogram
	extractFail map[string]uint64 // sitedef
	cacheResult map[string]uint64 // hit, miss
	credits     atomic.Uint64
	// rulesCompiled counts extract_rules compilations: requests whose rules were not cached.
	rulesCompiled atomic.Uint64
	inFlight      atomic.Int64
}

var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

type histogram struct {
	counts []uint64
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]uint64{}, latency: map[string]*histogram{}, extractFail: map[string]uint64{}, cacheResult: map[string]uint64{}}
}

func (m *metrics) observe(endpoint, code string, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{endpoint, code}]++
	h := m.latency[endpoint]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(latencyBuckets))}
		m.latency[endpoint] = h
	}
	s := d.Seconds()
	for i, b := range latencyBuckets {
		if s <= b {
			h.counts[i]++
		}
	}
	h.sum += s
	h.n++
}

func (m *metrics) extractionFailed(sitedef string) {
	m.mu.Lock()
	m.extractFail[sitedef]++
	m.mu.Unlock()
}

// cache counts a request that gave max_age: hit or miss.
func (m *metrics) cache(result string) {
	m.mu.Lock()
	m.cacheResult[result]++
	m.mu.Unlock()
}

func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	fmt.Fprintln(w, "# HELP asa_requests_total API requests by endpoint and response code.")
	fmt.Fprintln(w, "# TYPE asa_requests_total counter")
	keys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	for _, k := range keys {
		fmt.Fprintf(w, "asa_requests_total{endpoint=%q,code=%q} %d\n", k[0], k[1], m.requests[k])
	}
	fmt.Fprintln(w, "# HELP asa_request_duration_seconds API request latency by endpoint.")
	fmt.Fprintln(w, "# TYPE asa_request_duration_seconds histogram")
	eps := make([]string, 0, len(m.latency))
	for e := range m.latency {
		eps = append(eps, e)
	}
	sort.Strings(eps)
	for _, e := range eps {
		h := m.latency[e]
		for i, b := range latencyBuckets {
			fmt.Fprintf(w, "asa_request_duration_seconds_bucket{endpoint=%q,le=%q} %d\n", e, trimFloat(b), h.counts[i])
		}
		fmt.Fprintf(w, "asa_request_duration_seconds_bucket{endpoint=%q,le=\"+Inf\"} %d\n", e, h.n)
		fmt.Fprintf(w, "asa_request_duration_seconds_sum{endpoint=%q} %g\n", e, h.sum)
		fmt.Fprintf(w, "asa_request_duration_seconds_count{endpoint=%q} %d\n", e, h.n)
	}
	fmt.Fprintln(w, "# HELP asa_credits_charged_total Credits charged.")
	fmt.Fprintln(w, "# TYPE asa_credits_charged_total counter")
	fmt.Fprintf(w, "asa_credits_charged_total %d\n", m.credits.Load())
	fmt.Fprintln(w, "# HELP asa_requests_in_flight API requests being served.")
	fmt.Fprintln(w, "# TYPE asa_requests_in_flight gauge")
	fmt.Fprintf(w, "asa_requests_in_flight %d\n", m.inFlight.Load())
	fmt.Fprintln(w, "# HELP asa_extraction_failures_total Runs that ended in extraction_failed, by sitedef.")
	fmt.Fprintln(w, "# TYPE asa_extraction_failures_total counter")
	sds := make([]string, 0, len(m.extractFail))
	for s := range m.extractFail {
		sds = append(sds, s)
	}
	sort.Strings(sds)
	for _, s := range sds {
		fmt.Fprintf(w, "asa_extraction_failures_total{sitedef=%q} %d\n", s, m.extractFail[s])
	}
	fmt.Fprintln(w, "# HELP asa_extract_rules_compiled_total Rule sets compiled (extract_rules not in the cache of compiled rules).")
	fmt.Fprintln(w, "# TYPE asa_extract_rules_compiled_total counter")
	fmt.Fprintf(w, "asa_extract_rules_compiled_total %d\n", m.rulesCompiled.Load())
	fmt.Fprintln(w, "# HELP asa_cache_requests_total Requests that gave max_age, by result (hit: answered from the cache).")
	fmt.Fprintln(w, "# TYPE asa_cache_requests_total counter")
	for _, r := range []string{"hit", "miss"} {
		fmt.Fprintf(w, "asa_cache_requests_total{result=%q} %d\n", r, m.cacheResult[r])
	}
}

func trimFloat(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%.0f", f)
	}
	return strings.TrimRight(fmt.Sprintf("%f", f), "0")
}
