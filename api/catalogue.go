package api

import (
	"sort"
	"strings"

	"asa/engine/sitedef"
)

// corpusCount is how many real pages (fixtures/corpus/<site>.yaml) an endpoint is checked on: pages
// whose extracted values are checked, and pages that must give a given error (bot walls, not-found
// pages, galleries). catalogue_corpus.go is generated from those files and test-checked.
type corpusCount struct {
	Output int
	Errors int
}

func (c corpusCount) Pages() int { return c.Output + c.Errors }

type catalogueEndpoint struct {
	ID        string
	Path      string
	Summary   string
	Version   string
	Params    []string
	Paginated bool
	Corpus    corpusCount
	Known     bool // the corpus count is known (an embedded endpoint)
}

type catalogueSite struct {
	Slug, Name, Summary, Version string
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
	byCat := map[string]*catalogueCategory{}
	var out catalogueData
	for _, slug := range reg.Sites() {
		site := reg.Site(slug)
		cs := catalogueSite{Slug: slug, Name: site.Name, Summary: site.Summary, Version: site.Version,
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
			ce.Corpus, ce.Known = corpusCounts[id]
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
