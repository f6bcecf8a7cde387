// Package registry loads a set of sitedefs from a file system, compiles every endpoint, and indexes the
// plans by id. Loading reports every problem of every file in one pass.
package registry

import (
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"asa/engine"
	"asa/engine/diag"
	"asa/engine/sitedef"
)

// Registry is an immutable set of compiled plans.
type Registry struct {
	plans map[string]*engine.Plan
	sites map[string]*sitedef.Site
	ids   []string
}

// Load reads every <site>/site.yaml and <site>/<resource>.yaml under fsys. When only is non-empty,
// only files whose path (relative to fsys) is listed, or lies under a listed directory, are reported on;
// every site file is still read so endpoints compile against their site. The returned diagnostics hold
// warnings too. The registry holds every endpoint that compiled, even when other files have errors,
// so one broken sitedef does not stop an author testing the rest; callers refuse to serve on errors.
func Load(eng *engine.Engine, fsys fs.FS, only ...string) (*Registry, diag.List) {
	var diags diag.List
	reg := &Registry{plans: map[string]*engine.Plan{}, sites: map[string]*sitedef.Site{}}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		diags.Add(".", 1, 1, "reading sitedefs: %v", err)
		return nil, diags
	}
	wanted := func(p string) bool {
		if len(only) == 0 {
			return true
		}
		for _, o := range only {
			o = strings.TrimSuffix(path.Clean(o), "/")
			if p == o || strings.HasPrefix(p, o+"/") {
				return true
			}
		}
		return false
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") {
			continue
		}
		// Stat follows a symlinked site directory, which ReadDir reports as a file.
		if st, err := fs.Stat(fsys, e.Name()); err != nil || !st.IsDir() {
			continue
		}
		dir := e.Name()
		sitePath := path.Join(dir, "site.yaml")
		data, err := fs.ReadFile(fsys, sitePath)
		if err != nil {
			diags.Add(sitePath, 1, 1, "every site directory needs a site.yaml: %v", err)
			continue
		}
		siteFile, d := sitedef.Parse(sitePath, data)
		if siteFile.Site == nil {
			if wanted(sitePath) {
				diags = append(diags, d...)
			}
			continue
		}
		d = append(d, engine.CheckSite(siteFile, dir)...)
		if wanted(sitePath) {
			diags = append(diags, d...)
		}
		if d.HasErrors() {
			continue
		}
		reg.sites[siteFile.Site.Site] = siteFile.Site
		files, _ := fs.ReadDir(fsys, dir)
		for _, f := range files {
			name := f.Name()
			if f.IsDir() || name == "site.yaml" || !(strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")) {
				continue
			}
			p := path.Join(dir, name)
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				diags.Add(p, 1, 1, "reading: %v", err)
				continue
			}
			epFile, d := sitedef.Parse(p, data)
			if epFile.Endpoint != nil {
				want := strings.TrimSuffix(strings.TrimSuffix(name, ".yaml"), ".yml")
				if epFile.Endpoint.Resource != want {
					pos := epFile.Pos.Of(&epFile.Endpoint.Resource)
					d.Add(p, max(pos.Line, 1), max(pos.Col, 1), "resource %q must equal the file name %q", epFile.Endpoint.Resource, want)
				}
				plan, cd := eng.Compile(siteFile, epFile)
				d = append(d, cd...)
				if !d.HasErrors() {
					reg.plans[plan.ID] = plan
				}
			} else if epFile.Site != nil {
				d.Add(p, 1, 1, "only site.yaml may be kind: site")
			}
			if wanted(p) {
				diags = append(diags, d...)
			}
		}
	}
	for id := range reg.plans {
		reg.ids = append(reg.ids, id)
	}
	sort.Strings(reg.ids)
	diags.Sort()
	return reg, diags
}

// Plan returns the plan of "site.resource", or nil.
func (r *Registry) Plan(id string) *engine.Plan { return r.plans[id] }

// Lookup returns the plan of a site and resource, or nil.
func (r *Registry) Lookup(site, resource string) *engine.Plan { return r.plans[site+"."+resource] }

// IDs returns every plan id, sorted.
func (r *Registry) IDs() []string { return r.ids }

// Site returns a site definition by slug.
func (r *Registry) Site(slug string) *sitedef.Site { return r.sites[slug] }

// Sites returns every site slug, sorted.
func (r *Registry) Sites() []string {
	out := make([]string, 0, len(r.sites))
	for s := range r.sites {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// String summarises the registry for logs.
func (r *Registry) String() string {
	return fmt.Sprintf("%d sites, %d endpoints", len(r.sites), len(r.plans))
}
