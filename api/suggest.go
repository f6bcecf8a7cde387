package api

import (
	"fmt"
	"strings"

	"asa/engine/nearest"
)

// maxSuggestLen bounds the path segments compared with the catalogue's names: an edit distance is
// quadratic in their lengths, and no slug is longer.
const maxSuggestLen = 64

// suggestEndpoint says what a request for an unknown /api/v1/{site}/{resource} may have meant, or
// "": the resource the site has that is one or two edits away, else the site's resources; for an
// unknown site, the site one or two edits away.
func (s *Server) suggestEndpoint(path string) string {
	rest, ok := strings.CutPrefix(path, "/api/v1/")
	if !ok || s.deps.Registry == nil {
		return ""
	}
	site, resource, _ := strings.Cut(rest, "/")
	resource, _, _ = strings.Cut(resource, "/")
	site, resource = strings.ToLower(site), strings.ToLower(resource)
	if site == "" || len(site) > maxSuggestLen || len(resource) > maxSuggestLen {
		return ""
	}
	reg := s.deps.Registry
	if reg.Site(site) == nil {
		if best := nearest.Name(site, reg.Sites()); best != "" {
			return fmt.Sprintf("no site %q; did you mean %s?", site, best)
		}
		return ""
	}
	canon := reg.Canonical(site)
	var resources []string
	for _, id := range reg.IDs() {
		if r, ok := strings.CutPrefix(id, canon+"."); ok {
			resources = append(resources, r)
		}
	}
	if resource != "" {
		if best := nearest.Name(resource, resources); best != "" {
			return fmt.Sprintf("did you mean /api/v1/%s/%s?", site, best)
		}
	}
	return fmt.Sprintf("%s's endpoints: %s", site, strings.Join(resources, ", "))
}
