package engine_test

import (
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fixture"
	"asa/engine/registry"
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
	reg, diags := registry.Load(engine.New(), fstest.MapFS{
		"blog/site.yaml":    {Data: []byte(blogSite)},
		"blog/article.yaml": {Data: []byte(layoutsArticle)},
	})
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
			if tc.err != "" {
				if out.Err == nil || out.Err.Code != tc.err {
					t.Fatalf("got %v %s, want %s", out.Err, out.JSON, tc.err)
				}
				return
			}
			if out.Err != nil {
				t.Fatalf("unexpected error: %v", out.Err)
			}
			if string(out.JSON) != tc.want {
				t.Errorf("got %s, want %s", out.JSON, tc.want)
			}
		})
	}
}

// A source's when may read only what is known while the sources are read.
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
  a: {script_json: 'a\s*=\s*', from: first, when: WHEN}
  b: {script_json: 'b\s*=\s*', from: second}
  c: {script_json: 'c\s*=\s*', from: first}
fields:
  name: {type: string, expr: 'src.a?.name'}
`
	for _, tc := range []struct{ when, err string }{
		{`'fields.name == nil'`, "source a when: fields is not known while the sources are read"},
		{`'src.c == nil'`, "source a when: src.c is not read before a"},
		{`'src["c"] == nil'`, "source a when: src.c is not read before a"},
		{`'src[params.query] == nil'`, "source a when: src is read only by name"},
		{`'len(src) > 0'`, "source a when: src is read only by name"},
		{`'src.nope == nil'`, "nope"},
	} {
		t.Run(tc.when, func(t *testing.T) {
			ep := strings.Replace(twoSteps, "WHEN", tc.when, 1)
			_, diags := registry.Load(engine.New(), fstest.MapFS{
				"blog/site.yaml":    {Data: []byte(blogSite)},
				"blog/article.yaml": {Data: []byte(ep)},
			})
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) {
				t.Fatalf("got %v, want an error with %q", diags, tc.err)
			}
		})
	}
	// A source of an earlier step, declared above, is read; one of a later step is not.
	ok := strings.Replace(strings.Replace(twoSteps, "WHEN", "'params.query != \"\"'", 1),
		"c: {script_json: 'c\\s*=\\s*', from: first}", "c: {script_json: 'c\\s*=\\s*', from: second, when: 'src.a == nil'}", 1)
	if _, diags := registry.Load(engine.New(), fstest.MapFS{"blog/site.yaml": {Data: []byte(blogSite)}, "blog/article.yaml": {Data: []byte(ok)}}); diags.HasErrors() {
		t.Fatalf("a when reading an earlier step's source: %v", diags)
	}
	later := strings.Replace(strings.Replace(twoSteps, "WHEN", "'src.b == nil'", 1), "a: {", "b0: {script_json: 'x', from: second}\n  a: {", 1)
	later = strings.Replace(later, "b0:", "b:", 1)
	later = strings.Replace(later, "  b: {script_json: 'b\\s*=\\s*', from: second}\n", "", 1)
	_, diags := registry.Load(engine.New(), fstest.MapFS{"blog/site.yaml": {Data: []byte(blogSite)}, "blog/article.yaml": {Data: []byte(later)}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "src.b is not read before a") {
		t.Fatalf("a when reading a later step's source: got %v", diags)
	}
}
