package engine_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/registry"
)

const envSite = "kind: site\nsite: envs\nname: Envs\ncategory: other\nversion: 1.0.0\ndefault_domain: us\n" +
	"domains:\n  us: {host: www.envs.example, locale: en_US, currency: USD}\n"

// envEndpoint is an endpoint whose fields part is given by each case.
func envEndpoint(fields string) string {
	return `kind: endpoint
resource: item
summary: Names an expression may read.
params:
  query: {type: string, required: true}
steps:
  - id: page
    request: {url: "https://www.envs.example/${ params.query }"}
sources:
  ld: {json_ld: Product}
fields:
` + fields
}

func loadEnvs(t *testing.T, fields string) (*registry.Registry, []string) {
	t.Helper()
	fsys := fstest.MapFS{
		"envs/site.yaml": {Data: []byte(envSite)},
		"envs/item.yaml": {Data: []byte(envEndpoint(fields))},
	}
	reg, diags := registry.Load(engine.New(), fsys)
	var msgs []string
	for _, d := range diags {
		if !d.Warning {
			msgs = append(msgs, d.String())
		}
	}
	return reg, msgs
}

// TestUndeclaredNames: src.x and fields.x that name nothing are load-time errors like params.x, at
// the expression's line; names that exist load, at every level of nesting.
func TestUndeclaredNames(t *testing.T) {
	tests := []struct {
		name   string
		fields string
		want   string // substring of the only error; "" for none
	}{
		{"declared names", "  a: {expr: 'src.ld?.name'}\n  b: {expr: 'fields.a ?? params.query'}\n", ""},
		{"misspelt source", "  a: {expr: 'src.ldd?.name'}\n", "item.yaml:12:13: error: field a: bad expression: unknown field ldd"},
		{"misspelt field", "  a: {expr: '1'}\n  b: {expr: fields.aa}\n", "item.yaml:13:13: error: field b: bad expression: unknown field aa"},
		{"misspelt param", "  a: {expr: params.qeury}\n", "unknown field qeury"},
		{"field of the item's own object", "  list:\n    type: list<object>\n    expr: '[{\"n\": 1}]'\n    fields:\n      n: {type: int, expr: item.n}\n      m: {type: int, expr: fields.n + 1}\n", ""},
		{"outer field inside an item", "  a: {expr: '1'}\n  list:\n    type: list<object>\n    expr: '[{\"n\": 1}]'\n    fields:\n      n: {type: int, expr: fields.a}\n", "unknown field a"},
		{"expression cut by a comment", "  a:\n    expr: split(params.query, \" #\")[0]\n",
			`item.yaml:13:11: error: field a: bad expression: literal not terminated (expression line 1, column 22); YAML read "#\")[0]" as a comment and cut the expression there: quote the whole value: 'split(params.query, " #")[0]'`},
		{"a comment after a whole expression", "  a:\n    expr: params.query  # the id as given\n", ""},
		{"field rule after the fields", "  a: {expr: fields.list}\n  list:\n    type: list<object>\n    expr: '[]'\n    fields:\n      n: {expr: item.n}\n  b: {expr: fields.a}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := loadEnvs(t, tt.fields)
			if tt.want == "" {
				if len(errs) > 0 {
					t.Fatalf("unexpected errors: %v", errs)
				}
				return
			}
			if len(errs) != 1 || !strings.Contains(errs[0], tt.want) {
				t.Fatalf("want one error containing %q, got %v", tt.want, errs)
			}
		})
	}
}

// TestBuiltMapsAreObjects: maps built by fromPairs and expr's groupBy are accepted by object and any
// fields and encoded as JSON objects; keys() is sorted.
func TestBuiltMapsAreObjects(t *testing.T) {
	reg, errs := loadEnvs(t, `  pairs: {type: object, expr: 'fromPairs([["b", 1], ["a", 2]])'}
  groups: {type: any, expr: 'groupBy([1, 2, 3], # % 2 == 0 ? "even" : "odd")'}
  grouped: {type: object, expr: 'groupBy(["x"], "k")'}
  list: {type: list<object>, expr: 'map([1, 2], fromPairs([["n", #]]))'}
  names: {type: list<string>, expr: 'keys({"z": 1, "y": 2, "x": 3})'}
`)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	out := fixture.Execute(context.Background(), reg.Plan("envs.item"), url.Values{"query": {"q"}},
		&fixture.Replay{Replies: map[string]*fixture.Reply{"page": reply("<html><body></body></html>")}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := `{"pairs":{"a":2,"b":1},"groups":{"even":[2],"odd":[1,3]},"grouped":{"k":["x"]},"list":[{"n":1},{"n":2}],"names":["x","y","z"]}`
	if got := string(out.JSON); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if len(out.Res.Warnings) > 0 {
		t.Errorf("warnings: %v", out.Res.Warnings)
	}
}

// TestObjectWhoseXPathSelectsNothing: an object selected by XPath is null when its selectors select
// nothing, rather than an object whose children read the page around it (a knowledge panel's
// fields picked up from the results below it). Inside a list item the same holds, and an object
// whose XPath selects falls back through its selectors as before.
func TestObjectWhoseXPathSelectsNothing(t *testing.T) {
	reg, errs := loadEnvs(t, `  panel:
    type: object
    xpath: //div[@id='panel']
    fields:
      title: {type: string, xpath: .//h2}
  second_choice:
    type: object
    select:
      - xpath: //div[@id='panel']
      - xpath: //div[@id='side']
    fields:
      title: {type: string, xpath: .//h2}
  cards:
    type: list<object>
    xpath: //li
    fields:
      name: {type: string, xpath: ./b}
      badge:
        type: object
        xpath: ./i
        fields:
          text: {type: string, xpath: .}
`)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	body := "<html><body><div id='side'><h2>Side</h2></div><ul><li><b>one</b><i>new</i></li><li><b>two</b></li></ul><h2>Elsewhere</h2></body></html>"
	out := fixture.Execute(context.Background(), reg.Plan("envs.item"), url.Values{"query": {"q"}},
		&fixture.Replay{Replies: map[string]*fixture.Reply{"page": reply(body)}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := `{"panel":null,"second_choice":{"title":"Side"},"cards":[{"name":"one","badge":{"text":"new"}},{"name":"two","badge":null}]}`
	if got := string(out.JSON); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestObjectWhoseExprGivesNothing: an object whose expression selectors all give nothing is null,
// as one whose XPath selects nothing: its children would read the parent's item (nil at the top,
// warning on every item.x) and make an object of nulls. One selector that gives a value is read.
func TestObjectWhoseExprGivesNothing(t *testing.T) {
	reg, errs := loadEnvs(t, `  address:
    type: object
    select:
      - expr: 'nil'
      - expr: '{}'
    fields:
      city: {type: string, expr: item.city}
  fallback:
    type: object
    select:
      - expr: 'nil'
      - expr: '{"city": "Oslo"}'
    fields:
      city: {type: string, expr: item.city}
`)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	out := fixture.Execute(context.Background(), reg.Plan("envs.item"), url.Values{"query": {"q"}},
		&fixture.Replay{Replies: map[string]*fixture.Reply{"page": reply("<html><body></body></html>")}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := `{"address":null,"fallback":{"city":"Oslo"}}`
	if got := string(out.JSON); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if len(out.Res.Warnings) > 0 {
		t.Errorf("warnings: %v", out.Res.Warnings)
	}
}

// TestTextBlock: text: block lays an element's text out in lines (dom.BlockText) for one node, for
// each node of a list, and inside a list item; text: flat is the default; text names one of the two
// and goes with xpath only.
func TestTextBlock(t *testing.T) {
	reg, errs := loadEnvs(t, `  body: {type: string, xpath: "//div[@id='q']", text: block}
  flat: {type: string, xpath: "//div[@id='q']", text: flat}
  answers:
    type: list<object>
    xpath: //div[@class='a']
    fields:
      body: {type: string, xpath: ., text: block}
  all: {type: list<string>, xpath: "//div[@class='a']", text: block}
`)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	body := "<html><body><div id=q><p>Why?</p><pre><code>for x in y:\n    f(x)\n</code></pre></div>" +
		"<div class=a>one<br>two</div><div class=a><ul><li>i</li><li>ii</li></ul></div></body></html>"
	out := fixture.Execute(context.Background(), reg.Plan("envs.item"), url.Values{"query": {"q"}},
		&fixture.Replay{Replies: map[string]*fixture.Reply{"page": reply(body)}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := `{"body":"Why?\n\nfor x in y:\n    f(x)","flat":"Why? for x in y: f(x)","answers":[{"body":"one\ntwo"},{"body":"i\nii"}],"all":["one\ntwo","i\nii"]}`
	if got := string(out.JSON); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	for fields, msg := range map[string]string{
		"  a: {type: string, xpath: //p, text: lines}\n":         `text "lines": flat or block`,
		"  a: {type: string, expr: params.query, text: block}\n": "this selector has no xpath",
	} {
		if _, errs := loadEnvs(t, fields); len(errs) != 1 || !strings.Contains(errs[0], msg) {
			t.Errorf("%q: errors %v, want one with %q", fields, errs, msg)
		}
	}
}

// TestFieldFromAppliesToSelect: a field-level from is the step of each of its select: selectors
// that names none; a selector's own from wins.
func TestFieldFromAppliesToSelect(t *testing.T) {
	endpoint := `kind: endpoint
resource: item
summary: Two steps, fields reading the first.
params:
  query: {type: string, required: true}
steps:
  - id: page
    request: {url: "https://www.envs.example/${ params.query }"}
  - id: embed
    request: {url: "https://www.envs.example/embed"}
fields:
  inherited:
    type: string
    from: page
    select:
      - xpath: //h1
      - regex: '<b>([a-z]+)</b>'
  own:
    type: string
    from: page
    select:
      - {xpath: //h1, from: embed}
  regex_inherited:
    type: string
    from: page
    select:
      - regex: '<b>([a-z]+)</b>'
  last_step:
    type: string
    select:
      - xpath: //h1
`
	reg, diags := registry.Load(engine.New(), fstest.MapFS{
		"envs/site.yaml": {Data: []byte(envSite)},
		"envs/item.yaml": {Data: []byte(endpoint)},
	})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	out := fixture.Execute(context.Background(), reg.Plan("envs.item"), url.Values{"query": {"q"}},
		&fixture.Replay{Replies: map[string]*fixture.Reply{
			"page":  reply("<html><body><h1>page title</h1><b>word</b></body></html>"),
			"embed": reply("<html><body><h1>embed title</h1></body></html>"),
		}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := `{"inherited":"page title","own":"embed title","regex_inherited":"word","last_step":"embed title"}`
	if got := string(out.JSON); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestXPathGroupsAndUnions runs positions of a group and unions through a whole plan, in a list
// item (native evaluation) and where antchfx evaluates (a predicate outside the native subset):
// (X)[last()] is X's last node in document order, and a union's first node is the earlier one.
func TestXPathGroupsAndUnions(t *testing.T) {
	reg, errs := loadEnvs(t, `  cards:
    type: list<object>
    xpath: //li[@class='card']
    fields:
      last: {type: string, xpath: "(.//span)[last()]"}
      last_antchfx: {type: string, xpath: "(.//span[contains(text(), 's')])[last()]"}
      second_then: {type: string, xpath: "(.//div)[2]/span"}
      first_of_union: {type: string, xpath: ".//i | .//b"}
      union_antchfx: {type: string, xpath: ".//i[contains(text(), 'i')] | .//b[contains(text(), 'b')]"}
      union_string: {type: string, xpath: "normalize-space(.//i[contains(text(), 'i')] | .//b[contains(text(), 'b')])"}
      all: {type: list<string>, xpath: ".//i | .//b"}
  page_last: {type: string, xpath: "(//li[@class='card'])[last()]/b"}
  page_union: {type: list<string>, xpath: "//i[contains(text(), 'i')] | //b"}
  # one element's attributes have no document order (XPath leaves it to the implementation): a
  # union of them keeps its branches' order, so the first present one wins
  meta_key: {type: string, xpath: "//meta/@property | //meta/@name | //meta/@itemprop"}
  meta_key_antchfx: {type: string, xpath: "//meta[contains(@name, 'og')]/@name | //meta[contains(@name, 'og')]/@itemprop"}
`)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	body := `<html><head><meta itemprop="image" content="x" name="og:image"></head><body><ul>` +
		`<li class="card"><b>b1</b><div><span>s1</span></div><div><span>s2</span><i>i1</i></div></li>` +
		`<li class="card"><div><i>i2</i><span>s3</span></div><b>b2</b><div><span>s4</span></div><span>x</span></li>` +
		`</ul></body></html>`
	out := fixture.Execute(context.Background(), reg.Plan("envs.item"), url.Values{"query": {"q"}},
		&fixture.Replay{Replies: map[string]*fixture.Reply{"page": reply(body)}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := `{"cards":[` +
		`{"last":"s2","last_antchfx":"s2","second_then":"s2","first_of_union":"b1","union_antchfx":"b1","union_string":"b1","all":["b1","i1"]},` +
		`{"last":"x","last_antchfx":"s4","second_then":"s4","first_of_union":"i2","union_antchfx":"i2","union_string":"i2","all":["i2","b2"]}],` +
		`"page_last":"b2","page_union":["b1","i1","i2","b2"],"meta_key":"og:image","meta_key_antchfx":"og:image"}`
	if got := string(out.JSON); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestXMLUnionInDocumentOrder: a union over an XML response is in document order too.
func TestXMLUnionInDocumentOrder(t *testing.T) {
	fsys := fstest.MapFS{
		"envs/site.yaml": {Data: []byte(envSite)},
		"envs/item.yaml": {Data: []byte(strings.Replace(envEndpoint(`  names: {type: list<string>, xpath: "//b | //a"}
  first: {type: string, xpath: "//b | //a"}
  last: {type: string, xpath: "(//a | //b)[last()]"}
`), "    request:", "    parse: xml\n    request:", 1))},
	}
	reg, diags := registry.Load(engine.New(), fsys)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	rep := &fixture.Reply{Status: 200, Header: map[string][]string{"Content-Type": {"application/xml"}},
		Body: []byte(`<r><a>1</a><b>2</b><a>3</a><c><b>4</b></c></r>`)}
	out := fixture.Execute(context.Background(), reg.Plan("envs.item"), url.Values{"query": {"q"}},
		&fixture.Replay{Replies: map[string]*fixture.Reply{"page": rep}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if got, want := string(out.JSON), `{"names":["1","2","3","4"],"first":"1","last":"4"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestCompiledExpressionsKeepTheirEnvironment: one engine compiles an expression once for every
// endpoint that writes it in the same environment, but an endpoint where a name it reads does not
// exist still gets its error, and a boolean context still refuses a non-boolean.
func TestCompiledExpressionsKeepTheirEnvironment(t *testing.T) {
	other := strings.Replace(envEndpoint("  b: {expr: 'fields.a'}\n"), "resource: item", "resource: other", 1)
	fsys := fstest.MapFS{
		"envs/site.yaml":  {Data: []byte(envSite)},
		"envs/item.yaml":  {Data: []byte(envEndpoint("  a: {expr: '1'}\n  b: {expr: 'fields.a'}\n  c: {expr: 'fields.a', when: '1'}\n"))},
		"envs/other.yaml": {Data: []byte(other)},
	}
	_, diags := registry.Load(engine.New(), fsys)
	var errs []string
	for _, d := range diags {
		if !d.Warning {
			errs = append(errs, d.String())
		}
	}
	want := []string{"other.yaml:12:13: error: field b: bad expression: unknown field a", "item.yaml:14:31: error: field c when: bad expression: expected bool"}
	if len(errs) != len(want) {
		t.Fatalf("want %d errors, got %q", len(want), errs)
	}
	for _, w := range want {
		found := false
		for _, e := range errs {
			found = found || strings.Contains(e, w)
		}
		if !found {
			t.Errorf("no error containing %q in %q", w, errs)
		}
	}
}
