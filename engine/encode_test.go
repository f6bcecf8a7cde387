package engine_test

import (
	"context"
	"net/url"
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
