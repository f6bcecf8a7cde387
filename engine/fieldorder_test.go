package engine_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"asa/engine/fixture"
)

// TestFieldsReadLaterSiblings: fields.<name> reads a sibling wherever it is in the file (a family's
// base field reading a field the site added after it), at the top level and in list items; the
// output keeps file order; fields that read each other are a load-time error.
func TestFieldsReadLaterSiblings(t *testing.T) {
	body := `<html><body><h1>Kettle</h1><span id="p">$34.99</span><ul>` +
		`<li><b>Black</b><i>2</i></li><li><b>White</b><i>5</i></li></ul></body></html>`
	tests := []struct {
		name, fields, want, err string
	}{
		{
			name: "top level",
			fields: `  price: {type: float, expr: 'fields.price_text', transform: 'parsePrice(value, "en_US")'}
  title: {xpath: //h1}
  label: {expr: 'fields.title + " at " + fields.price_text'}
  price_text: {hidden: true, xpath: "//span[@id='p']"}
`,
			want: `{"price":34.99,"title":"Kettle","label":"Kettle at $34.99"}`,
		},
		{
			name: "chain of later fields, list items",
			fields: `  variants:
    type: list<object>
    xpath: //li
    fields:
      summary: {expr: 'fields.name + " x" + string(fields.count)'}
      count: {type: int, expr: 'fields.count_text', transform: int(value)}
      name: {xpath: ./b}
      count_text: {hidden: true, xpath: ./i}
`,
			want: `{"variants":[{"summary":"Black x2","count":2,"name":"Black"},{"summary":"White x5","count":5,"name":"White"}]}`,
		},
		{
			name: "a when reads a later field",
			fields: `  note: {when: 'fields.title != nil', const: has a title}
  title: {xpath: //h1}
`,
			want: `{"note":"has a title","title":"Kettle"}`,
		},
		{
			name: "earlier fields only: file order as before",
			fields: `  title: {xpath: //h1}
  upper: {expr: 'upper(fields.title)'}
`,
			want: `{"title":"Kettle","upper":"KETTLE"}`,
		},
		{
			name:   "a cycle",
			fields: "  a: {expr: 'fields.c ?? \"a\"'}\n  b: {expr: '1'}\n  c: {expr: 'fields.a ?? \"c\"'}\n",
			err:    "fields a, c read each other",
		},
		{
			name:   "a cycle through a select",
			fields: "  a:\n    select:\n      - xpath: //h1\n        transform: 'fields.b'\n  b: {expr: 'fields.a'}\n",
			err:    "read each other",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, errs := loadEnvs(t, tt.fields)
			if tt.err != "" {
				if len(errs) != 1 || !strings.Contains(errs[0], tt.err) {
					t.Fatalf("want one error containing %q, got %v", tt.err, errs)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			out := fixture.Execute(context.Background(), reg.Plan("envs.item"), url.Values{"query": {"q"}},
				&fixture.Replay{Replies: map[string]*fixture.Reply{"page": reply(body)}})
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			if got := string(out.JSON); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if len(out.Res.Warnings) > 0 {
				t.Errorf("warnings: %v", out.Res.Warnings)
			}
		})
	}
}
