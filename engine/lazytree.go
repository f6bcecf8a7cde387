package engine

import (
	"fmt"

	"golang.org/x/net/html"

	"asa/engine/dom"
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
	p.eachMatcher(func(m *matcher) {
		if m.xpath == nil {
			return
		}
		if tags := m.xpath.TagTests(); tags != nil && allScannable(tags) {
			m.scan = true
			for _, t := range tags {
				if !containsString(p.scanTags, t) {
					p.scanTags = append(p.scanTags, t)
				}
			}
		}
	})
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
	if !sr.scanDone {
		sr.scanDone = true
		sr.scanDoc, sr.scanSure, sr.scanOK = dom.ScanElementsSureView(sr.body, r.plan.scanTags)
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
