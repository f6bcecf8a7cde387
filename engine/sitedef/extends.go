package sitedef

import (
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"asa/engine/diag"
)

// Families: a site or an endpoint may extend a base under _families/<family>/. Resolution merges the
// YAML trees (the base's, then the child's on top) and decodes the result with the same strict decoder
// as any file, so a resolved endpoint is an ordinary Endpoint and compiles to the same plan as one
// written out by hand. The merge is guided by the model's types:
//
//   - structs (the endpoint, the site, request, retry, paginate) merge key by key, recursively;
//   - named maps (fields, sources, headers, vars) merge by name: the child's entry replaces
//     the base's whole, new names are appended after the base's; params alone merge key by key, so a
//     child changes one key of a parameter (url_pattern, example) without restating it;
//   - lists of items with an id (steps, rules) merge by id: the same id replaces in place, new ids are
//     appended; other lists and scalars are replaced;
//   - remove: [path, ...] drops parts of the base before the merge (so remove then redefine replaces
//     a parameter whole); a path naming nothing is an error.
//
// Every value keeps its own file and position: the decoder marks values that came from the base
// (Pos.File), so the compiler can name both the child and the base when a base value fails.

// BaseRef says what a resolved file extends.
type BaseRef struct {
	// Name is "<family>/<resource>" for an endpoint, "<family>" for a site.
	Name string
	// Path is the base's file.
	Path string
	// At is where the child says extends, in the child's file.
	At Pos
}

// Family directories live here, beside the site directories.
const FamiliesDir = "_families"

var (
	endpointType = reflect.TypeOf(Endpoint{})
	siteType     = reflect.TypeOf(Site{})
	fieldType    = reflect.TypeOf(Field{})
	fieldMapType = reflect.TypeOf(Map[Field]{})
	paramType    = reflect.TypeOf(Param{})
)

// ExtendEndpoint resolves an endpoint that extends base. child is the endpoint's own mapping: the root of
// an endpoint file, or a mount under endpoints: in a site.yaml; path is the child's file and resource
// the endpoint's name (a mount's key). The result reports as path; values from the base carry its file.
func ExtendEndpoint(base *File, baseName, path string, child *yaml.Node, resource string) (*File, diag.List) {
	var diags diag.List
	m := newMerger(base.Path, path, baseName, &diags)
	maps.Copy(m.origin, base.origin)
	extendsAt := child
	if k, _ := mapLookup(child, "extends"); k != nil {
		extendsAt = k
	}
	m.removeAll(base.Node, endpointType, child)
	out := m.merge(base.Node, child, endpointType)
	out = withoutKeys(out, "extends", "remove")
	if _, v := mapLookup(child, "resource"); v == nil {
		out = withKey(out, "resource", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: resource, Line: child.Line, Column: child.Column})
	}
	f := &File{Path: path, Pos: Positions{}, Node: out, origin: m.origin,
		Base: &BaseRef{Name: baseName, Path: base.Path, At: Pos{Line: extendsAt.Line, Col: extendsAt.Column}}}
	f.Endpoint = &Endpoint{}
	d := &decoder{file: path, root: path, diags: &diags, pos: f.Pos, origin: m.origin}
	d.decode(out, reflectValue(f.Endpoint))
	return f, diags
}

// ExtendSite resolves a site.yaml that extends a family's site.yaml. The family's identity (site, name,
// version, summary) is not inherited: each site states its own; and a site that gives domains replaces
// the family's (with default_domain), which only serve the family's own fixture cases.
func ExtendSite(base *File, family string, child *File) (*File, diag.List) {
	var diags diag.List
	m := newMerger(base.Path, child.Path, family, &diags)
	maps.Copy(m.origin, base.origin)
	extendsAt := child.Node
	if k, _ := mapLookup(child.Node, "extends"); k != nil {
		extendsAt = k
	}
	m.removeAll(base.Node, siteType, child.Node)
	b := withoutKeys(base.Node, "site", "name", "version", "summary")
	if _, v := mapLookup(child.Node, "domains"); v != nil {
		// A family's domains serve its own fixture cases; a site that names its hosts replaces them.
		b = withoutKeys(b, "domains", "default_domain")
	}
	out := m.merge(b, child.Node, siteType)
	out = withoutKeys(out, "extends", "remove")
	f := &File{Path: child.Path, Pos: Positions{}, Node: out, origin: m.origin,
		Base: &BaseRef{Name: family, Path: base.Path, At: Pos{Line: extendsAt.Line, Col: extendsAt.Column}}}
	f.Site = &Site{}
	d := &decoder{file: child.Path, root: child.Path, diags: &diags, pos: f.Pos, origin: m.origin}
	d.decode(out, reflectValue(f.Site))
	return f, diags
}

// MountNode returns the mapping of endpoints.<resource> in a site file, for ExtendEndpoint.
func (f *File) MountNode(resource string) *yaml.Node {
	_, eps := mapLookup(f.Node, "endpoints")
	_, n := mapLookup(eps, resource)
	return n
}

// ExtendsOf returns the extends value of a mapping (an endpoint file's root or a mount), or "".
func ExtendsOf(n *yaml.Node) string {
	_, v := mapLookup(n, "extends")
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

type merger struct {
	base, child, baseName string
	diags                 *diag.List
	// origin marks the subtrees taken from the base, for the decoder's positions.
	origin map[*yaml.Node]string
	// drop holds the base nodes that remove: named; dirty the base nodes above them, which the merge
	// rebuilds instead of sharing.
	drop, dirty map[*yaml.Node]bool
	types       map[reflect.Type]map[string]reflect.Type
}

func newMerger(base, child, baseName string, diags *diag.List) *merger {
	return &merger{base: base, child: child, baseName: baseName, diags: diags,
		origin: map[*yaml.Node]string{}, drop: map[*yaml.Node]bool{}, dirty: map[*yaml.Node]bool{},
		types: map[reflect.Type]map[string]reflect.Type{}}
}

// mark records that n comes from the base. A base that extends another base holds subtrees of
// that one's file, already marked: they keep their own file.
func (m *merger) mark(n *yaml.Node) {
	if _, ok := m.origin[n]; !ok {
		m.origin[n] = m.base
	}
}

// merge returns the tree of base b with child c on top, for a value of type t. Neither input is
// modified: base trees are shared by every site of a family.
func (m *merger) merge(b, c *yaml.Node, t reflect.Type) *yaml.Node {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if b == nil {
		return c
	}
	if c == nil {
		if !m.dirty[b] {
			m.mark(b)
			return b
		}
		// Something below was removed: rebuild this level from the base alone.
		empty := &yaml.Node{Kind: b.Kind, Tag: b.Tag, Line: b.Line, Column: b.Column}
		out := m.merge(b, empty, t)
		m.mark(out)
		return out
	}
	switch {
	case isMap(t) && b.Kind == yaml.MappingNode && c.Kind == yaml.MappingNode:
		return m.mergeMap(b, c, mapElem(t))
	case t.Kind() == reflect.Struct && b.Kind == yaml.MappingNode && c.Kind == yaml.MappingNode:
		return m.mergeStruct(b, c, t)
	case isIDList(t) && b.Kind == yaml.SequenceNode && c.Kind == yaml.SequenceNode:
		return m.mergeIDList(b, c, t.Elem())
	}
	return c
}

func (m *merger) mergeStruct(b, c *yaml.Node, t reflect.Type) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: c.Line, Column: c.Column}
	types := m.fieldTypes(t)
	used := map[string]bool{}
	for i := 0; i+1 < len(b.Content); i += 2 {
		k, v := b.Content[i], b.Content[i+1]
		if m.drop[v] {
			continue
		}
		ck, cv := mapLookup(c, k.Value)
		ft, known := types[k.Value]
		switch {
		case cv != nil && known:
			used[k.Value] = true
			out.Content = append(out.Content, ck, m.merge(v, cv, ft))
		case cv != nil:
			used[k.Value] = true
			out.Content = append(out.Content, ck, cv)
		case known:
			m.mark(k)
			out.Content = append(out.Content, k, m.merge(v, nil, ft))
		default:
			m.mark(k)
			m.mark(v)
			out.Content = append(out.Content, k, v)
		}
	}
	for i := 0; i+1 < len(c.Content); i += 2 {
		if !used[c.Content[i].Value] {
			out.Content = append(out.Content, c.Content[i], c.Content[i+1])
		}
	}
	return out
}

func (m *merger) mergeMap(b, c *yaml.Node, elem reflect.Type) *yaml.Node {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: c.Line, Column: c.Column}
	used := map[string]bool{}
	for i := 0; i+1 < len(b.Content); i += 2 {
		k, v := b.Content[i], b.Content[i+1]
		if m.drop[v] {
			continue
		}
		ck, cv := mapLookup(c, k.Value)
		switch {
		case cv != nil && elem == paramType:
			used[k.Value] = true
			out.Content = append(out.Content, ck, m.merge(v, cv, elem))
		case cv != nil:
			used[k.Value] = true
			out.Content = append(out.Content, ck, cv)
		default:
			m.mark(k)
			out.Content = append(out.Content, k, m.merge(v, nil, elem))
		}
	}
	for i := 0; i+1 < len(c.Content); i += 2 {
		if !used[c.Content[i].Value] {
			out.Content = append(out.Content, c.Content[i], c.Content[i+1])
		}
	}
	return out
}

func (m *merger) mergeIDList(b, c *yaml.Node, elem reflect.Type) *yaml.Node {
	out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: c.Line, Column: c.Column}
	childByID := map[string]*yaml.Node{}
	for _, it := range c.Content {
		if id := itemID(it); id != "" {
			if _, dup := childByID[id]; !dup {
				childByID[id] = it
			}
		}
	}
	used := map[*yaml.Node]bool{}
	for _, it := range b.Content {
		if m.drop[it] {
			continue
		}
		if ci := childByID[itemID(it)]; ci != nil && !used[ci] {
			used[ci] = true
			out.Content = append(out.Content, ci)
			continue
		}
		out.Content = append(out.Content, m.merge(it, nil, elem))
	}
	for _, it := range c.Content {
		if !used[it] {
			out.Content = append(out.Content, it)
		}
	}
	return out
}

// removeAll applies the child's remove: list to the base tree (by marking, not editing).
func (m *merger) removeAll(base *yaml.Node, t reflect.Type, child *yaml.Node) {
	_, list := mapLookup(child, "remove")
	if list == nil || list.Kind != yaml.SequenceNode {
		return // the decoder reports a remove that is not a list
	}
	for _, it := range list.Content {
		if it.Kind != yaml.ScalarNode {
			continue
		}
		if err := m.remove(base, t, it.Value); err != "" {
			m.diags.Add(m.child, it.Line, it.Column, "remove: %q %s in %s (%s)", it.Value, err, m.baseName, m.base)
		}
	}
}

// remove marks the base node a dotted path names. Within a field, a segment that is not one of a
// field's keys names a child field: fields.nutrition.calories is fields.nutrition.fields.calories.
func (m *merger) remove(n *yaml.Node, t reflect.Type, path string) string {
	segs := strings.Split(path, ".")
	var chain []*yaml.Node
	for i := 0; i < len(segs); i++ {
		seg := segs[i]
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if seg == "" {
			return "is not a path such as fields.name"
		}
		chain = append(chain, n)
		switch {
		case isMap(t):
			_, v := mapLookup(n, seg)
			if v == nil {
				return fmt.Sprintf("names nothing: no %q among %s", seg, strings.Join(mapKeys(n), ", "))
			}
			n, t = v, mapElem(t)
		case isIDList(t):
			var found *yaml.Node
			var ids []string
			if n.Kind == yaml.SequenceNode {
				for _, it := range n.Content {
					ids = append(ids, itemID(it))
					if itemID(it) == seg && found == nil {
						found = it
					}
				}
			}
			if found == nil {
				return fmt.Sprintf("names nothing: no id %q among %s", seg, strings.Join(ids, ", "))
			}
			n, t = found, t.Elem()
		case t.Kind() == reflect.Struct:
			types := m.fieldTypes(t)
			ft, known := types[seg]
			if !known && t == fieldType {
				// A child field: step into this field's fields and take the segment again.
				_, fs := mapLookup(n, "fields")
				if fs == nil {
					return fmt.Sprintf("names nothing: the field has no child fields (no %q)", seg)
				}
				n, t = fs, types["fields"]
				i--
				continue
			}
			if !known {
				return fmt.Sprintf("names nothing: %q is not a key here", seg)
			}
			_, v := mapLookup(n, seg)
			if v == nil {
				return fmt.Sprintf("names nothing: the base has no %s", strings.Join(segs[:i+1], "."))
			}
			n, t = v, ft
		default:
			return fmt.Sprintf("names nothing: %s is a value, not a collection", strings.Join(segs[:i], "."))
		}
	}
	m.drop[n] = true
	for _, c := range chain {
		m.dirty[c] = true
	}
	return ""
}

func isMap(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(entryIface)
}

func mapElem(t reflect.Type) reflect.Type {
	f, _ := t.FieldByName("Vals")
	return f.Type.Elem().Elem()
}

// isIDList reports a list of items named by an id key (steps, rules).
func isIDList(t reflect.Type) bool {
	if t.Kind() != reflect.Slice || t.Elem().Kind() != reflect.Struct {
		return false
	}
	_, ok := fieldTypes(t.Elem())["id"]
	return ok
}

func itemID(n *yaml.Node) string {
	_, v := mapLookup(n, "id")
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

func (m *merger) fieldTypes(t reflect.Type) map[string]reflect.Type {
	if ft, ok := m.types[t]; ok {
		return ft
	}
	ft := fieldTypes(t)
	m.types[t] = ft
	return ft
}

// fieldTypes maps the YAML keys of a model struct to their Go types (inline structs flattened).
func fieldTypes(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for k, idx := range structFields(t) {
		out[k] = t.FieldByIndex(idx).Type
	}
	return out
}

func mapLookup(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

func mapKeys(n *yaml.Node) []string {
	var out []string
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			out = append(out, n.Content[i].Value)
		}
	}
	if len(out) == 0 {
		return []string{"(none)"}
	}
	sort.Strings(out)
	return out
}

// withoutKeys returns a mapping without the given keys, sharing everything else.
func withoutKeys(n *yaml.Node, keys ...string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	out := *n
	out.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		drop := false
		for _, k := range keys {
			drop = drop || n.Content[i].Value == k
		}
		if !drop {
			out.Content = append(out.Content, n.Content[i], n.Content[i+1])
		}
	}
	return &out
}

// withKey returns a mapping with key set to v (replacing it in place, or first).
func withKey(n *yaml.Node, key string, v *yaml.Node) *yaml.Node {
	out := *n
	out.Content = append([]*yaml.Node(nil), n.Content...)
	for i := 0; i+1 < len(out.Content); i += 2 {
		if out.Content[i].Value == key {
			out.Content[i+1] = v
			return &out
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: v.Line, Column: v.Column}
	out.Content = append([]*yaml.Node{k, v}, out.Content...)
	return &out
}
