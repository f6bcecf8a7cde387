package xpatheval

import (
	"math/bits"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/net/html"
)

// A card's fields ask some twenty literals of its class values (contains(@class, 'a-price'),
// 's-image', 'puis-sponsored'...), each of which selectsNothing, then candidates, searched for in
// the card's part of the document's joined values: a few kilobytes per card and per literal, the
// absent ones scanned to the end. The cards of a list share a template, so their elements' values
// repeat from card to card: litMasks gives each literal asked of a document-joined attribute a bit,
// and each distinct element value (its bytes, all of its values when the element carries the
// attribute twice) a mask of the literals it holds, worked out once per document. A card's answer
// is then the OR of its elements' masks (one map lookup per element, done once per card), and the
// elements holding a literal are those whose mask has its bit. Since the joined values put a zero
// byte after each value, "the card's joined bytes hold L" is "some element's values hold L" for a
// literal without a zero byte; a literal with one, the empty literal, and literals past the 64th
// keep the search.

// litMasks is the literals asked of one document-joined attribute (the document's joinedAttr
// holds it; it belongs to one run's evaluator, as the document index does) and the masks of the
// element values seen so far.
type litMasks struct {
	bit  map[string]uint8 // a literal's bit
	lits []string         // bit i's literal
	all  uint64           // every bit given

	// seen answers bitOf for the literals asked lately by where their bytes are: the plan's
	// literals are strings of its compiled paths, asked again for every card, and a look-up of
	// the literal's bytes in bit cost more than the rest of the answer.
	seen [64]seenLit

	memo map[string]int32 // an element's values (their bytes in the document's joined values) → vals
	vals []valMask
}

// seenLit is a literal by where its bytes are, and its bit (0: none).
type seenLit struct {
	p   *byte
	n   int
	bit uint64
}

// valMask is the literals one distinct element value holds, among those tested (known).
type valMask struct {
	mask, known uint64
}

// maxMaskLits is the most literals given a bit.
const maxMaskLits = 64

// bitOf returns l's bit (a mask with one bit), giving it one when it has none; 0 when l cannot
// have one (empty, with a zero byte, or past maxMaskLits): l is then searched for.
func (m *litMasks) bitOf(l string) uint64 {
	if l == "" {
		return 0
	}
	p := unsafe.StringData(l)
	// p keeps the bytes alive: no other literal can have them while the entry holds them
	// Fibonacci hashing of the address: the literals' bytes are laid out in runs of allocations
	// whose low bits repeat, and a slot taken by two literals of a card goes back to bit
	s := &m.seen[(uint64(uintptr(unsafe.Pointer(p)))+uint64(len(l)))*0x9E3779B97F4A7C15>>58]
	if s.p == p && s.n == len(l) {
		return s.bit // the same bytes: the same literal
	}
	b := m.newBit(l)
	*s = seenLit{p: p, n: len(l), bit: b}
	return b
}

// newBit is bitOf without seen.
func (m *litMasks) newBit(l string) uint64 {
	if b, ok := m.bit[l]; ok {
		return 1 << b
	}
	if len(m.lits) >= maxMaskLits || strings.IndexByte(l, 0) >= 0 {
		return 0
	}
	if m.bit == nil {
		m.bit = make(map[string]uint8, 16)
		m.memo = make(map[string]int32, 64)
	}
	b := uint8(len(m.lits))
	m.bit[l] = b
	m.lits = append(m.lits, l)
	m.all |= 1 << b
	return 1 << b
}

// index returns the memo entry of the element value v. v is in the document's joined values,
// which are never written after the index is built: the memo keys on them without a copy.
func (m *litMasks) index(v string) int32 {
	i, ok := m.memo[v]
	if !ok {
		i = int32(len(m.vals))
		m.vals = append(m.vals, valMask{})
		m.memo[v] = i
	}
	return i
}

// maskAt returns which of the literals in want v (the value of entry i) holds, testing each
// literal on a distinct value once per document.
func (m *litMasks) maskAt(i int32, v string, want uint64) uint64 {
	vm := &m.vals[i]
	if todo := want &^ vm.known; todo != 0 {
		for t := todo; t != 0; t &= t - 1 {
			b := bits.TrailingZeros64(t)
			if strings.Contains(v, m.lits[b]) {
				vm.mask |= 1 << b
			}
		}
		vm.known |= todo
	}
	return vm.mask & want
}

// cardMasks is one item's masks over its part of a document-joined attribute: emask[k] is what
// the k-th element's values hold of the literals in known, mask their OR. vals and idx are the
// item's element values and their memo entries; prevVals and prevIdx the previous item's, of the
// document prevOf: the items of a list share a template, so the k-th element of an item mostly
// has the value the k-th of the previous one had, which a comparison of the two strings finds for
// less than the memo's look-up.
type cardMasks struct {
	mask, known uint64
	emask       []uint64

	vals, prevVals []string
	idx, prevIdx   []int32
	of, prevOf     *litMasks
}

// reset forgets the item's masks, keeping the storage, and its values as the previous item's.
func (c *cardMasks) reset() {
	c.mask, c.known, c.emask = 0, 0, c.emask[:0]
	if len(c.vals) > 0 {
		c.prevVals, c.vals = c.vals, c.prevVals[:0]
		c.prevIdx, c.idx = c.idx, c.prevIdx[:0]
		c.prevOf = c.of
	}
}

// holds returns which literals of want some element of j (an item's part of the document's
// values, whose masks c is) holds, working out every literal given a bit and not yet known for the
// item in one pass over its elements: the items after the first ask the same literals.
func (c *cardMasks) holds(j *joinedAttr, m *litMasks, want uint64) uint64 {
	if want&^c.known != 0 {
		c.fill(j, m)
	}
	return c.mask & want
}

// fill works out the literals given a bit and not known yet for each element of j.
func (c *cardMasks) fill(j *joinedAttr, m *litMasks) {
	todo := m.all &^ c.known
	if todo == 0 {
		return
	}
	n := len(j.elems)
	if c.known == 0 {
		// the item's first fill (reset emptied them): its values and their entries
		c.emask = slices.Grow(c.emask[:0], n)[:n]
		clear(c.emask)
		c.vals, c.idx, c.of = c.vals[:0], c.idx[:0], m
		prev := len(c.prevVals)
		if c.prevOf != m {
			prev = 0 // another document's entries
		}
		for k := range n {
			from := j.starts[k] - j.base
			end := len(j.vals)
			if k+1 < n {
				end = j.starts[k+1] - j.base
			}
			// the element's values without the zero byte after the last: a literal without a
			// zero byte is in them if and only if it is in one of the values
			var v string
			if end-1 > from {
				v = unsafe.String(&j.vals[from], end-1-from)
			}
			var i int32
			if k < prev && c.prevVals[k] == v {
				i = c.prevIdx[k]
			} else {
				i = m.index(v)
			}
			c.vals, c.idx = append(c.vals, v), append(c.idx, i)
		}
	}
	for k, v := range c.vals {
		got := m.maskAt(c.idx[k], v, todo)
		c.emask[k] |= got
		c.mask |= got
	}
	c.known |= todo
}

// elemsHolding appends to out the elements of j whose values hold one of the literals of want (all
// known for the item), in document order; ok false when there are more than limit (limit < 0: no
// limit), as withLiteralUpTo.
func (c *cardMasks) elemsHolding(j *joinedAttr, want uint64, out []*html.Node, limit int) ([]*html.Node, bool) {
	start := len(out)
	for k, em := range c.emask[:len(j.elems)] {
		if em&want == 0 {
			continue
		}
		if limit >= 0 && len(out)-start >= limit {
			return out, false
		}
		out = append(out, j.elems[k])
	}
	return out, true
}
