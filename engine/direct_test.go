package engine_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"asa/engine"
	"asa/engine/fixture"
)

// TestDirectIsTheVM: on every corpus expectation, each expression evaluated directly gives what
// the VM gives (a verifying engine runs both and warns on a difference).
func TestDirectIsTheVM(t *testing.T) {
	skipUnderRace(t)
	corpus, reg, exps := loadCorpus(t, engine.NewVerifying())
	direct, all := 0, 0
	for _, id := range reg.IDs() {
		d, a := engine.DirectShare(reg.Plan(id))
		direct, all = direct+d, all+a
	}
	t.Logf("%d of %d field expressions have a direct form", direct, all)
	if direct < all/4 {
		t.Errorf("only %d of %d field expressions have a direct form", direct, all)
	}
	runs := 0
	for _, e := range exps {
		plan := reg.Plan(e.Endpoint)
		if plan == nil {
			continue
		}
		rp := &fixture.Replay{Replies: map[string]*fixture.Reply{}}
		load := func(name string) *fixture.Reply {
			body, err := os.ReadFile(filepath.Join(corpus, name))
			if err != nil {
				t.Fatal(err)
			}
			return &fixture.Reply{Status: e.Status, Header: http.Header{"Content-Type": {fixture.ContentType(name)}}, Body: body}
		}
		if e.Page != "" {
			rp.Fallback = load(e.Page)
			rp.Fallback.URL = e.URL
		}
		for step, name := range e.Pages {
			rp.Replies[step] = load(name)
		}
		ps, err := plan.Params(fixture.Values(e.Params))
		if err != nil {
			continue
		}
		res, err := plan.Run(context.Background(), ps, rp)
		if err != nil {
			continue
		}
		runs++
		for _, w := range res.Warnings {
			if strings.Contains(w, "direct evaluation") {
				t.Errorf("%s: %s", e.Name(), w)
			}
		}
	}
	if runs < len(exps)/2 {
		t.Errorf("only %d runs of %d expectations", runs, len(exps))
	}
}
