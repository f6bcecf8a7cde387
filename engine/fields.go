package engine

import (
	"fmt"
	"math"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/antchfx/xpath"
	"github.com/expr-lang/expr/vm"

	"asa/engine/dom"
	"asa/engine/errcode"
	"asa/engine/funcs"
	"asa/engine/xpatheval"
)

// childEnv returns a copy of the run environment for one object: fields, item, index and items are
// per object, everything else is shared.
func (r *run) childEnv(obj map[string]any, item any, index int, items []any) map[string]any {
	env := make(map[string]any, len(r.env))
	for k, v := range r.env {
		env[k] = v
	}
	env["fields"] = obj
	env["item"] = item
	env["index"] = index
	if items == nil {
		items = []any{}
	}
	env["items"] = items
	return env
}

// fields extracts fs into obj. top marks the output's top level, where required fields fail the run;
// inside list items they drop the item (errDropItem).
func (r *run) fields(fs []*field, obj map[string]any, env map[string]any, ctx xpath.NodeNavigator, depth int, top bool) error {
	for _, f := range fs {
		if f.when != nil {
			ok, err := r.machine.Run(f.when, env)
			if err != nil {
				return errcode.New(errcode.ExtractionFailed, "field %s: evaluating when: %v", f.name, err)
			}
			if b, _ := ok.(bool); !b {
				continue
			}
		}
		m := r.tr.start()
		v, err := r.field(f, env, ctx, depth)
		r.tr.field(f, m)
		if err != nil {
			return err
		}
		if f.required && isEmpty(v) {
			if top {
				return errcode.New(errcode.ExtractionFailed, "required field %s is empty: the page does not look like the expected one", f.name)
			}
			return errDropItem{f.name}
		}
		obj[f.name] = v
	}
	return nil
}

type errDropItem struct{ field string }

func (e errDropItem) Error() string { return "item without " + e.field }

// field evaluates one field: selectors in order, then post, default and type coercion.
func (r *run) field(f *field, env map[string]any, ctx xpath.NodeNavigator, depth int) (any, error) {
	if f.kind == kList && f.elem == kObject {
		return r.objectList(f, env, ctx, depth)
	}
	if f.kind == kObject && len(f.children) > 0 {
		return r.object(f, env, ctx, depth)
	}
	// empty is isEmpty(v), kept rather than asked again: a card's every field came here
	var v any
	empty := true
	for _, s := range f.sels {
		x, err := r.selectOne(s, ctx, env, f.kind)
		if err != nil {
			r.warnings = append(r.warnings, fmt.Sprintf("field %s: %v", f.name, err))
			continue
		}
		if !isEmpty(x) {
			v, empty = x, false
			break
		}
	}
	if f.post != nil && !empty {
		env["value"] = v
		x, err := r.eval(f.post, f.postD, env)
		env["value"] = nil
		if err != nil {
			r.warnings = append(r.warnings, fmt.Sprintf("field %s post: %v", f.name, err))
			v = nil
		} else {
			v = x
		}
		empty = isEmpty(v)
	}
	if empty && f.def != nil {
		// The default is the author's explicit choice, even an empty string or list.
		return coerce(f.def, f.kind, f.elem, r.baseFor(f))
	}
	if empty {
		if f.kind == kList {
			return []any{}, nil
		}
		return nil, nil
	}
	cv, err := coerce(v, f.kind, f.elem, r.baseFor(f))
	if err != nil {
		if f.required {
			return nil, errcode.New(errcode.ExtractionFailed, "field %s: %v", f.name, err)
		}
		r.warnings = append(r.warnings, fmt.Sprintf("field %s: %v", f.name, err))
		return nil, nil
	}
	if f.limit != nil {
		cv = r.applyLimit(f, env, cv)
	}
	return cv, nil
}

func (r *run) applyLimit(f *field, env map[string]any, v any) any {
	l, ok := v.([]any)
	if !ok {
		return v
	}
	x, err := r.machine.Run(f.limit, env)
	if err != nil {
		return v
	}
	if n, ok := toInt(x); ok && n >= 0 && n < len(l) {
		return l[:n]
	}
	return v
}

// object evaluates an object with child fields. A selector, when given, picks the context: a node for
// XPath children, or item for expressions.
func (r *run) object(f *field, env map[string]any, ctx xpath.NodeNavigator, depth int) (any, error) {
	item := env["item"]
	missed := false
	for _, s := range f.sels {
		if s.kind == selXPath {
			nodes := r.nodes(s, r.xpathBase(s, ctx))
			if len(nodes) > 0 {
				ctx = nodes[0]
				missed = false
				break
			}
			missed = true
			continue
		}
		// an expression that gives nothing is a miss too: the children would read the parent's item
		missed = true
		x, err := r.selectOne(s, ctx, env, kAny)
		if err == nil && !isEmpty(x) {
			item = x
			missed = false
			break
		}
	}
	if missed {
		return nil, nil
	}
	obj := map[string]any{}
	cenv := r.childEnv(obj, item, 0, nil)
	mark := r.xp.BeginObject(ctx)
	err := r.fields(f.order, obj, cenv, ctx, depth+1, false)
	r.xp.EndItem(mark)
	if err != nil {
		if _, drop := err.(errDropItem); drop {
			return nil, nil
		}
		return nil, err
	}
	return obj, nil
}

// objectList evaluates a list<object>: each node (XPath) or element (expression) becomes one object.
func (r *run) objectList(f *field, env map[string]any, ctx xpath.NodeNavigator, depth int) (any, error) {
	def := f
	if f.recurse != nil {
		def = f.recurse
		if depth > MaxRecursion {
			return []any{}, nil
		}
	}
	var navs []xpath.NodeNavigator
	var elems []any
	for _, s := range f.sels {
		if s.kind == selXPath && s.transform == nil {
			if navs = r.nodes(s, r.xpathBase(s, ctx)); len(navs) > 0 {
				break
			}
			continue
		}
		x, err := r.selectOne(s, ctx, env, kAny)
		if err != nil {
			r.warnings = append(r.warnings, fmt.Sprintf("field %s: %v", f.name, err))
			continue
		}
		if l, ok := x.([]any); ok && len(l) > 0 {
			elems = l
			break
		}
	}
	n := max(len(navs), len(elems))
	if f.limit != nil {
		if x, err := r.machine.Run(f.limit, env); err == nil {
			if lim, ok := toInt(x); ok && lim >= 0 && lim < n {
				n = lim
			}
		}
	}
	if len(def.children) == 0 {
		// A list<object> without fields keeps its selector's JSON objects as they are.
		out := make([]any, 0, n)
		for _, e := range elems[:min(n, len(elems))] {
			if m, ok := objectOf(e); ok {
				out = append(out, m)
			} else if e != nil {
				r.warnings = append(r.warnings, fmt.Sprintf("field %s: dropped a %T that is not an object", f.name, e))
			}
		}
		return out, nil
	}
	out := make([]any, 0, n)
	// items grows in place, never past its capacity: a count over it carries on from the
	// previous item's (see countmemo.go)
	prevItems := 0
	if depth == 0 && r.plan.paginate != nil && r.plan.paginate.items == f {
		prevItems = len(r.prevItems)
	}
	items := make([]any, 0, prevItems+n)
	if depth == 0 && r.plan.paginate != nil && r.plan.paginate.items == f {
		// Positions continue across pages: earlier pages' items are visible as items.
		items = append(items, r.prevItems...)
	}
	dropped := 0
	// One environment for all the items, its per-item entries reset for each: expressions do not
	// keep it, and nested lists make their own.
	var cenv map[string]any
	for i := 0; i < n; i++ {
		obj := make(map[string]any, len(def.children))
		var item any
		c := ctx
		if navs != nil {
			c = navs[i]
		} else {
			item = elems[i]
		}
		if cenv == nil {
			cenv = r.childEnv(obj, item, i, items)
		} else {
			cenv["fields"], cenv["item"], cenv["index"], cenv["items"], cenv["value"] = obj, item, i, items, nil
		}
		var itemNav xpath.NodeNavigator
		if navs != nil {
			itemNav = c
		}
		mark := r.xp.BeginItem(itemNav)
		err := r.fields(def.order, obj, cenv, c, depth+1, false)
		r.xp.EndItem(mark)
		if err != nil {
			if _, drop := err.(errDropItem); drop {
				dropped++
				continue
			}
			return nil, err
		}
		out = append(out, obj)
		items = append(items, obj)
	}
	if f.required && len(out) == 0 && depth == 0 {
		return nil, errcode.New(errcode.ExtractionFailed, "required list %s is empty", f.name)
	}
	return out, nil
}

// nodes returns the nodes an XPath selects from ctx.
func (r *run) nodes(s *selector, ctx xpath.NodeNavigator) []xpath.NodeNavigator {
	if ctx == nil || s.xpath == nil {
		return nil
	}
	return r.xp.Nodes(s.xpath, ctx)
}

// xpathBase is the node an XPath selector runs from: the document of the step it names (from), else
// the context. A top-level field of a lazy plan (see planLazyTree) has no context: it runs from the
// last document, built now.
func (r *run) xpathBase(s *selector, ctx xpath.NodeNavigator) xpath.NodeNavigator {
	switch {
	case s.from >= 0:
		return r.results[s.from].nav()
	case ctx == nil && r.plan.lazyTree:
		return r.lastDoc.nav()
	}
	return ctx
}

// selectOne evaluates one selector and its transform.
func (r *run) selectOne(s *selector, ctx xpath.NodeNavigator, env map[string]any, kind fieldKind) (any, error) {
	var v any
	switch s.kind {
	case selXPath:
		base := r.xpathBase(s, ctx)
		if base == nil {
			return nil, nil
		}
		if s.block {
			v = xpatheval.Texts(r.nodes(s, base), s.all || kind == kList, dom.BlockText)
		} else {
			v = r.xp.Value(s.xpath, base, s.all || kind == kList, true)
		}
	case selExpr:
		x, err := r.eval(s.prog, s.progD, env)
		if err != nil {
			return nil, fmt.Errorf("expression: %v", err)
		}
		v = x
	case selRegex:
		sr := r.last
		if s.from >= 0 {
			sr = r.results[s.from]
		}
		var body []byte
		if sr != nil {
			body = sr.body
		}
		if s.all || kind == kList {
			var out []any
			for _, m := range s.re.FindAllSubmatch(body, 1000) {
				out = append(out, group(m))
			}
			v = out
		} else if m := s.re.FindSubmatch(body); m != nil {
			v = group(m)
		}
	case selConst:
		v = s.konst
	}
	for i, t := range [...]*vm.Program{s.transform, s.fieldTransform} {
		if t == nil || isEmpty(v) {
			continue
		}
		env["value"] = v
		x, err := r.eval(t, [...]direct{s.transformD, s.fieldTransformD}[i], env)
		env["value"] = nil
		if err != nil {
			return nil, fmt.Errorf("transform: %v", err)
		}
		v = x
	}
	return v, nil
}

// eval runs p in env: its direct form d when it has one and answers, else the VM.
func (r *run) eval(p *vm.Program, d direct, env map[string]any) (any, error) {
	if d != nil {
		if v, ok := d(env); ok {
			if r.plan.verifyDirect {
				if x, err := r.machine.Run(p, env); err != nil || !reflect.DeepEqual(x, v) {
					r.warnings = append(r.warnings, fmt.Sprintf("direct evaluation of %q gave %#v, the VM %#v (%v)", p.Source().String(), v, x, err))
				}
			}
			return v, nil
		}
	}
	return r.machine.Run(p, env)
}

func group(m [][]byte) string {
	if len(m) > 1 {
		return string(m[1])
	}
	return string(m[0])
}

// baseFor is the base coerce resolves f's values against: only a URL reads it, and the look-up
// of the run's base was a twentieth of a card field's own cost.
func (r *run) baseFor(f *field) *url.URL {
	if f.kind != kURL && (f.kind != kList || f.elem != kURL) {
		return nil
	}
	return r.base()
}

// base is the page URL relative URLs resolve against (the last step's), parsed once per step
// rather than once per URL field; nil when there is none or it does not parse.
func (r *run) base() *url.URL {
	b, _ := r.env["base"].(string)
	if b != r.baseSrc || !r.baseDone {
		r.baseSrc, r.baseURL, r.baseDone = b, nil, true
		if b != "" {
			if u, err := url.Parse(b); err == nil {
				r.baseURL = u
			}
		}
	}
	return r.baseURL
}

// coerce converts a value to the field's type; base (nil: none) resolves relative URLs. base is
// only read.
func coerce(v any, kind, elem fieldKind, base *url.URL) (any, error) {
	switch kind {
	case kAny:
		return v, nil
	case kList:
		var l []any
		switch x := v.(type) {
		case []any:
			l = x
		case []string:
			for _, s := range x {
				l = append(l, s)
			}
		default:
			l = []any{x}
		}
		out := make([]any, 0, len(l))
		for _, e := range l {
			if isEmpty(e) {
				continue
			}
			c, err := coerce(e, elem, 0, base)
			if err != nil {
				return nil, err
			}
			if c != nil {
				out = append(out, c)
			}
		}
		return out, nil
	case kString:
		// v itself where it is already the answer: x back in an interface would be a copy of its
		// header on the heap, per field of every card
		switch x := v.(type) {
		case string:
			return v, nil
		case float64, int, int64, bool:
			return stringify(x), nil
		}
		return nil, fmt.Errorf("want a string, got %T", v)
	case kInt:
		if _, ok := v.(int); ok {
			return v, nil
		}
		if n, ok := toInt(v); ok {
			return n, nil
		}
		return nil, fmt.Errorf("want a whole number, got %v", short(v))
	case kFloat:
		switch x := v.(type) {
		case float64:
			return v, nil
		case int:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case string:
			f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f, nil
			}
		}
		return nil, fmt.Errorf("want a number, got %v", short(v))
	case kBool:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(strings.TrimSpace(x)); err == nil {
				return b, nil
			}
		case float64:
			return x != 0, nil
		case int:
			return x != 0, nil
		}
		return nil, fmt.Errorf("want true or false, got %v", short(v))
	case kURL:
		orig, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a URL, got %T", v)
		}
		s := strings.TrimSpace(orig)
		if funcs.PlainAbsURL(s) {
			// What the round trip below gives back (an absolute reference ignores base).
			if len(s) == len(orig) {
				return v, nil
			}
			return s, nil
		}
		u, err := url.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("bad URL %q", short(s))
		}
		if base != nil {
			u = base.ResolveReference(u)
		}
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("not an http(s) URL: %q", short(s))
		}
		return u.String(), nil
	case kObject:
		if m, ok := objectOf(v); ok {
			return m, nil
		}
		return nil, fmt.Errorf("want an object, got %T", v)
	}
	return v, nil
}

// objectOf returns v as an object. Besides decoded JSON's map[string]any it takes the maps expr's
// builtins build (groupBy gives map[any][]any), whose keys are written as text.
func objectOf(v any) (map[string]any, bool) {
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	it := rv.MapRange()
	for it.Next() {
		k := it.Key().Interface()
		switch k.(type) {
		case string, int, int64, float64, bool:
			out[stringify(k)] = it.Value().Interface()
		default:
			return nil, false
		}
	}
	return out, true
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int(x), true
		}
	case string:
		s := strings.TrimSpace(x)
		if n, err := strconv.Atoi(s); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int(f), true
		}
	}
	return 0, false
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}
