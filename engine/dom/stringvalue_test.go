package dom

import (
	"testing"

	"golang.org/x/net/html"
)

// referenceStringValue is XPath's string value as the recursive walk wrote it before innerText
// counted and copied in place: the text nodes under elements and documents, in order.
func referenceStringValue(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
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

// checkStringValues compares StringValue with the reference on every node of page's tree.
func checkStringValues(t *testing.T, page string) {
	t.Helper()
	root, err := ParseHTML([]byte(page))
	if err != nil {
		return
	}
	for n := root; n != nil; n = nextInTree(n) {
		if n.Type == html.CommentNode {
			continue // stringValue answers for comments itself
		}
		if got, want := StringValue(n), referenceStringValue(n); got != want {
			t.Fatalf("%q: <%s> string value %q, want %q", page, n.Data, got, want)
		}
	}
}

// nextInTree is the node after n in document order, nil after the last.
func nextInTree(n *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	for n != nil && n.NextSibling == nil {
		n = n.Parent
	}
	if n == nil {
		return nil
	}
	return n.NextSibling
}

func TestStringValuePieces(t *testing.T) {
	for _, page := range []string{
		`<p></p>`, `<p>one</p>`, `<p><b>one</b></p>`, `<p><b><i>one</i></b></p>`, `<a> <span>x</span> </a>`,
		`<p>a<!-- c -->b<b>c<i> d </i></b>e</p>`, `<div><p></p><p><span></span></p>t</div>`,
		`<table><tr><td>1</td><td><b>2</b>3</td></tr></table>`, `<svg><title>t</title><g><text>x</text></g></svg>`,
		`<p>x<template>in<b>side</b></template>y</p>`, `<!DOCTYPE html><title>a</title><body>b<script>s</script></body>`,
	} {
		checkStringValues(t, page)
	}
}

func FuzzStringValue(f *testing.F) {
	for _, s := range []string{`<p>a<b>b</b>c</p>`, `<a> <span>x</span> </a>`, `<p><!--c--></p>`, `<table>x<tr><td>y`} {
		f.Add(s)
	}
	f.Fuzz(checkStringValues)
}
