package xpatheval

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"asa/engine/dom"
)

// Most sitedef XPaths start with a descendant step keyed by an attribute value or a rare tag:
// //span[@id='productTitle'], //div[@data-hook='review'] | //div[@id='reviews'], //form[...]. Run as
// written, each walks the whole document (tens of thousands of nodes on a marketplace page), and a
// plan with a hundred of them spends several times the parse time walking. So at compile time such
// an XPath is split into its first step's key and the rest, rewritten as self::<step>[...]<rest>;
// at run time the candidates come from a per-document index built in one walk, and the rewritten
// XPath runs on each. The result is exactly the original's, and whenever exactness would need
// document-order merging (several branches or nested candidates matched) the original runs instead.

// maxCandidates bounds the index path: past it, one walk is cheaper than many small evaluations.
// maxNativeCandidates is the bound when each candidate is checked natively.
const (
	maxCandidates       = 256
	maxNativeCandidates = 4096
)

type fastXPath struct {
	wrapper  string // "", "boolean", "count", "string", "normalize-space", "first" for (X)[1]
	branches []*fastBranch
}

type fastBranch struct {
	tag    string   // element name, or "*"
	keys   []string // index keys attr\x00value or attr\x01 (presence), any of them; nil: tag only
	self   *xpathSel
	native *nativePath // self::<step>... evaluated natively, when of the native subset

	// first is the first step alone (self::<step>[preds]), natively, when the whole path is not
	// native but that step is: a candidate it rejects selects nothing, so it is passed over without
	// an antchfx evaluation, and only the candidates it keeps count against maxCandidates.
	first *nativePath

	// selfOnly: the branch is its first step alone (and maybe an attribute): a candidate selects
	// itself or nothing, so one list's answers are in document order, each once, nested or not.
	selfOnly bool

	// positional: a later step has a position, whose order over nested candidates is antchfx's
	// own (not document order), so nested candidates go to the original XPath.
	positional bool

	// need, for a branch without keys, is what its first step requires of an attribute (a literal
	// of the class, say): the candidates are the elements whose value holds one, found in the
	// values the index joined, not every element of the tag (every div of the page).
	need *attrNeed
}

// restPositions reports whether the steps of rest have a position predicate, and whether one of
// them follows another predicate of its step.
func restPositions(rest string) (pos, afterPred bool) {
	prevPred := false
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(rest[i+1:], c)
			if j < 0 {
				return true, true
			}
			i += j + 1
			prevPred = false
		case c == '[':
			end := matching(rest, i)
			if end < 0 {
				return true, true
			}
			p := rest[i+1 : end]
			if numberRe.MatchString(p) || strings.Contains(p, "position()") || strings.Contains(p, "last()") || numericPred(p) {
				pos = true
				if prevPred {
					afterPred = true
				}
			}
			prevPred = true
			i = end
			continue
		case c == '(' || c == ')':
			// a group or function call in the path: counted as an unknown position
			pos = true
			prevPred = false
		default:
			prevPred = false
		}
	}
	return pos, afterPred
}

// indexWant is what a plan's fast XPaths need indexed.
type indexWant struct {
	attrs map[string]bool
	keys  map[string]bool
	tags  map[string]bool
	joins map[string]bool // attributes whose values are joined (see fastBranch.need)

	// The same as short lists, made once: the index walk checks every element of the page against
	// them, and a comparison of a few atoms is several times cheaper than a map lookup.
	once      sync.Once
	tagNames  []string
	tagAtoms  []atom.Atom
	attrNames []string
	attrVals  []valueSet // per attrNames entry: the values wanted
	attrLens  [2]uint64  // bit l: an attrNames entry of length l (l < 128)
	attrLong  bool       // an entry of 128 bytes or more
}

// valueSet is the values of one attribute the index wants, with a bitmask of their lengths: most
// class values on a page have a length no wanted value has, and are passed over without hashing.
type valueSet struct {
	lens [2]uint64 // bit l: a wanted value of length l (l < 128)
	long bool      // a wanted value of 128 bytes or more
	vals map[string]bool
	join bool // the values are joined for needs (see fastBranch.need)

	// presence is the key of the attribute's presence (//*[@itemscope], //div[@data-item-id]),
	// when some XPath is keyed by it: every element with the attribute is listed under it.
	presence string
}

func (v *valueSet) has(s string) bool {
	if l := len(s); l < 128 {
		if v.lens[l>>6]&(1<<(l&63)) == 0 {
			return false
		}
	} else if !v.long {
		return false
	}
	return v.vals[s]
}

func (w *indexWant) lists() {
	w.once.Do(func() {
		for t := range w.tags {
			w.tagNames = append(w.tagNames, t)
		}
		sort.Strings(w.tagNames)
		for _, t := range w.tagNames {
			a := atom.Lookup([]byte(t))
			if strings.ToLower(t) != t {
				a = 0 // a case-adjusted foreign name: compared as a string
			}
			w.tagAtoms = append(w.tagAtoms, a)
		}
		for a := range w.attrs {
			w.attrNames = append(w.attrNames, a)
		}
		sort.Strings(w.attrNames)
		for _, a := range w.attrNames {
			if l := len(a); l < 128 {
				w.attrLens[l>>6] |= 1 << (l & 63)
			} else {
				w.attrLong = true
			}
		}
		w.attrVals = make([]valueSet, len(w.attrNames))
		for i, a := range w.attrNames {
			w.attrVals[i].join = w.joins[a]
		}
		for k := range w.keys {
			name, val, _ := strings.Cut(k, "\x00")
			name, present := strings.CutSuffix(name, "\x01")
			i := sort.SearchStrings(w.attrNames, name)
			if i == len(w.attrNames) || w.attrNames[i] != name {
				continue
			}
			vs := &w.attrVals[i]
			if present {
				vs.presence = k
				continue
			}
			if vs.vals == nil {
				vs.vals = map[string]bool{}
			}
			vs.vals[val] = true
			if l := len(val); l < 128 {
				vs.lens[l>>6] |= 1 << (l & 63)
			} else {
				vs.long = true
			}
		}
	})
}

func newIndexWant() *indexWant {
	return &indexWant{attrs: map[string]bool{}, keys: map[string]bool{}, tags: map[string]bool{}, joins: map[string]bool{}}
}

var (
	wrapperRe = regexp.MustCompile(`^(boolean|count|string|normalize-space)\s*\(`)
	stepRe    = regexp.MustCompile(`^//([A-Za-z_][A-Za-z0-9_.-]*|\*)`)
	eqRe      = regexp.MustCompile(`^@([A-Za-z_][A-Za-z0-9_:.-]*)\s*=\s*(?:'([^']*)'|"([^"]*)")$`)
	numberRe  = regexp.MustCompile(`^\s*[0-9.]+\s*$`)
)

// analyzeXPath returns the index plan of src, or nil when src is not of the indexable shape, and
// records in want what the plan needs from each document.
func analyzeXPath(src string, want *indexWant) *fastXPath {
	fx := planXPath(src)
	fx.register(want)
	return fx
}

// planXPath is analyzeXPath without a Want: the plan depends on src alone, so the plans that
// compile the same XPath share it (the sites of a family repeat their base's XPaths).
func planXPath(src string) *fastXPath {
	s := strings.TrimSpace(src)
	fx := &fastXPath{}
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")[1]") && matching(s, 0) == len(s)-4 {
		// (X)[1]: the first node of X, in the order antchfx yields X's nodes
		fx.wrapper = "first"
		s = strings.TrimSpace(s[1 : len(s)-4])
	} else if m := wrapperRe.FindStringSubmatch(s); m != nil {
		open := len(m[0]) - 1
		if closeAt := matching(s, open); closeAt == len(s)-1 {
			fx.wrapper = m[1]
			s = strings.TrimSpace(s[open+1 : len(s)-1])
		} else {
			return nil
		}
	}
	branches := splitTop(s, '|')
	for _, b := range branches {
		fb := analyzeBranch(strings.TrimSpace(b), len(branches) > 1)
		if fb == nil {
			return nil
		}
		fx.branches = append(fx.branches, fb)
	}
	if len(fx.branches) == 0 {
		return nil
	}
	return fx
}

// register records in want what fx needs from each document (nothing for a nil plan or Want).
func (fx *fastXPath) register(want *indexWant) {
	if fx == nil || want == nil {
		return
	}
	for _, b := range fx.branches {
		for _, k := range b.keys {
			attr, _, _ := strings.Cut(k, "\x00")
			attr = strings.TrimSuffix(attr, "\x01")
			want.attrs[attr] = true
			want.keys[k] = true
		}
		switch {
		case b.need != nil:
			want.attrs[b.need.attr] = true
			want.joins[b.need.attr] = true
		case b.keys == nil:
			want.tags[b.tag] = true
		}
	}
}

// analyzeBranch returns the index plan of one branch. inUnion: the branch is one of several, whose
// nodes are put in document order, each once, whatever order each branch has them in.
func analyzeBranch(b string, inUnion bool) *fastBranch {
	m := stepRe.FindStringSubmatch(b)
	if m == nil {
		return nil
	}
	fb := &fastBranch{tag: m[1]}
	rest := b[len(m[0]):]
	var preds []string
	for strings.HasPrefix(rest, "[") {
		end := matching(rest, 0)
		if end < 0 {
			return nil
		}
		preds = append(preds, rest[1:end])
		rest = rest[end+1:]
	}
	if rest != "" && !strings.HasPrefix(rest, "/") {
		return nil
	}
	for _, p := range preds {
		// A positional predicate counts among siblings; on the self axis it would mean something else.
		if numberRe.MatchString(p) || strings.Contains(p, "position()") || strings.Contains(p, "last()") {
			return nil
		}
		if numericPred(p) && !inUnion {
			// antchfx runs such a step parent by parent, not in document order; it selects the
			// same nodes, so in a union, which is put in document order, the index may find them.
			return nil
		}
		if hasAbsolutePath(p) {
			return nil
		}
	}
	if hasAbsolutePath(strings.TrimLeft(rest, "/")) {
		return nil
	}
	pos, afterPred := restPositions(rest)
	if afterPred {
		// antchfx counts [@x][N] across all the contexts of the step, here across candidates:
		// one candidate at a time would count differently.
		return nil
	}
	// antchfx's preceding axis is not in document order either: what it makes of nested
	// candidates is its own
	fb.positional = pos || strings.Contains(rest, "preceding::")
	for _, p := range preds {
		if keys := predicateKeys(p); keys != nil {
			fb.keys = keys
			break
		}
	}
	if fb.keys == nil {
		for _, p := range preds {
			for _, nd := range predNeeds(p) {
				// Only class is joined: it is on most elements, short, and what keyless first
				// steps mostly test; other values (href: whole URLs) would be copied at length
				// for a few paths whose tag lists (a, form) are short anyway.
				if nd.attr == "class" && !slices.ContainsFunc(nd.lits, func(l rareString) bool { return l.s == "" }) {
					fb.need = &nd
					break
				}
			}
			if fb.need != nil {
				break
			}
		}
	}
	if fb.keys == nil && fb.tag == "*" && fb.need == nil {
		return nil
	}
	self, err := newXPathSel("self::" + fb.tag + b[len(m[0]):])
	if err != nil {
		return nil
	}
	fb.self = self
	// The rest of the path usually belongs to the native subset: then each candidate is checked on
	// the node tree directly, cheap enough to take many more candidates than antchfx could.
	fb.native = parseNativePath("self::" + fb.tag + b[len(m[0]):])
	fb.selfOnly = fb.native != nil && fb.native.group == nil && len(fb.native.steps) == 1 && fb.native.steps[0].self
	if fb.native == nil && len(preds) > 0 {
		fb.first = parseNativePath("self::" + fb.tag + b[len(m[0]):len(b)-len(rest)])
	}
	return fb
}

// predicateKeys returns the index keys of a predicate that is one attribute equality, an "or" of
// them, or an "and" with one such conjunct; nil otherwise.
func predicateKeys(p string) []string {
	if keys := orKeys(p); keys != nil {
		return keys
	}
	if conj := splitWord(trimParens(strings.TrimSpace(p)), "and"); len(conj) > 1 {
		for _, c := range conj {
			if keys := orKeys(c); keys != nil {
				return keys
			}
		}
	}
	return nil
}

// orKeys returns the keys of "@a='x'" or "@a='x' or @b='y' ...", else nil. A term "@a" (the
// attribute is present, whatever its value) is keyed too.
func orKeys(p string) []string {
	var keys []string
	for _, t := range splitWord(trimParens(strings.TrimSpace(p)), "or") {
		t = trimParens(strings.TrimSpace(t))
		if m := presenceRe.FindStringSubmatch(t); m != nil {
			keys = append(keys, m[1]+"\x01")
			continue
		}
		m := eqRe.FindStringSubmatch(t)
		if m == nil {
			return nil
		}
		keys = append(keys, m[1]+"\x00"+m[2]+m[3])
	}
	return keys
}

var presenceRe = regexp.MustCompile(`^@([A-Za-z_][A-Za-z0-9_:.-]*)$`)

func trimParens(s string) string {
	for strings.HasPrefix(s, "(") && matching(s, 0) == len(s)-1 {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// matching returns the index of the bracket closing the one at open, skipping quoted strings.
func matching(s string, open int) int {
	end := -1
	outsideLiterals(s[open:], func(i, depth int) bool {
		if c := s[open+i]; depth == 0 && (c == ']' || c == ')') {
			end = open + i
			return false
		}
		return true
	})
	return end
}

// splitTop splits s at sep outside brackets and quotes.
func splitTop(s string, sep byte) []string { return splitOutside(s, string(sep)) }

// splitWord splits at a top-level operator word (or, and) surrounded by spaces.
func splitWord(s, word string) []string { return splitOutside(s, " "+word+" ") }

// splitOutside splits s at every occurrence of sep that is outside brackets, parentheses and quotes.
func splitOutside(s, sep string) []string {
	var out []string
	start := 0
	outsideLiterals(s, func(i, depth int) bool {
		c := s[i]
		if i >= start && depth == 0 && !strings.ContainsRune("[]()'\"", rune(c)) && strings.HasPrefix(s[i:], sep) {
			out = append(out, s[start:i])
			start = i + len(sep)
		}
		return true
	})
	return append(out, s[start:])
}

// hasAbsolutePath reports whether an XPath fragment contains a path starting at the root (a / not
// preceded by a step), which would read the document rather than the candidate.
func hasAbsolutePath(s string) bool {
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			continue
		}
		if c == '\'' || c == '"' {
			quote = c
			continue
		}
		if c != '/' {
			continue
		}
		j := i - 1
		for j >= 0 && s[j] == ' ' {
			j--
		}
		if j < 0 {
			return true
		}
		p := s[j]
		if strings.IndexByte("[(,|=!<>+-", p) >= 0 {
			return true
		}
		if p == '/' { // the second slash of //
			continue
		}
		// The word before: an operator word means a new expression starts here.
		k := j
		for k >= 0 && (isNameChar(s[k])) {
			k--
		}
		switch s[k+1 : j+1] {
		case "or", "and", "div", "mod":
			if k < 0 || s[k] == ' ' {
				return true
			}
		}
	}
	return false
}

func isNameChar(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// docIndex holds, for one HTML document, the elements a plan's fast XPaths look up.
type docIndex struct {
	root   *html.Node
	attrs  map[string][]*html.Node
	tags   map[string][]*html.Node
	joined map[string]*joinedAttr // by attribute name (see fastBranch.need)

	// all is every element of the document in document order, listed when a list item is first
	// read (a page without items pays nothing): the elements under an item are a range of it (see
	// after), which its fields scan (see subtree) without a walk of their own, and the item's
	// joined values are a range of the document's (joinedAttr.pos).
	all    []*html.Node
	listed bool

	// parsed is every element in document order as the parser listed them, or nil: all is then
	// parsed itself, with no walk.
	parsed []*html.Node

	// cursor is where the last item was found in all: items come in document order, so each is
	// looked for from the previous one's place.
	cursor int
}

// elements lists all, and where each joined element is in it, once.
func (idx *docIndex) elements() []*html.Node {
	if idx.listed {
		return idx.all
	}
	idx.listed = true
	if idx.parsed != nil {
		// read only (native.go's subtrees take ranges capped at their ends)
		idx.all = idx.parsed
	} else {
		idx.all = make([]*html.Node, 0, 1024)
		for n := idx.root; n != nil; n = nextNode(n, idx.root) {
			if n.Type == html.ElementNode {
				idx.all = append(doubled(idx.all, 1), n)
			}
		}
	}
	for _, j := range idx.joined {
		// both in document order: one merge
		j.pos = make([]int32, len(j.elems))
		k := 0
		for i, n := range idx.all {
			if k < len(j.elems) && j.elems[k] == n {
				j.pos[k] = int32(i)
				k++
			}
		}
	}
	return idx.all
}

// find returns the index of the element n in all, or -1. Items are mostly looked up in document
// order, so the search runs forward from the last one found and then backward: pointer
// comparisons over the page's elements at worst, and a few per item in the usual case.
func (idx *docIndex) find(n *html.Node) int {
	idx.elements()
	for i := idx.cursor; i < len(idx.all); i++ {
		if idx.all[i] == n {
			idx.cursor = i
			return i
		}
	}
	for i := min(idx.cursor, len(idx.all)) - 1; i >= 0; i-- {
		if idx.all[i] == n {
			idx.cursor = i
			return i
		}
	}
	return -1
}

// after returns the index in all past the last descendant of all[i]: where the first element that
// follows its subtree is, found by a scan of the subtree's elements (what a walk of the item would
// have visited, as pointer comparisons).
func (idx *docIndex) after(i int) int {
	var next *html.Node
	for m := idx.all[i]; m != nil && m != idx.root; m = m.Parent {
		if m.NextSibling != nil {
			next = m.NextSibling
			break
		}
	}
	for next != nil && next.Type != html.ElementNode {
		next = nextNode(next, idx.root)
	}
	if next == nil {
		return len(idx.all)
	}
	for k := i + 1; k < len(idx.all); k++ {
		if idx.all[k] == next {
			return k
		}
	}
	return len(idx.all)
}

// buildIndex indexes the document under root; elems, when not nil, is its elements in document
// order (as its parser listed them), indexed without a walk of the tree: the walk visits every
// text node too, and on a large page reads the nodes back from memory after the parse.
func buildIndex(root *html.Node, want *indexWant, elems []*html.Node) *docIndex {
	want.lists()
	idx := &docIndex{root: root, attrs: map[string][]*html.Node{}, tags: make(map[string][]*html.Node, len(want.tagNames)), joined: map[string]*joinedAttr{}, parsed: elems}
	b := &indexBuild{byTag: make([][]*html.Node, len(want.tagNames)), presence: make([][]*html.Node, len(want.attrNames)), joins: make([]*joinedAttr, len(want.attrNames)), joinCap: 1024, valsCap: 32 << 10}
	if elems != nil {
		// No more joined elements than elements: one allocation of each list, none copied. The
		// class values of the large pages of issue 13 come to 13 to 21 bytes an element.
		b.joinCap, b.valsCap = len(elems), max(b.valsCap, 24*len(elems))
		for _, n := range elems {
			idx.index(n, want, b)
		}
	} else {
		for n := root; n != nil; n = nextNode(n, root) {
			if n.Type == html.ElementNode {
				idx.index(n, want, b)
			}
		}
	}
	for i, t := range want.tagNames {
		if b.byTag[i] != nil {
			idx.tags[t] = b.byTag[i]
		}
	}
	for i, l := range b.presence {
		if l != nil {
			idx.attrs[want.attrVals[i].presence] = l
		}
	}
	return idx
}

// indexBuild is the state of one index build.
type indexBuild struct {
	byTag [][]*html.Node // per want.tagNames entry
	key   []byte

	// presence is the elements that have each want.attrNames entry whose presence is keyed, put
	// in idx.attrs once built: a look-up and a write of the map per element cost more than the
	// rest of the element's indexing on a page of links.
	presence [][]*html.Node

	// joins is the joined values per want.attrNames entry, looked up there rather than in
	// docIndex.joined at each of the page's thousands of class attributes. joinCap is the
	// capacity a joined list starts with.
	joins            []*joinedAttr
	joinCap, valsCap int
}

// doubled returns s with room for n more, doubling its capacity when it has too little: append
// grows a slice past 256 elements by a quarter, and the index's lists (the element list, the joined
// class values of a marketplace page) were copied a dozen times on their way to their length,
// allocating five times their size.
func doubled[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, cap(s)))
}

// index records the element n under what want asks for.
func (idx *docIndex) index(n *html.Node, want *indexWant, b *indexBuild) {
	byTag := b.byTag
	for i, a := range want.tagAtoms {
		if (a == 0 || n.DataAtom == a) && n.Data == want.tagNames[i] {
			// Past maxNativeCandidates a list only says there are too many for the index.
			if len(byTag[i]) <= maxNativeCandidates {
				byTag[i] = append(byTag[i], n)
			}
			break
		}
	}
	for _, a := range n.Attr {
		// Most attributes (style, href, src...) have a length no wanted name has: passed
		// over without comparing names.
		if l := len(a.Key); l < 128 && want.attrLens[l>>6]&(1<<(l&63)) == 0 || l >= 128 && !want.attrLong {
			continue
		}
		for i, name := range want.attrNames {
			if a.Key != name {
				continue
			}
			if want.attrVals[i].join {
				j := b.joins[i]
				if j == nil {
					// sized for a large page's classes: a dozen growths otherwise (see buildIndex)
					j = &joinedAttr{name: name, vals: make([]byte, 0, b.valsCap), elems: make([]*html.Node, 0, b.joinCap), starts: make([]int, 0, b.joinCap)}
					b.joins[i] = j
					idx.joined[name] = j
				}
				if k := len(j.elems); k == 0 || j.elems[k-1] != n {
					j.elems, j.starts = append(doubled(j.elems, 1), n), append(doubled(j.starts, 1), len(j.vals))
				}
				j.vals = append(append(doubled(j.vals, len(a.Val)+1), a.Val...), 0)
			}
			if want.attrVals[i].presence != "" {
				// once, though foreign content can have href and xlink:href, both keyed href
				if l := b.presence[i]; len(l) == 0 || l[len(l)-1] != n {
					b.presence[i] = append(l, n)
				}
			}
			if want.attrVals[i].has(a.Val) {
				b.key = append(append(append(b.key[:0], a.Key...), 0), a.Val...)
				k := string(b.key)
				idx.attrs[k] = append(idx.attrs[k], n)
			}
			break
		}
	}
}

// nextNode walks the tree in document order without recursion.
func nextNode(n, root *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	for n != nil && n != root {
		if n.NextSibling != nil {
			return n.NextSibling
		}
		n = n.Parent
	}
	return nil
}

// eval runs the index plan. ok is false when the original XPath must run instead. A union's nodes
// are in document order, each once (antchfx would put the left branch's first); each branch's nodes
// are in the order antchfx has them.
func (fx *fastXPath) eval(idx *docIndex) (res any, ok bool) { return fx.evalFirst(idx, false) }

// evalFirst is eval; with first, a node set that eval would sort holds only its first node, found
// without sorting (a rule's existence test or a single-valued field reads no further).
func (fx *fastXPath) evalFirst(idx *docIndex, first bool) (res any, ok bool) {
	order := sortUnique
	if first && fx.wrapper != "count" {
		order = firstInOrder
	}
	var found []xpath.NodeNavigator
	for _, b := range fx.branches {
		lists, usable := b.candidates(idx)
		if !usable {
			return nil, false
		}
		var got []xpath.NodeNavigator
		var from []*html.Node
		for _, cands := range lists {
			for _, c := range cands {
				if b.tag != "*" && c.Data != b.tag {
					continue
				}
				if b.native != nil {
					before := len(got)
					// (first only: the walk's first, as the native path reads a single value)
					got = append(got, b.native.evalOrder(idx.root, c, nil, !first)...)
					if fx.wrapper == "boolean" && len(got) > 0 {
						return true, true
					}
					if len(got) > before {
						from = append(from, c)
					}
					continue
				}
				if b.first != nil && !b.firstSelects(idx.root, c) {
					continue
				}
				e := b.self.get()
				r := e.Evaluate(dom.NavigatorAt(idx.root, c))
				it, isIt := r.(*xpath.NodeIterator)
				if !isIt {
					b.self.put(e)
					return nil, false
				}
				before := len(got)
				for it.MoveNext() {
					got = append(got, it.Current().Copy())
					if fx.wrapper == "boolean" {
						break
					}
				}
				b.self.put(e)
				if fx.wrapper == "boolean" && len(got) > 0 {
					return true, true
				}
				if len(got) > before {
					from = append(from, c)
				}
			}
		}
		// Several lists are sorted anyway: whether their nodes nest matters to a position only.
		// One list is in document order, and so is from: nesting shows between neighbours.
		isNested := false
		switch {
		case b.selfOnly:
		case len(lists) == 1:
			isNested = nestedInOrder(from)
		case b.positional:
			isNested = nested(from)
		}
		if isNested && b.positional {
			return nil, false
		}
		if len(lists) > 1 || isNested {
			got = order(got)
		}
		found = append(found, got...)
	}
	if len(fx.branches) > 1 {
		// A union is in document order, each node once.
		found = order(found)
	}
	switch fx.wrapper {
	case "first":
		if len(found) > 1 {
			found = order(found) // (X)[1]: the first in document order
		}
		return found[:min(1, len(found))], true
	case "boolean":
		return len(found) > 0, true
	case "count":
		return float64(len(found)), true
	case "string", "normalize-space":
		if len(found) == 0 {
			return "", true
		}
		v := found[0].Value()
		if fx.wrapper == "normalize-space" {
			v = strings.Join(strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }), " ")
		}
		return v, true
	}
	return found, true
}

// candidates returns the lists of the branch's candidates in idx; usable is false when there are
// too many for the index path.
func (b *fastBranch) candidates(idx *docIndex) (lists [][]*html.Node, usable bool) {
	switch {
	case b.need != nil:
		if j := idx.joined[b.need.attr]; j != nil {
			lists = append(lists, j.withLiteral(b.need.lits, nil))
		} else {
			lists = append(lists, nil) // no element has the attribute
		}
	case b.keys == nil:
		lists = append(lists, idx.tags[b.tag])
	default:
		for _, k := range b.keys {
			if l := idx.attrs[k]; len(l) > 0 {
				lists = append(lists, l)
			}
		}
	}
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	if total > maxCandidates && b.first != nil && total <= maxNativeCandidates {
		lists, total = b.keepFirst(idx.root, lists)
	}
	return lists, total <= maxCandidates || b.native != nil && total <= maxNativeCandidates
}

// exists reports whether the node set of an XPath without wrapper (or (X)[1]) is not empty, which is
// all a rule's test reads: the first branch that selects a node answers, with no node set built,
// merged or sorted. ok is false when that takes the original XPath.
func (fx *fastXPath) exists(idx *docIndex) (found, ok bool) {
	ok = true
	for _, b := range fx.branches {
		lists, usable := b.candidates(idx)
		if !usable {
			// Another branch may still answer; only an empty answer needs this one.
			ok = false
			continue
		}
		for _, cands := range lists {
			for _, c := range cands {
				if b.tag != "*" && c.Data != b.tag {
					continue
				}
				if b.native != nil {
					if n, _ := b.native.first(idx.root, c, nil); n != nil {
						return true, true
					}
					continue
				}
				if b.first != nil && !b.firstSelects(idx.root, c) {
					continue
				}
				e := b.self.get()
				it, isIt := e.Evaluate(dom.NavigatorAt(idx.root, c)).(*xpath.NodeIterator)
				has := isIt && it.MoveNext()
				b.self.put(e)
				if has {
					return true, true
				}
				if !isIt {
					return false, false
				}
			}
		}
	}
	return false, ok
}

// keepFirst returns each list of candidates with only those the branch's first step selects (in
// the same order; as many lists, so the merging below is unchanged) and their number.
func (b *fastBranch) keepFirst(root *html.Node, lists [][]*html.Node) ([][]*html.Node, int) {
	out := make([][]*html.Node, len(lists))
	total := 0
	for i, cands := range lists {
		for _, c := range cands {
			if (b.tag == "*" || c.Data == b.tag) && b.firstSelects(root, c) {
				out[i] = append(out[i], c)
			}
		}
		total += len(out[i])
	}
	return out, total
}

// firstSelects reports whether the branch's first step selects the candidate c.
func (b *fastBranch) firstSelects(root, c *html.Node) bool {
	n, _ := b.first.first(root, c, nil)
	return n != nil
}

// sortUnique puts nodes in document order without duplicates, as an XPath node set is (HTML and XML
// navigators; others are left as they are).
func sortUnique(ns []xpath.NodeNavigator) []xpath.NodeNavigator {
	if len(ns) < 2 {
		return ns
	}
	for _, n := range ns[1:] {
		if _, ok := dom.Order(ns[0], n); !ok {
			return ns
		}
	}
	sort.SliceStable(ns, func(i, j int) bool { c, _ := dom.Order(ns[i], ns[j]); return c < 0 })
	out := ns[:1]
	var seen map[any]bool // only for one element's attributes, which compare equal
	for _, n := range ns[1:] {
		prev := out[len(out)-1]
		if c, _ := dom.Order(prev, n); c != 0 {
			out, seen = append(out, n), nil
			continue
		}
		if seen == nil {
			seen = map[any]bool{dom.Identity(prev): true}
			for k := len(out) - 2; k >= 0; k-- {
				if c, _ := dom.Order(out[k], n); c != 0 {
					break
				}
				seen[dom.Identity(out[k])] = true
			}
		}
		if id := dom.Identity(n); !seen[id] {
			seen[id] = true
			out = append(out, n)
		}
	}
	return out
}

// firstInOrder is sortUnique(ns) cut to its first node, without the sort: the earliest node in
// document order, the first of nodes that compare equal (as the stable sort keeps them), or ns's
// first when sortUnique would leave ns as it is.
func firstInOrder(ns []xpath.NodeNavigator) []xpath.NodeNavigator {
	if len(ns) < 2 {
		return ns
	}
	best := 0
	for i, n := range ns[1:] {
		// Order answers ok by the kinds of the two alone, so a mix shows against any node of
		// ns[0]'s kind, as sortUnique checks it against ns[0].
		c, ok := dom.Order(n, ns[best])
		if !ok {
			return ns[:1]
		}
		if c < 0 {
			best = i + 1
		}
	}
	return ns[best : best+1]
}

// nestedInOrder is nested for nodes in document order, without a set: when a node is an ancestor
// of a later one, every node between them is its descendant, the first of them its neighbour, so
// some node is the descendant of the one before it.
func nestedInOrder(ns []*html.Node) bool {
	for i := 1; i < len(ns); i++ {
		for p := ns[i].Parent; p != nil; p = p.Parent {
			if p == ns[i-1] {
				return true
			}
		}
	}
	return false
}

// nested reports whether one node of ns is an ancestor of another: their results would interleave.
func nested(ns []*html.Node) bool {
	if len(ns) < 2 {
		return false
	}
	set := make(map[*html.Node]bool, len(ns))
	for _, n := range ns {
		set[n] = true
	}
	for _, n := range ns {
		for p := n.Parent; p != nil; p = p.Parent {
			if set[p] {
				return true
			}
		}
	}
	return false
}
