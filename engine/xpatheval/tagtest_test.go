package xpatheval

import (
	"slices"
	"strings"
	"testing"

	"asa/engine/dom"
)

// scanXPaths are XPaths of the shape TagTests accepts: the YouTube rules' and others like them.
var scanXPaths = []string{
	`//form[starts-with(@action, 'https://consent.youtube.com/') or starts-with(@action, 'https://consent.google.com/')]`,
	`//form[contains(@action, '/das_captcha')] | //div[contains(concat(' ', @class, ' '), ' g-recaptcha ')]`,
	`//div[@id='captcha-form']`,
	`//div[@data-x and not(@hidden)][contains(normalize-space(@class), 'a b')]`,
	`//textarea[@name != 'q'] | //form[@action = "x"]`,
	`//option[@selected]`,
	`//script[@id='__NEXT_DATA__'] | //div[@data-item-id] | //div[@id='product-overview']`,
}

func TestTagTests(t *testing.T) {
	for _, c := range []struct {
		xpath string
		tags  string // "" when refused
	}{
		{scanXPaths[0], "form"},
		{scanXPaths[1], "form div"},
		{scanXPaths[3], "div"},
		{scanXPaths[4], "textarea form"},
		{`//div[@a] | //div[@b]`, "div"},
		{`//div`, ""},
		{`//div[1]`, ""},
		{`//div[@a][1]`, ""},
		{`//div[last()]`, ""},
		{`//div[string-length(@a)]`, ""},
		{`//div[.='x']`, ""},
		{`//div[text()]`, ""},
		{`//div[span]`, ""},
		{`//div[@a='x']/span`, ""},
		{`//div[@a='x']//@b`, ""},
		{`//DIV[@a]`, ""},
		{`//*[@a]`, ""},
		{`/html//div[@a]`, ""},
		{`.//div[@a]`, ""},
		{`//div[@xml:lang]`, ""},
		{`//div[contains(@a, 'x') or position() = 1]`, ""},
		{`//div[count(@a) > 0]`, ""},
		{`//div[@a = 1]`, ""},
		{`//div[@a='x'`, ""},
		{`//div[@a='x]`, ""},
		{`boolean(//div[@a])`, ""},
		{`//div[@a] | `, ""},
		{`//div[not (@a)]`, ""},
	} {
		got := strings.Join(tagTests(c.xpath), " ")
		if got != c.tags {
			t.Errorf("%s: tags %q, want %q", c.xpath, got, c.tags)
		}
	}
}

// scanVerdict checks one XPath on one page both ways: when the scan shows it absent, the parsed
// page must give it no node. It reports whether the scan answered and whether the tree has a node.
func scanVerdict(t *testing.T, src string, page []byte) (scanned, present bool) {
	t.Helper()
	x, err := Compile(src, NewWant())
	if err != nil {
		t.Fatal(err)
	}
	tags := x.TagTests()
	if tags == nil {
		t.Fatalf("%s: TagTests refuses it", src)
	}
	ev := NewEvaluator(nil)
	tree, err := dom.ParseHTML(page)
	if err == nil {
		present = len(ev.Nodes(x, dom.Navigator(tree))) > 0
	}
	// Both ways: every copy, and only the copies of elements that may carry the XPath's literals
	// (the engine's filter; its answers must be the same).
	var verdicts [2]int
	for i, f := range []*dom.ScanFilter{nil, scanFilterOf(x.TagLiterals())} {
		doc, sure, ok := dom.ScanElementsSureView(page, tags, f)
		if !ok {
			return false, present
		}
		nodes := ev.Nodes(x, dom.Navigator(doc))
		if len(nodes) == 0 && present {
			t.Errorf("%s on %q (filter %v): the scan says absent, the tree has a node", src, page, f)
		}
		verdicts[i] = min(len(nodes), 1)
		for _, n := range nodes {
			if slices.Contains(sure, n.(*dom.HTMLNavigator).Current()) {
				verdicts[i] = 2
				if err == nil && !present {
					t.Errorf("%s on %q (filter %v): the scan says present, the tree has no node", src, page, f)
				}
			}
		}
	}
	if verdicts[0] != verdicts[1] {
		t.Errorf("%s on %q: the scan's verdict is %d, filtered %d", src, page, verdicts[0], verdicts[1])
	}
	return true, present
}

// scanFilterOf is the filter of a scan whose copies only lits' XPath reads (nil when it has none).
func scanFilterOf(lits []TagLiteral) *dom.ScanFilter {
	if lits == nil {
		return nil
	}
	f := &dom.ScanFilter{}
	for _, l := range lits {
		if l.Name {
			f.Names = append(f.Names, l.Text)
		} else {
			f.Values = append(f.Values, l.Text)
		}
	}
	return f
}

func TestScanXPathTable(t *testing.T) {
	for _, page := range []string{
		`<form action="https://consent.youtube.com/save">`,
		`<form action="https://consent.google.com/save"><input name=x></form>`,
		`<FORM ACTION="HTTPS://consent.youtube.com/">`,
		`<form action="&#104;ttps://consent.youtube.com/">`,
		`<form action='/das_captcha'>`,
		`<form action=/das_captcha>`,
		`<form action="/x" action="/das_captcha">`,
		`<form action="/das_captcha" action="/x">`,
		`<div class="a g-recaptcha b">`,
		`<div class="a&#x20;g&#45;recaptcha">`,
		`<div class="g-recaptcha"` + "\n" + `id=x>`,
		`<!-- <form action="/das_captcha"> --><div class=x>`,
		`<textarea><div class=g-recaptcha></textarea>`,
		`<script>'<div class="g-recaptcha">'</script>`,
		`<svg><style><div class=g-recaptcha></style></svg>`,
		`<svg><g></g></svg><div class="g-recaptcha">`,
		`<math><mi><form action=/das_captcha></mi></math>`,
		`<template><form action="/das_captcha"></form></template>`,
		`<noscript><form action="/das_captcha"></form></noscript>`,
		`<table><tr><td><div data-x class="a b c">`,
		`<option selected><select><option selected>`,
		`<textarea name=z>x</textarea>`,
		`<div CLASS="G-RECAPTCHA">`, `<div Data-X class=y>`, `<div class="g-re` + "\r" + `captcha">`,
		`<div class="g-recaptcha` + "\x00" + `">`, `<div title="g-recaptcha" class=g-recaptcha>`,
		`<script ID="__NEXT_DATA__"></script>`, `<script id="__next_data__"></script>`, `<div DATA-ITEM-ID>`,
	} {
		for _, x := range scanXPaths {
			scanVerdict(t, x, []byte(page))
		}
	}
}

// FuzzScanXPath builds a page around the scan XPaths' elements from the fuzzer's input and
// requires the scan's "absent" to be the parsed tree's.
func FuzzScanXPath(f *testing.F) {
	for _, s := range []string{
		`<form action="https://consent.youtube.com/">`, `<div class="g-recaptcha">`, `<svg><style><form action="/das_captcha"></style></svg>`,
		`<div class="&#103;-recaptcha">`, `<textarea><form action="/das_captcha"></textarea>`, `<template><div class=" g-recaptcha ">`,
		`<table><form action=/das_captcha>`, `<select><svg><title><div class=g-recaptcha>`, `<!--<div class=g-recaptcha>-->`,
	} {
		f.Add(s, uint8(0))
	}
	pieces := []string{`<form action="/das_captcha">`, `<div class="g-recaptcha">`, `<div class=' g-recaptcha'>`,
		`<form action="https://consent.google.com/x">`, `<svg>`, `</svg>`, `<math>`, `<style>`, `</style>`, `<script>`, `</script>`,
		`<textarea>`, `<!--`, `-->`, `<![CDATA[`, `]]>`, `<template>`, `<select>`, `<title>`, `<desc>`, `<g>`, `</g>`, `&#103;`,
		`<option selected>`, `<table>`, `<noscript>`, `</noscript>`, `<plaintext>`, `<div data-x>`, `<foreignObject>`,
		`<script id="__NEXT_DATA__">`, `<div data-item-id=1>`, `<frameset>`, `x`, `&#32;`, `<head>`, `<body>`}
	f.Fuzz(func(t *testing.T, s string, seed uint8) {
		// Splice pieces into the input at places the seed picks, so that the fuzzer's bytes meet
		// the elements and states the scan has to follow.
		var b strings.Builder
		r := uint32(seed) + 1
		for i := 0; i < len(s); i++ {
			r = r*1103515245 + 12345
			if (r>>16)%4 == 0 {
				b.WriteString(pieces[(r>>8)%uint32(len(pieces))])
			}
			b.WriteByte(s[i])
		}
		page := []byte(b.String())
		for _, x := range scanXPaths {
			scanVerdict(t, x, page)
		}
	})
}
