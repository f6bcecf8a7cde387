package engine_test

import (
	"net/url"
	"strings"
	"testing"

	"asa/engine/errcode"
	"asa/engine/fixture"
)

// An endpoint whose older layout kept its data elsewhere: the old state is looked for only on a page
// without today's product (whose id only the when reads: the decoding keeps it all the same).
const layoutsArticle = `kind: endpoint
resource: article
summary: One article.
params:
  query: {type: string, required: true}
steps:
  - id: page
    request: {url: "https://blog.example/${ params.query }"}
sources:
  product: {script_json: '"product"\s*:'}
  old: {script_json: 'window\.__OLD__\s*=\s*', when: 'src.product?.id == nil', required: true}
fields:
  name:
    type: string
    required: true
    expr: src.product?.name ?? src.old?.name
  old_name:
    type: string
    expr: src.old?.name
`

// A source's when decides whether it is looked for: where it does not hold, the source is nil even
// on a page that has it, and a required source is not missing.
func TestSourceWhen(t *testing.T) {
	reg, diags := loadBlog(layoutsArticle)
	if diags.HasErrors() {
		t.Fatalf("sitedef: %v", diags)
	}
	for _, tc := range []struct {
		name, page string
		err        errcode.Code
		want       string
	}{
		// both layouts' data on the page: the old one is not looked for, and its required is moot
		{name: "today", page: `<script>window.__OLD__ = {"name": "old"}; var d = {"product": {"id": 7, "name": "new"}};</script>`,
			want: `{"name":"new","old_name":null}`},
		{name: "older page", page: `<script>window.__OLD__ = {"name": "old"};</script>`,
			want: `{"name":"old","old_name":"old"}`},
		// looked for and not there: required fails the request
		{name: "neither", page: `<p>nothing</p>`, err: errcode.ExtractionFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := run(t, reg, "blog.article", url.Values{"query": {"a"}}, map[string]*fixture.Reply{"page": reply(tc.page)})
			checkOutcome(t, out, tc.err, tc.want)
		})
	}
}

// A source's when may read only what is known while the sources are read: the params, and the
// sources declared above it of the same or an earlier step, by name.
func TestSourceWhenLoadErrors(t *testing.T) {
	const twoSteps = `kind: endpoint
resource: article
summary: One article.
params:
  query: {type: string, required: true}
steps:
  - id: first
    request: {url: "https://blog.example/${ params.query }"}
  - id: second
    request: {url: "https://blog.example/2/${ params.query }"}
sources:
SOURCES
fields:
  name: {type: string, expr: 'src.a?.name'}
`
	// a, b and c as the rows' when leave them: a and c of the first step, b of the second
	const abc = `  a: {script_json: 'a\s*=\s*', from: first, when: WHEN}
  b: {script_json: 'b\s*=\s*', from: second}
  c: {script_json: 'c\s*=\s*', from: first}`
	for _, tc := range []struct{ name, sources, err string }{
		{"fields", strings.Replace(abc, "WHEN", `'fields.name == nil'`, 1), "source a when: fields is not known while the sources are read"},
		{"declared below", strings.Replace(abc, "WHEN", `'src.c == nil'`, 1), "source a when: src.c is not read before a"},
		{"indexed by a string", strings.Replace(abc, "WHEN", `'src["c"] == nil'`, 1), "source a when: src.c is not read before a"},
		{"indexed by a value", strings.Replace(abc, "WHEN", `'src[params.query] == nil'`, 1), "source a when: src is read only by name"},
		{"whole", strings.Replace(abc, "WHEN", `'len(src) > 0'`, 1), "source a when: src is read only by name"},
		{"undeclared", strings.Replace(abc, "WHEN", `'src.nope == nil'`, 1), "nope"},
		{"a later step's, declared above", `  b: {script_json: 'b\s*=\s*', from: second}
  a: {script_json: 'a\s*=\s*', from: first, when: 'src.b == nil'}`, "src.b is not read before a"},
		{"an earlier step's, declared above", `  a: {script_json: 'a\s*=\s*', from: first, when: 'params.query != ""'}
  c: {script_json: 'c\s*=\s*', from: second, when: 'src.a == nil'}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadBlog(strings.Replace(twoSteps, "SOURCES", tc.sources, 1))
			switch {
			case tc.err == "" && diags.HasErrors():
				t.Fatalf("unexpected error: %v", diags)
			case tc.err != "" && (!diags.HasErrors() || !strings.Contains(diags.Error(), tc.err)):
				t.Fatalf("got %v, want an error with %q", diags, tc.err)
			}
		})
	}
}

// checkOutcome fails unless out is the error code wantErr, or (wantErr "") the output wantJSON.
func checkOutcome(t *testing.T, out fixture.Outcome, wantErr errcode.Code, wantJSON string) {
	t.Helper()
	if wantErr != "" {
		if out.Err == nil || out.Err.Code != wantErr {
			t.Fatalf("got %v %s, want %s", out.Err, out.JSON, wantErr)
		}
		return
	}
	if out.Err != nil {
		t.Fatalf("unexpected error: %v", out.Err)
	}
	if string(out.JSON) != wantJSON {
		t.Errorf("got %s, want %s", out.JSON, wantJSON)
	}
}
