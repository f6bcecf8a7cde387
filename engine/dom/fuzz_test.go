package dom

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/antchfx/xpath"
	"golang.org/x/net/html"
)

var fuzzMarkers = []*regexp.Regexp{
	regexp.MustCompile(`ytInitialPlayerResponse\s*=`),
	regexp.MustCompile(`ytInitialData`),
	regexp.MustCompile(`__NEXT_DATA__`),
	regexp.MustCompile(`"player_response"\s*:`),
	regexp.MustCompile(`x`),
	regexp.MustCompile(``),
}

func FuzzScriptJSON(f *testing.F) {
	for _, s := range []string{
		`var ytInitialPlayerResponse = {"videoDetails":{"videoId":"abc"}};var meta = 1;`,
		`window["ytInitialData"] = {"a":[1,2,{"b":"}\"{"}]};`,
		`ytInitialData = JSON.parse('{\x22a\x22:\x7b\x22b\x22:[1]\x7d}');`,
		`<script id="__NEXT_DATA__" type="application/json">{"props":{}}</script>`,
		`{"args":{"player_response":"{\"videoDetails\":{}}"}}`,
		`x = '\u{1F600}\ud83d\ude00\
'`,
		`x = "` + nested(MaxDepth+1) + `"`,
		`x = {"a":[1,2}`,
		`var x = null; x = {"b":2}`,
		"x = `{\"a\":1}`",
	} {
		for i := range fuzzMarkers {
			f.Add([]byte(s), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, m uint8) {
		v, err := ScriptJSON(body, fuzzMarkers[int(m)%len(fuzzMarkers)])
		if err != nil && v != nil {
			t.Fatalf("value %v with error %v", v, err)
		}
		if v != nil {
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("decoded value does not marshal: %v", err)
			}
		}
	})
}

func FuzzParseHTML(f *testing.F) {
	for _, s := range []string{
		`<html><head><meta charset="windows-1251"><title>T</title></head><body><p>a<b>b</b></p></body></html>`,
		"<p>caf\xe9 \x93q\x94</p>",
		"\xff\xfe<\x00p\x00>\x00",
		"\xef\xbb\xbf<div>\u00a0x\u200b\u200dy</div>",
		`<table><tr><td>1<td>2</table><script>var x="</p>"</script><noscript><p>n</p></noscript>`,
		`<template><p>t</p></template><svg><title>s</title><style>x</style></svg><math><mi>x</mi></math>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><a>x</a>`,
		`<meta http-equiv="content-type" content="text/html; charset=iso-2022-jp">` + "\x1b$B$3$s\x1b(B",
		strings.Repeat("<div>", 600),
		strings.Repeat("<b><i>", 100) + "x",
	} {
		f.Add([]byte(s), "")
		f.Add([]byte(s), "text/html; charset=windows-1252")
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		u, err := ToUTF8(body, contentType)
		if err != nil {
			return
		}
		if !utf8.Valid(u) {
			t.Fatalf("ToUTF8 returned invalid UTF-8: %q", u)
		}
		checkParseView(t, u)
		doc, err := ParseHTML(u)
		if err != nil {
			return
		}
		walkHTML(doc, func(n *html.Node) {
			checkText(t, Text(Navigator(n)))
			nav := Navigator(n)
			for nav.MoveToNextAttribute() {
				checkText(t, Text(nav))
			}
		})
		_ = JSONLD(doc)
	})
}

func FuzzParseXML(f *testing.F) {
	for _, s := range []string{
		`<?xml version="1.0"?><rss><channel><item><title>a &amp; b&nbsp;</title><d><![CDATA[<b>x</b>]]></d></item></channel></rss>`,
		`<a xmlns:y="u"><y:b c="d">e</y:b></a>`,
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>caf\xe9</a>",
		`<a><b></a>`,
		`<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		doc, err := ParseXML(body)
		if err != nil {
			return
		}
		it := xpath.MustCompile("//node() | //@*").Select(Navigator(doc))
		for i := 0; it.MoveNext() && i < 10000; i++ {
			checkText(t, Text(it.Current()))
		}
	})
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,null,"x\"y"],"c":{"d":-1.5e3}}`,
		`)]}'` + "\n[1]",
		nested(MaxDepth),
		nested(MaxDepth + 1),
		strings.Repeat(`{"a":`, 10000),
		`["\\", "[[[["]`,
		"\xef\xbb\xbf0",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := DecodeJSON(body)
		if sv, serr := DecodeJSONString(string(body)); !sameJSON(sv, v) || (serr == nil) != (err == nil) {
			t.Fatalf("DecodeJSONString(%q) = %v, %v; DecodeJSON: %v, %v", body, sv, serr, v, err)
		}
		if err == nil && !MaybeJSON(body) {
			t.Fatalf("MaybeJSON turns down %q, which decodes", body)
		}
		if errors.Is(err, ErrTooDeep) {
			return
		}
		if err == nil {
			if d := depthOf(v); d > MaxDepth {
				t.Fatalf("decoded a value %d deep", d)
			}
		}
	})
}

func FuzzJSONLD(f *testing.F) {
	for _, s := range []string{
		`{"@context":"https://schema.org","@graph":[{"@type":"Recipe","name":"x"},[{"@type":["Product","Thing"]}]]}`,
		`<!--{"@type":"A",}-->`,
		"//<![CDATA[\n{\"@type\":\"A\",\"d\":\"l1\nl2\",\"w\": ,\"h\":}\n//]]>",
		`{"@type":"A"},{"@type":"B"} {"@type":"C"}`,
		`{"n":"it\'s \q"}`,
		nested(MaxDepth + 1),
		`{ & #34;@type&# 34;: &quot;A&quot;, &#x22;n&#34;: &#34;B &amp; C&#34;}`,
		`{"@graph":[{"@id":"a","@type":"Recipe","x":{"@id":"a","@type":"Recipe","n":1}},{"@id":"a","y":[{"@id":"a","z":2}]}]}`,
		`{"@id":"a","@type":"T","@graph":[{"@id":"b","@type":"T","@graph":[{"@id":"a","@type":"T"}]}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, block string) {
		doc, err := ParseHTML([]byte(`<script type="application/ld+json">` + block + `</script>`))
		if err != nil {
			return
		}
		objs := JSONLD(doc)
		for _, o := range objs {
			if o == nil {
				t.Fatal("nil object")
			}
		}
		for _, o := range objs {
			if _, err := json.Marshal(o); err != nil {
				t.Fatal(err) // merging by @id must not build a cycle
			}
		}
		for _, typ := range []string{"Product", "Recipe", "A"} {
			if o := FindJSONLD(objs, typ); o != nil {
				if _, err := json.Marshal(o); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// checkText asserts the whitespace invariants of Text.
func checkText(t *testing.T, s string) {
	t.Helper()
	if s != strings.TrimSpace(s) && s != collapse(s) {
		t.Fatalf("Text not trimmed: %q", s)
	}
	if strings.Contains(s, "  ") || strings.ContainsAny(s, "\t\n\r\u00a0\u200b") {
		t.Fatalf("Text not collapsed: %q", s)
	}
	if collapse(s) != s {
		t.Fatalf("Text not normalised: %q", s)
	}
}

func walkHTML(n *html.Node, fn func(*html.Node)) {
	stack := []*html.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		fn(n)
		for c := n.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
}

func depthOf(v any) int {
	switch v := v.(type) {
	case []any:
		d := 0
		for _, e := range v {
			d = max(d, depthOf(e))
		}
		return d + 1
	case map[string]any:
		d := 0
		for _, e := range v {
			d = max(d, depthOf(e))
		}
		return d + 1
	}
	return 0
}

// FuzzJSLiteralsAsNull: valid JSON is never rewritten (it has no bare undefined, NaN or
// Infinity), and a rewrite grows the input by at most a third (NaN to null, the worst case).
func FuzzJSLiteralsAsNull(f *testing.F) {
	for _, s := range []string{`{"a": undefined}`, `[NaN, -Infinity, "NaN"]`, `{"a": "\"undefined"}`, `[undefinedx]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, ok := JSLiteralsAsNull(in)
		if ok && json.Valid(in) {
			t.Fatalf("rewrote valid JSON %q to %q", in, out)
		}
		if len(out) > len(in)+len(in)/3+1 {
			t.Fatalf("%d bytes from %d", len(out), len(in))
		}
	})
}
