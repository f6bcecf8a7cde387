package engine

import (
	"testing"

	"github.com/expr-lang/expr"
)

func TestMayReadBody(t *testing.T) {
	for src, want := range map[string]bool{
		`steps.page.body contains "\"@type\":\"Product\""`: true,
		`steps["page"]["body"] matches "x"`:                true,
		`len(body) > 0`:                                    true,
		`steps.page.status == 404`:                         false,
		`fields.id != nil && fields.id != params.query`:    false,
	} {
		p, err := expr.Compile(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := mayReadBody(p.Node()); got != want {
			t.Errorf("mayReadBody(%s) = %v, want %v", src, got, want)
		}
	}
}
