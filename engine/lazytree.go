package engine

import (
	"fmt"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"asa/engine/dom"
	"asa/engine/regexfast"
	"asa/engine/xpatheval"
)

// A page whose fields and sources all read script JSON (YouTube's watch page: ytInitialData and
// ytInitialPlayerResponse) still had its whole tree built, only for the site's rules to show that
// it has no consent form and no captcha. When nothing but rules and top-level fallbacks reads a
// plan's HTML trees (walmart.product's url falls back to the canonical link), each is built on
// first use (stepResult.nav), and a rule XPath of the shape //form[@action ...] (every branch a
// tag name with predicates on the element's own attributes, xpatheval.Expr.TagTests) is first
// answered from one scan of the body's tags (dom.ScanElementsSureView): when no copy of an element
// the XPath names satisfies it, no element of the tree does; when a copy the scan is sure the tree
// has satisfies it (walmart's bot check asks for the __NEXT_DATA__ script), an element of the
// tree does; either way the tree is not needed. Any other rule XPath, or a scan that cannot tell,
// builds the tree as before.
//
// One difference remains: a tree that is never built cannot fail. A body the parser refuses
// (elements nested deeper than 512) failed such a step with extraction_failed even though nothing
// read its tree; now the step answers from its script JSON (and a rule XPath the scan answers is
// answered as the scan says rather than as false). A tree built for a field and refused fails the
// run as the step would have.

// planLazyTree decides whether p's HTML trees are built lazily and which rule XPaths a scan may
// answer.
func (p *Plan) planLazyTree() {
	for _, st := range p.steps {
		for _, v := range st.vars {
			if v.sel != nil && v.sel.kind == selXPath {
				return
			}
		}
		for _, src := range st.sources {
			if src.jsonLD != "" || src.mainText || src.xpathJSON != nil {
				return
			}
		}
	}
	if fieldsNeedTree(p.fields) {
		return
	}
	p.lazyTree = true
	// The scan copies only the elements that may carry a literal of some scan XPath: each of
	// those XPaths selects nothing else. One XPath without literals copies them all.
	filter := &dom.ScanFilter{}
	p.eachMatcher(func(m *matcher) {
		if m.xpath == nil {
			return
		}
		if tags := m.xpath.TagTests(); tags != nil && allScannable(tags) {
			m.scan = true
			lits := m.xpath.TagLiterals()
			m.scanRuns = scanLiteralRuns(lits)
			filter = withLiterals(filter, lits)
			for _, t := range tags {
				if !containsString(p.scanTags, t) {
					p.scanTags = append(p.scanTags, t)
				}
			}
		}
	})
	p.scanFilter = filter
}

// withLiterals is f letting through the elements that carry one of lits as well; nil (every
// element) when f is nil or lits is (an XPath some of whose elements need no literal).
func withLiterals(f *dom.ScanFilter, lits []xpatheval.TagLiteral) *dom.ScanFilter {
	if f == nil || lits == nil {
		return nil
	}
	for _, l := range lits {
		switch {
		case l.Name && !slices.Contains(f.Names, l.Text):
			f.Names = append(f.Names, l.Text)
		case !l.Name && !slices.Contains(f.Values, l.Text):
			f.Values = append(f.Values, l.Text)
		}
	}
	return f
}

// fieldsNeedTree reports whether fs read a tree other than as top-level fallbacks or under a
// top-level when: an XPath selector of a plain top-level field after another selector runs only when
// those before it are empty (walmart.product's url: the canonical link when the JSON has no
// canonicalUrl), and a top-level field with a when runs only when it holds (walmart.product's
// older microdata, read when the page has no __NEXT_DATA__ product), so the tree is built then
// (selectOne: a top-level selector's context is the document, built on first use; the children of
// an object or a list read the nodes it selected); any other XPath selector, first of its field or
// of an object, a list or their children, needs the tree on every page.
func fieldsNeedTree(fs []*field) bool {
	for _, f := range fs {
		if f.when != nil {
			continue
		}
		plain := !(f.kind == kList && f.elem == kObject) && !(f.kind == kObject && len(f.children) > 0)
		for i, s := range f.sels {
			if s.kind == selXPath && (i == 0 || !plain) {
				return true
			}
		}
		if fieldsReadTree(f.children) {
			return true
		}
	}
	return false
}

// fieldsReadTree reports whether a field may read a tree: an XPath selector (the only reader of
// the context node, and of other steps' trees through from).
func fieldsReadTree(fs []*field) bool {
	for _, f := range fs {
		for _, s := range f.sels {
			if s.kind == selXPath {
				return true
			}
		}
		if fieldsReadTree(f.children) {
			return true
		}
	}
	return false
}

// A scan XPath's elements all have one of its literals, in an attribute value or as an
// attribute's name (xpatheval.Expr.TagLiterals: walmart's bot check asks for the __NEXT_DATA__
// script, an element with a data-item-id or the product-overview div). On a page that has none
// of them (walmart's older search pages) the scan of every tag cost half a parse, only to answer
// "absent"; a search of the body for each literal answers that at a small part of the cost. It is
// exact. A value's letters and digits are written as themselves but for a character reference
// (dom.RefsMayYieldAlnum), so a value literal is searched by its longest run of them; a name has
// no references, but any case.
const minScanRun = 4

// scanLit is what the body is searched for: a value literal's run, or a name (in any case).
type scanLit struct {
	text string
	name bool
}

// scanLiteralRuns returns what to search the body for, nil when some literal gives nothing rare
// enough to rule anything out (a value with no run of minScanRun letters and digits, a name of
// letters alone, which a case-blind search could not anchor on a byte).
func scanLiteralRuns(lits []xpatheval.TagLiteral) []scanLit {
	if len(lits) == 0 {
		return nil
	}
	out := make([]scanLit, 0, len(lits))
	for _, l := range lits {
		sl := scanLit{text: l.Text, name: l.Name}
		if l.Name {
			if foldAnchor(l.Text) < 0 || len(l.Text) < minScanRun {
				return nil
			}
		} else {
			sl.text = longestAlnumRun(l.Text)
			if len(sl.text) < minScanRun {
				return nil
			}
		}
		if !slices.Contains(out, sl) {
			out = append(out, sl)
		}
	}
	return out
}

func longestAlnumRun(s string) string {
	best := ""
	for start, i := -1, 0; i <= len(s); i++ {
		if i < len(s) && isASCIIAlnum(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > len(best) {
			best = s[start:i]
		}
		start = -1
	}
	return best
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// foldAnchor is the index of name's first byte that is not a letter (the same in any case), -1
// when it has none.
func foldAnchor(name string) int {
	return strings.IndexFunc(name, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') })
}

// literalsAbsent reports whether sr's body shows that no element has any of m's literals: none
// is in the body, and no character reference stands for a letter or digit.
func (sr *stepResult) literalsAbsent(m *matcher) bool {
	return sr.search(searchKey{m, searchScanLiterals}, func() bool { return sr.scanLiteralsAbsent(m) })
}

// bodyHas reports whether sr's body holds m's body_contains.
func (sr *stepResult) bodyHas(m *matcher) bool {
	return sr.search(searchKey{m, searchContains}, func() bool { return regexfast.IndexBytes(sr.body, m.bodyContains) >= 0 })
}

// bodyMatches reports whether m's body_matches matches sr's body.
func (sr *stepResult) bodyMatches(m *matcher) bool {
	return sr.search(searchKey{m, searchRegexp}, func() bool { return m.bodyRe.Match(sr.body) })
}

// search is the answer of the search k names: kept from an earlier one once settle has made
// sr.searched, else run.
func (sr *stepResult) search(k searchKey, run func() bool) bool {
	if v, ok := sr.searched[k]; ok {
		return v
	}
	v := run()
	if sr.searched != nil {
		sr.searched[k] = v
	}
	return v
}

// A searchKey names one search of a body for a matcher (stepResult.searched).
type searchKey struct {
	m    *matcher
	what int8
}

const (
	searchScanLiterals int8 = iota
	searchContains
	searchRegexp
)

// scanLiteralsAbsent is literalsAbsent's search.
func (sr *stepResult) scanLiteralsAbsent(m *matcher) bool {
	if m.scanRuns == nil {
		return false
	}
	values := false
	for _, l := range m.scanRuns {
		if l.name && dom.ContainsFold(sr.body, l.text) || !l.name && regexfast.IndexBytes(sr.body, l.text) >= 0 {
			return false
		}
		values = values || !l.name
	}
	if !values {
		return true
	}
	if sr.refsAlnum == 0 {
		sr.refsAlnum = 1
		if dom.RefsMayYieldAlnum(sr.body) {
			sr.refsAlnum = 2
		}
	}
	return sr.refsAlnum == 1
}

func allScannable(tags []string) bool {
	for _, t := range tags {
		if !dom.ScannableElement(t) {
			return false
		}
	}
	return true
}

func containsString(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// buildHTML parses the step's body into its tree and returns the tree's elements in document
// order as the parser listed them (nil when it moved some: see dom.ParseHTMLViewElements).
func (s *stepResult) buildHTML() []*html.Node {
	s.lazy = false
	defer s.tr.phase("parse", s.tr.start())
	// A view of the body, never written after parsing (see bodyString): the tree's strings are
	// its bytes rather than a copy of the page.
	n, elems, err := dom.ParseHTMLViewElements(s.body)
	if err != nil {
		s.parseErr = fmt.Errorf("parsing HTML: %w", err)
		return nil
	}
	s.doc, s.html, s.elems = dom.Navigator(n), n, elems
	if s.xp != nil {
		// Built lazily: the XPath index is built from the parser's list, as for an eager tree.
		s.xp.SetElements(n, elems)
	}
	return elems
}

// What the scan of a body says of an XPath's nodes in the body's tree.
const (
	scanUnknown = iota
	scanAbsent
	scanPresent
)

// scanXPath tells whether m's XPath (m.scan) selects nothing in sr's tree (scanAbsent: no copy of
// the scan selected), or selects some (scanPresent: a copy the scan is sure the tree has is
// selected, walmart's __NEXT_DATA__ script), as shown by one scan of sr's body for all the plan's
// scan XPaths; scanUnknown when the scan cannot tell.
func (r *run) scanXPath(m *matcher, sr *stepResult) int {
	if sr.literalsAbsent(m) {
		return scanAbsent
	}
	if !sr.scanDone {
		sr.scanDone = true
		sr.scanDoc, sr.scanSure, sr.scanOK = dom.ScanElementsSureView(sr.body, r.plan.scanTags, r.plan.scanFilter)
	}
	if !sr.scanOK {
		return scanUnknown
	}
	nodes := r.xp.Nodes(m.xpath, dom.Navigator(sr.scanDoc))
	if len(nodes) == 0 {
		return scanAbsent
	}
	selected := make(map[*html.Node]bool, len(nodes))
	for _, n := range nodes {
		if h, ok := n.(*dom.HTMLNavigator); ok {
			selected[h.Current()] = true
		}
	}
	for _, c := range sr.scanSure {
		if selected[c] {
			return scanPresent
		}
	}
	return scanUnknown
}

// What a rule's matcher says of a response before the tree is built or the body scanned.
type verdict int8

const (
	verdictNo verdict = iota
	verdictYes
	verdictUnknown // only the tree or the scan can tell
)

// settle is matches without the tree or the scan: a rule of a lazily built tree is first settled
// from what costs neither where it can be. Walmart's bot check asks for a page without the
// __NEXT_DATA__ script (the scan of every tag, 0.7 ms of a 480 kB product page) and with one of a
// captcha div, a /blocked URL or two strings; matches takes the first part first, as written, so
// it scanned every product page to learn what the second part, which no product page has, settles
// alone. settle answers yes only where matches would, and no only where matches would: a scan
// XPath none of whose literals the body has selects nothing (scanXPath says the same).
func (r *run) settle(m *matcher, sr *stepResult) verdict {
	if sr.searched == nil {
		sr.searched = map[searchKey]bool{}
	}
	return r.verdict(m, sr, false)
}
