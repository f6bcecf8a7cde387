package htmlparse

import (
	"fmt"
	"slices"
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
		`<div class="a g-recaptcha"><div class=b>`, `<div CLASS="g-&#114;ecaptcha">`, `<div Data-Item-Id>`,
		"<form action=\"/das_\r\ncaptcha\">", `<span title=/das_captcha><select><div class=g-recaptcha>`,
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
		if bad := scanFilterMisses(s, scanNames, scanFilter); len(bad) > 0 {
			t.Fatalf("%q: the filtered scan: %q", s, bad)
		}
	})
}

// scanFilter is the filter the filtered scans of the tests and the fuzz target use.
var scanFilter = &ScanFilter{Values: []string{"g-recaptcha", "/das_captcha"}, Names: []string{"data-item-id"}}

// carries reports whether an element has an attribute whose value holds one of f's values, or
// one of f's names: what the filter must keep.
func carries(n *html.Node, f *ScanFilter) bool {
	for _, a := range n.Attr {
		if slices.Contains(f.Names, a.Key) {
			return true
		}
		for _, v := range f.Values {
			if strings.Contains(a.Val, v) {
				return true
			}
		}
	}
	return false
}

// scanFilterMisses compares the filtered scan of s with the whole one: the filtered copies must
// be the whole scan's in order, with every copy that carries a literal among them, and its sure
// copies those of the whole scan's that it kept.
func scanFilterMisses(s string, names []string, f *ScanFilter) []string {
	all, nAll, okAll := ScanElementsSure(s, names)
	some, nSome, okSome := ScanElementsSureFiltered(s, names, f)
	if okAll != okSome {
		return []string{fmt.Sprintf("ok %v, filtered %v", okAll, okSome)}
	}
	if !okAll {
		return nil
	}
	sureAll := Sure(all, nAll)
	sureSome := Sure(some, nSome)
	var bad []string
	kept := some.FirstChild
	for c := all.FirstChild; c != nil; c = c.NextSibling {
		if kept != nil && elemKey(kept) == elemKey(c) {
			if slices.Contains(sureAll, c) != slices.Contains(sureSome, kept) {
				bad = append(bad, "sureness differs: "+strings.ReplaceAll(elemKey(c), "\x00", " "))
			}
			kept = kept.NextSibling
			continue
		}
		if carries(c, f) {
			bad = append(bad, "dropped: "+strings.ReplaceAll(elemKey(c), "\x00", " "))
		}
	}
	if kept != nil {
		bad = append(bad, "a copy the whole scan does not have: "+strings.ReplaceAll(elemKey(kept), "\x00", " "))
	}
	return bad
}

// TestScanElementsFiltered: the filter keeps what carries its literals, in any spelling the
// tokenizer reads as the same, and drops the rest.
func TestScanElementsFiltered(t *testing.T) {
	for _, c := range []struct {
		in   string
		kept int
	}{
		{`<div class="a g-recaptcha"><div class=b><div id=c>`, 1},
		{`<div class="g-&#114;ecaptcha"><div class="x&amp;y">`, 2},    // references: kept, the XPath decides
		{"<div class=\"g-re\r\ncaptcha\"><div class=\"x\r\">", 2},     // CR: kept
		{"<div class=\"g\x00\"><div class=g>", 1},                     // NUL: kept
		{`<div DATA-ITEM-ID=1><div data-item-idx><div data-item>`, 2}, // names in any case; a longer name is kept, the XPath decides
		{`<form action="/das_captcha"><form action="/DAS_CAPTCHA"><span title=g-recaptcha>`, 2},
		{`<div title="g-recaptcha" class=x><textarea>g-recaptcha</textarea>`, 1},
	} {
		doc, _, ok := ScanElementsSureFiltered(c.in, scanNames, scanFilter)
		if !ok {
			t.Fatalf("%q: the scan did not answer", c.in)
		}
		n := 0
		for k := doc.FirstChild; k != nil; k = k.NextSibling {
			n++
		}
		if n != c.kept {
			t.Errorf("%q: %d copies kept, want %d", c.in, n, c.kept)
		}
		if bad := scanFilterMisses(c.in, scanNames, scanFilter); len(bad) > 0 {
			t.Errorf("%q: %q", c.in, bad)
		}
	}
}

// TestContainsFold: a lower-case name in any case of its letters, whether or not it has a byte
// other than a letter to search by, against strings.Contains of the lower-cased text.
func TestContainsFold(t *testing.T) {
	for _, c := range []struct{ s, name string }{
		{`<div DATA-ITEM-ID=1>`, "data-item-id"}, {`<div data-item>`, "data-item-id"}, {`<div Data-Item-IdX>`, "data-item-id"},
		{`<div HIDDEN>`, "hidden"}, {`<div hidde>`, "hidden"}, {`<div hHiddEN>`, "hidden"}, {``, "x"}, {`x`, ""}, {``, ""},
		{`<a b-->`, "b-"}, {`-b-B-`, "-b-"}, {`aaa`, "aaaa"}, {`AaAa`, "aaaa"},
	} {
		want := strings.Contains(strings.ToLower(c.s), c.name)
		if got := ContainsFold(c.s, c.name); got != want {
			t.Errorf("ContainsFold(%q, %q) = %v, want %v", c.s, c.name, got, want)
		}
	}
}
