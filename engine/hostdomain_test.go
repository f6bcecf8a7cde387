package engine_test

import (
	"net/url"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/registry"
)

// TestURLOnAnotherHostOfTheSite: a URL whose host the site does not list is read on the domain whose
// host shares its registrable domain (the default domain first), and refused when none does: another
// blog of a private suffix (github.io) is another site.
func TestURLOnAnotherHostOfTheSite(t *testing.T) {
	fsys := fstest.MapFS{
		"news/site.yaml": {Data: []byte(`kind: site
site: news
name: News
category: other
version: 1.0.0
default_domain: uk
domains:
  us: {host: www.news.example.com, locale: en_US}
  uk: {host: www.news.example.co.uk, locale: en_GB}
  us2: {host: edition.news.example.com, locale: en_US}
  blog: {host: news.github.io, locale: en_US}
`)},
		"news/article.yaml": {Data: []byte(`kind: endpoint
resource: article
summary: An article by URL.
params:
  query:
    type: string
    required: true
    pattern: 'https?://\S+'
    url_pattern: '^https?://(?P<host>[^/?#:\s]+)(?::\d+)?(?:[/?#].*)?$'
    example: https://www.news.example.co.uk/a
  domain: {type: enum, values_from: domains}
steps:
  - id: page
    request:
      url: ${ params.query }
fields:
  title: {type: string, xpath: //h1}
`)},
	}
	reg, diags := registry.Load(engine.New(), fsys)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plan := reg.Plan("news.article")
	for _, tc := range []struct {
		url, domain string // domain "" when the URL is refused
	}{
		{"https://www.news.example.co.uk/a", "uk"},
		{"https://news.example.co.uk/a", "uk"},
		{"https://edition.news.example.com/a", "us2"}, // a listed host is its own domain
		{"https://WWW.News.Example.COM/a", "us"},
		{"https://sport.example.co.uk/a", "uk"},
		{"https://video.edition.news.example.com/a", "us"}, // the first listed of its registrable domain
		{"https://example.com./a", "us"},
		{"https://news.github.io/a", "blog"},
		{"https://other.github.io/a", ""},
		{"https://github.io/a", ""},
		{"https://example.org/a", ""},
		{"https://127.0.0.1/a", ""},
		{"https://co.uk/a", ""},
	} {
		ps, err := plan.Params(url.Values{"query": {tc.url}})
		if tc.domain == "" {
			if errcode.Of(err) != errcode.InvalidParams {
				t.Errorf("%s: %v, want invalid_params", tc.url, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		if got := ps["domain"]; got != tc.domain {
			t.Errorf("%s: domain %v, want %s", tc.url, got, tc.domain)
		}
	}
	if _, err := plan.Params(url.Values{"query": {"https://sport.example.co.uk/a"}, "domain": {"us"}}); errcode.Of(err) != errcode.InvalidParams {
		t.Errorf("a domain contradicting the URL's: %v, want invalid_params", err)
	}
}
