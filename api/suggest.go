package api

import (
	"fmt"
	"strings"
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
		if best := nearest(site, reg.Sites()); best != "" {
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
		if best := nearest(resource, resources); best != "" {
			return fmt.Sprintf("did you mean /api/v1/%s/%s?", site, best)
		}
	}
	return fmt.Sprintf("%s's endpoints: %s", site, strings.Join(resources, ", "))
}

// nearest is the name of names one or two edits from s (the first of the closest), or "".
func nearest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes (slugs are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
