package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const ownRecipePage = `<!doctype html>
<html lang="nl"><head><title>Erwtensoep | Delta Kookt</title>
<link rel="canonical" href="https://www.delta-kookt.example/recepten/erwtensoep">
<meta property="og:title" content="Erwtensoep">
<meta property="og:site_name" content="Delta Kookt">
<meta property="og:image" content="https://www.delta-kookt.example/img/soep.jpg">
<meta property="article:section" content="Soepen">
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
 {"@type": "WebSite", "name": "Delta Kookt"},
 {"@type": "Recipe", "name": "Erwtensoep", "author": {"@type": "Person", "name": "Dirk"},
  "recipeYield": "4", "totalTime": "PT2H", "recipeIngredient": ["500 g spliterwten", "1 rookworst"],
  "recipeInstructions": [{"@type": "HowToStep", "text": "Week de erwten."}, {"@type": "HowToStep", "text": "Kook."}],
  "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4.6, "ratingCount": 120},
  "image": {"@type": "ImageObject", "url": "https://www.delta-kookt.example/img/soep.jpg"},
  "odd key": "skipped", "@id": "#recipe"}]}</script>
<script id="__NEXT_DATA__" type="application/json">{"props": {"pageProps": {"slug": "erwtensoep", "views": 1200, "nested": {"a": 1}}}}</script>
</head><body><h1>Erwtensoep</h1></body></html>
`

const ownMicrodataPage = `<!doctype html><html lang="en-GB"><head><title>Trail shoe</title></head><body>
<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Trail shoe</h1>
<meta itemprop="sku" content="TS-1"><span itemprop="brand">Fellrun</span>
<a itemprop="url" href="https://shop.example.co.uk/p/ts-1"></a>
<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">89.00</span></div>
</div></body></html>
`

// TestSitedefNew: asa sitedef new writes files that pass asa sitedef check and asa sitedef test at
// once, from pages of our own (JSON-LD with OpenGraph and __NEXT_DATA__; microdata alone), as a plain
// sitedef and as a family site file, and from a corpus recipe page and a corpus news page when the
// shared corpus is there.
func TestSitedefNew(t *testing.T) {
	tmp := t.TempDir()
	sd, fx, corpus := filepath.Join(tmp, "sitedefs"), filepath.Join(tmp, "fixtures"), filepath.Join(tmp, "corpus")
	src := filepath.Join("..", "..", "engine", "fixture", "testdata", "family")
	for _, c := range [][2]string{{filepath.Join(src, "sitedefs"), sd}, {filepath.Join(src, "fixtures"), fx}} {
		if err := os.CopyFS(c[1], os.DirFS(c[0])); err != nil {
			t.Fatal(err)
		}
	}
	own := filepath.Join(corpus, "own", "delta.html")
	md := filepath.Join(tmp, "elsewhere", "shoe.html")
	for p, body := range map[string]string{own: ownRecipePage, md: ownMicrodataPage} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	sh := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := run(ctx, args, &out, &out)
		return code, out.String()
	}
	common := []string{"--sitedefs", sd, "--fixtures", fx, "--corpus", corpus}
	type newCase struct {
		id, page string
		extra    []string
		want     []string // substrings of the written sitedef
		corpus   string
	}
	cases := []newCase{
		{"delta-kookt.recipe", own, nil, []string{"json_ld: 'Recipe'", "script_json: '__NEXT_DATA__'", "map(src.ld?.recipeInstructions ?? [], #?.text)",
			"rating_value", "locale: nl_NL", "required: true", "- xpath: '//meta[@property=''og:title'']/@content'"}, corpus},
		{"fellrun.product", md, []string{"--url", "https://shop.example.co.uk/p/ts-1"}, []string{"@itemprop=''sku'']/@content", "locale: en_GB", "uk: {host: shop.example.co.uk"}, corpus},
		{"epsilon.recipe", own, []string{"--family", "dish", "--url", "https://www.epsilon.example/r/1"}, []string{"extends: dish", "extends: dish/recipe", "#   aggregate_rating:", "rating_value"}, corpus},
	}
	shared, _ := filepath.Abs("../../../shared/corpus")
	for _, c := range []newCase{
		{"goodfood.recipe", filepath.Join(shared, "recipes/bbcgoodfood.com/bbcgoodfood_1.html"), nil, []string{"json_ld: 'Recipe'"}, shared},
		{"goodfood_dish.recipe", filepath.Join(shared, "recipes/bbcgoodfood.com/bbcgoodfood_1.html"), []string{"--family", "dish"}, []string{"extends: dish/recipe"}, shared},
		{"ars.article", filepath.Join(shared, "news/arstechnica/arstechnica-1.html"), nil, []string{"NewsArticle"}, shared},
	} {
		if _, err := os.Stat(c.page); err == nil {
			cases = append(cases, c)
		} else {
			t.Logf("no shared corpus page %s: skipping %s", c.page, c.id)
		}
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			site, res, _ := strings.Cut(c.id, ".")
			args := append([]string{"sitedef", "new", c.id, "--from", c.page, "--sitedefs", sd, "--fixtures", fx, "--corpus", c.corpus}, c.extra...)
			if code, out := sh(args...); code != 0 {
				t.Fatalf("asa sitedef new: exit %d\n%s", code, out)
			}
			written := filepath.Join(sd, site, "site.yaml")
			b, err := os.ReadFile(written)
			if err != nil {
				t.Fatal(err)
			}
			if ep, err := os.ReadFile(filepath.Join(sd, site, res+".yaml")); err == nil {
				b = append(b, ep...)
			}
			for _, w := range c.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("%s lacks %q:\n%s", written, w, b)
				}
			}
			if code, out := sh("sitedef", "check", "--sitedefs", sd, filepath.Join(sd, site)); code != 0 {
				t.Errorf("asa sitedef check: exit %d\n%s\n%s", code, out, b)
			}
			if code, out := sh("sitedef", "test", "--run", site+".", "--sitedefs", sd, "--fixtures", fx, "--corpus", c.corpus, "-v"); code != 0 || !strings.Contains(out, "ok   case "+c.id) {
				t.Errorf("asa sitedef test: exit %d\n%s", code, out)
			}
			if c.page != md {
				if _, err := os.Stat(filepath.Join(fx, "corpus", site+".yaml")); err != nil {
					t.Errorf("no corpus expectation: %v", err)
				}
			}
		})
	}
	// It never overwrites: a second run on the same endpoint is refused.
	if code, out := sh(append([]string{"sitedef", "new", "delta-kookt.recipe", "--from", own}, common...)...); code != 1 || !strings.Contains(out, "not overwriting") {
		t.Errorf("a second new: exit %d\n%s", code, out)
	}
}
