package registry_test

import (
	"context"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/registry"
)

// fieldExtFS is a site with a single-item endpoint (item) and a list endpoint (list) whose items are
// item's record: its fields, with the one that reads the page replaced by one that reads item.
func fieldExtFS(list string) fstest.MapFS {
	return fstest.MapFS{
		"shop/site.yaml": {Data: []byte("kind: site\nsite: shop\nname: Shop\ncategory: other\nversion: 1.0.0\ndomains: {com: {host: shop.example, locale: en_US}}\n")},
		"shop/item.yaml": {Data: []byte(`kind: endpoint
resource: item
summary: One item.
params: {query: {type: string, required: true}}
steps: [{id: page, request: {url: 'https://shop.example/i/${ params.query }'}, parse: json}]
sources: {api: {body: true}}
fields:
  raw: {type: object, hidden: true, expr: src.api}
  id: {type: string, expr: 'fields.raw?.id'}
  name: {type: string, expr: 'fields.raw?.name'}
  price: {type: float, expr: 'fields.raw?.price'}
  seller:
    type: object
    expr: fields.raw?.seller
    fields:
      name: {type: string, expr: 'item?.name'}
      rating: {type: float, expr: 'item?.rating'}
`)},
		"shop/list.yaml": {Data: []byte(list)},
	}
}

const listHead = `kind: endpoint
resource: list
summary: Items.
params: {query: {type: string, required: true}}
steps: [{id: page, request: {url: 'https://shop.example/s/${ params.query }'}, parse: json}]
sources: {api: {body: true}}
fields:
`

func TestFieldExtends(t *testing.T) {
	reg, diags := registry.Load(engine.New(), fieldExtFS(listHead+`  items:
    type: list<object>
    expr: src.api?.items
    extends: shop.item
    remove: [seller.rating]
    fields:
      raw: {type: object, hidden: true, expr: item}
      in_stock: {type: bool, expr: 'fields.raw?.stock > 0'}
  total: {type: int, expr: 'src.api?.total'}
`))
	if diags.HasErrors() {
		t.Fatalf("diagnostics: %v", diags)
	}
	p := reg.Plan("shop.list")
	items := p.Endpoint.Fields.Get("items")
	tests := []struct {
		name      string
		got, want any
	}{
		{"the record's fields, raw replaced in place, a new one appended", items.Fields.Keys, []string{"raw", "id", "name", "price", "seller", "in_stock"}},
		{"the replacing field is the list's own", items.Fields.Get("raw").Expr, "item"},
		{"removed inside a child object", items.Fields.Get("seller").Fields.Keys, []string{"name"}},
		{"extends and remove are resolved away", []any{items.Extends, len(items.Remove)}, []any{"", 0}},
		{"the endpoint extended is unchanged", reg.Plan("shop.item").Endpoint.Fields.Get("seller").Fields.Keys, []string{"name", "rating"}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
	// Positions: an inherited value is in the other endpoint's file, the list's own in its file.
	f := reg.File("shop.list")
	if pos := f.Pos.Of(&items.Fields.Get("name").Expr); pos.File != "shop/item.yaml" || pos.Line != 10 {
		t.Errorf("name's expr at %+v, want shop/item.yaml:10", pos)
	}
	if pos := f.Pos.Of(&items.Fields.Get("raw").Expr); pos.File != "" {
		t.Errorf("raw's expr at %+v, want the list's own file", pos)
	}
	// It runs: every element gets the record.
	out := fixture.Execute(context.Background(), p, url.Values{"query": {"x"}}, &fixture.Replay{Replies: map[string]*fixture.Reply{
		"page": {Status: 200, Body: []byte(`{"total": 2, "items": [
		{"id": "a", "name": "A", "price": 1.5, "stock": 3, "seller": {"name": "S", "rating": 4}},
		{"id": "b", "name": "B", "stock": 0, "seller": {"name": "T"}}]}`)}}})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	want := `{"items":[{"id":"a","name":"A","price":1.5,"seller":{"name":"S"},"in_stock":true},` +
		`{"id":"b","name":"B","price":null,"seller":{"name":"T"},"in_stock":false}],"total":2}`
	if string(out.JSON) != want {
		t.Errorf("output:\n%s\nwant\n%s", out.JSON, want)
	}
}

func TestFieldExtendsDiagnostics(t *testing.T) {
	for _, tt := range []struct{ name, field, want string }{
		{"unknown endpoint", "    type: list<object>\n    expr: src.api\n    extends: shop.nothing\n", `extends "shop.nothing": no endpoint file shop/nothing.yaml`},
		{"not a name", "    type: list<object>\n    expr: src.api\n    extends: nothing\n", "name an endpoint as <site>.<resource>"},
		{"unknown base", "    type: object\n    expr: src.api\n    extends: fam/nothing\n", `extends "fam/nothing": no such base`},
		{"a scalar field", "    type: string\n    expr: src.api\n    extends: shop.item\n", "extends is for a field of type object or list<object>"},
		{"remove naming nothing", "    type: object\n    expr: src.api\n    extends: shop.item\n    remove: [colour]\n", `remove: "colour" names nothing`},
		{"remove without extends", "    type: object\n    expr: src.api\n    remove: [name]\n", "remove: needs extends"},
		{"itself", "    type: object\n    expr: src.api\n    extends: shop.list\n", "a cycle"},
		{"a field of the record reads a source the list lacks", "    type: object\n    expr: src.api\n    extends: shop.item\n    remove: [raw]\n", "shop/item.yaml:9:28: error: field id: bad expression: unknown field raw"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := registry.Load(engine.New(), fieldExtFS(listHead+"  items:\n"+tt.field))
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
				t.Errorf("want an error with %q, got %v", tt.want, diags)
			}
		})
	}
}

// TestAliases: a site answers to its aliases (Plan, Lookup, Site) but is listed once, under its slug;
// an alias that is another site's slug or alias, or not a slug, is an error at the alias.
func TestAliases(t *testing.T) {
	site := func(slug, aliases string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte("kind: site\nsite: " + slug + "\nname: N\ncategory: other\nversion: 1.0.0\naliases: " + aliases + "\n")}
	}
	item := &fstest.MapFile{Data: []byte("kind: endpoint\nresource: item\nsummary: S.\nparams: {url: {type: url, required: true}}\n" +
		"steps: [{id: page, request: {url: '${ params.url }'}}]\nfields: {title: {xpath: //h1}}\n")}
	reg, diags := registry.Load(engine.New(), fstest.MapFS{"twitter/site.yaml": site("twitter", "[x]"), "twitter/item.yaml": item,
		"other/site.yaml": site("other", "[]"), "other/item.yaml": item})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"plan by alias", reg.Plan("x.item") == reg.Plan("twitter.item") && reg.Plan("x.item") != nil, true},
		{"lookup by alias", reg.Lookup("x", "item") == reg.Plan("twitter.item"), true},
		{"site by alias", reg.Site("x") == reg.Site("twitter"), true},
		{"canonical", []string{reg.Canonical("x"), reg.Canonical("twitter"), reg.Canonical("nope")}, []string{"twitter", "twitter", ""}},
		{"listed once", reg.Sites(), []string{"other", "twitter"}},
		{"ids once", reg.IDs(), []string{"other.item", "twitter.item"}},
		{"aliases", reg.Aliases("twitter"), []string{"x"}},
		{"no alias of another site's endpoint", reg.Plan("x.nothing") == nil, true},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
	for _, tc := range []struct{ name, a, b, want string }{
		{"another site's slug", "[other]", "[]", `alias "other" is the slug of another site`},
		{"another site's alias", "[x]", "[x]", `alias "x" is an alias of site`},
		{"not a slug", "[X!]", "[]", `alias "X!": a slug is lower case`},
		{"its own slug", "[twitter]", "[]", `alias "twitter" is given twice (or is the site's own slug)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := registry.Load(engine.New(), fstest.MapFS{"twitter/site.yaml": site("twitter", tc.a), "twitter/item.yaml": item,
				"other/site.yaml": site("other", tc.b), "other/item.yaml": item})
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.want) {
				t.Errorf("want an error with %q, got %v", tc.want, diags)
			}
		})
	}
}
