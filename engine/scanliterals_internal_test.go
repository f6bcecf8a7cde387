package engine

import (
	"slices"
	"testing"

	"asa/engine/dom"
	"asa/engine/xpatheval"
)

func TestScanLiteralRuns(t *testing.T) {
	for _, c := range []struct {
		xpath string
		runs  []scanLit // nil: the scan has no literals to rule it out first
	}{
		{`//script[@id='__NEXT_DATA__'] | //div[@data-item-id] | //div[@id='product-overview']`,
			[]scanLit{{text: "NEXT"}, {text: "data-item-id", name: true}, {text: "overview"}}},
		{`//div[@id='px-captcha']`, []scanLit{{text: "captcha"}}},
		{`//form[contains(@action, '/das_captcha') or starts-with(@action, 'https://consent.google.com/')]`,
			[]scanLit{{text: "captcha"}, {text: "consent"}}},
		{`//div[@class='a'][@id='recaptcha']`, []scanLit{{text: "recaptcha"}}},
		{`//div[@id='ab' or @id='recaptcha']`, nil},
		{`//div[@id != 'recaptcha']`, nil},
		{`//div[not(@id = 'recaptcha')]`, nil},
		{`//div[contains(concat(' ', @class, ' '), ' g-recaptcha ')]`, nil},
		{`//div[starts-with('recaptcha', @id)]`, nil},
		{`//div['recaptcha' = @id]`, []scanLit{{text: "recaptcha"}}},
		{`//option[@selected]`, nil},
		{`//div[@Data-X]`, nil},
		{`//div[@data-x and @id = 'ab']`, []scanLit{{text: "data-x", name: true}}},
	} {
		x, err := xpatheval.Compile(c.xpath, xpatheval.NewWant())
		if err != nil {
			t.Fatal(err)
		}
		if x.TagTests() == nil {
			t.Fatalf("%s: not a scan XPath", c.xpath)
		}
		if got := scanLiteralRuns(x.TagLiterals()); !slices.Equal(got, c.runs) {
			t.Errorf("%s: runs %+v, want %+v", c.xpath, got, c.runs)
		}
	}
}

// TestLiteralsAbsent: a body answers "absent" for a scan XPath only when none of its runs is in it
// as it is and no character reference may stand for a letter or digit; the scan itself is then
// never run.
func TestLiteralsAbsent(t *testing.T) {
	m := &matcher{scanRuns: []scanLit{{text: "captcha"}, {text: "NEXT"}, {text: "data-item-id", name: true}}}
	for _, c := range []struct {
		body string
		want bool
	}{
		{`<div data-item-id=3>`, false},
		{`<div DATA-Item-ID=3>`, false},
		{`<div data-item-idx=3>`, false},
		{`<div data-item=3>`, true},
		{`<div id="product">&amp;&#39;</div>`, true},
		{`<div id="px-captcha">`, false},
		{`<script>var a = "captcha"</script>`, false},
		{`<script id="__NEXT_DATA__">`, false},
		{`<div id="px-c&#97;ptcha">`, false},
		{`<div id="x">&#x4E;</div>`, false},
		{`<div id="x">&fjlig;</div>`, false},
		{`<div id="x">&#47;</div>`, true},
	} {
		sr := &stepResult{body: []byte(c.body)}
		if got := sr.literalsAbsent(m); got != c.want {
			t.Errorf("%q: literalsAbsent %v, want %v", c.body, got, c.want)
		}
		if sr.scanDone {
			t.Errorf("%q: scanned", c.body)
		}
	}
	if (&stepResult{body: []byte(`<p>`)}).literalsAbsent(&matcher{}) {
		t.Error("a matcher without runs is absent")
	}
	// names have no character references
	names := &matcher{scanRuns: []scanLit{{text: "data-x", name: true}}}
	if !(&stepResult{body: []byte(`<p title="&#65;">`)}).literalsAbsent(names) {
		t.Error("a reference hides a name")
	}
}

// FuzzLiteralsAbsent: whenever the literals say a scan XPath selects nothing, the parsed tree has
// no node it selects.
func FuzzLiteralsAbsent(f *testing.F) {
	xpaths := []string{
		`//script[@id='__NEXT_DATA__'] | //div[@data-item-id] | //div[@id='product-overview']`,
		`//div[@id='px-captcha']`,
		`//form[contains(@action, '/das_captcha') or starts-with(@action, 'https://consent.google.com/')]`,
	}
	for _, s := range []string{`<div id="px-c&#97;ptcha">`, `<DIV DATA-ITEM-ID>`, `<script id=__NEXT_DATA__>`,
		`<form action="/das_c&#x61;ptcha">`, `<div id="px-captcha">`, `<form action='https://consent.google.com/x'>`} {
		f.Add(s)
	}
	var compiled []*xpatheval.Expr
	for _, src := range xpaths {
		x, err := xpatheval.Compile(src, xpatheval.NewWant())
		if err != nil {
			f.Fatal(err)
		}
		compiled = append(compiled, x)
	}
	f.Fuzz(func(t *testing.T, page string) {
		tree, err := dom.ParseHTML([]byte(page))
		if err != nil {
			return
		}
		for _, x := range compiled {
			m := &matcher{scanRuns: scanLiteralRuns(x.TagLiterals())}
			sr := &stepResult{body: []byte(page)}
			if sr.literalsAbsent(m) && len(xpatheval.NewEvaluator(nil).Nodes(x, dom.Navigator(tree))) > 0 {
				t.Fatalf("%s on %q: the literals say absent, the tree has a node", x, page)
			}
		}
	})
}
