package engine_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"asa/engine"
	"asa/engine/errcode"
)

const rulesPage = `<html><head><title>Kettles</title></head><body>
<h1> Steel  Kettle </h1><span class="price">$34.99</span>
<ul><li class="p"><a href="/k/1">One</a><b>12</b></li><li class="p"><a href="/k/2">Two</a><b>n/a</b></li></ul>
</body></html>`

func rulesResponse() *engine.Response {
	return &engine.Response{Status: 200, URL: "https://shop.example/kettles", Body: []byte(rulesPage),
		Header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}}
}

func TestRulesRun(t *testing.T) {
	for _, tc := range []struct{ name, rules, want string }{
		{"shorthand", `{"title": "//h1"}`, `{"title":"Steel Kettle"}`},
		{"types and transforms", `{"price": {"xpath": "//span[@class='price']", "type": "float", "transform": "parsePrice(value)"}, "title": {"xpath": "//title"}}`,
			`{"price":34.99,"title":"Kettles"}`},
		{"fallbacks", `{"name": {"select": [{"xpath": "//h2"}, {"xpath": "//h1"}]}, "missing": {"xpath": "//h3", "default": "none"}}`,
			`{"name":"Steel Kettle","missing":"none"}`},
		{"nested list", `{"items": {"type": "list<object>", "xpath": "//li[@class='p']", "fields": {"name": "./a", "url": {"xpath": "./a/@href", "type": "url"}, "n": {"xpath": "./b", "type": "int"}}}}`,
			`{"items":[{"name":"One","url":"https://shop.example/k/1","n":12},{"name":"Two","url":"https://shop.example/k/2","n":null}]}`},
		{"expr and const", `{"host": {"expr": "urlHost(steps.page.url)"}, "v": {"const": 2, "type": "int"}}`, `{"host":"shop.example","v":2}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, probs := engine.CompileRules([]byte(tc.rules), engine.DefaultRuleLimits())
			if len(probs) > 0 {
				t.Fatalf("problems: %+v", probs)
			}
			got, err := rs.Run(context.Background(), rulesResponse())
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestRulesListsAreCapped: a list keeps at most ListItems items, whatever its own limit says.
func TestRulesListsAreCapped(t *testing.T) {
	page := "<html><body><ul>" + strings.Repeat("<li><b>x</b></li>", 1500) + "</ul></body></html>"
	resp := &engine.Response{Status: 200, URL: "https://shop.example/", Body: []byte(page), Header: http.Header{"Content-Type": {"text/html"}}}
	for _, tc := range []struct {
		rules string
		want  int
	}{
		{`{"l": {"type": "list<object>", "xpath": "//li", "fields": {"b": "./b"}}}`, 1000},
		{`{"l": {"type": "list<object>", "xpath": "//li", "limit": "5000", "fields": {"b": "./b"}}}`, 1000},
		{`{"l": {"type": "list<string>", "xpath": "//li", "all": true, "limit": "3"}}`, 3},
	} {
		rs, probs := engine.CompileRules([]byte(tc.rules), engine.DefaultRuleLimits())
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		out, err := rs.Run(context.Background(), resp)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string][]any
		if err := json.Unmarshal(out, &got); err != nil || len(got["l"]) != tc.want {
			t.Errorf("%s: %d items, want %d (%v)", tc.rules, len(got["l"]), tc.want, err)
		}
	}
}

func TestRulesRequiredFieldFails(t *testing.T) {
	rs, probs := engine.CompileRules([]byte(`{"sku": {"xpath": "//input[@id='sku']/@value", "required": true}}`), engine.DefaultRuleLimits())
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	_, err := rs.Run(context.Background(), rulesResponse())
	if e := errcode.As(err); e == nil || e.Code != errcode.ExtractionFailed {
		t.Fatalf("want extraction_failed, got %v", err)
	}
}

func TestRulesProblems(t *testing.T) {
	for _, tc := range []struct{ name, rules, path, msg string }{
		{"not an object", `[1]`, "", "must be a JSON object of fields"},
		{"bad json", `{"a": `, "a", "not valid JSON"},
		{"trailing", `{"a": "//h1"} {}`, "", "nothing after it"},
		{"bad xpath", `{"items": {"type": "list<object>", "xpath": "//li", "fields": {"name": {"xpath": "./a["}}}}`, "items.fields.name.xpath", "bad XPath"},
		{"bad expr", `{"a": {"expr": "1 +"}}`, "a.expr", "bad expression"},
		{"unknown name", `{"a": {"expr": "params.nope"}}`, "a.expr", "bad expression"},
		{"unknown key", `{"a": {"xpaht": "//h1"}}`, "a.xpaht", `unknown key "xpaht"`},
		{"unknown type", `{"a": {"xpath": "//h1", "type": "money"}}`, "a.type", "unknown type"},
		{"bad regex", `{"a": {"regex": "(("}}`, "a.regex", "bad regular expression"},
		{"select item", `{"a": {"select": [{"xpath": "//h1"}, {"expr": "("}]}}`, "a.select[1].expr", "bad expression"},
		{"no selector", `{"a": {"type": "int"}}`, "a", "needs a selector"},
		{"bad name", `{"A-b": "//h1"}`, "A-b", "field names are lower case"},
		{"wrong kind", `{"a": {"xpath": {"x": 1}}}`, "a.xpath", "expected a string"},
		{"absolute in list", `{"items": {"type": "list<object>", "xpath": "//li", "fields": {"t": "//title"}}}`, "items.fields.t", "absolute XPath inside a list item"},
		{"extends", `{"a": {"extends": "shop.product"}}`, "a.extends", "for sitedef files"},
		{"quadratic xpath", `{"a": "//li[//b]"}`, "a", "absolute path inside a predicate"},
		{"quadratic and", `{"a": "//li[@x and //b]"}`, "a", "absolute path inside a predicate"},
		{"following axis", `{"a": "//h1/following::span"}`, "a", "following axis"},
		{"xpath too long", `{"a": "//` + strings.Repeat("a", 600) + `"}`, "a", "over the limit of 512"},
		{"regex too long", `{"a": {"regex": "` + strings.Repeat("a", 300) + `"}}`, "a.regex", "over the limit of 256"},
		{"expr too big", `{"a": {"expr": "` + strings.Repeat("1+", 400) + `1"}}`, "a.expr", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, probs := engine.CompileRules([]byte(tc.rules), engine.DefaultRuleLimits())
			if rs != nil || len(probs) == 0 {
				t.Fatalf("compiled; want a problem at %q", tc.path)
			}
			if probs[0].Path != tc.path || !strings.Contains(probs[0].Message, tc.msg) {
				t.Errorf("got %+v\nwant path %q, message with %q", probs, tc.path, tc.msg)
			}
		})
	}
}

// TestRulesPathologicalRefusedAtOnce checks each limit refuses a rule set after little work: the
// tokens read before the refusal are counted, never timed.
func TestRulesPathologicalRefusedAtOnce(t *testing.T) {
	lim := engine.DefaultRuleLimits()
	manyFields := func(n int) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(`"f` + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + `_` + itoa(i) + `":"//h1"`)
		}
		b.WriteString("}")
		return b.String()
	}
	deepFields := `{"a":{"fields":{"b":{"fields":{"c":{"fields":{"d":{"fields":{"e":{"fields":{"f":"//x"}}}}}}}}}}}`
	for _, tc := range []struct {
		name, rules, msg string
		maxTokens        int
	}{
		{"bytes", `{"a":"` + strings.Repeat("x", lim.Bytes) + `"}`, "bytes, over the limit", 0},
		{"fields", manyFields(5000)[:lim.Bytes-1], "more than 100 fields", 2 * (lim.Fields + 2)},
		{"depth", deepFields, "nest more than 4 levels", 20},
		{"json depth", strings.Repeat(`{"a":{"const":`, 1) + strings.Repeat("[", 8000), "nests more than 32", 40},
		{"values", `{"a":{"const":[` + strings.TrimSuffix(strings.Repeat("1,", 5000), ",") + `]}}`, "more than 2000 JSON values", lim.Values + 10},
		{"select", `{"a":{"select":[` + strings.TrimSuffix(strings.Repeat(`{"xpath":"//a"},`, 50), ",") + `]}}`, "more than 5 selectors", 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, prob := engine.ReadRulesCounted([]byte(tc.rules), lim)
			if !strings.Contains(prob, tc.msg) {
				t.Fatalf("problem %q, want %q", prob, tc.msg)
			}
			if n > tc.maxTokens {
				t.Errorf("read %d tokens before refusing; want at most %d", n, tc.maxTokens)
			}
		})
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// FuzzRules feeds arbitrary bytes to the rule-set reader and compiler: never a panic, a rule set
// either compiles or says why at a path, and one that compiles runs on a page.
func FuzzRules(f *testing.F) {
	for _, s := range []string{`{"title": "//h1"}`, `{"a": {"type": "list<object>", "xpath": "//li", "fields": {"b": "./a"}}}`,
		`{"a": {"select": [{"xpath": "//h2"}, {"expr": "1"}], "default": [1, {"x": null}]}}`, `{"a": {"regex": "(\\d+)", "type": "int"}}`,
		`{"a": "//li[.//b]"}`, `{`, `[]`, `{"a": {"fields": {"b": {"fields": {}}}}}`} {
		f.Add([]byte(s))
	}
	lim := engine.DefaultRuleLimits()
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, probs := engine.CompileRules(data, lim)
		if (rs == nil) == (len(probs) == 0) {
			t.Fatalf("rule set %v with problems %v", rs != nil, probs)
		}
		for _, p := range probs {
			if p.Message == "" {
				t.Fatalf("a problem without a message at %q", p.Path)
			}
		}
		if rs != nil {
			_, _ = rs.Run(context.Background(), rulesResponse())
		}
	})
}

// benchRules is a realistic rule set: a title with fallbacks, a typed price, and a list of items.
const benchRules = `{"title": {"select": [{"xpath": "//h2"}, {"xpath": "//h1"}]},
 "price": {"xpath": "//span[@class='price']", "type": "float", "transform": "parsePrice(value)"},
 "items": {"type": "list<object>", "xpath": "//li[@class='p']", "fields": {"name": "./a", "url": {"xpath": "./a/@href", "type": "url"}, "n": {"xpath": "./b", "type": "int"}}}}`

// BenchmarkRulesCompile is the cost of a rule set the server has not cached yet.
func BenchmarkRulesCompile(b *testing.B) {
	lim := engine.DefaultRuleLimits()
	for b.Loop() {
		if _, probs := engine.CompileRules([]byte(benchRules), lim); len(probs) > 0 {
			b.Fatal(probs)
		}
	}
}

// BenchmarkRulesRun is the cost extract_rules adds to a fetched page (parsing it again included).
func BenchmarkRulesRun(b *testing.B) {
	rs, probs := engine.CompileRules([]byte(benchRules), engine.DefaultRuleLimits())
	if len(probs) > 0 {
		b.Fatal(probs)
	}
	resp := rulesResponse()
	ctx := context.Background()
	for b.Loop() {
		if _, err := rs.Run(ctx, resp); err != nil {
			b.Fatal(err)
		}
	}
}
