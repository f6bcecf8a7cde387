package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestUnknownEndpointSuggests: a 404 for an unknown /api/v1/{site}/{resource} names what the client
// may have meant: the site's resource one or two edits away, else the site's endpoints; a site one
// or two edits away; nothing for a name far from every site.
func TestUnknownEndpointSuggests(t *testing.T) {
	e := startDashboard(t, "", nil)
	for _, tc := range []struct{ path, want string }{
		{"/api/v1/amazon/prodcut", "did you mean /api/v1/amazon/product?"},
		{"/api/v1/amazon/Produc", "did you mean /api/v1/amazon/product?"},
		{"/api/v1/amazon/reviews", "amazon's endpoints: bestsellers, offers, product, search"},
		{"/api/v1/amzon/product", `no site "amzon"; did you mean amazon?`},
		{"/api/v1/x/folowers", "did you mean /api/v1/x/followers?"},
		{"/api/v1/nosuchsitehere/product", "(the endpoints are listed in /docs/api.md)"},
		{"/api/v1/" + strings.Repeat("a", 5000) + "/product", "(the endpoints are listed in /docs/api.md)"},
	} {
		resp, err := http.Get(e.base + tc.path + "?api_key=asa_test_x")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var body struct {
			Error, Message string
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatalf("%s: %v: %s", tc.path[:min(len(tc.path), 60)], err, b)
		}
		if resp.StatusCode != http.StatusNotFound || body.Error != "not_found" || !strings.HasSuffix(body.Message, tc.want) {
			t.Errorf("%.60s: %d %s %q; want 404 not_found ending %q", tc.path, resp.StatusCode, body.Error, body.Message, tc.want)
		}
	}
}
