package dom

import (
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
	var b []byte
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b = append(b, c.Data...)
			case html.ElementNode, html.DocumentNode:
				walk(c)
			}
		}
	}
	walk(n)
	return string(b)
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
func Compare(a, b *HTMLNavigator) int {
	if a.curr == b.curr {
		switch {
		case a.attr == b.attr:
			return 0
		case a.attr < b.attr:
			return -1
		}
		return 1
	}
	pa, pb := ancestry(a.curr), ancestry(b.curr)
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	switch {
	case i == len(pa): // a is an ancestor of b
		return -1
	case i == len(pb):
		return 1
	}
	for s := pa[i].NextSibling; s != nil; s = s.NextSibling {
		if s == pb[i] {
			return -1
		}
	}
	return 1
}

// ancestry lists n's ancestors from the root down to n.
func ancestry(n *html.Node) []*html.Node {
	d := 0
	for p := n; p != nil; p = p.Parent {
		d++
	}
	out := make([]*html.Node, d)
	for p := n; p != nil; p = p.Parent {
		d--
		out[d] = p
	}
	return out
}

// Attr returns the index of the attribute the navigator is on, or -1 on a node.
func (h *HTMLNavigator) Attr() int { return h.attr }

// AttrNavigatorAt returns a navigator on the attribute at index i of node.
func AttrNavigatorAt(root, node *html.Node, i int) *HTMLNavigator {
	return &HTMLNavigator{root: root, curr: node, attr: i}
}
