package engine

import (
	"context"
	"slices"

	"github.com/expr-lang/expr/vm"

	"asa/engine/dom"
	"asa/engine/xpatheval"
)

// ReadRulesCounted reads a rule set and says how many JSON tokens it read: refused rule sets are
// refused after little work, which tests count rather than time.
func ReadRulesCounted(data []byte, lim RuleLimits) (tokens int, problem string) {
	_, _, n, p := readRulesCounted(data, lim)
	if p != nil {
		return n, p.Path + ": " + p.Message
	}
	return n, ""
}

// RuleVerdicts checks resp against the rules of p's first step three times: as a run does (matches,
// which orders the work and stops early), by evaluating every part of every matcher (allParts), and
// without the tree or the scan (settle, first, before anything builds them: 0 no, 1 yes, 2 cannot
// tell). A rule's first two verdicts must be equal, and the third, when it tells, equal to them.
func RuleVerdicts(p *Plan, resp *Response) (ids []string, got, want []bool, settled []int8) {
	st := p.steps[0]
	r := p.newRun(context.Background(), Params{}, nil, 1, map[string]any{"number": 1, "cursor": nil})
	sr := r.parse(st, resp)
	r.results[st.index], r.last, r.first = sr, sr, sr
	if sr.doc != nil || sr.lazy {
		r.lastDoc = sr
	}
	r.stepsEnv[st.id] = map[string]any{"status": sr.status, "url": sr.url, "body": sr.bodyString()}
	r.env["base"] = sr.url
	if err := r.decodeSources(st, sr); err != nil {
		panic(err)
	}
	for _, rl := range p.rules {
		if rl.step >= 0 && rl.step != st.index {
			continue
		}
		settled = append(settled, int8(r.settle(rl.match, sr)))
	}
	for _, rl := range p.rules {
		if rl.step >= 0 && rl.step != st.index {
			continue
		}
		ids = append(ids, rl.id)
		got = append(got, r.matches(rl.match, sr))
		want = append(want, r.allParts(rl.match, sr))
	}
	return ids, got, want, settled
}

// allParts is matches without its order or its shortcuts: every part is evaluated.
func (r *run) allParts(m *matcher, sr *stepResult) bool {
	if m == nil {
		return false
	}
	ok := true
	and := func(b bool) { ok = ok && b }
	and(len(m.status) == 0 || slices.Contains(m.status, sr.status))
	and(m.headerRe == nil || m.headerRe.MatchString(sr.header.Get(m.headerName)))
	// The search of xpatheval.Literal, which matches used before regexfast.IndexBytes.
	and(m.bodyContains == "" || xpatheval.NewLiteral(m.bodyContains).Index(sr.body) >= 0)
	and(m.bodyRe == nil || m.bodyRe.Match(sr.body))
	and(m.finalURL == nil || m.finalURL.MatchString(sr.url))
	if m.xpath != nil {
		nav := sr.nav()
		v := any(nil)
		if nav != nil {
			v = r.xp.Value(m.xpath, nav, false, false)
		}
		and(nav != nil && !isEmpty(v) && v != false)
	}
	if m.expr != nil {
		v, err := r.machine.Run(m.expr, r.env)
		b, _ := v.(bool)
		and(err == nil && b)
	}
	if m.not != nil {
		and(!r.allParts(m.not, sr))
	}
	for _, a := range m.all {
		and(r.allParts(a, sr))
	}
	if len(m.any) > 0 {
		hit := false
		for _, a := range m.any {
			if r.allParts(a, sr) {
				hit = true
			}
		}
		and(hit)
	}
	return ok
}

// AppendFloat and AppendString are the encoder's number and string writers.
func AppendFloat(b []byte, f float64) []byte { return appendFloat(b, f) }
func AppendString(b []byte, s string) []byte { return appendString(b, s) }

// NewVerifying is New whose plans run every expression that has a direct form on the VM too, and
// warn when the two differ.
func NewVerifying() *Engine {
	e := New()
	e.verifyDirect = true
	return e
}

// DirectShare counts the expressions of p's fields (selectors, transforms, posts) and those of
// them with a direct form.
func DirectShare(p *Plan) (withDirect, all int) {
	count := func(prog *vm.Program, d direct) {
		if prog != nil {
			all++
			if d != nil {
				withDirect++
			}
		}
	}
	var walk func(fs []*field)
	walk = func(fs []*field) {
		for _, f := range fs {
			count(f.post, f.postD)
			for _, s := range f.sels {
				count(s.prog, s.progD)
				count(s.transform, s.transformD)
				count(s.fieldTransform, s.fieldTransformD)
			}
			walk(f.children)
		}
	}
	walk(p.fields)
	return withDirect, all
}

// ScanXPaths returns the XPaths of p's rules that a scan of the body may answer (TagTests, on
// names the scan answers for), whether or not p builds its trees lazily.
func ScanXPaths(p *Plan) []*xpatheval.Expr {
	var out []*xpatheval.Expr
	p.eachMatcher(func(m *matcher) {
		if m.xpath != nil {
			if tags := m.xpath.TagTests(); tags != nil && allScannable(tags) {
				out = append(out, m.xpath)
			}
		}
	})
	return out
}

// LazyTree reports whether p builds its HTML trees only when a rule needs them.
func LazyTree(p *Plan) bool { return p.lazyTree }

// ScanFilter is what p's scans copy (nil: every element of their names).
func ScanFilter(p *Plan) *dom.ScanFilter { return p.scanFilter }

// NewUnprojected is New whose plans decode every script-JSON source whole.
func NewUnprojected() *Engine {
	e := New()
	e.noProject = true
	return e
}

// NewEager is New whose plans build every HTML tree when its step is parsed, none lazily.
func NewEager() *Engine {
	e := New()
	e.eager = true
	return e
}

// Projections returns the projection of each script-JSON and xpath_json source of p (nil: decoded
// whole), and of each json_ld source the projection of its step's JSON-LD (nil: whole).
func Projections(p *Plan) map[string]*dom.Projection {
	out := map[string]*dom.Projection{}
	for _, s := range p.sources {
		switch {
		case s.scriptJSON != nil || s.xpathJSON != nil || s.body:
			out[s.name] = s.proj
		case s.jsonLD != "":
			out[s.name] = nil
			for _, st := range p.steps {
				if slices.Contains(st.sources, s) {
					out[s.name] = st.ldProj
				}
			}
		}
	}
	return out
}

// SourceProjection returns the projection of source name of p alone (nil: whole or no such source).
func SourceProjection(p *Plan, name string) *dom.Projection {
	for _, s := range p.sources {
		if s.name == name {
			return s.proj
		}
	}
	return nil
}

// ProjectionRefused says why p projects no source ("" when it does, or has none to project).
func ProjectionRefused(p *Plan) string { return p.projWhy }

// JSONBySource lists the ids of p's parse: json steps whose projected body source decodes the body.
func JSONBySource(p *Plan) []string {
	var out []string
	for _, st := range p.steps {
		if st.jsonBySource {
			out = append(out, st.id)
		}
	}
	return out
}
