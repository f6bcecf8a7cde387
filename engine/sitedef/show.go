package sitedef

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Marshal writes a site or an endpoint back as sitedef YAML, keys in model order and map entries in
// file order, leaving out what is unset. asa sitedef show prints resolved definitions with it, and
// what it prints loads back to the same definition.
func Marshal(v any) ([]byte, error) {
	n := toNode(reflect.ValueOf(v))
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func toNode(v reflect.Value) *yaml.Node {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		}
		if v.Kind() == reflect.Interface {
			// Free-form values (defaults, constants, JSON bodies) encode as yaml.v3 does.
			n := &yaml.Node{}
			if err := n.Encode(v.Interface()); err != nil {
				return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
			}
			return n
		}
		v = v.Elem()
	}
	t := v.Type()
	if t == durationType {
		return scalar("!!str", time.Duration(v.Int()).String())
	}
	switch {
	case isMap(t):
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := v.FieldByName("Keys")
		vals := v.FieldByName("Vals")
		for i := 0; i < keys.Len(); i++ {
			k := keys.Index(i)
			n.Content = append(n.Content, scalar("!!str", k.String()), toNode(vals.MapIndex(k)))
		}
		return n
	case t.Kind() == reflect.Struct:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		structNode(n, v)
		typeFirst(n)
		if flowable(n) {
			n.Style = yaml.FlowStyle
		}
		return n
	case t.Kind() == reflect.Slice:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i := 0; i < v.Len(); i++ {
			n.Content = append(n.Content, toNode(v.Index(i)))
		}
		if t.Elem().Kind() != reflect.Struct && t.Elem().Kind() != reflect.Interface {
			n.Style = yaml.FlowStyle
		}
		return n
	}
	switch v.Kind() {
	case reflect.String:
		n := scalar("!!str", v.String())
		if strings.Contains(v.String(), "\n") {
			n.Style = yaml.LiteralStyle
		}
		return n
	case reflect.Bool:
		return scalar("!!bool", strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int64:
		return scalar("!!int", strconv.FormatInt(v.Int(), 10))
	case reflect.Float64:
		return scalar("!!float", strconv.FormatFloat(v.Float(), 'g', -1, 64))
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

func structNode(n *yaml.Node, v reflect.Value) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			structNode(n, v.Field(i))
			continue
		}
		if name == "" || name == "-" || name == "$schema" || !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if fv.IsZero() || (isMap(f.Type) && fv.FieldByName("Keys").Len() == 0) {
			continue
		}
		n.Content = append(n.Content, scalar("!!str", name), toNode(fv))
	}
}

// typeFirst moves a type key to the front: a field's type reads before its inline selector.
func typeFirst(n *yaml.Node) {
	for i := 2; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			k, v := n.Content[i], n.Content[i+1]
			copy(n.Content[2:i+2], n.Content[0:i])
			n.Content[0], n.Content[1] = k, v
			return
		}
	}
}

// flowable: a small mapping of short scalars reads best on one line ({type: string, xpath: //h1}).
func flowable(n *yaml.Node) bool {
	if len(n.Content) > 8 {
		return false
	}
	width := 0
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || strings.Contains(c.Value, "\n") {
			return false
		}
		width += len(c.Value) + 4
	}
	return width <= 90
}

func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}
