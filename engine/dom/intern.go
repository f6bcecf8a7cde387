package dom

import (
	"hash/maphash"
	"math/bits"
	"unsafe"
)

// A big embedded JSON repeats small values over and over: YouTube's ytInitialData has some 8,000
// objects of which 3,000 have the text of an earlier one ({"iconType":"MORE_VERT"}, a thumbnail's
// {"url":...,"width":...,"height":...}, a command's metadata). A Go map costs two allocations
// and some 340 bytes however few its members; building each such object again is most of what
// decoding the document costs (with the collector's share of it). The decoder therefore keeps the
// small objects and arrays it built by their text, and answers an object or array whose text is
// one of them with the very same value: the same text decodes to the same value, and decoded
// sources are read, never changed, so sharing them changes no answer.
//
// With a find index being laid out (fastDecoder.ix), a kept value is taken only when its maps and
// lists are the ones just decoded for its members and elements, so that every node's value is
// the one its parent holds (what IndexJSON pairs): a member's kept value may have been replaced
// in between (two texts of one slot).

// internMinText is the shortest text whose decoding keeps values by their text: a small JSON
// repeats little, and the table would cost more than it saves.
const internMinText = 32 << 10

// maxInternText is the longest object or array text kept: longer ones rarely repeat, and hashing
// every enclosing text costs each byte once per level of small values around it, at most
// maxInternText/2 (so the decoding stays linear).
const maxInternText = 512

type internTable struct {
	seed  maphash.Seed
	mask  uint64
	slots []internEntry

	// A growing table (newGrowingInternTable) doubles when the decoder's position reaches grow,
	// perSlot bytes a slot, up to maxSlots; grow is 0 for a table of fixed size.
	grow, perSlot, maxSlots int
}

type internEntry struct {
	text string
	v    any // nil while the value of text is being built (or was refused)
}

// newInternTable returns a table for a text of n bytes: about a slot per 128 bytes, up to 2,048
// (64 KB): more slots keep a few more values of a big text (YouTube's channel page: 100 fewer
// maps at 4,096), and cost more bytes than those maps save.
func newInternTable(n int) *internTable {
	size := internSlots(n)
	return &internTable{seed: maphash.MakeSeed(), mask: uint64(size - 1), slots: make([]internEntry, size)}
}

func internSlots(n int) int {
	return 1 << bits.Len(uint(min(max(n/128, 256), 2048)-1))
}

// newGrowingInternTable is newInternTable(n) for a text of n bytes of which the value decoded may be
// a small part: the text of a script value runs to the end of its script (walmart's product, 18 KB,
// is followed by 200 KB of other data in its __NEXT_DATA__). It starts at the smallest size and
// doubles as the decoding passes 128 bytes a slot, so the table is sized by what is decoded rather
// than by n (three sources of one script were 190 KB of tables for 55 KB of values).
func newGrowingInternTable(n int) *internTable {
	size := internSlots(0)
	return &internTable{seed: maphash.MakeSeed(), mask: uint64(size - 1), slots: make([]internEntry, size),
		grow: size * 128, perSlot: 128, maxSlots: internSlots(n)}
}

// reach grows a growing table for a decoder at position pos of its text. The kept values move to
// the slots of the bigger table (one hash of at most maxInternText bytes each; the slots hashed
// are at most a quarter of the bytes decoded, so the decoding stays linear).
func (t *internTable) reach(pos int) {
	for t.grow > 0 && pos >= t.grow && len(t.slots) < t.maxSlots {
		old := t.slots
		size := 2 * len(old)
		t.slots, t.mask, t.grow = make([]internEntry, size), uint64(size-1), size*t.perSlot
		for _, e := range old {
			if e.text != "" {
				t.slots[maphash.String(t.seed, e.text)&t.mask] = e
			}
		}
	}
}

// slot returns the entry for text, which ends at position end of the decoded text: holding its
// value when kept, else emptied for it (nil when text is too long to keep). A slot holds one text:
// another replaces it.
func (t *internTable) slot(text string, end int) *internEntry {
	if len(text) > maxInternText {
		return nil
	}
	if t.grow > 0 {
		t.reach(end)
	}
	e := &t.slots[maphash.String(t.seed, text)&t.mask]
	if e.text != text {
		e.text, e.v = text, nil
	}
	return e
}

// sameMembers reports whether the kept object v holds the very maps and lists of ms, the members
// just decoded for its text.
func sameMembers(v any, ms []member) bool {
	m, _ := v.(map[string]any)
	for _, e := range ms {
		switch e.v.(type) {
		case map[string]any, []any:
			if !sameRef(e.v, m[e.k]) {
				return false
			}
		}
	}
	return true
}

// sameElems reports whether the kept array v holds the very maps and lists of es, the elements
// just decoded for its text.
func sameElems(v any, es []any) bool {
	a, _ := v.([]any)
	if len(a) != len(es) {
		return false
	}
	for i, e := range es {
		switch e.(type) {
		case map[string]any, []any:
			if !sameRef(e, a[i]) {
				return false
			}
		}
	}
	return true
}

// sameRef reports whether a and b are the same map, or lists with the same elements.
func sameRef(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && *(*unsafe.Pointer)(unsafe.Pointer(&x)) == *(*unsafe.Pointer)(unsafe.Pointer(&y))
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && unsafe.SliceData(x) == unsafe.SliceData(y)
	}
	return false
}
