package sitedef

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"asa/engine/diag"
	"asa/engine/nearest"
)

// Pos is a line and column in a sitedef file (1-based). File is empty for a position in the file being
// loaded, and names the base file for a value an endpoint or site inherited through extends.
type Pos struct {
	Line, Col int
	File      string
}

// Positions maps the address of every decoded value to where it stood in the file, so the compiler can
// point at the exact selector or expression that fails without every model field carrying a position.
type Positions map[uintptr]Pos

// Of returns the position of the value ptr points to (a pointer to a model field), or the zero Pos.
func (p Positions) Of(ptr any) Pos {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return Pos{}
	}
	return p[v.Pointer()]
}

// Map is a YAML mapping that keeps its keys in file order: output fields and parameters are emitted and
// documented in the order the author wrote them.
type Map[T any] struct {
	Keys []string
	Vals map[string]*T
	Pos  map[string]Pos
}

// Len returns the number of entries.
func (m *Map[T]) Len() int { return len(m.Keys) }

// Get returns the entry for key, or nil.
func (m *Map[T]) Get(key string) *T {
	if m == nil || m.Vals == nil {
		return nil
	}
	return m.Vals[key]
}

// Each calls fn for every entry in file order.
func (m *Map[T]) Each(fn func(key string, v *T)) {
	if m == nil {
		return
	}
	for _, k := range m.Keys {
		fn(k, m.Vals[k])
	}
}

func (m *Map[T]) decodeEntries(d *decoder, n *yaml.Node) {
	m.Vals = make(map[string]*T, len(n.Content)/2)
	m.Pos = make(map[string]Pos, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "a key must be a plain string")
			continue
		}
		if _, dup := m.Vals[k.Value]; dup {
			d.errorf(k, "duplicate key %q", k.Value)
			continue
		}
		t := new(T)
		d.decode(v, reflect.ValueOf(t).Elem())
		m.Keys = append(m.Keys, k.Value)
		m.Vals[k.Value] = t
		m.Pos[k.Value] = d.at(k)
	}
}

type entryDecoder interface {
	decodeEntries(d *decoder, n *yaml.Node)
}

// decoder turns a yaml.Node tree into model structs strictly: unknown keys, wrong kinds and bad scalars
// are all reported with their line and column, and decoding goes on so one run reports every mistake.
// yaml.v3's own KnownFields stops at the first unknown key and gives no column, hence this.
type decoder struct {
	file  string
	diags *diag.List
	pos   Positions
	// Resolving extends decodes one tree merged from several files: origin names the file of every
	// subtree that is not from root, the file the result is reported as.
	origin map[*yaml.Node]string
	root   string
	fields map[reflect.Type]map[string][]int
	cut    map[uintptr]string // nil: not recorded
}

// at is the position of n, naming its file when it is not the root file.
func (d *decoder) at(n *yaml.Node) Pos {
	f := d.file
	if o, ok := d.origin[n]; ok {
		f = o
	}
	if f == d.root {
		f = ""
	}
	return Pos{Line: n.Line, Col: n.Column, File: f}
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.diags.Add(d.file, n.Line, n.Column, format, args...)
}

var (
	durationType = reflect.TypeOf(time.Duration(0))
	anyType      = reflect.TypeOf((*any)(nil)).Elem()
	entryIface   = reflect.TypeOf((*entryDecoder)(nil)).Elem()
)

func (d *decoder) decode(n *yaml.Node, v reflect.Value) {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if f, ok := d.origin[n]; ok && f != d.file {
		defer func(prev string) { d.file = prev }(d.file)
		d.file = f
	}
	if n.Kind == yaml.AliasNode {
		d.errorf(n, "YAML aliases are not allowed in sitedefs")
		return
	}
	if n.Kind == yaml.ScalarNode && n.Tag != "" && !strings.HasPrefix(n.Tag, "!!") {
		// An expression such as !fields.in_stock, read by YAML as a tag on an empty value.
		d.errorf(n, "YAML read %q as a tag, not as part of the value; quote the whole value: %s", n.Tag, quoteYAML(strings.TrimSpace(n.Tag+" "+n.Value)))
		return
	}
	if v.CanAddr() {
		d.pos[v.Addr().Pointer()] = d.at(n)
	}
	if v.CanAddr() && v.Addr().Type().Implements(entryIface) {
		if n.Kind != yaml.MappingNode {
			d.errorf(n, "expected a mapping, found %s", kindName(n))
			return
		}
		v.Addr().Interface().(entryDecoder).decodeEntries(d, n)
		return
	}
	if v.Type() == anyType {
		var x any
		if err := n.Decode(&x); err != nil {
			d.errorf(n, "%v", err)
			return
		}
		v.Set(reflect.ValueOf(&x).Elem())
		return
	}
	if v.Type() == durationType {
		if n.Kind != yaml.ScalarNode {
			d.errorf(n, "expected a duration such as 20s, found %s", kindName(n))
			return
		}
		dur, err := time.ParseDuration(n.Value)
		if err != nil || dur < 0 {
			d.errorf(n, "%q is not a duration such as 500ms or 20s", n.Value)
			return
		}
		v.SetInt(int64(dur))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Tag == "!!null" {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decode(n, p.Elem())
		v.Set(p)
		// The pointee's position is what the compiler asks for.
		d.pos[p.Pointer()] = d.at(n)
	case reflect.Struct:
		d.decodeStruct(n, v)
	case reflect.Map:
		d.decodeMap(n, v)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.errorf(n, "expected a list, found %s", kindName(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		v.Set(s)
		for i, c := range n.Content {
			d.decode(c, s.Index(i))
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
			d.errorf(n, "expected a string, found %s", kindName(n))
			return
		}
		v.SetString(n.Value)
		if d.cut != nil && n.Style == 0 && n.LineComment != "" && v.CanAddr() {
			d.cut[v.Addr().Pointer()] = n.LineComment
		}
	case reflect.Bool:
		b, err := strconv.ParseBool(n.Value)
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || err != nil {
			d.errorf(n, "expected true or false, found %s", describe(n))
			return
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil {
			d.errorf(n, "expected a whole number, found %s", describe(n))
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		f, err := strconv.ParseFloat(n.Value, 64)
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || err != nil {
			d.errorf(n, "expected a number, found %s", describe(n))
			return
		}
		v.SetFloat(f)
	default:
		d.errorf(n, "internal: cannot decode into %s", v.Type())
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "expected a mapping, found %s", kindName(n))
		return
	}
	fields := d.fields[v.Type()]
	if fields == nil {
		// Once per type and decoder: a mapping of model keys is rebuilt otherwise for every struct.
		if d.fields == nil {
			d.fields = map[reflect.Type]map[string][]int{}
		}
		fields = structFields(v.Type())
		d.fields[v.Type()] = fields
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Value == "<<" {
			d.errorf(k, "YAML merge keys are not allowed in sitedefs")
			continue
		}
		idx, ok := fields[k.Value]
		if !ok {
			if prev, cut := commaCut(n, i); cut {
				d.errorf(k, "unknown key %q: inside { } YAML ended the value of %q at an unquoted \",\"; quote the whole value: %s: %s",
					k.Value, prev.key, prev.key, quoteYAML(prev.val+", "+k.Value))
				continue
			}
			d.errorf(k, "unknown key %q%s", k.Value, suggest(k.Value, fields))
			continue
		}
		if seen[k.Value] {
			d.errorf(k, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		d.decode(val, v.FieldByIndex(idx))
	}
}

// decodeMap decodes a plain Go map with string keys (fixture cases use them; sitedefs use Map, which
// keeps the order).
func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value) {
	if v.Type().Key().Kind() != reflect.String {
		d.errorf(n, "internal: cannot decode into %s", v.Type())
		return
	}
	if n.Tag == "!!null" {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "expected a mapping, found %s", kindName(n))
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "a key must be a plain string")
			continue
		}
		if k.Value == "<<" {
			d.errorf(k, "YAML merge keys are not allowed")
			continue
		}
		key := reflect.ValueOf(k.Value).Convert(v.Type().Key())
		if m.MapIndex(key).IsValid() {
			d.errorf(k, "duplicate key %q", k.Value)
			continue
		}
		e := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, e)
		m.SetMapIndex(key, e)
	}
	v.Set(m)
}

type cutValue struct{ key, val string }

// commaCut reports whether the key at n.Content[i] is the tail of the previous value cut at a comma:
// `{expr: max(a, b)}` reads as expr: "max(a" and a key "b)" without a value.
func commaCut(n *yaml.Node, i int) (cutValue, bool) {
	if n.Style&yaml.FlowStyle == 0 || i < 2 || n.Content[i+1].Tag != "!!null" || n.Content[i+1].Value != "" {
		return cutValue{}, false
	}
	pk, pv := n.Content[i-2], n.Content[i-1]
	if pv.Kind != yaml.ScalarNode || pv.Style != 0 || pv.Tag != "!!str" {
		return cutValue{}, false
	}
	return cutValue{pk.Value, pv.Value}, true
}

// structFields maps YAML keys to field indexes, flattening `yaml:",inline"` embedded structs.
func structFields(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		if tag == "-" || !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if opts == "inline" {
			for k, idx := range structFields(f.Type) {
				out[k] = append([]int{i}, idx...)
			}
			continue
		}
		if name == "" {
			continue
		}
		out[name] = []int{i}
	}
	return out
}

func suggest(key string, fields map[string][]int) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if best := nearest.Name(key, keys); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return fmt.Sprintf(" (allowed: %s)", strings.Join(keys, ", "))
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return "a scalar"
	}
	return "something else"
}

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%q", n.Value)
	}
	return kindName(n)
}

func reflectValue(ptr any) reflect.Value { return reflect.ValueOf(ptr).Elem() }
