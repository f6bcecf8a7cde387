package dom

import (
	"bytes"
	"errors"
	"regexp"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// scanWindow is how far after a marker match the start of the value is looked for.
const scanWindow = 256

// maxFailedValues is how many values that do not decode ScriptJSON tries before it gives up.
const maxFailedValues = 16

var errNoMarker = errors.New("dom: ScriptJSON: nil marker")

// Marker is how ScriptJSON finds a marker: a *regexp.Regexp, or a search with its answers
// (engine/regexfast's, which tries a marker's literal prefixes instead of running the regexp
// package's NFA across a megabyte of HTML).
type Marker interface {
	FindIndex(b []byte) []int
}

// ScriptJSON decodes the JSON value that follows the first match of marker in body, as in
//
//	var ytInitialPlayerResponse = {...};          marker ytInitialPlayerResponse\s*=
//	window["ytInitialData"] = {...};              marker ytInitialData
//	<script id="__NEXT_DATA__" type="application/json">{...}</script>   marker __NEXT_DATA__
//	ytInitialData = JSON.parse('{\x22a\x22:1}');  a JavaScript string literal holding JSON
//	"player_response":"{\"videoDetails\":{}}"     the same, as a JSON string
//
// From the end of the match it skips up to 256 bytes of anything (whitespace, "= ", "JSON.parse(",
// an attribute's quoted value ...) to the first '{' or '[', or to a string literal in value
// position (after '=', '(', ':' or ',') whose content, unescaped by JavaScript rules, starts with
// '{' or '['. The extent of the value is found by a bracket scanner that skips strings and
// escapes, and that one slice is decoded with the MaxDepth cap (numbers as float64).
//
// A ';' or '<' before any value ends the search at that match (var x = null;), and the next match
// of marker is tried; so is the next match when the value found does not decode (a marker that
// also matches inside code, such as a.ytInitialData,...). The first value that decodes is
// returned. It returns (nil, nil) when marker does not match or no match is followed by a value,
// and the first decoding error (invalid JSON, unterminated value, ErrTooDeep) when values were
// found but none decodes.
//
// At most maxFailedValues values that do not decode are tried: each such try may scan to the end
// of body (an unbalanced '{'), so a body of many markers each before a broken value would
// otherwise cost quadratic time. A match with no value costs at most scanWindow bytes. So the
// work is linear in len(body) by construction. No page of the corpus has a single failed try for
// the markers the sitedefs use.
func ScriptJSON(body []byte, marker Marker) (any, error) {
	return scriptJSON(body, marker, nil)
}

// jsonText receives the JSON text of the value ScriptJSON decodes and, when index is set, the
// index the decoder laid out as it went (nil when it did not: IndexJSON's then).
type jsonText struct {
	text  []byte
	index bool
	ix    *JSONIndex

	// shared, when not nil, holds the body that the body ScriptJSON reads starts at offset base
	// in, and the string its values' texts are taken from.
	shared *ScriptText
	base   int

	// proj, when not nil, is the part of the value decoded (see Projection); index is then unset.
	proj *Projection
}

// scriptJSON is ScriptJSON; when text is not nil, it receives the JSON text of the value.
func scriptJSON(body []byte, marker Marker, text *jsonText) (any, error) {
	if marker == nil || marker == (*regexp.Regexp)(nil) {
		return nil, errNoMarker
	}
	var firstErr error
	failed := 0
	for pos := 0; pos <= len(body) && failed < maxFailedValues; {
		loc := marker.FindIndex(body[pos:])
		if loc == nil {
			break
		}
		start, end := pos+loc[0], pos+loc[1]
		v, found, err := valueAfter(body, end, text)
		if found && err == nil {
			return v, nil
		}
		if found {
			failed++
			if firstErr == nil {
				firstErr = err
			}
		}
		if end > start {
			pos = end
		} else {
			pos = end + 1
		}
	}
	return nil, firstErr
}

// valueAfter looks for a JSON value starting within scanWindow bytes of body[i:].
func valueAfter(body []byte, i int, text *jsonText) (v any, found bool, err error) {
	prev := byte(0) // the last non-space byte before the current one
	for j := i - 1; j >= 0; j-- {
		if !isASCIISpace(body[j]) {
			prev = body[j]
			break
		}
	}
	limit := min(len(body), i+scanWindow)
	for j := i; j < limit; j++ {
		c := body[j]
		switch c {
		case ' ', '\t', '\n', '\r', '\f':
			continue
		case '{', '[':
			v, err := decodeScriptValue(body[j:], text, j)
			return v, true, err
		case ';', '<':
			return nil, false, nil
		case '"', '\'', '`':
			if prev != '=' && prev != '(' && prev != ':' && prev != ',' {
				break
			}
			s, n, ok := readJSString(body[j:])
			if !ok {
				return nil, true, errors.New("dom: ScriptJSON: unterminated string literal")
			}
			k := 0
			for k < len(s) && isASCIISpace(s[k]) {
				k++
			}
			if k < len(s) && (s[k] == '{' || s[k] == '[') {
				v, err := decodeBalanced(s[k:], text)
				return v, true, err
			}
			j += n - 1
		}
		prev = c
	}
	return nil, false, nil
}

// decodeScriptValue is decodeBalanced of a value that is mostly the text of a script element,
// which cannot hold "</script": the text up to there (a few bytes past the value's end) is decoded
// in one pass that also finds the value's end, instead of a scan for the end and then the decode.
// Anything that pass does not take (no "</script" after the value, a value the fast decoder
// leaves to encoding/json, an error) is decodeBalanced's, whose answer it would have been.
//
// b is the body ScriptJSON reads from offset at on; with text.shared, the text up to "</script" is
// a substring of the shared string rather than a copy of its own.
func decodeScriptValue(b []byte, text *jsonText, at int) (any, error) {
	var s string
	if text != nil && text.shared != nil {
		s = text.shared.script(text.base + at)
	} else if n := bytes.Index(b, []byte(scriptEnd)); n > 0 {
		s = string(b[:n])
	}
	if s != "" && text != nil && text.proj != nil {
		// A value the projected decode does not take is the full decode's below, whose answer a
		// projection leaves as it is on every path it names.
		if v, end, ok := decodeFastPrefixProjected(s, text.proj); ok {
			text.text = b[:end]
			return v, nil
		}
	} else if s != "" {
		if v, end, ix, ok := decodeFastPrefixString(s, text != nil && text.index); ok {
			if text != nil {
				text.text, text.ix = b[:end], ix
			}
			return v, nil
		}
	}
	return decodeBalanced(b, text)
}

// ScriptText is one string copy of the script text that a page's script-JSON values are in, for
// all of them: marketplace pages hold several sources in one script of hundreds of kilobytes (a
// Next.js page's __NEXT_DATA__), and a copy per value would copy that script once per source.
// Values in different scripts share nothing; each script is copied at most once while the values
// are in order of the marks (a value outside the copy replaces it with a copy of its own script).
type ScriptText struct {
	body  []byte
	marks []int  // where the sources' markers may start: the copy begins at the first in the script
	lo    int    // s is body[lo:lo+len(s)], which ends where a "</script" starts
	s     string // "" until the first copy
	view  bool   // s is a view of body's bytes, not a copy (NewScriptTextView)
}

// NewScriptText returns the shared text of body's scripts; marks are the offsets in body of the
// markers that will be decoded (any order, or none: they only widen the first copy of a script so
// that the other values in it are in the copy).
func NewScriptText(body []byte, marks []int) *ScriptText {
	return &ScriptText{body: body, marks: marks}
}

// NewScriptTextView is NewScriptText whose text is body's bytes themselves rather than a copy of
// them: the caller never writes body while the values live (the engine's step bodies, which it
// already reads through string views). A script of hundreds of kilobytes is then not copied.
func NewScriptTextView(body []byte, marks []int) *ScriptText {
	return &ScriptText{body: body, marks: marks, view: true}
}

// script returns body[j:] up to the first "</script" after j, as a substring of the copy; "" when
// there is no "</script" after j or it starts at j.
func (t *ScriptText) script(j int) string {
	if j < 0 || j > len(t.body) {
		return ""
	}
	if t.s != "" && t.lo <= j && j < t.lo+len(t.s) {
		// body[t.lo:] has no "</script" before t.lo+len(t.s), where one starts: nor has body[j:].
		return t.s[j-t.lo:]
	}
	n := bytes.Index(t.body[j:], []byte(scriptEnd))
	if n <= 0 {
		return ""
	}
	lo, first := j, j
	for _, m := range t.marks {
		if m >= 0 && m < first {
			first = m
		}
	}
	if first < j {
		// The marks after the last "</script" before j are in the same script: the copy starts at
		// the first of them. The search is forward from the first mark, as a backward search is a
		// byte at a time; one that ends past j starts before it too, and the copy must hold none
		// but at its end.
		prev, end := -1, min(len(t.body), j+len(scriptEnd)-1)
		for k := first; k < end; {
			n := bytes.Index(t.body[k:end], []byte(scriptEnd))
			if n < 0 {
				break
			}
			prev = k + n
			k = prev + 1
		}
		for _, m := range t.marks {
			if m > prev && m < lo {
				lo = m
			}
		}
	}
	if t.view {
		t.lo, t.s = lo, unsafe.String(&t.body[lo], j+n-lo)
	} else {
		t.lo, t.s = lo, string(t.body[lo:j+n])
	}
	return t.s[j-lo:]
}

const scriptEnd = "</script"

func decodeBalanced(b []byte, text *jsonText) (any, error) {
	end, err := balancedEnd(b)
	if err != nil {
		return nil, err
	}
	v, err := unmarshal(b[:end])
	if err == nil && text != nil {
		text.text = b[:end]
	}
	if err != nil {
		// A JavaScript literal rather than JSON: its text is not JSON, so it is not kept as the
		// value's text (text.text) for later reads.
		if fixed, ok := JSLiteralsAsNull(b[:end]); ok {
			if w, ferr := unmarshal(fixed); ferr == nil {
				return w, nil
			}
		}
	}
	return v, err
}

// readJSString reads the JavaScript string literal that b starts with (quote ", ' or `) and
// returns its value, unescaped, and the length of the literal. A literal without escapes is
// returned as a sub-slice of b.
func readJSString(b []byte) (s []byte, n int, ok bool) {
	q := b[0]
	i := 1
	for ; i < len(b); i++ {
		switch b[i] {
		case q:
			return b[1:i], i + 1, true
		case '\\':
			goto slow
		case '\n', '\r':
			if q != '`' {
				return nil, 0, false
			}
		}
	}
	return nil, 0, false
slow:
	out := make([]byte, 0, 2*i)
	out = append(out, b[1:i]...)
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c == q:
			return out, i + 1, true
		case (c == '\n' || c == '\r') && q != '`':
			return nil, 0, false
		case c != '\\':
			out = append(out, c)
			continue
		}
		// An escape.
		i++
		if i >= len(b) {
			return nil, 0, false
		}
		switch e := b[i]; e {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'v':
			out = append(out, '\v')
		case '0':
			out = append(out, 0)
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		case '\n':
			// line continuation
		case 'x':
			if i+2 < len(b) && isHex(b[i+1]) && isHex(b[i+2]) {
				out = utf8.AppendRune(out, rune(unhex(b[i+1])<<4|unhex(b[i+2])))
				i += 2
			} else {
				out = append(out, 'x')
			}
		case 'u':
			r, used := readUnicodeEscape(b[i+1:])
			if used == 0 {
				out = append(out, 'u')
				break
			}
			i += used
			if utf16.IsSurrogate(r) && r < 0xDC00 && i+2 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
				if r2, used2 := readUnicodeEscape(b[i+3:]); used2 > 0 {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 2 + used2
					}
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			out = append(out, e) // \' \" \\ \/ and identity escapes
		}
	}
	return nil, 0, false
}

// readUnicodeEscape reads the part of a \u escape after the u: HHHH or {H...}. It returns the
// rune and the bytes used, 0 when malformed.
func readUnicodeEscape(b []byte) (rune, int) {
	if len(b) >= 4 && isHex(b[0]) && isHex(b[1]) && isHex(b[2]) && isHex(b[3]) {
		return rune(unhex(b[0]))<<12 | rune(unhex(b[1]))<<8 | rune(unhex(b[2]))<<4 | rune(unhex(b[3])), 4
	}
	if len(b) >= 3 && b[0] == '{' {
		var r rune
		for k := 1; k < len(b) && k <= 7; k++ {
			if b[k] == '}' {
				if k == 1 || r > utf8.MaxRune {
					return 0, 0
				}
				return r, k + 1
			}
			if !isHex(b[k]) {
				return 0, 0
			}
			r = r<<4 | rune(unhex(b[k]))
		}
	}
	return 0, 0
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// ScriptJSONShared is ScriptJSON of body[from:], whose values' texts are substrings of t's copy
// of body (t's body must be body); with index set, it is ScriptJSONText's answer instead. With proj
// set, the value is decoded as projected (see Projection) and not indexed: it is the same on the
// paths proj names, and is found (or refused) where the full value is.
func ScriptJSONShared(body []byte, from int, marker Marker, t *ScriptText, index bool, proj *Projection) (v any, text []byte, ix *JSONIndex, err error) {
	if proj != nil {
		index = false
	}
	jt := jsonText{index: index, shared: t, base: from, proj: proj}
	v, err = scriptJSON(body[from:], marker, &jt)
	return v, jt.text, jt.ix, err
}
