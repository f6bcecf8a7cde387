package engine

import (
	"bytes"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// encodeObject writes obj with the declared fields first, in sitedef order, so clients see keys in the
// order the author wrote them. Free-form objects (type object or any) are written with sorted keys.
func (p *Plan) encodeObject(b *bytes.Buffer, obj map[string]any, fs []*field) error {
	b.WriteByte('{')
	first := true
	for _, f := range fs {
		if f.hidden {
			continue
		}
		v, ok := obj[f.name]
		if !ok {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeString(b, f.name)
		b.WriteByte(':')
		if err := p.encodeValue(b, v, f); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func (p *Plan) encodeValue(b *bytes.Buffer, v any, f *field) error {
	children := f.children
	if f.recurse != nil {
		children = f.recurse.children
	}
	switch x := v.(type) {
	case map[string]any:
		if len(children) > 0 {
			return p.encodeObject(b, x, children)
		}
	case []any:
		if f.kind == kList && f.elem == kObject {
			b.WriteByte('[')
			for i, e := range x {
				if i > 0 {
					b.WriteByte(',')
				}
				// A list<object> without fields keeps its objects as they are (sorted keys).
				if m, ok := e.(map[string]any); ok && len(children) > 0 {
					if err := p.encodeObject(b, m, children); err != nil {
						return err
					}
					continue
				}
				if err := encodeAny(b, e); err != nil {
					return err
				}
			}
			b.WriteByte(']')
			return nil
		}
	}
	return encodeAny(b, v)
}

func encodeAny(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		writeString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null")
			return nil
		}
		enc, _ := json.Marshal(x)
		b.Write(enc)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeAny(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := encodeAny(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		enc, err := json.Marshal(x)
		if err != nil {
			return err
		}
		b.Write(enc)
	}
	return nil
}

// writeString writes s as a JSON string without escaping <, > and & (raw HTML under html stays
// readable and small).
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hex[c>>4])
				b.WriteByte(hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 break JavaScript string literals; escape them as encoding/json does.
		if r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
