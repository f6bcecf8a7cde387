package engine_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fixture"
)

// An endpoint whose item state sits in today's script, else in an older page's config as a JSON
// string: one expr source says so once, and a rule and the fields read it.
const exprSourceArticle = `kind: endpoint
resource: article
summary: One article.
params:
  query: {type: string, required: true}
steps:
  - id: page
    request: {url: "https://blog.example/${ params.query }"}
  - id: more
    when: 'src.state?.more == true'
    request: {url: "https://blog.example/${ params.query }/more"}
sources:
  today: {script_json: 'var state = ', from: page}
  config: {script_json: 'var config = ', when: 'src.today == nil', from: page}
  state: {expr: 'src.today ?? parseJSON(src.config?.args?.state ?? "")', from: page}
  extra: {script_json: 'var extra = ', from: more}
rules:
  - id: gone
    step: page
    match: {expr: 'src.state?.status == "GONE"'}
    error: product_not_found
fields:
  name: {type: string, required: true, expr: 'src.state?.name'}
  views: {type: int, expr: 'src.state?.stats?.views'}
  extra: {type: string, expr: 'src.extra?.note'}
`

// An expr source is its expression's value, ready for the rules of the step it is read at and for
// the fields; it reads the sources above it, each decoded only in the part it reads.
func TestSourceExpr(t *testing.T) {
	reg, diags := loadBlog(exprSourceArticle)
	if diags.HasErrors() {
		t.Fatalf("sitedef: %v", diags)
	}
	for _, tc := range []struct {
		name, page string
		err        errcode.Code
		want       string
	}{
		{name: "today", page: `<script>var state = {"name": "new", "stats": {"views": 3, "likes": 9}, "junk": [1]};</script>`,
			want: `{"name":"new","views":3,"extra":null}`},
		{name: "older page", page: `<script>var config = {"args": {"state": "{\"name\": \"old\", \"stats\": {\"views\": 5}}", "x": 1}};</script>`,
			want: `{"name":"old","views":5,"extra":null}`},
		{name: "a rule reads it", page: `<script>var config = {"args": {"state": "{\"status\": \"GONE\"}"}};</script>`, err: errcode.ProductNotFound},
		{name: "a later step", page: `<script>var state = {"name": "n", "more": true}; var extra = {"note": "x"};</script>`,
			want: `{"name":"n","views":null,"extra":"x"}`},
		{name: "neither", page: `<p>nothing</p>`, err: errcode.ExtractionFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rp := &fixture.Replay{Fallback: reply(tc.page)}
			checkOutcome(t, fixture.Execute(t.Context(), reg.Plan("blog.article"), url.Values{"query": {"a"}}, rp), tc.err, tc.want)
		})
	}
	// The paths read through state are the parts of today that are decoded; config is read whole
	// (parseJSON takes its string whole), and a computed source has no projection of its own.
	plan := reg.Plan("blog.article")
	if got := projSpec(engine.SourceProjection(plan, "today")); got != "more*,name*,stats.views*,status*" {
		t.Errorf("today's projection %q", got)
	}
	whole, diags := loadBlogWith(engine.NewUnprojected(), exprSourceArticle)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, page := range []string{
		`<script>var state = {"name": "new", "stats": {"views": 3, "likes": 9}, "junk": [1]};</script>`,
		`<script>var state = {"name": {"x": 1}, "stats": [1], "status": "GONE"};</script>`,
		`<script>var config = {"args": {"state": "{\"name\": \"old\"}"}};</script>`,
	} {
		checkSameRun(t, plan, whole.Plan("blog.article"), url.Values{"query": {"a"}}, &fixture.Replay{Fallback: &fixture.Reply{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(page)}}, page)
	}
}

// An expr source reads what is known while the sources are read: the sources declared above it,
// of the same or an earlier step, by name; and it is one kind of source, not two.
func TestSourceExprLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, from, to, err string }{
		{"fields", `'src.today ?? parseJSON(src.config?.args?.state ?? "")'`, `'fields.name'`, "source state expr: fields is not known while the sources are read"},
		{"declared below", `'src.today ?? parseJSON(src.config?.args?.state ?? "")'`, `'src.extra'`, "source state expr: src.extra is not read before state"},
		{"src whole", `'src.today ?? parseJSON(src.config?.args?.state ?? "")'`, `'len(src)'`, "source state expr: src is read only by name"},
		{"two kinds", `{expr: 'src.today ?? parseJSON(src.config?.args?.state ?? "")', from: page}`, `{expr: 'src.today', script_json: 'x = ', from: page}`, "needs exactly one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := loadBlog(strings.Replace(exprSourceArticle, tc.from, tc.to, 1))
			if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) {
				t.Fatalf("got %v, want an error with %q", diags, tc.err)
			}
		})
	}
}
