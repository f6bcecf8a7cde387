package engine

import (
	"testing"
	"time"
)

// A tree built lazily inside a rule or a field is reported as parse, and the rule's or field's
// own time is what is left: the two never count the same stretch twice.
func TestTracerSubtractsNestedParse(t *testing.T) {
	phases := map[string]time.Duration{}
	var fieldTime time.Duration
	tr := &tracer{t: &Trace{
		Phase: func(name string, d time.Duration) { phases[name] += d },
		Field: func(_ string, d time.Duration) { fieldTime += d },
	}}
	t0 := time.Now()
	rules := tr.start()
	parse := tr.start()
	tr.phase("parse", parse)
	tr.phase("rules", rules)
	f := tr.start()
	tr.phase("parse", tr.start())
	tr.field(&field{path: "title"}, f)
	total := time.Since(t0)
	if tr.parsed != phases["parse"] {
		t.Errorf("parse time kept %v, reported %v", tr.parsed, phases["parse"])
	}
	if phases["rules"] < 0 || fieldTime < 0 {
		t.Errorf("rules %v, field %v: a nested parse subtracted more than its own time", phases["rules"], fieldTime)
	}
	if sum := phases["parse"] + phases["rules"] + fieldTime; sum > total {
		t.Errorf("parse, rules and field add up to %v, more than the %v they took together", sum, total)
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
