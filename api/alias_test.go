package api_test

import (
	"strings"
	"testing"
)

// TestSiteAlias: a site's alias (x for twitter) answers every endpoint of the site exactly as its slug
// does, and the response names the site by its slug; a slug no site has stays a 404.
func TestSiteAlias(t *testing.T) {
	e := startSandbox(t)
	for _, tc := range []struct {
		name, path string
		status     int
		caseName   string
	}{
		{"the slug", "/api/v1/twitter/tweet?query=1790000000000000002", 200, "default"},
		{"the alias", "/api/v1/x/tweet?query=1790000000000000002", 200, "default"},
		{"the alias, another endpoint", "/api/v1/x/search?query=fixture+search", 200, "default"},
		{"the alias, an error case", "/api/v1/x/profile?query=nobody_here_404", 404, "no-such-user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.get(t, tc.path+"&api_key="+e.test)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
			}
			if got := r.header.Get("Asa-Sandbox-Case"); got != tc.caseName {
				t.Errorf("Asa-Sandbox-Case %q, want %q", got, tc.caseName)
			}
			if v := r.header.Get("Asa-Extractor-Version"); !strings.HasPrefix(v, "twitter@") {
				t.Errorf("Asa-Extractor-Version %q, want the site's slug", v)
			}
		})
	}
	slug := e.get(t, "/api/v1/twitter/tweet?query=1790000000000000002&api_key="+e.test)
	alias := e.get(t, "/api/v1/x/tweet?query=1790000000000000002&api_key="+e.test)
	if slug.raw != alias.raw {
		t.Errorf("the alias answers differently:\n%s\n%s", slug.raw, alias.raw)
	}
	if r := e.get(t, "/api/v1/xx/tweet?query=1790000000000000002&api_key="+e.test); r.status != 404 {
		t.Errorf("a slug no site has: %d", r.status)
	}
}
