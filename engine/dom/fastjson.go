package dom

import (
	"strconv"
	"unicode/utf8"
)

// decodeFast decodes a JSON text into nil, bool, float64, string, []any and map[string]any exactly
// as json.Unmarshal into an any does, in one pass instead of encoding/json's two (a validating scan,
// then a decode through its state machine): script JSON and JSON-LD blocks of a megabyte are
// common on marketplace pages. It takes only the plain cases: a string with a surrogate escape or
// bytes that are not UTF-8, a number strconv refuses, and anything that is not valid JSON make it
// answer ok false, and the caller decodes with encoding/json (whose answer, or error, is then the
// one given). It never reads past len(b) and visits each byte once; the nesting it recurses into
// is bounded by the caller's checkDepth.
func decodeFast(b []byte) (v any, ok bool) {
	d := fastDecoder{b: b}
	d.space()
	v, ok = d.value()
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.b)
}

type fastDecoder struct {
	b   []byte
	i   int
	buf []byte // scratch for strings with escapes

	// recent holds recent short strings, so a key that repeats (every element of an array of
	// records has the same few) or an enumeration value ("USD", "Product") is one string, not one
	// allocation per occurrence. A slot is chosen by length and end bytes; a string that is not in
	// its slot replaces what is there.
	recent [64]string
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) value() (any, bool) {
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		return d.object()
	case c == '[':
		return d.array()
	case c == '"':
		s, ok := d.short()
		return s, ok
	case c == 't':
		return true, d.word("true")
	case c == 'f':
		return false, d.word("false")
	case c == 'n':
		return nil, d.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *fastDecoder) word(w string) bool {
	if len(d.b)-d.i < len(w) || string(d.b[d.i:d.i+len(w)]) != w {
		return false
	}
	d.i += len(w)
	return true
}

func (d *fastDecoder) object() (any, bool) {
	d.i++ // {
	m := make(map[string]any)
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		return m, true
	}
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.short()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[k] = v // a repeated key: the last value, as encoding/json
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *fastDecoder) array() (any, bool) {
	d.i++               // [
	a := make([]any, 0) // [] is an empty slice, not nil, as encoding/json
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.b) {
			return nil, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// short reads a string at d.i (a '"'): str, with a short plain ASCII string taken from d.recent
// when it is there.
func (d *fastDecoder) short() (string, bool) {
	start := d.i + 1
	for j := start; j < len(d.b) && j-start <= maxRecent; j++ {
		c := d.b[j]
		if c == '"' {
			if j == start {
				break
			}
			k := d.b[start:j]
			slot := &d.recent[(len(k)*7+int(k[0])*3+int(k[len(k)-1]))&(len(d.recent)-1)]
			if *slot != string(k) {
				*slot = string(k)
			}
			d.i = j + 1
			return *slot, true
		}
		if c == '\\' || c < ' ' || c >= utf8.RuneSelf {
			break
		}
	}
	return d.str()
}

// maxRecent is the longest string d.recent holds: longer ones (URLs, text) rarely repeat.
const maxRecent = 40

// str reads a string at d.i (a '"'). Escapes other than a surrogate \u are decoded here; a
// surrogate, a control byte or a byte sequence that is not UTF-8 is left to encoding/json.
func (d *fastDecoder) str() (string, bool) {
	start := d.i + 1
	ascii := true
	for j := start; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			s := d.b[start:j]
			if !ascii && !utf8.Valid(s) {
				return "", false
			}
			d.i = j + 1
			return string(s), true
		case c == '\\':
			return d.escaped(start, j, ascii)
		case c < ' ':
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// escaped reads the rest of a string whose first escape is at b[esc].
func (d *fastDecoder) escaped(start, esc int, ascii bool) (string, bool) {
	buf := append(d.buf[:0], d.b[start:esc]...)
	j := esc
	for j < len(d.b) {
		c := d.b[j]
		switch {
		case c == '"':
			if !ascii && !utf8.Valid(buf) {
				return "", false
			}
			d.i, d.buf = j+1, buf
			return string(buf), true
		case c == '\\':
			if j+1 >= len(d.b) {
				return "", false
			}
			switch e := d.b[j+1]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := hex4(d.b, j+2)
				if !ok || r >= 0xd800 && r < 0xe000 {
					return "", false // a surrogate: encoding/json pairs or replaces it
				}
				buf = utf8.AppendRune(buf, r)
				j += 6
				continue
			default:
				return "", false
			}
			j += 2
			continue
		case c < ' ':
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		buf = append(buf, c)
		j++
	}
	return "", false
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a number of JSON's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, as
// strconv.ParseFloat reads it (as encoding/json does); one it refuses (out of range) is left to
// encoding/json.
func (d *fastDecoder) number() (any, bool) {
	b, start := d.b, d.i
	j := start
	if b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && b[j] >= '1' && b[j] <= '9':
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	default:
		return nil, false
	}
	if j < len(b) && b[j] == '.' {
		j++
		if j >= len(b) || b[j] < '0' || b[j] > '9' {
			return nil, false
		}
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j >= len(b) || b[j] < '0' || b[j] > '9' {
			return nil, false
		}
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	}
	f, err := strconv.ParseFloat(string(b[start:j]), 64)
	if err != nil {
		return nil, false
	}
	d.i = j
	return f, true
}
