package dom

import (
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// Projection is the part of a JSON value its reader can see: walmart.product reads some forty
// paths of its sources (product.name, product.priceInfo.currentPrice.price, each review's id and
// text ...) and never the rest of their 55 KB. A projected decode builds only those parts and steps
// over the others, which it checks as the full decode would (so a text is taken or refused as
// before) but builds nothing of.
//
// At a node that is not Whole, an object keeps the members named in Keys, each projected by its
// node; an array keeps every element, each projected by Elem. Anything else is decoded whole: a
// scalar, an object read by element or iteration (Elem set), an array read only by key. An object
// whose members are all stepped over keeps its first key, with a nil value, so that it is empty
// exactly when the text's object is (the engine tests values for emptiness). The caller vouches that
// no reader sees a key a projection leaves out: keys, values, len, equality and output of an object
// all make its node Whole.
type Projection struct {
	Whole bool
	Keys  map[string]*Projection
	Elem  *Projection
}

// decodeFastPrefixProjected is decodeFastPrefixString of the parts of the value p names. It takes
// the value exactly when decodeFastPrefixString does (a value the fast decoder leaves to
// encoding/json is left so here too), with the same length. It keeps no values by their text (see
// internTable): the parts a plan reads are a few kilobytes, which repeat little, and a table costs
// 8 KB.
func decodeFastPrefixProjected(s string, p *Projection) (v any, n int, ok bool) {
	if s == "" {
		return nil, 0, false
	}
	d := fastDecoder{s: s, b: unsafe.Slice(unsafe.StringData(s), len(s)), maxDepth: MaxDepth}
	v, ok = d.projValue(p)
	return v, d.i, ok
}

// projValue decodes the value at d.i as projected by p (nil: whole).
func (d *fastDecoder) projValue(p *Projection) (any, bool) {
	if p == nil || p.Whole || d.i >= len(d.b) {
		return d.value()
	}
	switch d.b[d.i] {
	case '{':
		if p.Elem != nil {
			return d.value()
		}
		return d.projObject(p)
	case '[':
		if p.Elem == nil {
			return d.value()
		}
		return d.projArray(p.Elem)
	}
	return d.value()
}

// projObject is object, but for the members p does not name, which it steps over.
func (d *fastDecoder) projObject(p *Projection) (any, bool) {
	if !d.enter() {
		return nil, false
	}
	d.i++ // {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return map[string]any{}, true
	}
	mark := len(d.members)
	first, skipped := "", false
	for {
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false
		}
		d.i++
		d.space()
		if c, keep := p.Keys[k]; keep {
			var v any
			if v, ok = d.projValue(c); !ok {
				return nil, false
			}
			d.members = append(d.members, member{k, v})
		} else {
			if !d.skip() {
				return nil, false
			}
			if !skipped {
				first, skipped = k, true
			}
		}
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
			if len(ms) == 0 && skipped {
				ms = append(ms, member{k: first})
			}
			m := make(map[string]any, len(ms))
			for _, e := range ms {
				m[e.k] = e.v
			}
			clear(ms)
			d.members = d.members[:mark]
			d.depth--
			return m, true
		default:
			return nil, false
		}
	}
}

// projArray is array whose elements are projected by elem.
func (d *fastDecoder) projArray(elem *Projection) (any, bool) {
	if !d.enter() {
		return nil, false
	}
	d.i++ // [
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		return []any{}, true
	}
	mark := len(d.elems)
	for {
		v, ok := d.projValue(elem)
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
			a := make([]any, len(es))
			copy(a, es)
			clear(es)
			d.elems = d.elems[:mark]
			d.depth--
			return d.slices.box(a), true
		default:
			return nil, false
		}
	}
}

// skip steps over the value at d.i, taking exactly what value takes (the same grammar, strings,
// numbers and nesting limit) and building nothing: one pass over its bytes.
func (d *fastDecoder) skip() bool {
	if d.i >= len(d.b) {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		if !d.enter() {
			return false
		}
		d.i++
		d.space()
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			d.depth--
			return true
		}
		for {
			if d.i >= len(d.b) || d.b[d.i] != '"' || !d.skipStr() {
				return false
			}
			d.space()
			if d.i >= len(d.b) || d.b[d.i] != ':' {
				return false
			}
			d.i++
			d.space()
			if !d.skip() {
				return false
			}
			d.space()
			if d.i >= len(d.b) {
				return false
			}
			switch d.b[d.i] {
			case ',':
				d.i++
				d.space()
			case '}':
				d.i++
				d.depth--
				return true
			default:
				return false
			}
		}
	case c == '[':
		if !d.enter() {
			return false
		}
		d.i++
		d.space()
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			d.depth--
			return true
		}
		for {
			if !d.skip() {
				return false
			}
			d.space()
			if d.i >= len(d.b) {
				return false
			}
			switch d.b[d.i] {
			case ',':
				d.i++
				d.space()
			case ']':
				d.i++
				d.depth--
				return true
			default:
				return false
			}
		}
	case c == '"':
		return d.skipStr()
	case c == 't':
		return d.word("true")
	case c == 'f':
		return d.word("false")
	case c == 'n':
		return d.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.skipNumber()
	}
	return false
}

// skipStr steps over the string at d.i (a '"') as str reads it: the escapes str decodes (not a
// surrogate \u), no control byte, UTF-8. The escapes are ASCII, so the text between the quotes is
// UTF-8 exactly when the string str would build from it is.
func (d *fastDecoder) skipStr() bool {
	start := d.i + 1
	ascii := true
	b := d.b
	for j := start; j < len(b); {
		for j < len(b) && plainASCII[b[j]] {
			j++
		}
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			if !ascii && !utf8.Valid(b[start:j]) {
				return false
			}
			d.i = j + 1
			return true
		case c == '\\':
			if j+1 >= len(b) {
				return false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				r, ok := hex4(b, j+2)
				if !ok || r >= 0xd800 && r < 0xe000 {
					return false
				}
				j += 6
			default:
				return false
			}
		case c < ' ':
			return false
		default: // c >= utf8.RuneSelf
			ascii = false
			j++
		}
	}
	return false
}

// skipNumber steps over a number as number reads it, refusing what it refuses (the grammar, and a
// value strconv.ParseFloat finds out of range).
func (d *fastDecoder) skipNumber() bool {
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
		return false
	}
	plain := true
	if j < len(b) && b[j] == '.' {
		plain = false
		j++
		if j >= len(b) || b[j] < '0' || b[j] > '9' {
			return false
		}
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		plain = false
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if j >= len(b) || b[j] < '0' || b[j] > '9' {
			return false
		}
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
		}
	}
	d.i = j
	if plain && j-start <= 15 {
		return true // an integer number reads without strconv
	}
	_, err := strconv.ParseFloat(d.s[start:j], 64)
	return err == nil
}
