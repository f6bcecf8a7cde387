package engine_test

import (
	"testing"

	"asa/engine"
)

// Every corpus expectation, every fixture case and every corpus page of the site of a plan that
// builds its trees lazily run on it and on the same plan building every tree eagerly: the same
// output, error, rule and warnings. walmart.product is lazy (its url's canonical-link XPath is a
// fallback, and its bot check's __NEXT_DATA__ script is found present by the scan), and so is
// YouTube's watch page.
func TestLazyTreeKeepsOutput(t *testing.T) {
	skipUnderRace(t)
	corpus, reg, exps := loadCorpus(t, engine.New())
	_, eager, _ := loadCorpus(t, engine.NewEager())
	for _, id := range []string{"walmart.product", "youtube.video"} {
		if !engine.LazyTree(reg.Plan(id)) {
			t.Errorf("%s builds its tree eagerly", id)
		}
	}
	for _, id := range eager.IDs() {
		if engine.LazyTree(eager.Plan(id)) {
			t.Errorf("%s is lazy with NewEager", id)
		}
	}
	compareOnCorpus(t, corpus, reg, eager, exps, engine.LazyTree)
}
