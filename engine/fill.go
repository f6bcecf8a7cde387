package engine

import "reflect"

// Fill rates: how often an endpoint's fields carry a value, the signal of a silent breakage (a
// selector that stopped matching still gives a 200 with the field empty). The api measures them on
// live responses and `asa sitedef test --corpus --fill-rates` on the corpus, with the same code.

// MaxFillFields bounds the fields tracked per endpoint, so that the health rows and the /metrics
// series of one endpoint stay bounded whatever its sitedef declares: top-level fields first, then
// the fields of list items, in sitedef order.
const MaxFillFields = 40

// FillField is one tracked field: a top-level field ("title"), or a field of the objects of a
// top-level list ("results[].title"), which is measured over the list's items.
type FillField struct {
	Path  string
	name  string // the top-level field
	child string // the item's field, for a list of objects
	// cond marks a field with a when: condition, left out of the output when it does not hold
	// (html without add_html): only the responses that have its key say anything of it.
	cond bool
}

// FillFields returns the endpoint's tracked fields (at most MaxFillFields).
func (p *Plan) FillFields() []FillField {
	var top, items []FillField
	for _, f := range p.fields {
		if f.hidden {
			continue
		}
		top = append(top, FillField{Path: f.name, name: f.name, cond: f.when != nil})
		if f.kind != kList || f.elem != kObject {
			continue
		}
		for _, c := range f.children {
			if !c.hidden {
				items = append(items, FillField{Path: f.name + "[]." + c.name, name: f.name, child: c.name, cond: c.when != nil})
			}
		}
	}
	out := append(top, items...)
	return out[:min(len(out), MaxFillFields)]
}

// FillCount is what one response says of one field: for a top-level field one sample (Items 1,
// Filled 0 or 1); for an item field, the items of the list and how many of them have the field.
// A response whose list is empty or missing says nothing of its items' fields (Responses 0).
type FillCount struct {
	Responses int64
	Items     int64
	Filled    int64
}

// Fill counts the fields of one successful response's data (the output object, as Result.Data or
// as decoded from its JSON), in the order of fields.
func Fill(fields []FillField, data map[string]any) []FillCount {
	out := make([]FillCount, len(fields))
	for i, f := range fields {
		v, has := data[f.name]
		if f.child == "" {
			if !has && f.cond {
				continue
			}
			out[i] = FillCount{Responses: 1, Items: 1}
			if Filled(v) {
				out[i].Filled = 1
			}
			continue
		}
		list, _ := v.([]any)
		if len(list) == 0 {
			// An empty list says nothing of its items; its own top-level row counts it as empty.
			continue
		}
		var c FillCount
		for _, it := range list {
			m, _ := it.(map[string]any)
			cv, has := m[f.child]
			if !has && f.cond {
				continue
			}
			c.Items++
			if Filled(cv) {
				c.Filled++
			}
		}
		if c.Items > 0 {
			c.Responses = 1
			out[i] = c
		}
	}
	return out
}

// Filled reports whether a value counts as present: not null, not an empty string or list, and not
// an object without a present value (an extractor that lost its selectors often yields those
// instead of null). false and 0 are values.
func Filled(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		// An object of nulls is what a record whose selectors all missed looks like.
		for _, e := range x {
			if Filled(e) {
				return true
			}
		}
		return false
	}
	// Other slices and maps (a function may give []string) count by length too.
	if r := reflect.ValueOf(v); r.Kind() == reflect.Slice || r.Kind() == reflect.Map {
		return r.Len() > 0
	}
	return true
}
