package api

import (
	"sort"
	"strings"

	"asa/engine/fixture"
	"asa/engine/sitedef"
	"asa/fixtures"
)

// corpusCounts are the real pages each endpoint is checked on, counted once from the fixtures'
// corpus/*.yaml (Deps.Fixtures, else the embedded set) rather than generated into Go: adding a site
// is YAML only. A fixture tree without corpus files gives no counts, and the catalogue says so.
func (s *Server) corpusCounts() map[string]fixture.CorpusCount {
	s.countsOnce.Do(func() {
		fsys := s.deps.Fixtures
		if fsys == nil {
			fsys = fixtures.FS
		}
		counts, err := fixture.CorpusCounts(fsys)
		if err != nil && s.deps.Log != nil {
			s.deps.Log.Warn("counting corpus expectations for the catalogue", "err", err)
		}
		s.counts = counts
	})
	return s.counts
}

type catalogueEndpoint struct {
	ID        string
	Path      string
	Summary   string
	Version   string
	Params    []string
	Paginated bool
	Corpus    fixture.CorpusCount
	Known     bool // the corpus count is known (an embedded endpoint)
}

type catalogueSite struct {
	Slug, Name, Summary, Version string
	Family                       string // the family the site extends, if any
	Domains                      int
	DefaultDomain                string
	Endpoints                    []catalogueEndpoint
}

type catalogueCategory struct {
	Name  string
	Sites []catalogueSite
}

type catalogueData struct {
	Categories []catalogueCategory
	Sites      int
	Endpoints  int
	Pages      int
}

// catalogue lists every loaded site by category, with its endpoints, extractor versions and the
// real pages each is proven on.
func (s *Server) catalogue() catalogueData {
	reg := s.deps.Registry
	counts := s.corpusCounts()
	byCat := map[string]*catalogueCategory{}
	var out catalogueData
	for _, slug := range reg.Sites() {
		site := reg.Site(slug)
		cs := catalogueSite{Slug: slug, Name: site.Name, Summary: site.Summary, Version: site.Version, Family: reg.Family(slug),
			Domains: site.Domains.Len(), DefaultDomain: site.DefaultDomain}
		for _, id := range reg.IDs() {
			if !strings.HasPrefix(id, slug+".") {
				continue
			}
			plan := reg.Plan(id)
			ce := catalogueEndpoint{ID: id, Path: "/api/v1/" + strings.Replace(id, ".", "/", 1), Summary: plan.Endpoint.Summary,
				Version: plan.Version, Paginated: plan.Endpoint.Paginate != nil}
			plan.Endpoint.Params.Each(func(name string, p *sitedef.Param) {
				if p.Required {
					name += "*"
				}
				ce.Params = append(ce.Params, name)
			})
			ce.Corpus, ce.Known = counts[id]
			out.Pages += ce.Corpus.Pages()
			cs.Endpoints = append(cs.Endpoints, ce)
			out.Endpoints++
		}
		cat := byCat[site.Category]
		if cat == nil {
			cat = &catalogueCategory{Name: site.Category}
			byCat[site.Category] = cat
		}
		cat.Sites = append(cat.Sites, cs)
		out.Sites++
	}
	for _, c := range byCat {
		out.Categories = append(out.Categories, *c)
	}
	sort.Slice(out.Categories, func(i, j int) bool { return out.Categories[i].Name < out.Categories[j].Name })
	return out
}
