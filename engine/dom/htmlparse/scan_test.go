package htmlparse

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// scanNames are the names the scan tests ask for: the forms and divs of the rules that use it, and
// elements the tree builder treats specially (formatting elements it clones, raw text and RCDATA,
// select's and table's content, a foreign name).
var scanNames = []string{"form", "div", "textarea", "option", "input", "td", "style", "rect", "span"}

// elemKey identifies an element by what a predicate on its own attributes can read.
func elemKey(n *html.Node) string {
	var b strings.Builder
	b.WriteString(n.Namespace)
	b.WriteByte(0)
	b.WriteString(n.Data)
	for _, a := range n.Attr {
		b.WriteByte(0)
		b.WriteString(a.Namespace)
		b.WriteByte(1)
		b.WriteString(a.Key)
		b.WriteByte(1)
		b.WriteString(a.Val)
	}
	return b.String()
}

// scanMisses returns a description of every element named in names in ParseString(s)'s tree that
// has no copy in ScanElements(s, names), when the scan answers; ok is whether it did.
func scanMisses(s string, names []string) (misses []string, ok bool) {
	doc, ok := ScanElements(s, names)
	if !ok {
		return nil, false
	}
	tree, err := ParseString(s)
	if err != nil {
		return nil, true
	}
	copies := map[string]bool{}
	for c := doc.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode || c.FirstChild != nil {
			misses = append(misses, "a scan child that is not a childless element")
		}
		copies[elemKey(c)] = true
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && wanted(names, strings.ToLower(n.Data)) && !copies[elemKey(n)] {
			misses = append(misses, strings.ReplaceAll(elemKey(n), "\x00", " "))
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(tree)
	return misses, true
}

// scanFalseSure returns a description of every sure copy of ScanElementsSure(s, names) that has no
// element of its own in ParseString(s)'s tree (same name and attributes, each element standing
// for one copy at most).
func scanFalseSure(s string, names []string) []string {
	doc, n, ok := ScanElementsSure(s, names)
	if !ok {
		return nil
	}
	tree, err := ParseString(s)
	if err != nil {
		// The one failure, nesting past 512, is the lazy tree's documented difference.
		return nil
	}
	elems := map[string]int{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			elems[elemKey(n)]++
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(tree)
	var bad []string
	for _, c := range Sure(doc, n) {
		k := elemKey(c)
		if elems[k] == 0 {
			bad = append(bad, strings.ReplaceAll(k, "\x00", " "))
			continue
		}
		elems[k]--
	}
	return bad
}

// TestScanElementsSure: the copies the scan is sure of, on pages where the tree builder ignores or
// removes elements (frameset after them, select, template, table parts) and where it keeps them.
func TestScanElementsSure(t *testing.T) {
	for _, c := range []struct{ in, sure string }{
		{`<div id=a>x`, "div"},
		{`<script id=__NEXT_DATA__>{}</script><div>`, "div"},
		{`<div id=a><frameset>`, ""},
		{`<div id=a>text<frameset>`, "div"},
		{`<div id=a>&#32;<frameset>`, ""},
		{`<div id=a>` + "\x00 \n" + `<frameset>`, ""},
		{`<div id=a>&amp;<frameset>`, ""},
		{`<div id=a>x&amp;<frameset>`, "div"},
		{`<title>abc</title><div><frameset>`, ""},
		{`<style>abc</style><div>x<frameset>`, "style div"},
		{`<svg>a</svg><div><frameset>`, "div"},
		{`<frameset><div>`, ""},
		{`<select><div>`, ""},
		{`<select></select>x<div>`, ""},
		{`<template><div></template>`, ""},
		{`<table><form><tr><td><div>`, "div"},
		{`<table><span>x</span></table><frameset><div>`, "span"},
		{`<form><form>`, ""},
		{`<div>x<select><div>`, "div"},
		{`<textarea>x</textarea><div>`, "div"},
		{`<div>x</div><frameset><div>`, "div"},
	} {
		doc, n, ok := ScanElementsSure(c.in, scanNames)
		if !ok {
			t.Errorf("%q: the scan does not answer", c.in)
			continue
		}
		var got []string
		for _, n := range Sure(doc, n) {
			got = append(got, n.Data)
		}
		if strings.Join(got, " ") != c.sure {
			t.Errorf("%q: sure of %q, want %q", c.in, strings.Join(got, " "), c.sure)
		}
		if bad := scanFalseSure(c.in, scanNames); len(bad) > 0 {
			t.Errorf("%q: sure copies the tree does not have: %q", c.in, bad)
		}
	}
}

func TestScanElementsTable(t *testing.T) {
	for _, c := range []struct {
		in string
		// ok: the scan answers; found: names of the copies it gives, in order
		ok    bool
		found string
	}{
		{`<form action="https://consent.youtube.com/s">`, true, "form"},
		{`<FORM ACTION=x><DiV class=g-recaptcha>`, true, "form div"},
		{`<!-- <form action=x> --><div>`, true, "div"},
		{`<!--> <form action=x> -->`, true, "form"},
		{`<textarea><form action=x></textarea><div>`, true, "textarea div"},
		{`<script>document.write("<form action=x>")</script>`, true, ""},
		{`<script><!--<script></script><form></script>`, true, ""},
		{`<style><div></style>`, true, "style"},
		{`<title><div></title><noscript><form></noscript>`, true, ""},
		{`<xmp><form></xmp><iframe><div></iframe><noembed><div></noembed><noframes><div></noframes>`, true, ""},
		{`<plaintext><form action=x>`, true, ""},
		{`<div class="&#103;-recaptcha">`, true, "div"},
		{`<div class='a' class="b">`, true, "div"},
		{`<div class=g-recaptcha>`, true, "div"},
		{`<svg><path/><g></g></svg><form>`, true, "form"},
		{`<svg><rect/></svg>`, false, ""},
		{`<svg><style><form action=x></style></svg>`, false, ""},
		{`<svg><title><form></title></svg>`, false, ""},
		{`<svg><foreignObject><div></div></foreignObject></svg>`, false, ""},
		{`<svg><div></div></svg>`, false, ""},
		{`<svg><g></svg>`, false, ""},
		{`<svg/><script><form></script>`, true, ""},
		{`<math><mi><form></mi></math>`, false, ""},
		{`<svg><![CDATA[<form>]]></svg><form>`, true, "form"},
		{`<![CDATA[<form>]]>`, true, ""},
		{`<select><svg><style><form>`, false, ""},
		{`<template><form></template>`, true, "form"},
		{`<template></template><svg></svg>`, false, ""},
		{`<table><form><tr><td><div>`, true, "form td div"},
		{`<a href=1><b><div></a>x</b>`, true, "div"},
		{`<form action=x><form action=y>`, true, "form form"},
		{`</form><div/>`, true, "div"},
		{`<div` + "\x00" + `>`, true, ""},
	} {
		doc, ok := ScanElements(c.in, scanNames)
		if ok != c.ok {
			t.Errorf("%q: ok %v, want %v", c.in, ok, c.ok)
			continue
		}
		if ok {
			var got []string
			for n := doc.FirstChild; n != nil; n = n.NextSibling {
				got = append(got, n.Data)
			}
			if strings.Join(got, " ") != c.found {
				t.Errorf("%q: found %q, want %q", c.in, strings.Join(got, " "), c.found)
			}
		}
		if misses, _ := scanMisses(c.in, scanNames); len(misses) > 0 {
			t.Errorf("%q: the tree has elements the scan missed: %q", c.in, misses)
		}
	}
	// The attributes are the tree's: unescaped, the first of a repeated name.
	doc, _ := ScanElements(`<div CLASS="&#103;-recaptcha" class=x data-a='1'>`, []string{"div"})
	if got := doc.FirstChild.Attr; len(got) != 2 || got[0] != (html.Attribute{Key: "class", Val: "g-recaptcha"}) || got[1].Val != "1" {
		t.Errorf("attributes %v", got)
	}
	for _, n := range []string{"a", "b", "html", "body", "head", "p", "br", "img", "tbody", "tr", "colgroup", "svg", "DIV", "", "*"} {
		if _, ok := ScanElements("<div>", []string{n}); ok {
			t.Errorf("ScanElements answers for %q, which the tree builder makes without a tag of its name", n)
		}
	}
}

func TestScanElementsSnippets(t *testing.T) {
	for _, s := range trickySnippets {
		if misses, _ := scanMisses(s, scanNames); len(misses) > 0 {
			t.Errorf("%q: the tree has elements the scan missed: %q", s, misses)
		}
		if bad := scanFalseSure(s, scanNames); len(bad) > 0 {
			t.Errorf("%q: sure copies the tree does not have: %q", s, bad)
		}
	}
}

// FuzzScanElements requires every element of the names in the parsed tree to have its copy in
// the scan whenever the scan answers.
func FuzzScanElements(f *testing.F) {
	for _, s := range trickySnippets {
		f.Add(s)
	}
	for _, s := range []string{
		`<svg><rect/><g></g></svg><form action="x">`, `<svg><style><form></style></svg>`,
		`<div class="&#103;-recaptcha">`, `<svg><g><path d=1></path></g></svg><script>a<b</script><div>`,
		`<table><svg><desc></desc></svg><form>`, `<math><mtext><div></mtext></math>`,
		`<svg><clipPath><rect/></clipPath></svg><form>`, `<a><b><div><svg></svg></a>`,
		`<div id=a><frameset>`, `<div>x<frameset><div>`, `<span>&#32;</span><FRAMESET>`, `<table><div>x</table><frameset>`,
		`<select><option><div>x</select><frameset>`, `<head><template><div></template></head><span><frameset>`,
		`<svg>x</svg><div><frameset>`, `<title>x</title><style>y</style><span><frameset>`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if misses, _ := scanMisses(s, scanNames); len(misses) > 0 {
			t.Fatalf("%q: the tree has elements the scan missed: %q", s, misses)
		}
		if bad := scanFalseSure(s, scanNames); len(bad) > 0 {
			t.Fatalf("%q: sure copies the tree does not have: %q", s, bad)
		}
	})
}
