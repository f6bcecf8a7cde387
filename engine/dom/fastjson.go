package dom

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// decodeFast decodes a JSON text into nil, bool, float64, string, []any and map[string]any exactly
// as json.Unmarshal into an any does (but for the long integers exactInt keeps as ints), in one
// pass instead of encoding/json's two (a validating scan, then a decode through its state
// machine): script JSON and JSON-LD blocks of a megabyte are common on marketplace pages. It takes
// only the plain cases: a string with bytes that are not UTF-8, a number strconv refuses, and
// anything that is not valid JSON make it answer ok false, and the caller decodes with
// encoding/json (unmarshalStd, whose answer, or error, is then the one given). It never reads past
// len(b) and visits each byte once; the nesting it recurses into is bounded by the caller's
// checkDepth.
func decodeFast(b []byte) (v any, ok bool) {
	// One copy of the text, whose substrings are the strings without escapes: a string costs no
	// allocation of its own (the decoded value keeps the text alive, which it mostly is anyway).
	return decodeFastString(string(b))
}

// decodeFastString is decodeFast of a string, whose substrings the strings of the value are.
func decodeFastString(s string) (v any, ok bool) { return decodeFastStringMax(s, 0) }

// decodeFastStringDepth is decodeFastString that refuses a value nested deeper than MaxDepth: a
// text it takes is one checkDepth passes (its brackets outside strings are its nesting), so a
// caller that checks the depth first may try this before, and check only when it refuses.
func decodeFastStringDepth(s string) (v any, ok bool) { return decodeFastStringMax(s, MaxDepth) }

// decodeFastStringMax decodes s whole, nested at most maxDepth deep (0: any depth).
func decodeFastStringMax(s string, maxDepth int) (v any, ok bool) {
	d := fastDecoder{s: s, maxDepth: maxDepth}
	d.b = unsafe.Slice(unsafe.StringData(s), len(s)) // read only: the bytes of s
	d.space()
	v, ok = d.value()
	if !ok {
		return nil, false
	}
	d.space()
	return v, d.i == len(d.b)
}

// decodeFastPrefix is decodeFast of the object or array b starts with, which may be followed by
// anything: it answers the value and the length of its text, so a caller that would otherwise scan
// for the value's end first (balancedEnd) reads the text once. It refuses a value nested deeper
// than MaxDepth, as balancedEnd does.
func decodeFastPrefix(b []byte) (v any, n int, ok bool) {
	v, n, _, ok = decodeFastPrefixIndexed(b, false)
	return v, n, ok
}

// decodeFastPrefixIndexed is decodeFastPrefix that, when index is set, also lays the value out
// as IndexJSON of its text would (nil where IndexJSON answers nil: an object that repeats a key):
// the decoder meets the nodes in that very order, so recording them costs an append each instead
// of IndexJSON's second reading of the text with a map lookup per member.
func decodeFastPrefixIndexed(b []byte, index bool) (v any, n int, ix *JSONIndex, ok bool) {
	return decodeFastPrefixString(string(b), index)
}

// decodeFastPrefixString is decodeFastPrefixIndexed of a string, whose substrings the strings of
// the value are: a caller holding one string of several values' texts copies none of them.
func decodeFastPrefixString(s string, index bool) (v any, n int, ix *JSONIndex, ok bool) {
	var t *internTable
	if len(s) >= internMinText {
		t = newGrowingInternTable(len(s))
	}
	return decodeFastPrefixInterned(s, index, t)
}

// decodeFastPrefixInterned is decodeFastPrefixString that shares the small objects and arrays of
// equal texts through t, when not nil (see internTable).
func decodeFastPrefixInterned(s string, index bool, t *internTable) (v any, n int, ix *JSONIndex, ok bool) {
	if s == "" {
		return nil, 0, nil, false
	}
	d := fastDecoder{s: s, b: unsafe.Slice(unsafe.StringData(s), len(s)), maxDepth: MaxDepth, intern: t}
	// Positions are int32: a text past that has more nodes than they count (none is so big).
	if index && len(s) <= math.MaxInt32 {
		d.ix = newJSONIndex(s)
		d.ixParent = -1
		at := d.open("", 0, false)
		v, ok = d.value()
		d.close(at, v)
	} else {
		v, ok = d.value()
	}
	if ok && d.ix != nil && !d.ixBad {
		ix = d.ix
	}
	return v, d.i, ix, ok
}

type fastDecoder struct {
	s   string
	b   []byte // d.s's bytes, never written
	i   int
	buf []byte // scratch for strings with escapes

	// depth is the nesting of the object or array being decoded; past maxDepth, when it is not 0,
	// the decoder refuses the text (its callers otherwise bound the nesting beforehand).
	depth, maxDepth int

	// The members of the objects and the elements of the arrays being decoded, a stack each: a
	// map or slice is made when its value is complete, at its size, rather than grown.
	members []member
	elems   []any

	// recent holds recent short string values, boxed as an any, so a value that repeats (an
	// enumeration such as "USD" or "Product") is one allocation, not one per occurrence. A slot is
	// chosen by length and end bytes; a string that is not in its slot replaces what is there.
	recent [64]boxed

	// The boxes of the strings, slices and numbers of the value are taken from chunks: boxing one
	// by one is an allocation each, and a big value has thousands.
	strs   chunk[string]
	slices chunk[[]any]
	floats chunk[float64]

	// ix, when not nil, receives the nodes of the value in pre-order as they are met (see
	// decodeFastPrefixIndexed); ixParent is the node of the object or array being decoded, and
	// ixBad is set by an object that repeats a key, which IndexJSON refuses to lay out.
	ix       *JSONIndex
	ixParent int32
	ixBad    bool

	// intern, when not nil, holds recent small objects and arrays by their text (see internTable).
	intern *internTable

	// desc holds the searches of a projected decode under way where it is (see Projection.Desc).
	desc []descKey

	// ld, when not nil, receives the @id and @type of every object met, built or stepped over
	// (a projected JSON-LD decode: see JSONLDProjected).
	ld *ldNotes
}

// open records a node for the value about to be decoded, whose value close fills in: the node
// comes before the nodes nested in it.
func (d *fastDecoder) open(key string, keyAt int, member bool) int32 {
	at := d.ix.add(key, keyAt, member, d.ixParent)
	d.ixParent = at
	return at
}

// close completes node at with its value v.
func (d *fastDecoder) close(at int32, v any) {
	n := &d.ix.Nodes[at]
	d.ix.set(at, v, n.Member && v == nil)
	d.ixParent = n.Parent
}

// chunk hands out boxes (the data an any points to) from a slice allocated for many. A box is
// written once, before the any that points to it exists, and never after: the values are what
// any(x) would give. A box that is kept keeps its chunk alive, at most a few KB.
type chunk[T any] struct {
	free []T
	n    int // the length of the last chunk: they grow, so a small value allocates little
}

// eface is the layout of an any: a type word and a pointer to the data.
type eface struct {
	typ, data unsafe.Pointer
}

func (c *chunk[T]) box(x T) any {
	if len(c.free) == 0 {
		c.n = min(max(2*c.n, 8), 256)
		c.free = make([]T, c.n)
	}
	p := &c.free[0]
	*p = x
	c.free = c.free[1:]
	var zero T
	v := any(zero) // T's type word; boxing a zero string, slice or float64 allocates nothing
	(*eface)(unsafe.Pointer(&v)).data = unsafe.Pointer(p)
	return v
}

type member struct {
	k string
	v any
}

type boxed struct {
	s string
	v any
}

// smallInts are the boxed values of the integers below len(smallInts), which most numbers of
// embedded JSON are (counts, widths, indexes, enums): boxing a float64 allocates.
var smallInts = func() (t [1024]any) {
	for i := range t {
		t[i] = float64(i)
	}
	return t
}()

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
		return d.strValue()
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
	if len(d.s)-d.i < len(w) || d.s[d.i:d.i+len(w)] != w {
		return false
	}
	d.i += len(w)
	return true
}

// enter counts a level of nesting, which is refused past d.maxDepth.
func (d *fastDecoder) enter() bool {
	d.depth++
	return d.maxDepth == 0 || d.depth <= d.maxDepth
}

func (d *fastDecoder) object() (any, bool) {
	if !d.enter() {
		return nil, false
	}
	open := d.i
	d.i++ // {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return map[string]any{}, true
	}
	mark := len(d.members)
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		start := d.i
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		keyAt := -1
		if d.ix != nil {
			keyAt = d.rawKey(k, start)
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		var v any
		if d.ix == nil {
			v, ok = d.value()
		} else {
			at := d.open(k, keyAt, true)
			v, ok = d.value()
			d.close(at, v)
		}
		if !ok {
			return nil, false
		}
		d.members = append(d.members, member{k, v})
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
			ms := d.members[mark:]
			var slot *internEntry
			if d.intern != nil {
				if slot = d.intern.slot(d.s[open:d.i], d.i); slot != nil && d.ix != nil && !sameMembers(slot.v, ms) {
					slot.v = nil
				}
			}
			var m map[string]any
			if slot != nil && slot.v != nil {
				m = slot.v.(map[string]any)
			} else {
				m = make(map[string]any, len(ms))
				for _, e := range ms {
					m[e.k] = e.v // a repeated key: the last value, as encoding/json
				}
				if len(m) != len(ms) {
					d.ixBad = true
				}
				if slot != nil {
					slot.v = m
				}
			}
			clear(ms) // the stack does not keep values alive
			d.members = d.members[:mark]
			d.depth--
			if d.ld != nil {
				d.ld.noteMap(m, false)
			}
			return m, true
		default:
			return nil, false
		}
	}
}

func (d *fastDecoder) array() (any, bool) {
	if !d.enter() {
		return nil, false
	}
	open := d.i
	d.i++ // [
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		return []any{}, true // [] is an empty slice, not nil, as encoding/json
	}
	mark := len(d.elems)
	for {
		var v any
		var ok bool
		if d.ix != nil && d.i < len(d.b) && (d.b[d.i] == '{' || d.b[d.i] == '[') {
			// Only an element that is an object or an array is a node of its own.
			at := d.open("", 0, false)
			v, ok = d.value()
			d.close(at, v)
		} else {
			v, ok = d.value()
		}
		if !ok {
			return nil, false
		}
		d.elems = append(d.elems, v)
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
			es := d.elems[mark:]
			var slot *internEntry
			if d.intern != nil {
				if slot = d.intern.slot(d.s[open:d.i], d.i); slot != nil && d.ix != nil && !sameElems(slot.v, es) {
					slot.v = nil
				}
			}
			var v any
			if slot != nil && slot.v != nil {
				v = slot.v
			} else {
				a := make([]any, len(es))
				copy(a, es)
				v = d.slices.box(a)
				if slot != nil {
					slot.v = v
				}
			}
			clear(es)
			d.elems = d.elems[:mark]
			d.depth--
			return v, true
		default:
			return nil, false
		}
	}
}

// strValue reads a string at d.i (a '"') as a value: boxed, and a short one without escapes taken
// from d.recent when it is there.
func (d *fastDecoder) strValue() (any, bool) {
	s, ok := d.str()
	if !ok || len(s) == 0 {
		return s, ok
	}
	if len(s) > maxRecent {
		return d.strs.box(s), true
	}
	slot := &d.recent[(len(s)*7+int(s[0])*3+int(s[len(s)-1]))&(len(d.recent)-1)]
	if slot.v == nil || slot.s != s {
		*slot = boxed{s, d.strs.box(s)}
	}
	return slot.v, true
}

// maxRecent is the longest string d.recent holds: longer ones (URLs, text) rarely repeat.
const maxRecent = 40

// str reads a string at d.i (a '"'), escapes included (a surrogate as encoding/json reads it); a
// control byte or a byte sequence that is not UTF-8 is left to encoding/json.
func (d *fastDecoder) str() (string, bool) {
	start := d.i + 1
	ascii := true
	b := d.b
	for j := start; j < len(b); j++ {
		// Eight bytes at a time while none needs a look (most of a long string's bytes), then
		// byte by byte from the first that may: strings are most of the text.
		for j+8 <= len(b) {
			m := specialBytes(binary.LittleEndian.Uint64(b[j:]))
			if m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
			j += 8
		}
		for j < len(b) && plainASCII[b[j]] {
			j++
		}
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			s := d.s[start:j]
			if !ascii && !utf8.ValidString(s) {
				return "", false
			}
			d.i = j + 1
			return s, true
		case c == '\\':
			return d.escaped(start, j, ascii)
		case c < ' ':
			return "", false
		default: // c >= utf8.RuneSelf
			ascii = false
		}
	}
	return "", false
}

// specialBytes has the high bit of each byte of v (eight bytes of text, the first lowest) that is
// not plainASCII set, but for bytes above the lowest such one, which may be set or not (a borrow
// of the subtractions carries upwards): the lowest set bit tells the first byte to look at.
func specialBytes(v uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := v ^ ('"' * ones)
	bs := v ^ ('\\' * ones)
	return ((q-ones)&^q | (bs-ones)&^bs | (v-' '*ones)&^v | v) & highs
}

// plainASCII is true for the bytes a string holds as they are and str has nothing to do about:
// ASCII from ' ' on, but for '"' and '\\'.
var plainASCII = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

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
				if !ok {
					return "", false
				}
				j += 6
				if utf16.IsSurrogate(r) {
					r, j = surrogate(d.b, r, j)
				}
				buf = utf8.AppendRune(buf, r)
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

// surrogate reads a surrogate escape as encoding/json does: a high one followed by the escape of a
// low one is the rune of the pair (j, where the escape after r starts, steps over the second);
// anything else is U+FFFD, and the bytes after r are read as they come. Emoji reach JSON APIs as
// such pairs (reddit's and twitter's answers are full of them), which were once left to
// encoding/json at four to five times the cost.
func surrogate(b []byte, r rune, j int) (rune, int) {
	if j+1 < len(b) && b[j] == '\\' && b[j+1] == 'u' {
		if r2, ok := hex4(b, j+2); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				return dec, j + 6
			}
		}
	}
	return utf8.RuneError, j
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

// exactInt answers the integer a JSON number of more than 15 digits stands for, when it has no
// fraction or exponent and fits an int. Past 15 digits a float64 may not hold an integer (2^53
// has 16): the ids of Twitter, Instagram and Facebook answers are such numbers, and as a float64
// one prints as another id. A larger number, or one with a fraction, is a float64 as
// encoding/json has it.
func exactInt(s string) (int, bool) {
	if len(strings.TrimPrefix(s, "-")) <= 15 || strings.ContainsAny(s, ".eE") {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return int(n), err == nil
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
	d.i = j
	if j-start <= 15 && (b[start] != '-' || j-start > 1) {
		// An integer of at most 15 digits is exact in a float64: ParseFloat's answer.
		neg := b[start] == '-'
		k, n := start, int64(0)
		if neg {
			k++
		}
		for ; k < j && b[k] >= '0' && b[k] <= '9'; k++ {
			n = n*10 + int64(b[k]-'0')
		}
		if k == j {
			if neg {
				return d.floats.box(-float64(n)), true // -0 is negative zero, as ParseFloat's
			}
			if n < int64(len(smallInts)) {
				return smallInts[n], true
			}
			return d.floats.box(float64(n)), true
		}
	}
	if n, ok := exactInt(d.s[start:j]); ok {
		return n, true
	}
	f, err := strconv.ParseFloat(d.s[start:j], 64)
	if err != nil {
		return nil, false
	}
	return d.floats.box(f), true
}
