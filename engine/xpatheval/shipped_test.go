package xpatheval_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"asa/engine"
	"asa/engine/registry"
	"asa/engine/xpatheval"
)

// The big real pages the equivalence tests run on besides the fixtures, by site: the reference
// evaluation is slow on them, so only these.
var shippedCorpusPages = map[string][]string{
	"amazon": {"../../../shared/corpus/amazon/product-amazon.com-dp-B01GOH7PKA.html", "../../../shared/corpus/amazon/search-de-katzenfutter.html"},
	"google": {"../../../shared/corpus/google/serp-2024-03-13-gu-gels-0410241ce1e2.html"},
}

func init() {
	xpatheval.LoadShipped = loadShipped
}

// loadShipped compiles every shipped endpoint and family base through the registry (so extends is
// resolved as in production) and gives each the pages of its own site: its fixture pages, its
// family's, and the big corpus pages above. Checking each XPath on its own site's pages keeps the
// cost linear in the catalogue, not in sites x pages.
func loadShipped() ([]xpatheval.ShippedXPaths, error) {
	reg, diags := registry.Load(engine.New(), os.DirFS("../../sitedefs"))
	if diags.HasErrors() {
		return nil, fmt.Errorf("loading sitedefs: %v", diags)
	}
	glob := func(dir string) []string {
		var out []string
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".html") {
				out = append(out, p)
			}
			return nil
		})
		sort.Strings(out)
		return out
	}
	var out []xpatheval.ShippedXPaths
	for _, id := range reg.IDs() {
		site, resource, _ := strings.Cut(id, ".")
		pages := glob(filepath.Join("../../fixtures", site, resource))
		if base := reg.BaseOf(id); base != "" {
			fam, res, _ := strings.Cut(base, "/")
			pages = append(pages, glob(filepath.Join("../../fixtures/_families", fam, res))...)
		}
		for _, p := range shippedCorpusPages[site] {
			if _, err := os.Stat(p); err == nil {
				pages = append(pages, p)
			}
		}
		out = append(out, xpatheval.ShippedXPaths{Site: site, ID: id, XPaths: reg.Plan(id).XPaths(), Pages: pages})
	}
	for _, id := range reg.Bases() {
		fam, res, _ := strings.Cut(id, "/")
		out = append(out, xpatheval.ShippedXPaths{Site: reg.Base(id).Site.Site, ID: id, XPaths: reg.Base(id).XPaths(), Pages: glob(filepath.Join("../../fixtures/_families", fam, res))})
	}
	return out, nil
}
