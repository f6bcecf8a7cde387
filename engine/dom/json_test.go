package dom

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		name, in string
		want     any
		err      error // nil: must succeed; errAny: any error
	}{
		{"object", `{"a": 1, "b": [true, null, "x"]}`, map[string]any{"a": 1.0, "b": []any{true, nil, "x"}}, nil},
		{"numbers are float64", `[1, 2.5, -3e2, 900719925474099]`, []any{1.0, 2.5, -300.0, 900719925474099.0}, nil},
		{"an integer past 15 digits is an int", `[9007199254740993]`, []any{9007199254740993}, nil},
		{"null", `null`, nil, nil},
		{"bom", "\xEF\xBB\xBF{\"a\":1}", map[string]any{"a": 1.0}, nil},
		{"xssi", ")]}'\n{\"a\":1}", map[string]any{"a": 1.0}, nil},
		{"xssi comma", ")]}',\n[1]", []any{1.0}, nil},
		{"for loop prefix", `for (;;);{"a":1}`, map[string]any{"a": 1.0}, nil},
		{"depth at limit", nested(MaxDepth), nil, nil},
		{"depth over limit", nested(MaxDepth + 1), nil, ErrTooDeep},
		{"very deep", strings.Repeat(`{"a":`, 1_000_000), nil, ErrTooDeep},
		{"brackets in strings do not count", `["` + strings.Repeat("[", 1000) + `"]`, []any{strings.Repeat("[", 1000)}, nil},
		{"escaped quote", `["a\"[[[[", 1]`, []any{`a"[[[[`, 1.0}, nil},
		{"empty", ``, nil, errAny},
		{"syntax", `{"a":}`, nil, errAny},
		{"trailing garbage", `{} x`, nil, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeJSON([]byte(tt.in))
			switch {
			case tt.err == nil && err != nil:
				t.Fatalf("error %v", err)
			case tt.err == errAny && err == nil, tt.err != nil && tt.err != errAny && !errors.Is(err, tt.err):
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if tt.err == nil && tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

var errAny = errors.New("any error")

func TestScriptJSON(t *testing.T) {
	tests := []struct {
		name, body, marker string
		want               any
		err                error
	}{
		{"var", `<script>var ytInitialData = {"a":1};var x = 2;</script>`, `ytInitialData\s*=`, map[string]any{"a": 1.0}, nil},
		{"no space", `ytInitialData={"a":1};`, `ytInitialData\s*=`, map[string]any{"a": 1.0}, nil},
		{"array", "window.items =\n  [1, {\"b\": [2]}];", `window\.items\s*=`, []any{1.0, map[string]any{"b": []any{2.0}}}, nil},
		{"window bracket", `window["ytInitialData"] = {"a":[1,2]};`, `ytInitialData`, map[string]any{"a": []any{1.0, 2.0}}, nil},
		{"lazy regex trap", `x = {"a":"};", "b":{"c":"}"}}; var z = {"d":1};`, `x\s*=`, map[string]any{"a": "};", "b": map[string]any{"c": "}"}}, nil},
		{"escapes in strings", `x = {"a":"\"}\\","b":"\\\"{"};`, `x\s*=`, map[string]any{"a": `"}\`, "b": `\"{`}, nil},
		{"json.parse single quotes", `ytInitialData = JSON.parse('{\x22a\x22:\x7b\x22b\x22:[1]\x7d}');`, `ytInitialData\s*=`, map[string]any{"a": map[string]any{"b": []any{1.0}}}, nil},
		{"json.parse with escaped quote", `d = JSON.parse('{"a":"it\'s \\"q\\""}')`, `d\s*=`, map[string]any{"a": `it's "q"`}, nil},
		{"string literal", `x = "{\"a\":1}";`, `x\s*=`, map[string]any{"a": 1.0}, nil},
		{"json string value", `{"args":{"player_response":"{\"videoDetails\":{\"videoId\":\"abc\"}}"}}`, `"player_response"\s*:`, map[string]any{"videoDetails": map[string]any{"videoId": "abc"}}, nil},
		{"unicode escapes", `x = '{"a":"caf\u00e9 \ud83d\ude00 \u{1F600}"}'`, `x\s*=`, map[string]any{"a": "café 😀 😀"}, nil},
		{"next data", `<script id="__NEXT_DATA__" type="application/json">{"props":{"p":1}}</script>`, `__NEXT_DATA__`, map[string]any{"props": map[string]any{"p": 1.0}}, nil},
		{"call argument", `ytcfg.set({"A":"b"}); ytcfg.set({"C":1})`, `ytcfg\.set\(`, map[string]any{"A": "b"}, nil},
		{"first match null, second has value", `var x = null; ... var x = {"b":2};`, `var x\s*=`, map[string]any{"b": 2.0}, nil},
		{"null only", `var x = null; var y = {"a":1};`, `x\s*=`, nil, nil},
		{"marker absent", `var y = {"a":1};`, `ytInitialData`, nil, nil},
		{"value too far", `x =` + strings.Repeat(" ", 300) + `{"a":1}`, `x\s*=`, nil, nil},
		{"tag before value", `x = </script><script>{"a":1}`, `x\s*=`, nil, nil},
		{"empty regexp", `{"a":1}`, ``, map[string]any{"a": 1.0}, nil},
		{"unbalanced", `x = {"a":[1,2}`, `x\s*=`, nil, errUnbalanced},
		{"15 broken values then a good one", strings.Repeat(`x = {"a":[1,2}`+"\n", maxFailedValues-1) + `x = {"a":1}`, `x\s*=`, map[string]any{"a": 1.0}, nil},
		// Each broken value scans to the end of the body; the tries are bounded, so the work is linear.
		{"16 broken values: no more tries", strings.Repeat(`x = {"a":[1,2}`+"\n", maxFailedValues) + `x = {"a":1}`, `x\s*=`, nil, errUnbalanced},
		{"matches without a value are not tries", strings.Repeat(`x = null;`, 100) + `x = {"a":1}`, `x\s*=`, map[string]any{"a": 1.0}, nil},
		{"bad value then good one", `f(a.ytInitialData, function(){ return 1 }); var ytInitialData = {"ok":true};`, `ytInitialData`, map[string]any{"ok": true}, nil},
		{"first decoding error reported", `x = {bad}; x = [1,}`, `x\s*=`, nil, errAny},
		{"not json", `x = {a: 1};`, `x\s*=`, nil, errAny},
		{"unterminated string literal", `x = JSON.parse('{"a":1}`, `x\s*=`, nil, errAny},
		{"too deep", `x = ` + nested(MaxDepth+1), `x\s*=`, nil, ErrTooDeep},
		{"too deep in string", `x = "` + nested(MaxDepth+1) + `"`, `x\s*=`, nil, ErrTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ScriptJSON([]byte(tt.body), regexp.MustCompile(tt.marker))
			switch {
			case tt.err == nil && err != nil:
				t.Fatalf("error %v", err)
			case tt.err == errAny && err == nil, tt.err != nil && tt.err != errAny && !errors.Is(err, tt.err):
				t.Fatalf("error %v, want %v", err, tt.err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
	if _, err := ScriptJSON([]byte("x"), nil); err == nil {
		t.Error("nil marker: no error")
	}
}

func TestReadJSString(t *testing.T) {
	for in, want := range map[string]string{
		`"plain"rest`:        "plain",
		`'a\'b'`:             "a'b",
		`"\x41\u0042\u{43}"`: "ABC",
		`"a\
b"`: "ab",
		`"\n\t\\\/"`:     "\n\t\\/",
		`"\ud83d\ude00"`: "😀",
		`"\ud83d"`:       "\uFFFD",
		`"\q\x4"`:        "qx4",
		"`multi\nline`":  "multi\nline",
	} {
		got, n, ok := readJSString([]byte(in))
		if !ok || string(got) != want {
			t.Errorf("readJSString(%q) = %q, %v; want %q", in, got, ok, want)
		}
		if ok && in[n-1] != in[0] {
			t.Errorf("readJSString(%q) length %d does not end at the quote", in, n)
		}
	}
	for _, in := range []string{`"open`, `'a\'`, "\"a\nb\"", `"\`} {
		if _, _, ok := readJSString([]byte(in)); ok {
			t.Errorf("readJSString(%q) ok", in)
		}
	}
}

func parseDoc(t testing.TB, s string) *html.Node {
	t.Helper()
	doc, err := ParseHTML([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func ld(s string) string { return `<script type="application/ld+json">` + s + `</script>` }

func TestJSONLD(t *testing.T) {
	tests := []struct {
		name, html string
		want       []map[string]any
	}{
		{"none", `<p>x</p><script>{"@type":"X"}</script>`, nil},
		{"object", ld(`{"@type":"Product","name":"A"}`), []map[string]any{{"@type": "Product", "name": "A"}}},
		{"array flattened", ld(`[{"@type":"A"},[{"@type":"B"}],"junk",1]`), []map[string]any{{"@type": "A"}, {"@type": "B"}}},
		{"graph", ld(`{"@context":"https://schema.org","@graph":[{"@type":"WebPage"},{"@type":"Recipe"}]}`), []map[string]any{{"@type": "WebPage"}, {"@type": "Recipe"}}},
		{"typed graph holder kept", ld(`{"@type":"WebSite","@graph":[{"@type":"A"}]}`), []map[string]any{{"@type": "WebSite", "@graph": []any{map[string]any{"@type": "A"}}}, {"@type": "A"}}},
		{"document order", `<head>` + ld(`{"@type":"A"}`) + `</head><body><div>` + ld(`{"@type":"B"}`) + `</div>` + ld(`{"@type":"C"}`) + `</body>`, []map[string]any{{"@type": "A"}, {"@type": "B"}, {"@type": "C"}}},
		{"type attribute variants", `<script type=" Application/LD+JSON; charset=utf-8 ">{"@type":"A"}</script><script type="application/json">{"@type":"B"}</script>`, []map[string]any{{"@type": "A"}}},
		{"cdata wrapper", ld("\n//<![CDATA[\n{\"@type\":\"A\"}\n//]]>\n"), []map[string]any{{"@type": "A"}}},
		{"bare cdata", ld("<![CDATA[{\"@type\":\"A\"}]]>"), []map[string]any{{"@type": "A"}}},
		{"comment wrapper", ld("<!--\n{\"@type\":\"A\"};\n-->"), []map[string]any{{"@type": "A"}}},
		{"trailing commas", ld(`{"@type":"A","list":[1,2,],}`), []map[string]any{{"@type": "A", "list": []any{1.0, 2.0}}}},
		{"raw newline in string", ld("{\"@type\":\"A\",\"d\":\"line1\nline2\ttab\"}"), []map[string]any{{"@type": "A", "d": "line1\nline2\ttab"}}},
		{"control char outside string", ld("{\"@type\":\"A\"\x01}"), []map[string]any{{"@type": "A"}}},
		{"missing values", ld(`{"@type":"A","image":{"width": ,"height":
		}}`), []map[string]any{{"@type": "A", "image": map[string]any{"width": nil, "height": nil}}}},
		{"invalid escapes", ld(`{"@type":"A","n":"it\'s C:\dir"}`), []map[string]any{{"@type": "A", "n": `it's C:\dir`}}},
		{"several values", ld(`{"@type":"A"} {"@type":"B"},{"@type":"C"}`), []map[string]any{{"@type": "A"}, {"@type": "B"}, {"@type": "C"}}},
		{"bad block skipped", ld(`{"@type": oops}`) + ld(`{"@type":"B"}`), []map[string]any{{"@type": "B"}}},
		{"good prefix of bad block kept", ld(`{"@type":"A"} {oops}`), []map[string]any{{"@type": "A"}}},
		{"empty block", ld(`   `), nil},
		{"too deep", ld(nested(MaxDepth+1)) + ld(`{"@type":"B"}`), []map[string]any{{"@type": "B"}}},
		{"quotes as references", ld(`{ & #34;@type&# 34;: &quot;A&quot;, &#34;n&#x22;: &#34;B &amp; C&#34;}`), []map[string]any{{"@type": "A", "n": "B & C"}}},
		{"references in plain JSON kept", ld(`{"@type":"A","n":"B &amp; &quot;C"}`), []map[string]any{{"@type": "A", "n": "B &amp; &quot;C"}}},
		{"same @id across blocks", ld(`{"@type":"Recipe","@id":"r","aggregateRating":{"v":4}}`) + ld(`{"@type":"Recipe","@id":"r","name":"N","aggregateRating":{"v":1}}`),
			[]map[string]any{{"@type": "Recipe", "@id": "r", "name": "N", "aggregateRating": map[string]any{"v": 4.0}}}},
		{"same @id nested as mainEntity", ld(`{"@type":"WebPage","mainEntity":{"@type":"Recipe","@id":"r","name":"N"}}`) + ld(`{"@type":"Recipe","@id":"r","r":1}`),
			[]map[string]any{{"@type": "WebPage", "mainEntity": map[string]any{"@type": "Recipe", "@id": "r", "name": "N"}}, {"@type": "Recipe", "@id": "r", "r": 1.0, "name": "N"}}},
		{"same @id in @graph", ld(`{"@graph":[{"@id":"a","@type":"Article"},{"@id":"a","headline":"H"},{"@id":"a"}]}`),
			[]map[string]any{{"@type": "Article", "@id": "a", "headline": "H"}, {"@id": "a"}}},
		{"same @id, other types kept apart", ld(`{"@type":"WebPage","@id":"u","name":"W"}`) + ld(`{"@type":"NewsArticle","@id":"u","headline":"H"}`),
			[]map[string]any{{"@type": "WebPage", "@id": "u", "name": "W"}, {"@type": "NewsArticle", "@id": "u", "headline": "H"}}},
		{"same @id, a type in common", ld(`{"@type":["Recipe","HowTo"],"@id":"r"}`) + ld(`{"@type":"schema:Recipe","@id":"r","name":"N"}`),
			[]map[string]any{{"@type": []any{"Recipe", "HowTo"}, "@id": "r", "name": "N"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := JSONLD(parseDoc(t, tt.html))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
	if JSONLD(nil) != nil {
		t.Error("JSONLD(nil) not nil")
	}
}

func TestFindJSONLD(t *testing.T) {
	objs := []map[string]any{
		{"@type": "webpage", "n": 0},
		{"@type": "WebPage", "n": 1},
		{"@type": []any{"Thing", 3.0, "http://schema.org/Product"}, "n": 2},
		{"@type": "https://schema.org/Recipe", "n": 3},
		{"@type": "schema:Offer", "n": 4},
		{"@type": "Recipe", "n": 5},
		{"n": 6},
		{"@type": "WebSite", "mainEntity": map[string]any{"@type": "HowTo", "n": 7, "step": []any{map[string]any{"@type": "HowToStep", "n": 8}}}},
	}
	for typ, want := range map[string]any{
		"WebPage": 1, "Thing": 2, "Product": 2, "Recipe": 3, "Offer": 4,
		"webpage": 0,                 // exact before any other case
		"product": 2,                 // else in another case
		"HowTo":   7, "HowToStep": 8, // else nested, breadth first
		"howto": nil, // nested objects match exactly only
		"Page":  nil, "": nil, "http://schema.org/Product": 2,
	} {
		got := FindJSONLD(objs, typ)
		switch {
		case want == nil && got != nil:
			t.Errorf("FindJSONLD(%q) = %v, want nil", typ, got)
		case want != nil && (got == nil || got["n"] != want):
			t.Errorf("FindJSONLD(%q) = %v, want n=%v", typ, got, want)
		}
	}
	if FindJSONLD(nil, "X") != nil {
		t.Error("FindJSONLD(nil) not nil")
	}
}

func TestRepairJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,}`:         `{"a":1}`,
		`[1,,2]`:           `[1,2]`,
		`[,1]`:             `[1]`,
		`{"a":,"b":1}`:     `{"a":null,"b":1}`,
		`{"a": }`:          `{"a": null}`,
		`{"a":,}`:          `{"a":null}`,
		"\"a\nb\"":         `"a\nb"`,
		"\"\x00\"":         `"\u0000"`,
		`"\u12"`:           `"\\u12"`,
		`"x\`:              `"x\\`,
		`"a,}" , ]`:        `"a,}"  ]`,
		"\"a\\\nb\"":       `"ab"`,
		`{"u":"\u00e9\/"}`: `{"u":"\u00e9\/"}`,
	} {
		if got := string(repairJSON([]byte(in))); got != want {
			t.Errorf("repairJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestMaybeJSON checks that a body MaybeJSON turns down is one DecodeJSON fails on.
func TestMaybeJSON(t *testing.T) {
	for _, tt := range []struct {
		body string
		want bool
	}{
		{`{"a":1}`, true},
		{" \n[1]", true},
		{"\ufeff{}", true},
		{")]}'\n,{}", true},
		{"for(;;);[1]", true},
		{`"s"`, true},
		{"-1", true},
		{"42", true},
		{"true", true},
		{"null", true},
		{"<!doctype html><html>{}</html>", false},
		{"\ufeff <html>", false},
		{"", false},
		{" \t\r\n", false},
		{"\f{}", false},
		{"+1", false},
		{"NaN", false},
		{")]}'<x>", false},
	} {
		if got := MaybeJSON([]byte(tt.body)); got != tt.want {
			t.Errorf("MaybeJSON(%q) = %v, want %v", tt.body, got, tt.want)
		}
		if _, err := DecodeJSON([]byte(tt.body)); !tt.want && err == nil {
			t.Errorf("DecodeJSON(%q) succeeds where MaybeJSON says it cannot", tt.body)
		}
	}
}

// depthByByte is balancedEnd (when balanced) and checkDepth as they were written before stringEnd
// skipped strings with bytes.IndexByte: byte by byte.
func depthByByte(b []byte, balanced bool) (int, error) {
	depth, err := 0, error(nil)
	if balanced {
		err = errUnbalanced
	}
	end := scanByByte(b, func(i int, c byte) bool {
		switch c {
		case '{', '[':
			if depth++; depth > MaxDepth {
				err = ErrTooDeep
				return true
			}
		case '}', ']':
			if depth--; depth == 0 && balanced {
				err = nil
				return true
			}
		}
		return false
	})
	if err != nil {
		return 0, err
	}
	return end + 1, nil
}

// scanByByte calls f with each byte of b outside strings (and their escapes) until f is true, and
// returns the index f stopped at, or len(b).
func scanByByte(b []byte, f func(i int, c byte) bool) int {
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if f(i, c) {
			return i
		}
	}
	return len(b)
}

var scanSeeds = []string{
	`{"a":"}\"{","b":["\\",{"c":"\\\""}]}`, `["\\\\\\"]`, `{"a":"x\\`, `{"a":1`, `[[[]]]x`, `"x"`,
	`{"a":"\"\"\\"}]`, `[` + `"` + strings.Repeat(`\\`, 7) + `"]`, nested(MaxDepth + 1), nested(MaxDepth),
}

func TestScansSameAsByByte(t *testing.T) {
	for _, s := range scanSeeds {
		checkScans(t, []byte(s))
	}
}

func checkScans(t *testing.T, b []byte) {
	t.Helper()
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		n, err := balancedEnd(b)
		wn, werr := depthByByte(b, true)
		if n != wn || err != werr {
			t.Fatalf("balancedEnd(%q) = %d, %v; want %d, %v", b, n, err, wn, werr)
		}
	}
	_, werr := depthByByte(b, false)
	if err := checkDepth(b); err != werr {
		t.Fatalf("checkDepth(%q) = %v, want %v", b, err, werr)
	}
}

func FuzzScans(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkScans(t, b) })
}

// TestJSLiteralsAsNull: the JavaScript values JSON lacks become null where they stand as values,
// never inside strings, in keys' places or as part of a longer word.
func TestJSLiteralsAsNull(t *testing.T) {
	for _, c := range []struct {
		in, want string // want "" when nothing is rewritten
	}{
		{`{"a": undefined, "b": 1}`, `{"a": null, "b": 1}`},
		{`[NaN,Infinity, -Infinity ,undefined]`, `[null,null, null ,null]`},
		{`{"a":"undefined","b":"x\" undefined"}`, ""},
		{`{"a": undefinedValue}`, ""},
		{`{"a": 1}`, ""},
		{`{"a": [1, {"b": undefined}]}`, `{"a": [1, {"b": null}]}`},
		{`{"a": "unterminated`, ""},
		{`{undefined: 1}`, ""},
	} {
		out, ok := JSLiteralsAsNull([]byte(c.in))
		if ok != (c.want != "") || string(out) != c.want {
			t.Errorf("JSLiteralsAsNull(%q) = %q, %v; want %q", c.in, out, ok, c.want)
		}
	}
}

// A state script of tumblr's kind, a JavaScript literal with undefined in it, is read as script
// JSON.
func TestScriptJSONUndefined(t *testing.T) {
	body := []byte(`<script>window['___INITIAL_STATE___'] = {"a": undefined, "b": [1, NaN], "c": "undefined"};</script>`)
	v, err := ScriptJSON(body, regexp.MustCompile(`___INITIAL_STATE___'\]\s*=`))
	if err != nil || v == nil {
		t.Fatalf("not decoded: %v", err)
	}
	if got, _ := json.Marshal(v); string(got) != `{"a":null,"b":[1,null],"c":"undefined"}` {
		t.Errorf("got %s", got)
	}
}
