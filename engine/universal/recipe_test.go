package universal_test

import (
	"os"
	"reflect"
	"testing"

	"asa/engine/universal"
)

// TestRecipeFaults: a recipe page of ours whose JSON-LD has entities escaped twice, times in words
// and in loose ISO forms, and doubled parentheses in its ingredients.
func TestRecipeFaults(t *testing.T) {
	page, err := os.ReadFile("testdata/recipe-faults.html")
	if err != nil {
		t.Fatal(err)
	}
	res, err := universal.Extract(page, "text/html", "https://cucina.example/pasta-e-ceci", universal.Auto)
	if err != nil {
		t.Fatal(err)
	}
	r := res.Structured.Recipe
	if r == nil {
		t.Fatal("no recipe")
	}
	str := func(s *string) string {
		if s == nil {
			return "<nil>"
		}
		return *s
	}
	for _, c := range []struct{ field, got, want string }{
		{"name", str(r.Name), "Pasta e ceci & rosmarino della nonna"},
		{"description", str(r.Description), "La pasta e ceci di Nonna's, cremosa."},
		{"prep_time", str(r.PrepTime), "PT35M"},
		{"cook_time", str(r.CookTime), "PT4H45M"},
		{"total_time", str(r.TotalTime), "PT5H20M"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	want := []string{"200 g ceci (già cotti)", "160 g ditalini", "1 rametto di rosmarino (facoltativo)", "olio & sale"}
	if !reflect.DeepEqual(r.Ingredients, want) {
		t.Errorf("ingredients %q, want %q", r.Ingredients, want)
	}
	if len(r.Instructions) != 2 || r.Instructions[0] != "Rosolare il rosmarino nell'olio." {
		t.Errorf("instructions %q", r.Instructions)
	}
}
