package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"asa/engine"
	"asa/engine/dom"
	"asa/engine/fixture"
)

// maxProfileRuns bounds --runs: a run of the largest pages takes some ten milliseconds.
const maxProfileRuns = 10000

// profileExtract is asa extract --profile: it runs the endpoint on the saved responses as make
// bench does (parse-only and extraction interleaved, each after a collection, the fastest run of
// each compared), then runs it again under an engine.Trace and prints where a run's time goes, by
// phase and by field, so that an author finds the selector that costs the most by its name.
func profileExtract(ctx context.Context, plan *engine.Plan, params url.Values, rp *fixture.Replay, runs int, stdout, stderr io.Writer) int {
	// A run that fails is shown as asa extract shows it: its profile would time an error path.
	if out := fixture.Execute(ctx, plan, params, rp); out.Err != nil {
		writeError(stdout, stderr, out.Err)
		return 1
	}
	ps, err := plan.Params(params)
	if err != nil {
		fmt.Fprintf(stderr, "asa extract: %v\n", err)
		return 2
	}
	extract := func(ctx context.Context) {
		// Execute succeeded with the same parameters and replies: a run cannot fail now.
		if res, err := plan.Run(ctx, ps, rp); err == nil {
			_, _ = res.MarshalJSON()
		}
	}

	// The floor: charset conversion and HTML parsing of every HTML response given.
	var pages [][]byte
	size, responses := 0, 0
	for _, rep := range append(slices.Collect(maps.Values(rp.Replies)), rp.Fallback) {
		if rep == nil {
			continue
		}
		responses++
		size += len(rep.Body)
		if strings.Contains(rep.Header.Get("Content-Type"), "html") {
			pages = append(pages, rep.Body)
		}
	}
	parseOnly := func() {
		for _, b := range pages {
			if u, err := dom.ToUTF8(b, "text/html"); err == nil {
				_, _ = dom.ParseHTML(u)
			}
		}
	}
	var parseMin, extractMin time.Duration
	for range runs {
		if len(pages) > 0 {
			runtime.GC()
			t0 := time.Now()
			parseOnly()
			parseMin = minPositive(parseMin, time.Since(t0))
		}
		runtime.GC()
		t0 := time.Now()
		extract(ctx)
		extractMin = minPositive(extractMin, time.Since(t0))
	}

	// The breakdown, from runs of their own: the trace's clock readings would slow the runs
	// timed above.
	phases := map[string]time.Duration{}
	type fieldCost struct {
		d     time.Duration
		calls int
	}
	fields := map[string]*fieldCost{}
	tr := &engine.Trace{
		Phase: func(name string, d time.Duration) { phases[name] += d },
		Field: func(path string, d time.Duration) {
			fc := fields[path]
			if fc == nil {
				fc = &fieldCost{}
				fields[path] = fc
			}
			fc.d += d
			fc.calls++
		},
	}
	tctx := engine.WithTrace(ctx, tr)
	for range runs {
		runtime.GC()
		res, err := plan.Run(tctx, ps, rp)
		if err != nil {
			continue
		}
		t0 := time.Now()
		_, _ = res.MarshalJSON()
		phases["json"] += time.Since(t0)
	}

	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/float64(time.Millisecond)) }
	per := func(d time.Duration) time.Duration { return d / time.Duration(runs) }
	fmt.Fprintf(stdout, "%s: %d response(s), %.1f KB; %d runs\n\n", plan.ID, responses, float64(size)/1024, runs)
	fmt.Fprintln(stdout, "fastest run of each")
	if len(pages) > 0 {
		fmt.Fprintf(stdout, "  parse only  %9s ms  charset conversion and HTML parse of the HTML responses\n", ms(parseMin))
		fmt.Fprintf(stdout, "  extraction  %9s ms  %.2fx parse only (make bench's x-parse)\n", ms(extractMin), float64(extractMin)/float64(parseMin))
	} else {
		fmt.Fprintf(stdout, "  extraction  %9s ms  (no HTML response: no parse-only floor)\n", ms(extractMin))
	}

	var total time.Duration
	for _, d := range phases {
		total += d
	}
	fmt.Fprintf(stdout, "\nmean of %d traced runs, by phase\n", runs)
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "phase\tms\tshare\t")
	for _, name := range []string{"fetch", "decode", "parse", "sources", "rules", "fields", "output_rules", "json"} {
		if d, ok := phases[name]; ok {
			fmt.Fprintf(w, "%s\t%s\t%.1f%%\t\n", name, ms(per(d)), 100*float64(d)/float64(max(total, 1)))
		}
	}
	_ = w.Flush()

	paths := make([]string, 0, len(fields))
	for p := range fields {
		paths = append(paths, p)
	}
	slices.SortFunc(paths, func(a, b string) int {
		return cmp.Or(cmp.Compare(fields[b].d, fields[a].d), strings.Compare(a, b))
	})
	fmt.Fprintf(stdout, "\nmean of %d traced runs, by field, most costly first (a list's or an object's time includes its fields')\n", runs)
	w = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ms\tcalls/run\tfield")
	for _, p := range paths {
		fc := fields[p]
		fmt.Fprintf(w, "%s\t%d\t%s\n", ms(per(fc.d)), fc.calls/runs, p)
	}
	_ = w.Flush()
	return 0
}

// minPositive is the smaller of a running minimum (0 before the first value) and d.
func minPositive(cur, d time.Duration) time.Duration {
	if cur == 0 || d < cur {
		return d
	}
	return cur
}
