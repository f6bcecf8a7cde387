package dom

import (
	"iter"
	"strings"

	"github.com/antchfx/xmlquery"
	"github.com/antchfx/xpath"
	"golang.org/x/net/html"
)

// HTMLNavigator is an xpath.NodeNavigator over an *html.Node tree. It behaves as htmlquery's, with
// one addition the engine needs: NavigatorAt places a navigator on any node while keeping the
// document root, so an XPath evaluated from a node found through an index still sees the whole
// document for absolute paths.
type HTMLNavigator struct {
	root, curr *html.Node
	attr       int
}

// NavigatorAt returns a navigator on node whose root is root.
func NavigatorAt(root, node *html.Node) *HTMLNavigator {
	return &HTMLNavigator{root: root, curr: node, attr: -1}
}

// Current returns the node the navigator is on (the owner element for an attribute).
func (h *HTMLNavigator) Current() *html.Node { return h.curr }

// Root returns the document root.
func (h *HTMLNavigator) Root() *html.Node { return h.root }

// NodeType implements xpath.NodeNavigator.
func (h *HTMLNavigator) NodeType() xpath.NodeType {
	switch h.curr.Type {
	case html.CommentNode:
		return xpath.CommentNode
	case html.TextNode:
		return xpath.TextNode
	case html.ElementNode:
		if h.attr != -1 {
			return xpath.AttributeNode
		}
		return xpath.ElementNode
	}
	// Document, doctype and raw nodes count as the root, as htmlquery has it.
	return xpath.RootNode
}

// LocalName implements xpath.NodeNavigator.
func (h *HTMLNavigator) LocalName() string {
	if h.attr != -1 {
		return h.curr.Attr[h.attr].Key
	}
	return h.curr.Data
}

// Prefix implements xpath.NodeNavigator.
func (*HTMLNavigator) Prefix() string { return "" }

// Value implements xpath.NodeNavigator: the XPath string-value.
func (h *HTMLNavigator) Value() string {
	switch h.curr.Type {
	case html.CommentNode, html.TextNode:
		return h.curr.Data
	case html.ElementNode:
		if h.attr != -1 {
			return h.curr.Attr[h.attr].Val
		}
		return innerText(h.curr)
	case html.DocumentNode:
		return innerText(h.curr)
	}
	return ""
}

// StringValue is the XPath string-value of a node: a text node's text, or all the descendant text
// of an element or document, as the navigator's Value gives it.
func StringValue(n *html.Node) string { return innerText(n) }

func innerText(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	if c := n.FirstChild; c != nil && c.NextSibling == nil && c.Type == html.TextNode {
		return c.Data
	}
	// The text of a card's link or a price with its currency span is a few pieces: counted first,
	// it is one piece as it is (<a><span>text</span></a>), else copied once into a buffer of its
	// size, where appending grew it through several and copied it again into the string.
	total, pieces, only := 0, 0, ""
	for t := range TextPieces(n) {
		total += len(t)
		pieces++
		only = t
	}
	switch pieces {
	case 0:
		return ""
	case 1:
		return only
	}
	var b strings.Builder
	b.Grow(total)
	for t := range TextPieces(n) {
		b.WriteString(t)
	}
	return b.String()
}

// TextPieces yields the text of each non-empty text node under n, in document order, the
// descendants of elements and documents alone: the pieces of n's XPath string value, read
// without building it.
func TextPieces(n *html.Node) iter.Seq[string] {
	return func(yield func(string) bool) {
		c := n.FirstChild
		for c != nil {
			switch c.Type {
			case html.TextNode:
				if c.Data != "" && !yield(c.Data) {
					return
				}
			case html.ElementNode, html.DocumentNode:
				if c.FirstChild != nil {
					c = c.FirstChild
					continue
				}
			}
			// the next node: a sibling, else the sibling of the nearest ancestor under n that has one
			for c.NextSibling == nil {
				c = c.Parent
				if c == n || c == nil {
					return
				}
			}
			c = c.NextSibling
		}
	}
}

// Copy implements xpath.NodeNavigator.
func (h *HTMLNavigator) Copy() xpath.NodeNavigator {
	n := *h
	return &n
}

// MoveToRoot implements xpath.NodeNavigator.
func (h *HTMLNavigator) MoveToRoot() { h.curr, h.attr = h.root, -1 }

// MoveToParent implements xpath.NodeNavigator.
func (h *HTMLNavigator) MoveToParent() bool {
	if h.attr != -1 {
		h.attr = -1
		return true
	}
	if p := h.curr.Parent; p != nil {
		h.curr = p
		return true
	}
	return false
}

// MoveToNextAttribute implements xpath.NodeNavigator.
func (h *HTMLNavigator) MoveToNextAttribute() bool {
	if h.attr >= len(h.curr.Attr)-1 {
		return false
	}
	h.attr++
	return true
}

// MoveToChild implements xpath.NodeNavigator.
func (h *HTMLNavigator) MoveToChild() bool {
	if h.attr != -1 {
		return false
	}
	if c := h.curr.FirstChild; c != nil {
		h.curr = c
		return true
	}
	return false
}

// MoveToFirst implements xpath.NodeNavigator.
func (h *HTMLNavigator) MoveToFirst() bool {
	if h.attr != -1 || h.curr.PrevSibling == nil {
		return false
	}
	for h.curr.PrevSibling != nil {
		h.curr = h.curr.PrevSibling
	}
	return true
}

// String implements fmt.Stringer.
func (h *HTMLNavigator) String() string { return h.Value() }

// MoveToNext implements xpath.NodeNavigator.
func (h *HTMLNavigator) MoveToNext() bool {
	if h.attr != -1 {
		return false
	}
	if n := h.curr.NextSibling; n != nil {
		h.curr = n
		return true
	}
	return false
}

// MoveToPrevious implements xpath.NodeNavigator.
func (h *HTMLNavigator) MoveToPrevious() bool {
	if h.attr != -1 {
		return false
	}
	if n := h.curr.PrevSibling; n != nil {
		h.curr = n
		return true
	}
	return false
}

// MoveTo implements xpath.NodeNavigator.
func (h *HTMLNavigator) MoveTo(other xpath.NodeNavigator) bool {
	o, ok := other.(*HTMLNavigator)
	if !ok || o.root != h.root {
		return false
	}
	h.curr, h.attr = o.curr, o.attr
	return true
}

// Compare orders two navigators of one HTML document in document order (an element before its
// attributes, attributes in source order, then its descendants): -1, 0 or 1.
func Compare(a, b *HTMLNavigator) int { return CompareNodes(a.curr, a.attr, b.curr, b.attr) }

// OrderNodes is Order of two HTML navigators given by their nodes and attribute indexes (-1: the
// node itself), with no navigator built: an element's attributes compare equal.
func OrderNodes(a *html.Node, aAttr int, b *html.Node, bAttr int) int {
	if a == b && aAttr >= 0 && bAttr >= 0 {
		return 0
	}
	return CompareNodes(a, aAttr, b, bAttr)
}

// CompareNodes is Compare of two navigators given by their nodes and attribute indexes (-1: the
// node itself).
func CompareNodes(a *html.Node, aAttr int, b *html.Node, bAttr int) int {
	if a == b {
		switch {
		case aAttr == bAttr:
			return 0
		case aAttr < bAttr:
			return -1
		}
		return 1
	}
	// Unions and groups are sorted with this, hundreds of comparisons a page: it climbs from both
	// nodes to their common ancestor in place, with no list of ancestors per comparison.
	x, y := a, b
	dx, dy := depth(x), depth(y)
	for ; dx > dy; dx-- {
		x = x.Parent
	}
	for ; dy > dx; dy-- {
		y = y.Parent
	}
	if x == y { // one is an ancestor of the other
		if x == a {
			return -1
		}
		return 1
	}
	for x.Parent != y.Parent {
		x, y = x.Parent, y.Parent
	}
	// Siblings (or the roots of two trees, which have none): whichever reaches the other first.
	for s, t := x.NextSibling, y.NextSibling; s != nil || t != nil; {
		if s == y {
			return -1
		}
		if t == x {
			return 1
		}
		if s != nil {
			s = s.NextSibling
		}
		if t != nil {
			t = t.NextSibling
		}
	}
	return 1
}

// depth is the number of n's ancestors.
func depth(n *html.Node) int {
	d := 0
	for p := n.Parent; p != nil; p = p.Parent {
		d++
	}
	return d
}

// Attr returns the index of the attribute the navigator is on, or -1 on a node.
func (h *HTMLNavigator) Attr() int { return h.attr }

// AttrNavigatorAt returns a navigator on the attribute at index i of node.
func AttrNavigatorAt(root, node *html.Node, i int) *HTMLNavigator {
	return &HTMLNavigator{root: root, curr: node, attr: i}
}

// Order orders two navigators of one document in document order (-1, 0 or 1), for HTML and XML
// navigators; ok is false for other kinds or a mix. XPath leaves the order of one element's
// attributes to the implementation: here they compare equal (0), so a stable sort keeps them in
// the order they came (a union's @property | @name keeps its branches' order).
func Order(a, b xpath.NodeNavigator) (c int, ok bool) {
	switch x := a.(type) {
	case *HTMLNavigator:
		if y, isHTML := b.(*HTMLNavigator); isHTML {
			if x.curr == y.curr && x.attr >= 0 && y.attr >= 0 {
				return 0, true
			}
			return Compare(x, y), true
		}
	case *xmlquery.NodeNavigator:
		if y, isXML := b.(*xmlquery.NodeNavigator); isXML {
			return compareXML(x, y), true
		}
	}
	return 0, false
}

// Identity is a comparable key of the node (or attribute) a navigator is on, for HTML and XML
// navigators; nil for others.
func Identity(n xpath.NodeNavigator) any {
	type key struct {
		node any
		attr int
	}
	switch x := n.(type) {
	case *HTMLNavigator:
		return key{x.curr, x.attr}
	case *xmlquery.NodeNavigator:
		return key{x.Current(), xmlAttrIndex(x)}
	}
	return nil
}

func compareXML(a, b *xmlquery.NodeNavigator) int {
	if a.Current() == b.Current() {
		ia, ib := xmlAttrIndex(a), xmlAttrIndex(b)
		if ia >= 0 && ib >= 0 {
			return 0 // see Order
		}
		return cmpInt(ia, ib)
	}
	var pa, pb []*xmlquery.Node
	for n := a.Current(); n != nil; n = n.Parent {
		pa = append(pa, n)
	}
	for n := b.Current(); n != nil; n = n.Parent {
		pb = append(pb, n)
	}
	i, j := len(pa)-1, len(pb)-1
	for i >= 0 && j >= 0 && pa[i] == pb[j] {
		i, j = i-1, j-1
	}
	switch {
	case i < 0: // a is an ancestor of b
		return -1
	case j < 0:
		return 1
	}
	for s := pa[i].NextSibling; s != nil; s = s.NextSibling {
		if s == pb[j] {
			return -1
		}
	}
	return 1
}

// xmlAttrIndex is the index of the attribute an XML navigator is on, or -1 on a node (xmlquery
// does not export it: the first attribute of that name).
func xmlAttrIndex(n *xmlquery.NodeNavigator) int {
	if n.NodeType() != xpath.AttributeNode {
		return -1
	}
	for i, a := range n.Current().Attr {
		if a.Name.Local == n.LocalName() && a.Name.Space == n.Prefix() {
			return i
		}
	}
	return -1
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
