package sitedef

import (
	"gopkg.in/yaml.v3"

	"asa/engine/diag"
)

// Fields that extend: a field of type object or list<object> may say extends: <site>.<resource> (or a
// family base, <family>/<resource>); its child fields are then that endpoint's top-level fields, with
// the field's own fields laid over them by name (whole, as an endpoint that extends a base) after its
// remove: list. This is how a list endpoint (a search, a timeline) returns the record a single-item
// endpoint of the same site defines, without a copy of the field list: the author overrides the one
// field that reads the page (src, params) with one that reads item, and the rest, which read their
// sibling fields, run unchanged on every element.

// FieldLookup returns the resolved file of the endpoint an extends names, or why it cannot be used.
type FieldLookup func(name string) (*File, string)

// ExtendFields resolves every field of f (at any depth) that says extends. It returns f itself when no
// field extends; otherwise a new File decoded from the resolved tree, reported as f's path, with values
// from other files carrying their file.
func ExtendFields(f *File, lookup FieldLookup) (*File, diag.List) {
	var diags diag.List
	if f == nil || f.Node == nil || f.Endpoint == nil {
		return f, nil
	}
	origin := map[*yaml.Node]string{}
	for k, v := range f.origin {
		origin[k] = v
	}
	r := &fieldResolver{file: f, lookup: lookup, diags: &diags, origin: origin}
	_, fields := mapLookup(f.Node, "fields")
	out, changed := r.fields(fields)
	if !changed {
		return f, diags
	}
	node := withKey(f.Node, "fields", out)
	nf := &File{Path: f.Path, Pos: Positions{}, Node: node, Base: f.Base, Cut: map[uintptr]string{}, origin: origin}
	nf.Endpoint = &Endpoint{}
	d := &decoder{file: f.Path, root: f.Path, diags: &diags, pos: nf.Pos, origin: origin, cut: nf.Cut}
	d.decode(node, reflectValue(nf.Endpoint))
	return nf, diags
}

type fieldResolver struct {
	file   *File
	lookup FieldLookup
	diags  *diag.List
	origin map[*yaml.Node]string
}

// fields returns the fields mapping with every extending field resolved; changed is false when none
// extends (and the mapping is returned as it is).
func (r *fieldResolver) fields(n *yaml.Node) (*yaml.Node, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		return n, false
	}
	var out []*yaml.Node
	changed := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		nv, c := r.field(k, v)
		changed = changed || c
		out = append(out, k, nv)
	}
	if !changed {
		return n, false
	}
	cp := *n
	cp.Content = out
	return &cp, true
}

func (r *fieldResolver) field(key, v *yaml.Node) (*yaml.Node, bool) {
	if v == nil || v.Kind != yaml.MappingNode {
		return v, false
	}
	_, own := mapLookup(v, "fields")
	children, changed := r.fields(own)
	ek, ev := mapLookup(v, "extends")
	if ev == nil {
		if _, rm := mapLookup(v, "remove"); rm != nil {
			r.diags.Add(r.file.Path, rm.Line, rm.Column, "field %s: remove: needs extends: it drops fields of the endpoint extended", key.Value)
		}
		if !changed {
			return v, false
		}
		return withKey(v, "fields", children), true
	}
	if ev.Kind != yaml.ScalarNode || ev.Value == "" {
		r.diags.Add(r.file.Path, ev.Line, ev.Column, "field %s: extends names an endpoint: <site>.<resource> or <family>/<resource>", key.Value)
		return v, false
	}
	if _, t := mapLookup(v, "type"); t == nil || (t.Value != "object" && t.Value != "list<object>") {
		r.diags.Add(r.file.Path, ek.Line, ek.Column, "field %s: extends is for a field of type object or list<object>", key.Value)
		return v, false
	}
	base, why := r.lookup(ev.Value)
	if base == nil {
		r.diags.Add(r.file.Path, ev.Line, ev.Column, "field %s: extends %q: %s", key.Value, ev.Value, why)
		return v, false
	}
	_, baseFields := mapLookup(base.Node, "fields")
	if baseFields == nil {
		r.diags.Add(r.file.Path, ev.Line, ev.Column, "field %s: extends %q, which has no fields", key.Value, ev.Value)
		return v, false
	}
	for n, f := range base.origin {
		r.origin[n] = f
	}
	m := newMerger(base.Path, r.file.Path, ev.Value, r.diags)
	m.origin = r.origin
	m.removeAll(baseFields, fieldMapType, v)
	if children == nil {
		children = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: ek.Line, Column: ek.Column}
	}
	merged := m.merge(baseFields, children, fieldMapType)
	return withKey(withoutKeys(v, "extends", "remove"), "fields", merged), true
}
