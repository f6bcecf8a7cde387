package api_test

import (
	"os"
	"strings"
	"testing"

	"asa/engine/errcode"
)

// TestEveryErrorCodeDocumented: every code a client can see has its anchor in docs/api.md, where
// docs_url points.
func TestEveryErrorCodeDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range errcode.All() {
		if c == errcode.Blocked {
			continue // internal: it reaches clients as target_unreachable
		}
		anchor := `<a id="error-` + strings.ReplaceAll(string(c), "_", "-") + `"></a>`
		if !strings.Contains(string(b), anchor) {
			t.Errorf("docs/api.md lacks %s", anchor)
		}
	}
}
