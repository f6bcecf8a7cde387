package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/registry"
)

// A list<object> without fields keeps its objects as they are, hidden fields' values included,
// and is written with their keys (sorted), not as empty objects.
func TestListOfObjectsWithoutFieldsEncoded(t *testing.T) {
	reg, diags := registry.Load(engine.New(), fstest.MapFS{
		"s/site.yaml": {Data: []byte("kind: site\nsite: s\nname: S\ncategory: other\nversion: 1.0.0\ndomains:\n  com: {host: www.s.example, locale: en_US}\n")},
		"s/r.yaml": {Data: []byte(`kind: endpoint
resource: r
summary: r
params:
  query: {type: string, required: true, example: x}
steps:
  - id: page
    request: {url: "https://www.s.example/${ params.query }"}
    parse: json
sources:
  doc: {body: true}
fields:
  groups:
    type: list<object>
    hidden: true
    expr: src.doc.groups
  ingredient_groups:
    type: list<object>
    expr: 'map(fields.groups, ({"purpose": #.name, "ingredients": #.items}))'
`)},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	f := engine.FetcherFunc(func(_ context.Context, req *engine.Request) (*engine.Response, error) {
		return &engine.Response{Status: 200, URL: req.URL, Body: []byte(`{"groups": [{"name": "Dough", "items": ["flour"]}, {"name": null, "items": []}]}`)}, nil
	})
	plan := reg.Plan("s.r")
	ps, err := plan.Params(url.Values{"query": {"x"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := plan.Run(context.Background(), ps, f)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := res.MarshalJSON()
	want := `{"ingredient_groups":[{"ingredients":["flour"],"purpose":"Dough"},{"ingredients":[],"purpose":null}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// appendFloat writes what encoding/json writes for every finite float64.
func FuzzAppendFloat(f *testing.F) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1.5, 12.99, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789e13,
		-1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, 0.1 + 0.2, 1234.5678, 5e-324, 1.5e-10} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		got := string(engine.AppendFloat(nil, x))
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if got != "null" {
				t.Errorf("%v: %s, want null", x, got)
			}
			return
		}
		want, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%v: %s, want %s", x, got, want)
		}
	})
}

// appendString writes JSON that reads back as s (invalid UTF-8 as U+FFFD), escaping only what JSON
// and JavaScript need: not <, > or &.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "tab\tnew\nline\rcr", "\x00\x01\x1f\x7f", "<a href='x'>&amp;</a>",
		"caf\u00e9 \u20ac \U0001F600", "bad \xff\xfe utf8 \xe2\x82", "sep \u2028 \u2029 end", "\b\f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := engine.AppendString([]byte("x"), s)
		if b[0] != 'x' {
			t.Fatalf("the prefix was overwritten: %q", b)
		}
		var back string
		if err := json.Unmarshal(b[1:], &back); err != nil {
			t.Fatalf("%q gives %s, not a JSON string: %v", s, b[1:], err)
		}
		if want := validRunes(s); back != want {
			t.Errorf("%q reads back as %q, want %q", s, back, want)
		}
		if bytes.Contains(b, []byte(`\u003c`)) || bytes.Contains(b, []byte(`\u0026`)) || bytes.ContainsAny(b[1:len(b)-1], "\n\r\t\u2028\u2029") {
			t.Errorf("%q gives %s", s, b[1:])
		}
	})
}

// validRunes is s with each byte that is not part of a UTF-8 sequence replaced by U+FFFD.
func validRunes(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}
