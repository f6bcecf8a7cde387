package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"asa/engine/fixture"
)

// TestAddFamilySiteNeedsNoGo is the author's loop in a scratch copy of the repository's sitedefs and
// fixtures: adding a site of a family is a site file, one fixture case and one real-page expectation,
// and every check make test runs on sitedefs passes with no make generate and no Go edit: the lint,
// the fixture cases with coverage and negatives, the corpus expectations, the generated endpoint
// docs (unchanged by the new site), and the catalogue's corpus count (computed at run time).
func TestAddFamilySiteNeedsNoGo(t *testing.T) {
	skipUnderRace(t)
	tmp := t.TempDir()
	sd, fx := filepath.Join(tmp, "sitedefs"), filepath.Join(tmp, "fixtures")
	for _, c := range []struct{ from, to string }{
		{"../../sitedefs", sd},
		{"../../fixtures", fx},
		// The example family of the tests stands in for the shipped ones, so the test does not depend
		// on which families the repository has.
		{"../../engine/fixture/testdata/family/sitedefs/_families/dish", filepath.Join(sd, "_families", "dish")},
		{"../../engine/fixture/testdata/family/fixtures/_families/dish", filepath.Join(fx, "_families", "dish")},
	} {
		if err := os.CopyFS(c.to, os.DirFS(c.from)); err != nil {
			t.Fatal(err)
		}
	}
	// The corpus: the shared one when it is there (every real-page expectation of the repository then
	// runs too), plus the new site's saved page.
	corpus := filepath.Join(tmp, "corpus")
	shared, _ := filepath.Abs("../../../shared/corpus")
	haveShared := false
	if entries, err := os.ReadDir(shared); err == nil {
		haveShared = true
		if err := os.MkdirAll(corpus, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.Symlink(filepath.Join(shared, e.Name()), filepath.Join(corpus, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	sh := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := run(ctx, args, &out, &out)
		return code, out.String()
	}
	if code, out := sh("sitedef", "check", "--sitedefs", sd); code != 0 {
		t.Fatalf("the scratch copy does not pass check before the new site:\n%s", out)
	}
	_, before := sh("sitedef", "docs", "--endpoints", "--sitedefs", sd)

	page := `<!doctype html><html lang="en"><head><title>Gamma Cooks</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Recipe", "name": "Pea Soup",
"author": {"@type": "Person", "name": "G. Cook"}, "recipeIngredient": ["500 g peas", "1 l stock"]}</script>
</head><body><h1>Pea Soup</h1><p class="kitchen">Dutch</p></body></html>
`
	files := map[string]string{
		"sitedefs/gamma-cooks/site.yaml": `kind: site
site: gamma-cooks
name: Gamma Cooks
version: 1.0.0
extends: dish
domains:
  com: {host: www.gamma-cooks.example, locale: en_US, currency: USD}
endpoints:
  recipe:
    extends: dish/recipe
    fields:
      cuisine: {type: string, xpath: "//p[@class='kitchen']"}
`,
		"fixtures/gamma-cooks/recipe/soup/case.yaml": `params: {url: https://www.gamma-cooks.example/soup}
responses:
  page: {body: page.html}
expect: {output: expected.json}
`,
		"fixtures/gamma-cooks/recipe/soup/page.html": page,
		"fixtures/gamma-cooks/recipe/soup/expected.json": `{"title": "Pea Soup", "author": "G. Cook", "keywords": [], "cuisine": "Dutch",
 "ingredients": ["500 g peas", "1 l stock"], "nutrition": {"calories": null, "fat": null}}
`,
		"fixtures/corpus/gamma-cooks.yaml": `- endpoint: gamma-cooks.recipe
  page: scratch/gamma-cooks.html
  params: {url: https://www.gamma-cooks.example/soup}
  expect: {title: Pea Soup, cuisine: Dutch, ingredients: ["500 g peas", "1 l stock"]}
`,
		"corpus/scratch/gamma-cooks.html": page,
	}
	for name, body := range files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if code, out := sh("sitedef", "check", "--sitedefs", sd); code != 0 {
		t.Errorf("asa sitedef check: exit %d\n%s", code, out)
	}
	// The whole copied tree is replayed, with its real pages when the shared corpus is there.
	if haveShared {
		if code, out := sh("sitedef", "test", "--sitedefs", sd, "--fixtures", fx, "--corpus", corpus); code != 0 {
			t.Errorf("asa sitedef test --corpus: exit %d\n%s", code, out)
		}
	} else {
		if code, out := sh("sitedef", "test", "--sitedefs", sd, "--fixtures", fx); code != 0 {
			t.Errorf("asa sitedef test: exit %d\n%s", code, out)
		}
		if code, out := sh("sitedef", "test", "--sitedefs", sd, "--fixtures", fx, "--corpus", corpus, "--run", "gamma-cooks"); code != 0 {
			t.Errorf("asa sitedef test --corpus --run gamma-cooks: exit %d\n%s", code, out)
		}
	}
	if code, out := sh("sitedef", "list", "--sitedefs", sd); code != 0 || !bytes.Contains([]byte(out), []byte("gamma-cooks.recipe")) {
		t.Errorf("asa sitedef list: exit %d, no gamma-cooks.recipe:\n%s", code, out)
	}
	// make generate-check compares docs/endpoints.md with asa sitedef docs --endpoints: the new family
	// site leaves it as it was.
	if _, after := sh("sitedef", "docs", "--endpoints", "--sitedefs", sd); after != before {
		t.Errorf("adding a family site changed the generated docs/endpoints.md: make generate would be needed")
	}
	counts, err := fixture.CorpusCounts(os.DirFS(fx))
	if err != nil {
		t.Fatal(err)
	}
	if c := counts["gamma-cooks.recipe"]; c.Output != 1 {
		t.Errorf("catalogue count of gamma-cooks.recipe: %+v, want one page with values", c)
	}
}
