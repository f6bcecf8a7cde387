package engine_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"asa/engine"
	"asa/engine/fixture"
)

// A traced run reports each phase of each page's step and each field of each item by its path; a
// run without a Trace gives the same output (the trace only watches).
func TestTraceReportsPhasesAndFields(t *testing.T) {
	reg := loadShop(t)
	plan := reg.Plan("shop.reviews")
	ps, err := plan.Params(url.Values{"query": {"AB1234"}, "pages": {"3"}})
	if err != nil {
		t.Fatal(err)
	}
	rp := &fixture.Replay{Replies: map[string]*fixture.Reply{
		"page":   reviewsPage("ad1", "r1", "r2", "ad2", "r3"),
		"page@2": reviewsPage("ad3", "r4"),
		"page@3": reviewsPage(),
	}}
	phases, fields := map[string]int{}, map[string]int{}
	tr := &engine.Trace{
		Phase: func(name string, d time.Duration) {
			phases[name]++
			if d < 0 {
				t.Errorf("phase %s: %v", name, d)
			}
		},
		Field: func(path string, d time.Duration) {
			fields[path]++
			if d < 0 {
				t.Errorf("field %s: %v", path, d)
			}
		},
	}
	traced, err := plan.Run(engine.WithTrace(context.Background(), tr), ps, rp)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := plan.Run(context.Background(), ps, rp)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := traced.MarshalJSON()
	b, _ := plain.MarshalJSON()
	if string(a) != string(b) {
		t.Errorf("traced %s\nplain  %s", a, b)
	}
	// Three pages (the third empty), one step each; no output rules in shop.reviews.
	for _, name := range []string{"fetch", "decode", "parse", "sources", "rules", "fields"} {
		if phases[name] != 3 {
			t.Errorf("phase %s reported %d times, want 3 (%v)", name, phases[name], phases)
		}
	}
	if len(phases) != 6 {
		t.Errorf("phases %v", phases)
	}
	// Seven reviews over the three pages, each of whose four fields is reported once per item.
	want := map[string]int{"page": 3, "reviews": 3, "last_page": 3,
		"reviews[].id": 7, "reviews[].sponsored": 7, "reviews[].organic_position": 7, "reviews[].sponsored_position": 7}
	for path, n := range want {
		if fields[path] != n {
			t.Errorf("field %s reported %d times, want %d", path, fields[path], n)
		}
	}
	if len(fields) != len(want) {
		t.Errorf("fields %v, want %v", fields, want)
	}
}
