package engine_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/registry"
)

// TestRuleOrderIsPure: matches checks the body searches last and stops at the first failing part;
// on every corpus page, each rule of the page's endpoint gives the verdict it gives with every part
// evaluated, and so does settle (the verdict without the tree or the scan) wherever it tells.
func TestRuleOrderIsPure(t *testing.T) {
	skipUnderRace(t)
	corpus, reg, exps := loadCorpus(t, engine.New())
	seen := map[[2]string]bool{}
	pages, matched := 0, 0
	var told [2]int // rules settled no and yes without the tree
	for _, e := range exps {
		k := [2]string{e.Endpoint, e.Page}
		if e.Page == "" || seen[k] {
			continue
		}
		seen[k] = true
		plan := reg.Plan(e.Endpoint)
		if plan == nil {
			continue
		}
		body, err := os.ReadFile(filepath.Join(corpus, e.Page))
		if err != nil {
			t.Fatal(err)
		}
		status := e.Status
		if status == 0 {
			status = 200
		}
		url := e.URL
		if url == "" {
			url = "https://www.example.com/"
		}
		resp := &engine.Response{Status: status, URL: url, Body: body,
			Header: http.Header{"Content-Type": {fixture.ContentType(e.Page)}}}
		ids, got, want, settled := engine.RuleVerdicts(plan, resp)
		pages++
		for i := range ids {
			if want[i] {
				matched++
			}
			if got[i] != want[i] {
				t.Errorf("%s on %s: rule %s says %v, its parts say %v", e.Endpoint, e.Page, ids[i], got[i], want[i])
			}
			if settled[i] < 2 {
				told[settled[i]]++
				if (settled[i] == 1) != want[i] {
					t.Errorf("%s on %s: rule %s is settled %v without the tree, its parts say %v", e.Endpoint, e.Page, ids[i], settled[i] == 1, want[i])
				}
			}
		}
	}
	// The corpus has blocked and not-found pages: the rules are seen to match, not only to fail.
	if pages < 100 || matched < 10 {
		t.Errorf("%d pages, %d matching rules: the corpus was not read", pages, matched)
	}
	// Most rules are settled no from the status, the URL or a literal the page lacks; some match
	// from the response alone (a 404 status).
	if told[0] < 1000 || told[1] < 5 {
		t.Errorf("settle told no %d times and yes %d times", told[0], told[1])
	}
	t.Logf("%d pages, %d matching rules; settled without the tree: %d no, %d yes", pages, matched, told[0], told[1])
}

// loadCorpus loads the catalogue with e and the corpus expectations, or skips the test in -short
// mode or without the shared corpus beside the repository (or at $ASA_CORPUS).
func loadCorpus(t *testing.T, e *engine.Engine) (string, *registry.Registry, []*fixture.Expectation) {
	t.Helper()
	if testing.Short() {
		t.Skip("reads the whole corpus")
	}
	corpus := os.Getenv("ASA_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	reg, diags := registry.Load(e, os.DirFS("../sitedefs"))
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	exps, err := fixture.LoadExpectations("../fixtures/corpus")
	if err != nil {
		t.Fatal(err)
	}
	return corpus, reg, exps
}
