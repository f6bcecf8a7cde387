package engine

import (
	"testing"
	"time"
)

// A tree built lazily inside a rule or a field is reported as parse, and the rule's or field's
// own time is what is left: the two never count the same stretch twice. The tracer reads a clock
// the test moves by hand, so the figures are exact.
func TestTracerSubtractsNestedParse(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	advance := func(d time.Duration) { clock = clock.Add(d) }
	phases := map[string]time.Duration{}
	var fieldTime time.Duration
	tr := &tracer{now: func() time.Time { return clock }, t: &Trace{
		Phase: func(name string, d time.Duration) { phases[name] += d },
		Field: func(_ string, d time.Duration) { fieldTime += d },
	}}
	// rules: 1 ms of their own, a lazy parse of 5 ms, 2 ms more
	rules := tr.start()
	advance(time.Millisecond)
	parse := tr.start()
	advance(5 * time.Millisecond)
	tr.phase("parse", parse)
	advance(2 * time.Millisecond)
	tr.phase("rules", rules)
	// a field: 3 ms around a second parse of 4 ms
	f := tr.start()
	advance(time.Millisecond)
	p2 := tr.start()
	advance(4 * time.Millisecond)
	tr.phase("parse", p2)
	advance(2 * time.Millisecond)
	tr.field(&field{path: "title"}, f)

	want := map[string]time.Duration{"parse": 9 * time.Millisecond, "rules": 3 * time.Millisecond}
	for name, d := range want {
		if phases[name] != d {
			t.Errorf("%s reported %v, want %v", name, phases[name], d)
		}
	}
	if fieldTime != 3*time.Millisecond {
		t.Errorf("field reported %v, want 3ms (its 7 ms less the 4 ms parse)", fieldTime)
	}
	if tr.parsed != 9*time.Millisecond {
		t.Errorf("parse time kept %v, want 9ms", tr.parsed)
	}
	var none *tracer
	none.phase("parse", none.start()) // a run without a Trace: no report, no panic
	none.field(&field{}, none.start())
}

func TestSetPaths(t *testing.T) {
	item := &field{name: "price"}
	seller := &field{name: "name"}
	fs := []*field{
		{name: "products", kind: kList, elem: kObject, children: []*field{item, {name: "seller", kind: kObject, children: []*field{seller}}}},
		{name: "page"},
	}
	setPaths(fs, "")
	for f, want := range map[*field]string{fs[0]: "products", item: "products[].price", seller: "products[].seller.name", fs[1]: "page"} {
		if f.path != want {
			t.Errorf("path %q, want %q", f.path, want)
		}
	}
}
