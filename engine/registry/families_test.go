package registry_test

import (
	"os"
	"reflect"
	"testing"

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
	if got, want := reg.IDs(), []string{"alpha-kitchen.recipe", "beta.recipe"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("routed ids %v, want %v (bases are never routed)", got, want)
	}
	if got, want := reg.Bases(), []string{"dish/recipe"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("bases %v, want %v", got, want)
	}
	alpha, beta := reg.Plan("alpha-kitchen.recipe"), reg.Plan("beta.recipe")
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
	// The base is compiled on its own too, for its fixture cases.
	if b := reg.Base("dish/recipe"); b == nil || b.ID != "dish/recipe" {
		t.Errorf("base plan: %+v", b)
	}
}
