package sitedef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"
)

// Schema returns the JSON Schema (draft-07, which editors' YAML language servers support) of sitedef
// files, generated from the model types and their doc tags so the schema cannot drift from the loader.
func Schema() ([]byte, error) {
	g := &schemaGen{defs: map[string]any{}}
	site := g.ref(reflect.TypeOf(Site{}))
	ep := g.ref(reflect.TypeOf(Endpoint{}))
	root := map[string]any{
		"$schema":     "http://json-schema.org/draft-07/schema#",
		"$id":         "https://asa.dev/schemas/sitedef.schema.json",
		"title":       "asa sitedef",
		"description": "A site (site.yaml) or an endpoint (<resource>.yaml) of an asa site definition.",
		"oneOf":       []any{site, ep},
		"definitions": g.defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

type schemaGen struct{ defs map[string]any }

func (g *schemaGen) ref(t reflect.Type) map[string]any {
	name := t.Name()
	if _, done := g.defs[name]; !done {
		g.defs[name] = nil // placeholder against recursion (Match contains Match)
		g.defs[name] = g.object(t)
	}
	return map[string]any{"$ref": "#/definitions/" + name}
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("yaml")
			name, opts, _ := strings.Cut(tag, ",")
			if opts == "inline" {
				walk(f.Type)
				continue
			}
			if name == "" || name == "-" {
				continue
			}
			s := g.typeSchema(f.Type)
			if d := f.Tag.Get("doc"); d != "" {
				s["description"] = d
			}
			if e := f.Tag.Get("enum"); e != "" {
				vals := []any{}
				for _, v := range strings.Split(e, ",") {
					vals = append(vals, v)
				}
				if s["type"] == "array" {
					s["items"] = map[string]any{"enum": vals}
				} else {
					s["enum"] = vals
				}
			}
			props[name] = s
			if f.Tag.Get("required") == "true" {
				required = append(required, name)
			}
		}
	}
	walk(t)
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		sort.Strings(required)
		out["required"] = required
		if _, ok := props["extends"]; ok {
			// What extends a base inherits the rest: a mount may be two lines.
			delete(out, "required")
			out["if"] = map[string]any{"required": []string{"extends"}}
			out["else"] = map[string]any{"required": required}
		}
	}
	return out
}

func (g *schemaGen) typeSchema(t reflect.Type) map[string]any {
	if t == reflect.TypeOf(time.Duration(0)) {
		return map[string]any{"type": "string", "pattern": `^[0-9]+(\.[0-9]+)?(ms|s|m|h)$`}
	}
	if t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Map[") {
		vals, _ := t.FieldByName("Vals")
		return map[string]any{"type": "object", "additionalProperties": g.typeSchema(vals.Type.Elem().Elem())}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.typeSchema(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.typeSchema(t.Elem())}
	case reflect.Struct:
		return g.ref(t)
	case reflect.Interface:
		return map[string]any{}
	}
	panic(fmt.Sprintf("sitedef schema: unsupported type %s", t))
}

// Reference renders the field-by-field reference (docs/sitedef-reference.md) from the same types.
func Reference() string {
	var b strings.Builder
	b.WriteString("# Sitedef reference\n\nGenerated from the Go model (`engine/sitedef/model.go`) by `asa sitedef docs`; do not edit by hand.\nThe guide is [sitedef-format.md](sitedef-format.md).\n")
	seen := map[string]bool{}
	var queue []reflect.Type
	queue = append(queue, reflect.TypeOf(Site{}), reflect.TypeOf(Endpoint{}))
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		if seen[t.Name()] {
			continue
		}
		seen[t.Name()] = true
		fmt.Fprintf(&b, "\n## %s\n\n| key | type | required | description |\n|---|---|---|---|\n", t.Name())
		var walk func(t reflect.Type)
		walk = func(t reflect.Type) {
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if opts == "inline" {
					walk(f.Type)
					continue
				}
				if name == "" || name == "-" {
					continue
				}
				typ, next := typeDoc(f.Type)
				if next != nil && !seen[next.Name()] {
					queue = append(queue, next)
				}
				desc := f.Tag.Get("doc")
				if e := f.Tag.Get("enum"); e != "" {
					desc += " One of: `" + strings.ReplaceAll(e, ",", "`, `") + "`."
				}
				req := ""
				if f.Tag.Get("required") == "true" {
					req = "yes"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, typ, req, strings.ReplaceAll(desc, "|", `\|`))
			}
		}
		walk(t)
	}
	return b.String()
}

func typeDoc(t reflect.Type) (string, reflect.Type) {
	if t == reflect.TypeOf(time.Duration(0)) {
		return "duration", nil
	}
	if t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "Map[") {
		vals, _ := t.FieldByName("Vals")
		s, next := typeDoc(vals.Type.Elem().Elem())
		return "map of name to " + s, next
	}
	switch t.Kind() {
	case reflect.Pointer:
		return typeDoc(t.Elem())
	case reflect.String:
		return "string", nil
	case reflect.Bool:
		return "bool", nil
	case reflect.Int, reflect.Int64:
		return "int", nil
	case reflect.Float64:
		return "number", nil
	case reflect.Slice:
		s, next := typeDoc(t.Elem())
		return "list of " + s, next
	case reflect.Struct:
		return "[" + t.Name() + "](#" + strings.ToLower(t.Name()) + ")", t
	case reflect.Interface:
		return "any", nil
	}
	return t.String(), nil
}
