package registry_test

import (
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/registry"
	"asa/engine/sitedef"
)

// TestFamilies resolves the example family of engine/fixture/testdata/family: inheritance, override by
// name, removal, params merged key by key, site defaults, and positions that keep their own files.
func TestFamilies(t *testing.T) {
	reg, diags := registry.Load(engine.New(), os.DirFS("../fixture/testdata/family/sitedefs"))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if got, want := reg.IDs(), []string{"alpha-kitchen.recipe", "beta.recipe", "chez.recipe", "gamma.recipe"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("routed ids %v, want %v (bases are never routed)", got, want)
	}
	if got, want := reg.Bases(), []string{"bistro/recipe", "dish/recipe"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("bases %v, want %v", got, want)
	}
	alpha, beta, gamma := reg.Plan("alpha-kitchen.recipe"), reg.Plan("beta.recipe"), reg.Plan("gamma.recipe")
	tests := []struct {
		name      string
		got, want any
	}{
		{"alpha fields: keywords removed, cuisine replaced in place", alpha.Endpoint.Fields.Keys, []string{"title", "author", "cuisine", "ingredients", "nutrition"}},
		{"alpha cuisine is the child's, whole", *alpha.Endpoint.Fields.Get("cuisine"), sitedef.Field{Type: "string", Selector: sitedef.Selector{XPath: "//span[@class='cuisine']"}}},
		{"alpha nested removal", alpha.Endpoint.Fields.Get("nutrition").Fields.Keys, []string{"calories"}},
		{"beta fields: a new one appended", beta.Endpoint.Fields.Keys, []string{"title", "author", "keywords", "cuisine", "ingredients", "nutrition", "rating"}},
		{"beta param merged key by key", *beta.Endpoint.Params.Get("url"), sitedef.Param{Type: "url", Required: true, Example: "https://www.beta.example/rezept/42"}},
		{"category inherited", alpha.Site.Category, "other"},
		{"site identity its own", []string{alpha.Site.Site, alpha.Site.Name, alpha.Site.Version}, []string{"alpha-kitchen", "Alpha Kitchen", "1.0.0"}},
		{"request defaults inherited", alpha.Site.Request.Timeout.String(), "15s"},
		{"site rule replaced by id", beta.Site.Rules[0].Match.BodyContains, "Bist du ein Roboter"},
		{"alpha keeps the family rule", alpha.Site.Rules[0].Match.BodyContains, "Are you a robot"},
		{"base of a mount", reg.BaseOf("alpha-kitchen.recipe"), "dish/recipe"},
		{"base of an endpoint file", reg.BaseOf("beta.recipe"), "dish/recipe"},
		{"version", beta.Version, "beta@2.1.0"},
		{"one domain is the default", alpha.Site.DefaultDomain, "com"},
		{"a site of its own keeps its category", gamma.Site.Category, "news"},
		{"a site of its own inherits no site rules", len(gamma.Site.Rules), 0},
		{"an endpoint file overrides the summary", gamma.Endpoint.Summary, "One recipe of Gamma's food pages."},
		{"remove then redefine replaces a param whole, at the end", gamma.Endpoint.Params.Keys, []string{"url"}},
		{"removed rule", len(gamma.Endpoint.Rules), 1},
		{"family of a site", reg.Family("alpha-kitchen"), "dish"},
		{"no family", reg.Family("gamma"), ""},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
	// Positions: an overriding value is in the site's file, an inherited one in the base's.
	f := reg.File("alpha-kitchen.recipe")
	if p := f.Pos.Of(&alpha.Endpoint.Fields.Get("cuisine").XPath); p.File != "" || p.Line != 12 {
		t.Errorf("cuisine's xpath at %+v, want line 12 of alpha-kitchen/site.yaml", p)
	}
	if p := f.Pos.Of(&alpha.Endpoint.Fields.Get("author").Expr); p.File != "_families/dish/recipe.yaml" || p.Line != 29 {
		t.Errorf("author's expr at %+v, want _families/dish/recipe.yaml:29", p)
	}
	testLayer(t, reg)
	// The base is compiled on its own too, for its fixture cases.
	if b := reg.Base("dish/recipe"); b == nil || b.ID != "dish/recipe" {
		t.Errorf("base plan: %+v", b)
	}
}

// testLayer: the family bistro extends dish, and its base bistro/recipe extends dish/recipe (a
// publisher's markup over the recipe family); chez mounts bistro/recipe. Each value keeps the file
// it was written in, through both layers, and each layer states only what is its own.
func testLayer(t *testing.T, reg *registry.Registry) {
	t.Helper()
	chez, bistro := reg.Plan("chez.recipe"), reg.Base("bistro/recipe")
	if chez == nil || bistro == nil {
		t.Fatalf("chez.recipe %v, bistro/recipe %v", chez, bistro)
	}
	ov, ok := reg.Overrides("bistro/recipe")
	own, famOK := reg.FamilySiteRules("bistro")
	var ruleIDs []string
	for _, r := range chez.Site.Rules {
		ruleIDs = append(ruleIDs, r.ID)
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"fields through both layers: keywords removed by the layer, servings added", chez.Endpoint.Fields.Keys, []string{"title", "author", "cuisine", "ingredients", "nutrition", "servings"}},
		{"the layer's title fallback", chez.Endpoint.Fields.Get("title").Select[1].XPath, "//h1[@class='bistro-title']"},
		{"site rules of both families", ruleIDs, []string{"captcha", "consent"}},
		{"request defaults from the lowest family", chez.Site.Request.Timeout.String(), "15s"},
		{"family of the site", reg.Family("chez"), "bistro"},
		{"family below the layer", reg.FamilyParent("bistro"), "dish"},
		{"base of the site", reg.BaseOf("chez.recipe"), "bistro/recipe"},
		{"base of the layer", reg.BaseOf("bistro/recipe"), "dish/recipe"},
		{"the layer states selectors of its own", ov.Selectors && ok, true},
		{"the layer's own site rules", own, map[string]bool{"consent": true}},
		{"family site rules known", famOK, true},
		{"the layer's own site rules, as its base sees them", ov.SiteRules, map[string]bool{"consent": true}},
	}
	for _, tt := range tests {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, tt.got, tt.want)
		}
	}
	f := reg.File("chez.recipe")
	for _, tt := range []struct {
		what string
		pos  sitedef.Pos
		file string
	}{
		{"the layer's title xpath", f.Pos.Of(&chez.Endpoint.Fields.Get("title").Select[1].XPath), "_families/bistro/recipe.yaml"},
		{"dish's author expr", f.Pos.Of(&chez.Endpoint.Fields.Get("author").Expr), "_families/dish/recipe.yaml"},
		{"chez's own url example", f.Pos.Of(&chez.Endpoint.Params.Get("url").Example), ""},
	} {
		if tt.pos.File != tt.file {
			t.Errorf("%s at %+v, want in %q", tt.what, tt.pos, tt.file)
		}
	}
}

// BenchmarkLoadFamilySites: loading 200 sites mounted from one base, each with an override and a
// removal (resolution happens here, at load, never per request).
func BenchmarkLoadFamilySites(b *testing.B) {
	fsys := fstest.MapFS{}
	src := os.DirFS("../fixture/testdata/family/sitedefs")
	for _, p := range []string{"_families/dish/site.yaml", "_families/dish/recipe.yaml"} {
		data, err := fs.ReadFile(src, p)
		if err != nil {
			b.Fatal(err)
		}
		fsys[p] = &fstest.MapFile{Data: data}
	}
	for i := range 200 {
		site := fmt.Sprintf("site%03d", i)
		fsys[site+"/site.yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`kind: site
site: %s
name: Site %d
version: 1.0.0
extends: dish
domains:
  com: {host: www.%s.example, locale: en_US}
endpoints:
  recipe:
    extends: dish/recipe
    fields:
      cuisine: {type: string, xpath: "//span[@class='cuisine']"}
    remove: [fields.keywords]
`, site, i, site))}
	}
	eng := engine.New()
	// The same 200 endpoints written out by hand (as asa sitedef show prints them), for comparison.
	hand := fstest.MapFS{}
	reg, _ := registry.Load(eng, fsys)
	for _, id := range reg.IDs() {
		p := reg.Plan(id)
		site := *p.Site
		site.Endpoints = sitedef.Map[sitedef.Endpoint]{}
		sy, _ := sitedef.Marshal(&site)
		ey, _ := sitedef.Marshal(p.Endpoint)
		hand[site.Site+"/site.yaml"] = &fstest.MapFile{Data: sy}
		hand[site.Site+"/recipe.yaml"] = &fstest.MapFile{Data: ey}
	}
	for _, bc := range []struct {
		name string
		fsys fstest.MapFS
	}{{"mounted", fsys}, {"hand-written", hand}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				reg, diags := registry.Load(eng, bc.fsys)
				if len(diags) > 0 || len(reg.IDs()) != 200 {
					b.Fatalf("%d endpoints, diagnostics %v", len(reg.IDs()), diags)
				}
			}
		})
	}
}

// TestSlugs: a site slug may hold hyphens (users type the site's own name), not at either end.
func TestSlugs(t *testing.T) {
	for _, tt := range []struct {
		slug string
		ok   bool
	}{{"google-play", true}, {"a_b-c9", true}, {"x", true}, {"-x", false}, {"x-", false}, {"X", false}, {"a.b", false}} {
		fsys := fstest.MapFS{
			tt.slug + "/site.yaml": {Data: []byte("kind: site\nsite: " + tt.slug + "\nname: N\ncategory: other\nversion: 1.0.0\n")},
			tt.slug + "/item.yaml": {Data: []byte("kind: endpoint\nresource: item\nsummary: S.\nparams: {url: {type: url, required: true}}\n" +
				"steps: [{id: page, request: {url: '${ params.url }'}}]\nfields: {title: {xpath: //h1}}\n")},
		}
		reg, diags := registry.Load(engine.New(), fsys)
		if got := !diags.HasErrors() && reg.Plan(tt.slug+".item") != nil; got != tt.ok {
			t.Errorf("slug %q: loads %v, want %v (%v)", tt.slug, got, tt.ok, diags)
		}
	}
}

// TestBaseWarningsOnce: a warning about a base's value is reported at the base, not again at every
// site that mounts it.
func TestBaseWarningsOnce(t *testing.T) {
	fsys := fstest.MapFS{
		"_families/f/site.yaml": {Data: []byte("kind: site\nsite: f\ncategory: other\n")},
		"_families/f/item.yaml": {Data: []byte("kind: endpoint\nresource: item\nsummary: S.\nparams: {url: {type: url, required: true}}\n" +
			"steps: [{id: page, request: {url: '${ params.url }'}}]\nfields: {title: {xpath: //h1}, code: {regex: '(a)(b)'}}\n")},
	}
	for _, s := range []string{"one", "two", "three"} {
		fsys[s+"/site.yaml"] = &fstest.MapFile{Data: []byte("kind: site\nsite: " + s + "\nname: N\nversion: 1.0.0\nextends: f\n" +
			"endpoints:\n  item: {extends: f/item}\n")}
	}
	reg, diags := registry.Load(engine.New(), fsys)
	if diags.HasErrors() || len(reg.IDs()) != 3 {
		t.Fatalf("%v %v", reg.IDs(), diags)
	}
	if len(diags) != 1 || diags[0].File != "_families/f/item.yaml" || !strings.Contains(diags[0].Message, "only the first capture group") {
		t.Errorf("want one warning, at the base: %v", diags)
	}
}

// TestDropPositions: a server forgets the files' positions once loaded; the plans stay, and
// Overrides, which needs them, says it cannot tell rather than guess.
func TestDropPositions(t *testing.T) {
	reg, diags := registry.Load(engine.New(), os.DirFS("../fixture/testdata/family/sitedefs"))
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	const id = "alpha-kitchen.recipe"
	if _, ok := reg.Overrides(id); !ok {
		t.Fatalf("%s: no overrides before DropPositions", id)
	}
	plan := reg.Plan(id)
	reg.DropPositions()
	if f := reg.File(id); f == nil || f.Pos != nil {
		t.Errorf("%s: file %v, want one without positions", id, f)
	}
	if _, ok := reg.Overrides(id); ok {
		t.Errorf("%s: overrides answered without positions", id)
	}
	if reg.Plan(id) != plan {
		t.Errorf("%s: plan changed", id)
	}
}
