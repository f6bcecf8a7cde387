package readability

import "golang.org/x/net/html"

// grabArticle scales every candidate's score by its link density, and the candidates are the
// ancestors of every paragraph, up to five levels: upstream walked each one's subtree
// (getLinkDensity), so the same text was read as many times as it had candidate ancestors. The
// tree does not change meanwhile: linkMemo reads the whole tree once, keeping for each element
// the run of its text (character counts compose exactly: join) and where its links' terms lie in
// one list of every link's term in the order getLinkDensity adds them (after the link's
// descendants, in document order). A subtree's links are a slice of that list, which density sums
// from zero in the same order as upstream, since float addition does not associate. A candidate
// not in the tree is measured by getLinkDensity.
type linkMemo struct {
	ps    *Parser
	spans map[*html.Node]linkSpan
	terms []linkTerm
}

// linkSpan is what getLinkDensity reads of an element's subtree.
type linkSpan struct {
	all    textRun // all its text
	lo, hi int     // its links' terms: terms[lo:hi]
}

// linkTerm is one link's term, chars * coefficient, multiplied when it is added as upstream does.
type linkTerm struct {
	chars, coefficient float64
}

// newLinkMemo reads root's tree for the candidates (only theirs are kept).
func newLinkMemo(ps *Parser, root *html.Node, candidates []*html.Node) *linkMemo {
	lm := &linkMemo{ps: ps, spans: make(map[*html.Node]linkSpan, len(candidates))}
	for _, c := range candidates {
		lm.spans[c] = linkSpan{lo: -1} // not read yet
	}
	lm.read(root)
	return lm
}

// read returns the run of n's text and the run of its text outside any <a> (n included).
func (lm *linkMemo) read(n *html.Node) (all, free textRun) {
	if n.Type == html.TextNode {
		t := lm.ps.runs.run(n)
		return t, t
	}
	lo := len(lm.terms)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		ca, cf := lm.read(c)
		all, free = join(all, ca), join(free, cf)
	}
	if n.Type != html.ElementNode {
		return all, free
	}
	if n.Data == "a" {
		// The link's own characters, outside links nested in it, counted from a fresh counter.
		lm.terms = append(lm.terms, linkTerm{float64(free.count()), getLinkDensityCoefficient(n)})
		free = textRun{}
	}
	if _, ok := lm.spans[n]; ok {
		lm.spans[n] = linkSpan{all: all, lo: lo, hi: len(lm.terms)}
	}
	return all, free
}

// density is getLinkDensity(n).
func (lm *linkMemo) density(n *html.Node) float64 {
	s, ok := lm.spans[n]
	if !ok || s.lo < 0 {
		return lm.ps.getLinkDensity(n)
	}
	total := s.all.count()
	if total == 0 {
		return 0
	}
	var linkCharsWeighted float64
	for _, t := range lm.terms[s.lo:s.hi] {
		linkCharsWeighted += t.chars * t.coefficient
	}
	return linkCharsWeighted / float64(total)
}

// join is the run of a's text followed by b's.
func join(a, b textRun) textRun {
	switch {
	case !a.nonSpace:
		b.lead = a.lead || b.lead
		b.commas += a.commas
		return b
	case !b.nonSpace:
		a.trail = a.trail || b.lead
		a.commas += b.commas
		return a
	}
	gap := 0
	if a.trail || b.lead {
		gap = 1
	}
	return textRun{chars: a.chars + b.chars, gaps: a.gaps + b.gaps + gap, commas: a.commas + b.commas,
		nonSpace: true, lead: a.lead, trail: b.trail}
}

// count is what a fresh charCounter counts of t.
func (t textRun) count() int { return t.chars + t.gaps }
