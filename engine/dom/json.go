package dom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unsafe"
)

// MaxDepth is the deepest nesting of JSON arrays and objects decoded.
const MaxDepth = 512

// ErrTooDeep is returned for JSON nested deeper than MaxDepth.
var ErrTooDeep = fmt.Errorf("dom: JSON nested deeper than %d", MaxDepth)

var errUnbalanced = errors.New("dom: unterminated JSON value")

// DecodeJSON decodes a JSON body into nil, bool, float64, string, []any or map[string]any, and an
// integer of more than 15 digits that fits an int into an int (see exactInt). A value
// nested deeper than MaxDepth is refused with ErrTooDeep before decoding. A leading UTF-8 BOM and
// an anti-XSSI prefix (")]}'", "for(;;);", "while(1);") as Google and Facebook APIs send are
// skipped.
func DecodeJSON(body []byte) (any, error) {
	body = trimJSONPrefix(body)
	// As DecodeJSONString: JSON the fast decoder takes within MaxDepth passes checkDepth, whose
	// scan (a tenth of the decode of a reddit listing) is spared.
	if v, ok := decodeFastStringDepth(string(body)); ok {
		return v, nil
	}
	if err := checkDepth(body); err != nil {
		return nil, err
	}
	return unmarshal(body)
}

// DecodeJSONString is DecodeJSON of a string (a script's text), which it does not copy: the
// strings of the value are substrings of s.
func DecodeJSONString(s string) (any, error) {
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only: the bytes of s
	t := trimJSONPrefix(b)                          // a suffix of b
	if v, ok := decodeFastStringDepth(s[len(b)-len(t):]); ok {
		// JSON the fast decoder takes within MaxDepth passes checkDepth: its scan is spared.
		return v, nil
	}
	if err := checkDepth(t); err != nil {
		return nil, err
	}
	if v, ok := decodeFastString(s[len(b)-len(t):]); ok {
		return v, nil
	}
	return unmarshalStd(t)
}

// DecodeJSONPrefixString decodes the object or array s starts with, whatever follows it, as
// encoding/json's Decoder.Decode into an any does (a `{...};` captured from a script); ok is false
// when s starts with anything else or with a value the fast decoder leaves to encoding/json (a
// string that is not UTF-8, nesting past MaxDepth, a number strconv refuses, malformed JSON), and
// the caller asks encoding/json. The value's strings are substrings of s, and no part of it is
// shared with another value, so a caller may change it.
func DecodeJSONPrefixString(s string) (v any, ok bool) {
	if s == "" || s[0] != '{' && s[0] != '[' {
		return nil, false
	}
	v, _, _, ok = decodeFastPrefixInterned(s, false, nil)
	return v, ok
}

// MaybeJSON reports whether DecodeJSON(body) can succeed, from body's first byte: a body source
// read from an HTML page (youtube's, whose JSON comes from a script) is sure to fail at its '<',
// and DecodeJSON would first scan the whole page for nesting depth to say so.
func MaybeJSON(body []byte) bool {
	t := bytes.TrimLeft(trimJSONPrefix(body), " \t\r\n")
	if len(t) == 0 {
		return false
	}
	switch c := t[0]; c {
	case '{', '[', '"', '-', 't', 'f', 'n':
		return true
	default:
		return c >= '0' && c <= '9'
	}
}

func unmarshal(b []byte) (any, error) {
	if v, ok := decodeFast(b); ok {
		return v, nil
	}
	return unmarshalStd(b)
}

// unmarshalStd is json.Unmarshal into an any, but for the integers exactInt keeps: what the
// fast decoder answers, for the texts it leaves to encoding/json.
func unmarshalStd(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	v, err := decodeStd(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		// json.Unmarshal's refusal of what follows the value
		var w any
		return nil, json.Unmarshal(b, &w)
	}
	return v, nil
}

// DecodeStd is dec.Decode into an any, with integers as exactInt has them (dec's UseNumber is set).
func DecodeStd(dec *json.Decoder) (any, error) { return decodeStd(dec) }

func decodeStd(dec *json.Decoder) (any, error) {
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return numbers(v)
}

// numbers replaces the json.Numbers of v, in place, by what the fast decoder gives for them, and
// refuses one out of a float64's range as json.Unmarshal does.
func numbers(v any) (any, error) {
	var err error
	switch x := v.(type) {
	case json.Number:
		if n, ok := exactInt(string(x)); ok {
			return n, nil
		}
		f, ferr := x.Float64()
		if ferr != nil {
			return nil, &json.UnmarshalTypeError{Value: "number " + string(x), Type: reflect.TypeFor[float64]()}
		}
		return f, nil
	case []any:
		for i, e := range x {
			if x[i], err = numbers(e); err != nil {
				return nil, err
			}
		}
	case map[string]any:
		for k, e := range x {
			if x[k], err = numbers(e); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

func trimJSONPrefix(b []byte) []byte {
	b = bytes.TrimPrefix(b, bomUTF8)
	t := bytes.TrimLeft(b, " \t\r\n")
	for _, p := range [...]string{")]}'", "for(;;);", "for (;;);", "while(1);"} {
		if bytes.HasPrefix(t, []byte(p)) {
			t = t[len(p):]
			if p == ")]}'" {
				t = bytes.TrimPrefix(bytes.TrimLeft(t, " \t\r\n"), []byte(","))
			}
			return t
		}
	}
	return b
}

// checkDepth scans b for array and object nesting outside strings and fails past MaxDepth.
func checkDepth(b []byte) error {
	_, err := scanBrackets(b, true)
	return err
}

// balancedEnd returns the length of the JSON object or array that b starts with: the index just
// past the bracket that closes b[0], found by a scan that skips strings and their escapes.
func balancedEnd(b []byte) (int, error) {
	end, err := scanBrackets(b, false)
	if err != nil {
		return 0, err
	}
	if end < 0 {
		return 0, errUnbalanced
	}
	return end, nil
}

// scanBrackets follows the nesting of b's brackets outside strings, ErrTooDeep as soon as it passes
// MaxDepth. With whole it reads to the end of b, over any number of values; without, it stops
// just past the bracket that closes b[0]. end is -1 where b ends first, inside a string or before
// that bracket.
func scanBrackets(b []byte, whole bool) (end int, err error) {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			if i = stringEnd(b, i+1); i < 0 {
				return -1, nil
			}
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return 0, ErrTooDeep
			}
		case '}', ']':
			depth--
			if depth == 0 && !whole {
				return i + 1, nil
			}
		}
	}
	return -1, nil
}

// stringEnd returns the index of the '"' that ends the string whose content starts at b[i], where
// a backslash escapes the byte after it; -1 when the string is not terminated. It finds quotes
// with bytes.IndexByte: a quote ends the string when an even number of backslashes precede it.
func stringEnd(b []byte, i int) int {
	for i <= len(b) {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return -1
		}
		q := i + k
		n := 0
		for p := q - 1; p >= i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
	return -1
}

// decodeLenient decodes the JSON values of a block whose strict decoding failed, after repairing
// the mistakes real pages make (see repairJSON). Several top-level values in a row are all
// returned; values decoded before a syntax error are kept.
func decodeLenient(b []byte) ([]any, error) {
	b = repairJSON(b)
	if err := checkDepth(b); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	var out []any
	for {
		v, err := decodeStd(dec)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, v)
		// Tolerate commas between top-level values: {...},{...}
		rest := b[dec.InputOffset():]
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if len(rest) > 0 && rest[0] == ',' {
			b = rest[1:]
			dec = json.NewDecoder(bytes.NewReader(b))
		}
	}
}

// repairJSON fixes, outside of what JSON allows but inside what pages ship:
//   - raw control characters inside strings (escaped) and outside them (dropped);
//   - invalid escapes: \' becomes ', any other \x keeps its backslash as a literal;
//   - trailing commas before } or ], and doubled commas;
//   - missing values ("width": , or "height": }) become null.
func repairJSON(b []byte) []byte {
	out := make([]byte, 0, len(b)+16)
	inString := false
	var last byte // the last significant byte written outside strings
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch {
			case c == '"':
				inString = false
				out = append(out, c)
				last = c
			case c == '\\':
				if i+1 >= len(b) {
					out = append(out, '\\', '\\')
					continue
				}
				next := b[i+1]
				switch next {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					out = append(out, c, next)
					i++
				case 'u':
					if i+5 < len(b) && isHex(b[i+2]) && isHex(b[i+3]) && isHex(b[i+4]) && isHex(b[i+5]) {
						out = append(out, b[i:i+6]...)
						i += 5
					} else {
						out = append(out, '\\', '\\')
					}
				case '\'':
					out = append(out, '\'')
					i++
				case '\n':
					i++ // a JavaScript line continuation
				default:
					out = append(out, '\\', '\\')
				}
			case c < 0x20:
				switch c {
				case '\n':
					out = append(out, '\\', 'n')
				case '\r':
					out = append(out, '\\', 'r')
				case '\t':
					out = append(out, '\\', 't')
				default:
					out = append(out, fmt.Sprintf(`\u%04x`, c)...)
				}
			default:
				out = append(out, c)
			}
			continue
		}
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			out = append(out, c)
			continue
		case c < 0x20 || c == 0x7F:
			continue
		case c == '"':
			inString = true
		case c == ',':
			if last == ',' || last == '[' || last == '{' {
				continue // doubled or leading comma
			}
			if last == ':' {
				out = append(out, "null"...)
			}
			if next := nextSignificant(b, i+1); next == '}' || next == ']' {
				last = c
				continue // trailing comma: drop it
			}
		case c == '}' || c == ']':
			if last == ':' {
				out = append(out, "null"...)
			}
		}
		out = append(out, c)
		last = c
	}
	return out
}

func nextSignificant(b []byte, i int) byte {
	for ; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return b[i]
		}
	}
	return 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// JSLiteralsAsNull returns b with the JavaScript values JSON has no word for (undefined, NaN,
// Infinity, -Infinity) written as null wherever one stands as a value outside strings, and ok
// false when b has none. A page's state object is often a JavaScript literal rather than JSON
// (tumblr's window['___INITIAL_STATE___'] holds undefined), which the JSON decoders refuse whole.
// One pass; a string is skipped with stringEnd.
func JSLiteralsAsNull(b []byte) (out []byte, ok bool) {
	var prev byte // the last byte outside strings and whitespace
	from := 0     // b[from:] is not copied to out yet
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			if i = stringEnd(b, i+1); i < 0 {
				return nil, false
			}
			prev = '"'
			continue
		}
		if prev == ':' || prev == ',' || prev == '[' {
			if n := jsLiteralLen(b[i:]); n > 0 {
				out = append(append(out, b[from:i]...), "null"...)
				from = i + n
				i += n - 1
				prev = 'l'
				continue
			}
		}
		prev = c
	}
	if out == nil {
		return nil, false
	}
	return append(out, b[from:]...), true
}

// jsLiteralLen is the length of the JavaScript value JSON lacks that b starts with, as a whole
// word; 0 when b starts with none.
func jsLiteralLen(b []byte) int {
	for _, w := range [...]string{"undefined", "NaN", "Infinity", "-Infinity"} {
		if len(b) >= len(w) && string(b[:len(w)]) == w && (len(b) == len(w) || !identByte(b[len(w)])) {
			return len(w)
		}
	}
	return 0
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}
