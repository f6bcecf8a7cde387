package dom

import (
	"encoding/binary"
	"math/bits"
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
//
// Desc names keys searched for at any depth below the node (findAll(x, "key"), find(x, "key")):
// under it, every member of such a name is kept, projected by its node, and so is the structure
// that leads to one; an object or array that holds none is stepped over. The search goes on inside
// a kept member (findAll finds matches nested in matches). What a search sees is unchanged: its
// matches, in its order (members are only ever left out, and an array keeps its length, its
// elements that hold no match being nil). A member that both a search and Keys reach, or two
// searches with different nodes, is decoded whole.
type Projection struct {
	Whole bool
	Keys  map[string]*Projection
	Elem  *Projection
	Desc  map[string]*Projection
}

// maxSearchedText is the longest text a projection with a search decodes as projected.
// funcs' findKey stops after two million nodes (findBudget), and a text of n bytes holds at most
// n/2+1 values: a search over a value of this text, or over a list of four of its parts, ends
// within that budget whole, so leaving nodes out cannot change what it finds. A longer text is
// decoded whole.
const maxSearchedText = 1_000_000

func searches(p *Projection) bool {
	if p == nil {
		return false
	}
	if len(p.Desc) > 0 || searches(p.Elem) {
		return true
	}
	for _, c := range p.Keys {
		if searches(c) {
			return true
		}
	}
	return false
}

// descKey is a key searched for where the decoder is, with the node its matches are projected by.
type descKey struct {
	k string
	p *Projection
}

// dropped marks, among an object's members, one left out for holding no match of a search: an
// earlier member of the same key, which the full decode replaces by it, goes too.
type dropped struct{}

// decodeFastPrefixProjected is decodeFastPrefixString of the parts of the value p names. It takes
// the value exactly when decodeFastPrefixString does (a value the fast decoder leaves to
// encoding/json is left so here too), with the same length. It keeps no values by their text (see
// internTable): the parts a plan reads are a few kilobytes, which repeat little, and a table costs
// 8 KB.
func decodeFastPrefixProjected(s string, p *Projection) (v any, n int, ok bool) {
	if s == "" {
		return nil, 0, false
	}
	if len(s) > maxSearchedText && searches(p) {
		v, n, _, ok = decodeFastPrefixString(s, false)
		return v, n, ok
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
	mark := len(d.desc)
	if len(p.Desc) > 0 {
		d.pushDesc(p.Desc)
	}
	var v any
	ok := false
	switch d.b[d.i] {
	case '{':
		if p.Elem != nil {
			v, ok = d.value()
		} else {
			v, _, ok = d.projObject(p)
		}
	case '[':
		switch {
		case p.Elem != nil:
			v, ok = d.projArray(p.Elem)
		case len(d.desc) > 0 && len(p.Keys) == 0:
			v, _, ok = d.descArray(true)
		default:
			v, ok = d.value()
		}
	default:
		v, ok = d.value()
	}
	d.desc = d.desc[:mark]
	return v, ok
}

// pushDesc adds the searches of ks to those under way, each (key, node) once: the ones under way
// are as many as the projection names, however deep matches nest.
func (d *fastDecoder) pushDesc(ks map[string]*Projection) {
next:
	for k, p := range ks {
		for _, e := range d.desc {
			if e.k == k && e.p == p {
				continue next
			}
		}
		d.desc = append(d.desc, descKey{k, p})
	}
}

// searched is the node a member named k is projected by as a match of the searches under way:
// n is 0 (no search for k), 1, or 2 (two searches for k with different nodes).
func (d *fastDecoder) searched(k string) (p *Projection, n int) {
	for _, e := range d.desc {
		if e.k != k {
			continue
		}
		if n == 0 {
			p, n = e.p, 1
		} else if e.p != p {
			return nil, 2
		}
	}
	return p, n
}

// projObject is object, but for the members p does not name, which it steps over; under a search,
// it keeps those that hold a match. p nil is a value no path names, under a search: found reports
// whether it holds a match (else it is left out, and v is nil).
func (d *fastDecoder) projObject(p *Projection) (v any, found, ok bool) {
	if !d.enter() {
		return nil, false, false
	}
	d.i++ // {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		if p == nil {
			return nil, false, true
		}
		return map[string]any{}, true, true
	}
	mark := len(d.members)
	first, skipped := "", false
	kept := 0
	var ldID, ldType any // the object's @id and @type, and its members, in a JSON-LD decode
	nk := 0
	for {
		nk++
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return nil, false, false
		}
		k, ok := d.str()
		if !ok {
			return nil, false, false
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return nil, false, false
		}
		d.i++
		d.space()
		var c *Projection
		keep := false
		if p != nil {
			c, keep = p.Keys[k]
		}
		var dp *Projection
		dn := 0
		if len(d.desc) > 0 {
			dp, dn = d.searched(k)
		}
		var x any
		if d.ld != nil && (k == "@id" || k == "@type") {
			// Noted (see ldNotes) as the full decode reads it, whether kept or not; a value kept
			// is decoded again below (an object in it is then noted twice, which can only make
			// the notes see a merge where there is none).
			at := d.i
			if x, ok = d.value(); !ok {
				return nil, false, false
			}
			if k == "@id" {
				ldID = x
			} else {
				ldType = x
			}
			if !keep && dn == 0 && len(d.desc) == 0 {
				if !skipped {
					first, skipped = k, true
				}
				goto next
			}
			d.i = at
		}
		switch {
		case keep && dn > 0 || dn > 1:
			x, ok = d.value()
		case keep:
			x, ok = d.projValue(c)
		case dn == 1:
			x, ok = d.projValue(dp)
		case len(d.desc) > 0:
			var f bool
			if x, f, ok = d.descValue(); ok && !f {
				if !skipped {
					first, skipped = k, true
				}
				if kept > 0 {
					d.members = append(d.members, member{k, dropped{}})
				}
				goto next
			}
		default:
			if !d.skip() {
				return nil, false, false
			}
			if !skipped {
				first, skipped = k, true
			}
			goto next
		}
		if !ok {
			return nil, false, false
		}
		d.members = append(d.members, member{k, x})
		kept++
	next:
		d.space()
		if d.i >= len(d.b) {
			return nil, false, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case '}':
			d.i++
			d.depth--
			if d.ld != nil {
				d.ld.note(ldID, ldType, nk, false)
			}
			ms := d.members[mark:]
			if kept == 0 {
				clear(ms)
				d.members = d.members[:mark]
				if p == nil {
					return nil, false, true
				}
				return map[string]any{first: nil}, true, true
			}
			m := make(map[string]any, kept)
			for _, e := range ms {
				if _, gone := e.v.(dropped); gone {
					delete(m, e.k)
				} else {
					m[e.k] = e.v
				}
			}
			clear(ms)
			d.members = d.members[:mark]
			if len(m) == 0 {
				if p == nil {
					return nil, false, true
				}
				m[first] = nil
			}
			return m, true, true
		default:
			return nil, false, false
		}
	}
}

// descValue is the value at d.i where no path names it, under a search: kept (found) when it holds
// a match.
func (d *fastDecoder) descValue() (v any, found, ok bool) {
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '{':
			return d.projObject(nil)
		case '[':
			return d.descArray(false)
		}
	}
	return nil, false, d.skip()
}

// descArray is an array under a search: its elements that hold no match are nil. Named by a path
// (named), it is kept whatever it holds; else only when an element holds a match.
func (d *fastDecoder) descArray(named bool) (v any, found, ok bool) {
	if !d.enter() {
		return nil, false, false
	}
	d.i++ // [
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		if !named {
			return nil, false, true
		}
		return []any{}, true, true
	}
	mark := len(d.elems)
	hit := false
	for {
		x, f, ok := d.descValue()
		if !ok {
			return nil, false, false
		}
		hit = hit || f
		d.elems = append(d.elems, x)
		d.space()
		if d.i >= len(d.b) {
			return nil, false, false
		}
		switch d.b[d.i] {
		case ',':
			d.i++
			d.space()
		case ']':
			d.i++
			d.depth--
			es := d.elems[mark:]
			if !hit && !named {
				clear(es)
				d.elems = d.elems[:mark]
				return nil, false, true
			}
			a := make([]any, len(es))
			copy(a, es)
			clear(es)
			d.elems = d.elems[:mark]
			return d.slices.box(a), true, true
		default:
			return nil, false, false
		}
	}
}

// projArray is array whose elements are projected by elem.
func (d *fastDecoder) projArray(elem *Projection) (any, bool) {
	return d.arrayOf(func() (any, bool) { return d.projValue(elem) })
}

// arrayOf is array whose elements are read by elem (a projected or JSON-LD reading of each).
func (d *fastDecoder) arrayOf(elem func() (any, bool)) (any, bool) {
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
		v, ok := elem()
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
			ms := d.elems[mark:]
			a := make([]any, len(ms))
			copy(a, ms)
			clear(ms)
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
	case c == '{' && d.ld != nil:
		return d.skipObjectLD()
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

// skipStr steps over the string at d.i (a '"') as str reads it: the escapes str decodes, no
// control byte, UTF-8. The escapes are ASCII, so the text between the quotes is
// UTF-8 exactly when the string str would build from it is.
func (d *fastDecoder) skipStr() bool {
	start := d.i + 1
	ascii := true
	b := d.b
	for j := start; j < len(b); {
		// Eight bytes at a time while none needs a look, as str reads (stepped-over strings are
		// most of a projected text).
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
				// Any four hex digits: a surrogate, paired or not, decodes (see surrogate).
				if _, ok := hex4(b, j+2); !ok {
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
