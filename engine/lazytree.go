package engine

import (
	"fmt"

	"golang.org/x/net/html"

	"asa/engine/dom"
)

// A page whose fields and sources all read script JSON (YouTube's watch page: ytInitialData and
// ytInitialPlayerResponse) still had its whole tree built, only for the site's rules to show that
// it has no consent form and no captcha. When nothing but rules reads a plan's HTML trees, each is
// built on first use (stepResult.nav), and a rule XPath of the shape //form[@action ...] (every
// branch a tag name with predicates on the element's own attributes, xpatheval.Expr.TagTests) is
// first answered from one scan of the body's tags (dom.ScanElementsView): when no copy of an
// element the XPath names satisfies it, no element of the tree does, and the tree is not needed.
// Any other rule XPath, or a scan that cannot tell, builds the tree as before.
//
// One difference remains: a tree that is never built cannot fail. A body the parser refuses
// (elements nested deeper than 512) failed such a step with extraction_failed even though nothing
// read its tree; now the step answers from its script JSON.

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
	if fieldsReadTree(p.fields) {
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
	// A view of the body, never written after parsing (see bodyString): the tree's strings are
	// its bytes rather than a copy of the page.
	n, elems, err := dom.ParseHTMLViewElements(s.body)
	if err != nil {
		s.parseErr = fmt.Errorf("parsing HTML: %w", err)
		return nil
	}
	s.doc, s.html, s.elems = dom.Navigator(n), n, elems
	return elems
}

// scanAbsent reports whether m's XPath (m.scan) selects nothing in sr's tree, as shown by the scan
// of sr's body; false when the scan cannot tell or finds an element the XPath selects.
func (r *run) scanAbsent(m *matcher, sr *stepResult) bool {
	if !sr.scanDone {
		sr.scanDone = true
		sr.scanDoc, sr.scanOK = dom.ScanElementsView(sr.body, r.plan.scanTags)
	}
	return sr.scanOK && len(r.xp.Nodes(m.xpath, dom.Navigator(sr.scanDoc))) == 0
}
