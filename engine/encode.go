package engine

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The output is appended to one byte slice: the bytes.Buffer it was written to cost a method call
// per byte written, and encoding/json an allocation and reflection per number.

// appendObject appends obj with the declared fields first, in sitedef order, so clients see keys in
// the order the author wrote them. Free-form objects (type object or any) are written with sorted keys.
func (p *Plan) appendObject(b []byte, obj map[string]any, fs []*field) ([]byte, error) {
	b = append(b, '{')
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
			b = append(b, ',')
		}
		first = false
		b = appendString(b, f.name)
		b = append(b, ':')
		var err error
		if b, err = p.appendValue(b, v, f); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func (p *Plan) appendValue(b []byte, v any, f *field) ([]byte, error) {
	children := f.children
	if f.recurse != nil {
		children = f.recurse.children
	}
	switch x := v.(type) {
	case map[string]any:
		if len(children) > 0 {
			return p.appendObject(b, x, children)
		}
	case []any:
		if f.kind == kList && f.elem == kObject {
			b = append(b, '[')
			for i, e := range x {
				if i > 0 {
					b = append(b, ',')
				}
				var err error
				// Without fields of its own, a list<object> keeps its objects whole.
				if m, ok := e.(map[string]any); ok && len(children) > 0 {
					b, err = p.appendObject(b, m, children)
				} else {
					b, err = appendAny(b, e)
				}
				if err != nil {
					return nil, err
				}
			}
			return append(b, ']'), nil
		}
	}
	return appendAny(b, v)
}

func appendAny(b []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		b = append(b, "null"...)
	case string:
		b = appendString(b, x)
	case bool:
		b = strconv.AppendBool(b, x)
	case int:
		b = strconv.AppendInt(b, int64(x), 10)
	case float64:
		b = appendFloat(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendAny(b, e); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			if b, err = appendAny(b, x[k]); err != nil {
				return nil, err
			}
		}
		b = append(b, '}')
	default:
		// expr's map builtins (groupBy) make maps keyed by any, which encoding/json refuses.
		if m, ok := objectOf(x); ok {
			return appendAny(b, m)
		}
		enc, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		b = append(b, enc...)
	}
	return b, nil
}

// appendFloat appends f as encoding/json writes a float64 (null for NaN and the infinities, which
// JSON cannot write): the shortest representation, in exponent form only below 1e-6 or from 1e21
// on, and with a one-digit negative exponent written without its zero.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// plainWord reports whether the eight bytes of x (loaded little-endian) are all printable ASCII
// other than '"' and a backslash, the bytes appendString copies as they are. Each test is exact
// about whether some byte of the word has the property (the bit tricks of "Bit Twiddling Hacks":
// hasless and haszero).
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^'"'*ones, x^'\\'*ones
	// a byte of 0x80 or more, one below 0x20, a '"' (a zero byte of q), a backslash
	return (x|(x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs == 0
}

// appendString appends s as a JSON string without escaping <, > and & (raw HTML under html stays
// readable and small).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Most of an output is URLs and titles of printable ASCII: passed over eight bytes at a
		// time (see plain8), the loop below taking the word that has anything else.
		for ; i+8 <= len(s); i += 8 {
			w := s[i : i+8]
			x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
				uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
			if !plainWord(x) {
				break
			}
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, `\n`...)
			case '\r':
				b = append(b, `\r`...)
			case '\t':
				b = append(b, `\t`...)
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 break JavaScript string literals; escape them as encoding/json does.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
