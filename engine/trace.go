package engine

import (
	"context"
	"time"
)

// A Trace is told where a run spends its time, so that a sitedef's author finds the selector that
// walks every card of a page by its field's name (asa extract --profile) instead of guessing from
// a CPU profile of the engine. Like net/http/httptrace's ClientTrace it rides on the context
// (WithTrace); a run without one pays a nil check per field.
//
// Every time is wall time and exclusive of the others: a tree built lazily for a rule or a field
// (see planLazyTree) is counted as parse, not as the rule's or the field's.
type Trace struct {
	// Phase is called after each phase of each step, and once per page for the fields, with its
	// name and duration: "fetch" (the fetcher's answer, a replay offline), "decode" (charset
	// conversion), "parse" (the HTML, XML or JSON of a response, a lazily built tree included),
	// "sources", "rules", "fields" and "output_rules".
	Phase func(phase string, d time.Duration)
	// Field is called after each evaluation of a field with its path (products[].price for a
	// field of a list's items, seller.name for one of an object) and its duration. A list's or an
	// object's own time includes its fields', which are reported too, once per item.
	Field func(path string, d time.Duration)
}

type traceKey struct{}

// WithTrace returns ctx carrying t: a Plan.Run with that context reports to t.
func WithTrace(ctx context.Context, t *Trace) context.Context {
	return context.WithValue(ctx, traceKey{}, t)
}

// tracer is a run's Trace with the parse time reported so far, which the phases and fields that
// built a lazy tree subtract from their own.
type tracer struct {
	t      *Trace
	parsed time.Duration
	now    func() time.Time // time.Now; a test's own clock
}

// newTracer returns the tracer of ctx's Trace, or nil.
func newTracer(ctx context.Context) *tracer {
	if t, _ := ctx.Value(traceKey{}).(*Trace); t != nil {
		return &tracer{t: t, now: time.Now}
	}
	return nil
}

// mark is the start of a timed stretch: the clock and the parse time so far.
type mark struct {
	at     time.Time
	parsed time.Duration
}

// start returns a mark; on a nil tracer, the zero mark without reading the clock.
func (tr *tracer) start() mark {
	if tr == nil {
		return mark{}
	}
	return mark{at: tr.now(), parsed: tr.parsed}
}

// phase reports the time since m, without the parse time reported meanwhile. It and field are
// the inlined nil check in front of the report, which a run without a Trace never calls.
func (tr *tracer) phase(name string, m mark) {
	if tr != nil {
		tr.reportPhase(name, m)
	}
}

func (tr *tracer) reportPhase(name string, m mark) {
	d := tr.now().Sub(m.at) - (tr.parsed - m.parsed)
	if name == "parse" {
		tr.parsed += d
	}
	if tr.t.Phase != nil {
		tr.t.Phase(name, d)
	}
}

// field reports a field's time since m, without the parse time reported meanwhile.
func (tr *tracer) field(f *field, m mark) {
	if tr != nil && tr.t.Field != nil {
		tr.reportField(f, m)
	}
}

func (tr *tracer) reportField(f *field, m mark) {
	tr.t.Field(f.path, tr.now().Sub(m.at)-(tr.parsed-m.parsed))
}

// setPaths gives each field its path under prefix, as Trace.Field names it.
func setPaths(fs []*field, prefix string) {
	for _, f := range fs {
		f.path = prefix + f.name
		switch {
		case f.kind == kList && f.elem == kObject:
			setPaths(f.children, f.path+"[].")
		case len(f.children) > 0:
			setPaths(f.children, f.path+".")
		}
	}
}
