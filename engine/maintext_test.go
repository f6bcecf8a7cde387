package engine_test

import (
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/diag"
	"asa/engine/errcode"
	"asa/engine/fixture"
	"asa/engine/registry"
)

const blogSite = `kind: site
site: blog
name: Blog
category: news
version: 1.0.0
default_domain: www
domains:
  www: {host: blog.example, locale: en_US}
`

const blogArticle = `kind: endpoint
resource: article
summary: One article.
params:
  query: {type: string, required: true}
steps:
  - id: page
    request: {url: "https://blog.example/${ params.query }"}
sources:
  main: {main_text: true}
fields:
  text:
    type: string
    required: true
    expr: src.main?.text
  word_count:
    type: int
    expr: src.main?.word_count
  title:
    type: string
    expr: src.main?.title
  nav:
    type: string
    xpath: //nav
`

const articlePage = `<html lang="en"><head><title>Kettles, boiled down</title></head><body>
<nav>Home | News | Kettles and more kettles</nav>
<article><h1>Kettles, boiled down</h1>
<p>A kettle boils water. This paragraph is long enough for the extractor to keep it as the article's
content, which is what the main_text source gives a sitedef, and it goes on a little longer.</p>
<p>The second paragraph says that a well-known kettle doesn't need descaling every week, which is good news
for everyone who owns one, and it also goes on long enough to be kept by the extractor.</p>
</article>
<footer>Copyright Blog Example, all rights reserved</footer></body></html>`

// loadBlog loads the blog site with one endpoint file, article.yaml.
func loadBlog(article string) (*registry.Registry, diag.List) {
	return loadBlogWith(engine.New(), article)
}

func loadBlogWith(e *engine.Engine, article string) (*registry.Registry, diag.List) {
	return registry.Load(e, fstest.MapFS{
		"blog/site.yaml":    {Data: []byte(blogSite)},
		"blog/article.yaml": {Data: []byte(article)},
	})
}

func TestMainTextSource(t *testing.T) {
	reg, diags := loadBlog(blogArticle)
	if diags.HasErrors() {
		t.Fatalf("sitedef: %v", diags)
	}
	for _, tc := range []struct {
		name, page string
		err        errcode.Code
		want       []string // substrings of the JSON output
		not        []string
	}{
		{name: "article", page: articlePage,
			// the nav is outside the main text, and still there for an XPath: the source parses its own tree
			want: []string{`"text":"A kettle boils water.`, "good news for everyone", `"word_count":71`, `"title":"Kettles, boiled down"`, `"nav":"Home | News | Kettles and more kettles"`},
			not:  []string{"Copyright"}},
		{name: "no main text", page: `<html><body></body></html>`, err: errcode.ExtractionFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := run(t, reg, "blog.article", url.Values{"query": {"kettles"}}, map[string]*fixture.Reply{"page": reply(tc.page)})
			if tc.err != "" {
				if out.Err == nil || out.Err.Code != tc.err {
					t.Fatalf("got %v %s, want %s", out.Err, out.JSON, tc.err)
				}
				return
			}
			if out.Err != nil {
				t.Fatalf("unexpected error: %v", out.Err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out.JSON), w) {
					t.Errorf("output lacks %s:\n%s", w, out.JSON)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(string(out.JSON), w) {
					t.Errorf("output has %s:\n%s", w, out.JSON)
				}
			}
		})
	}
}

// A source is exactly one kind: main_text beside another kind is a load error naming the source.
func TestMainTextSourceExclusive(t *testing.T) {
	bad := strings.Replace(blogArticle, "main: {main_text: true}", "main: {main_text: true, body: true}", 1)
	_, diags := loadBlog(bad)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), `source "main" needs exactly one of json_ld, script_json, xpath_json, body, main_text`) {
		t.Fatalf("got %v", diags)
	}
}
