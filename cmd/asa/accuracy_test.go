package main

import (
	"io"
	"testing"
)

// The accuracy report groups an endpoint under the family its base belongs to, whether the site
// mounts it in site.yaml or extends it in an endpoint file of its own; an endpoint in no family is
// its site's.
func TestFamilyOf(t *testing.T) {
	reg, diags := loadRegistry("../../engine/fixture/testdata/family/sitedefs", io.Discard)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	of := familyOf(reg)
	for id, want := range map[string]string{
		"alpha-kitchen.recipe": "dish", // mounted in site.yaml
		"beta.recipe":          "dish", // an endpoint file that extends the base
		"gamma.recipe":         "dish", // the same, on a site of no family
		"shop.item":            "shop", // not loaded: its site
	} {
		if got := of(id); got != want {
			t.Errorf("familyOf(%s) = %q, want %q", id, got, want)
		}
	}
}
