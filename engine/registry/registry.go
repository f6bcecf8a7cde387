// Package registry loads a set of sitedefs from a file system, compiles every endpoint, and indexes the
// plans by id. Loading reports every problem of every file in one pass.
package registry

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

	"asa/engine"
	"asa/engine/diag"
	"asa/engine/sitedef"
)

// Registry is an immutable set of compiled plans.
type Registry struct {
	plans map[string]*engine.Plan
	sites map[string]*sitedef.Site
	ids   []string
	// Family bases, compiled for checking and fixture tests but never routed: "family/resource".
	bases   map[string]*engine.Plan
	baseIDs []string
	// baseOf maps a plan id, or a base that extends another, to the base id it extends, for
	// coverage, the sandbox and the docs; famParent a family that extends another to that one.
	baseOf    map[string]string
	famParent map[string]string
	// files holds the resolved endpoint file of every plan and base, for asa sitedef show;
	// siteFiles the resolved site.yaml of every site, by slug.
	files     map[string]*sitedef.File
	siteFiles map[string]*sitedef.File
	// famFiles holds the resolved site.yaml of every family, by name.
	famFiles map[string]*sitedef.File
	// aliases maps another slug a site answers to (x) to the site's own (twitter).
	aliases map[string]string
	// noPositions: DropPositions ran, and the files' positions are gone.
	noPositions bool
}

// DropPositions forgets where in its file each value of a definition was written: the loader's
// and the compiler's messages are written by then, and a server never needs them again (one map
// entry per value of every file, about 6 MB of the embedded catalogue's heap). Afterwards
// Overrides answers ok false and File's Pos is nil; the plans are unchanged.
func (r *Registry) DropPositions() {
	r.noPositions = true
	for _, files := range []map[string]*sitedef.File{r.files, r.siteFiles, r.famFiles} {
		for _, f := range files {
			f.Pos = nil
		}
	}
}

// Load reads every <site>/site.yaml and <site>/<resource>.yaml under fsys, and the family bases under
// _families/<family>/. When only is non-empty, only files whose path (relative to fsys) is listed, or
// lies under a listed directory, are reported on; every site file is still read so endpoints compile
// against their site. The returned diagnostics hold warnings too. The registry holds every endpoint
// that compiled, even when other files have errors, so one broken sitedef does not stop an author
// testing the rest; callers refuse to serve on errors.
func Load(eng *engine.Engine, fsys fs.FS, only ...string) (*Registry, diag.List) {
	var diags diag.List
	reg := &Registry{plans: map[string]*engine.Plan{}, sites: map[string]*sitedef.Site{},
		bases: map[string]*engine.Plan{}, baseOf: map[string]string{}, famParent: map[string]string{}, files: map[string]*sitedef.File{}, siteFiles: map[string]*sitedef.File{}, famFiles: map[string]*sitedef.File{}, aliases: map[string]string{}}
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
	l := &loader{eng: eng, fsys: fsys, reg: reg, wanted: wanted, diags: &diags,
		baseFiles: map[string]*sitedef.File{}, broken: map[string]bool{},
		records: map[string]*sitedef.File{}, resolving: map[string]bool{}}
	l.loadFamilies()
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_") {
			continue
		}
		// Stat follows a symlinked site directory, which ReadDir reports as a file.
		if st, err := fs.Stat(fsys, e.Name()); err != nil || !st.IsDir() {
			continue
		}
		l.loadSite(e.Name())
	}
	l.compileQueued()
	l.checkAliases()
	for id := range reg.plans {
		reg.ids = append(reg.ids, id)
	}
	sort.Strings(reg.ids)
	for id := range reg.bases {
		reg.baseIDs = append(reg.baseIDs, id)
	}
	sort.Strings(reg.baseIDs)
	// Every file is resolved and compiled: the registry keeps their definitions, not their trees.
	for _, files := range []map[string]*sitedef.File{reg.files, reg.siteFiles, reg.famFiles} {
		for _, f := range files {
			f.DropTree()
		}
	}
	diags.Sort()
	return reg, diags
}

type loader struct {
	eng    *engine.Engine
	fsys   fs.FS
	reg    *Registry
	wanted func(string) bool
	diags  *diag.List
	// baseFiles are the parsed bases (the families' resolved site.yaml files are reg.famFiles);
	// broken names the families and bases that have errors of their own, reported once at the base
	// rather than at each of its sites.
	baseFiles map[string]*sitedef.File
	broken    map[string]bool
	// famDirs names the directories under _families/; famLoading the families being loaded, so a
	// cycle of families extending each other is an error rather than a loop.
	famDirs, famLoading map[string]bool
	// records caches the endpoints fields extend (by name), resolved once; resolving marks the names
	// being resolved, so a cycle is an error rather than a loop.
	records   map[string]*sitedef.File
	resolving map[string]bool
	// queue holds the site endpoints waiting to compile (see compile).
	queue []*compileJob
}

func (l *loader) report(p string, d diag.List) {
	if l.wanted(p) {
		*l.diags = append(*l.diags, d...)
	}
}

func yamlName(name string) (string, bool) {
	for _, ext := range []string{".yaml", ".yml"} {
		if strings.HasSuffix(name, ext) {
			return strings.TrimSuffix(name, ext), true
		}
	}
	return "", false
}

// loadFamilies parses and compiles every base under _families/, each endpoint against its family's
// site.yaml, so a base is checked (and its fixture cases run) once, whatever mounts it. A family may
// extend another (a publisher's markup over the recipe family, say): it loads after that one, and its
// bases extend that family's bases.
func (l *loader) loadFamilies() {
	fams, err := fs.ReadDir(l.fsys, sitedef.FamiliesDir)
	if err != nil {
		return // no families
	}
	l.famDirs, l.famLoading = map[string]bool{}, map[string]bool{}
	var names []string
	for _, fe := range fams {
		fam := fe.Name()
		if strings.HasPrefix(fam, ".") {
			continue
		}
		if st, err := fs.Stat(l.fsys, path.Join(sitedef.FamiliesDir, fam)); err != nil || !st.IsDir() {
			continue
		}
		l.famDirs[fam] = true
		names = append(names, fam)
	}
	for _, fam := range names {
		l.loadFamily(fam)
	}
}

// loadFamily loads one family and its bases once, after the family it extends; it reports whether
// the family loaded without errors.
func (l *loader) loadFamily(fam string) bool {
	if l.reg.famFiles[fam] != nil || l.broken[fam] {
		return !l.broken[fam]
	}
	l.famLoading[fam] = true
	defer delete(l.famLoading, fam)
	dir := path.Join(sitedef.FamiliesDir, fam)
	sitePath := path.Join(dir, "site.yaml")
	data, err := fs.ReadFile(l.fsys, sitePath)
	if err != nil {
		l.broken[fam] = true
		l.report(sitePath, diag.List{{File: sitePath, Line: 1, Col: 1, Message: "every family directory needs a site.yaml: " + err.Error()}})
		return false
	}
	siteFile, d := sitedef.Parse(sitePath, data)
	if siteFile.Site == nil {
		l.broken[fam] = true
		l.report(sitePath, d)
		return false
	}
	if parent := siteFile.Site.Extends; parent != "" && !d.HasErrors() {
		pos := siteFile.Pos.Of(&siteFile.Site.Extends)
		line, col := max(pos.Line, 1), max(pos.Col, 1)
		switch {
		case !l.famDirs[parent]:
			others := maps.Clone(l.famDirs)
			delete(others, fam)
			d.Add(sitePath, line, col, "extends %q: there is no family %q under %s/ (families: %s)", parent, parent, sitedef.FamiliesDir, strings.Join(sortedKeys(others), ", "))
		case l.famLoading[parent]:
			d.Add(sitePath, line, col, "extends family %q, which extends this one: families cannot extend each other in a cycle", parent)
		case !l.loadFamily(parent):
			d.Add(sitePath, line, col, "extends family %q, which has errors of its own (see %s/%s/site.yaml)", parent, sitedef.FamiliesDir, parent)
		default:
			var rd diag.List
			siteFile, rd = sitedef.ExtendSite(l.reg.famFiles[parent], parent, siteFile)
			d = append(d, rd...)
			l.reg.famParent[fam] = parent
		}
	}
	if !d.HasErrors() {
		defaultDomain(siteFile.Site)
		d = append(d, engine.CheckFamilySite(siteFile, fam)...)
	}
	l.report(sitePath, d)
	if d.HasErrors() {
		l.broken[fam] = true
		return false
	}
	l.reg.famFiles[fam] = siteFile
	files, _ := fs.ReadDir(l.fsys, dir)
	for _, f := range files {
		res, ok := yamlName(f.Name())
		if f.IsDir() || !ok || f.Name() == "site.yaml" {
			continue
		}
		l.loadBase(fam, res, path.Join(dir, f.Name()), siteFile)
	}
	return true
}

// loadBase parses and compiles the base fam/res at p against its family's resolved site.yaml.
func (l *loader) loadBase(fam, res, p string, siteFile *sitedef.File) {
	id := fam + "/" + res
	data, err := fs.ReadFile(l.fsys, p)
	if err != nil {
		l.broken[id] = true
		l.report(p, diag.List{{File: p, Line: 1, Col: 1, Message: "reading: " + err.Error()}})
		return
	}
	epFile, d := sitedef.Parse(p, data)
	switch {
	case epFile.Site != nil:
		d.Add(p, 1, 1, "only site.yaml may be kind: site")
	case epFile.Endpoint != nil:
		// a base extends only a base of a family below its own
		below := func(ext string, at sitedef.Pos) bool {
			parentFam, _, _ := strings.Cut(ext, "/")
			if l.ancestor(fam, parentFam) {
				return true
			}
			why := fmt.Sprintf("say extends: %s in %s/%s/site.yaml", parentFam, sitedef.FamiliesDir, fam)
			if up := l.reg.famParent[fam]; up != "" {
				why = fmt.Sprintf("family %q extends %q", fam, up)
			}
			d.Add(p, max(at.Line, 1), max(at.Col, 1), "extends %q: a base extends only the bases of the families its own family extends (%s)", ext, why)
			return false
		}
		var resolved bool
		epFile, resolved = l.resolveEndpoint(epFile, p, res, &d, below)
		var plan *engine.Plan
		if resolved {
			if epFile, ok := l.extendFields(epFile, &d); ok {
				var cd diag.List
				plan, cd = l.eng.Compile(siteFile, epFile)
				d = append(d, cd...)
			}
		}
		if !d.HasErrors() && plan != nil {
			plan.ID, plan.Version = id, fam+"@base"
			l.reg.bases[id] = plan
			l.reg.files[id] = epFile
			l.baseFiles[id] = epFile
			if epFile.Base != nil {
				l.reg.baseOf[id] = epFile.Base.Name
			}
		}
	}
	if d.HasErrors() {
		l.broken[id] = true
	}
	l.report(p, d)
}

// resolveEndpoint checks an endpoint file's resource against its file name (res) and resolves the
// base it extends, where mayExtend (nil: any) lets it; ok is false when the file extends a base it
// could not be resolved with, and is then not compiled.
func (l *loader) resolveEndpoint(f *sitedef.File, p, res string, d *diag.List, mayExtend func(ext string, at sitedef.Pos) bool) (*sitedef.File, bool) {
	ep := f.Endpoint
	if ep.Resource != res {
		pos := f.Pos.Of(&ep.Resource)
		d.Add(p, max(pos.Line, 1), max(pos.Col, 1), "resource %q must equal the file name %q", ep.Resource, res)
	}
	ext := ep.Extends
	if ext == "" {
		if len(ep.Remove) > 0 {
			pos := f.Pos.Of(&ep.Remove)
			d.Add(p, max(pos.Line, 1), max(pos.Col, 1), "remove: needs extends: it drops parts of a base")
		}
		return f, true
	}
	at := f.Pos.Of(&ep.Extends)
	if mayExtend != nil && !mayExtend(ext, at) {
		return f, false
	}
	base := l.base(ext, p, at, d)
	if base == nil || d.HasErrors() {
		return f, false
	}
	out, rd := sitedef.ExtendEndpoint(base, ext, p, f.Node, res)
	*d = append(*d, rd...)
	return out, !rd.HasErrors()
}

// ancestor reports whether family anc is one that fam extends, directly or through another.
func (l *loader) ancestor(fam, anc string) bool {
	for f := l.reg.famParent[fam]; f != ""; f = l.reg.famParent[f] {
		if f == anc {
			return true
		}
	}
	return false
}

// base finds the base an extends names, or reports why it cannot be used at pos in file p.
func (l *loader) base(name string, p string, pos sitedef.Pos, d *diag.List) *sitedef.File {
	fam, res, ok := strings.Cut(name, "/")
	line, col := max(pos.Line, 1), max(pos.Col, 1)
	switch {
	case !ok || fam == "" || res == "":
		d.Add(p, line, col, "extends %q: name a base as <family>/<resource>", name)
	case l.broken[fam] || l.broken[name]:
		d.Add(p, line, col, "extends %q, which has errors of its own (see %s/%s)", name, sitedef.FamiliesDir, fam)
	case l.reg.famFiles[fam] == nil:
		d.Add(p, line, col, "extends %q: there is no family %q under %s/ (families: %s)", name, fam, sitedef.FamiliesDir, strings.Join(sortedKeys(l.reg.famFiles), ", "))
	case l.baseFiles[name] == nil:
		d.Add(p, line, col, "extends %q: family %q has no %s.yaml (bases: %s)", name, fam, res, strings.Join(l.basesOf(fam), ", "))
	default:
		return l.baseFiles[name]
	}
	return nil
}

func (l *loader) basesOf(fam string) []string {
	var out []string
	for id := range l.baseFiles {
		if strings.HasPrefix(id, fam+"/") {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{"none"}
	}
	return out
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		out = []string{"none"}
	}
	return out
}

// defaultDomain makes the only domain of a site its default, so a one-host site need not say so.
func defaultDomain(s *sitedef.Site) {
	if s.DefaultDomain == "" && s.Domains.Len() == 1 {
		s.DefaultDomain = s.Domains.Keys[0]
	}
}

func (l *loader) loadSite(dir string) {
	sitePath := path.Join(dir, "site.yaml")
	data, err := fs.ReadFile(l.fsys, sitePath)
	if err != nil {
		l.report(sitePath, diag.List{{File: sitePath, Line: 1, Col: 1, Message: "every site directory needs a site.yaml: " + err.Error()}})
		return
	}
	own, d := sitedef.Parse(sitePath, data)
	if own.Site == nil {
		l.report(sitePath, d)
		return
	}
	siteFile := own
	if fam := own.Site.Extends; fam != "" && !d.HasErrors() {
		pos := own.Pos.Of(&own.Site.Extends)
		switch {
		case l.broken[fam]:
			d.Add(sitePath, pos.Line, pos.Col, "extends family %q, which has errors of its own (see %s/%s/site.yaml)", fam, sitedef.FamiliesDir, fam)
		case l.reg.famFiles[fam] == nil:
			d.Add(sitePath, pos.Line, pos.Col, "extends %q: there is no family %q under %s/ (families: %s)", fam, fam, sitedef.FamiliesDir, strings.Join(sortedKeys(l.reg.famFiles), ", "))
		default:
			var rd diag.List
			siteFile, rd = sitedef.ExtendSite(l.reg.famFiles[fam], fam, own)
			d = append(d, rd...)
		}
	}
	if d.HasErrors() {
		l.report(sitePath, d)
		return
	}
	defaultDomain(siteFile.Site)
	d = append(d, engine.CheckSite(siteFile, dir)...)
	if d.HasErrors() {
		l.report(sitePath, d)
		return
	}
	l.reg.sites[siteFile.Site.Site] = siteFile.Site
	l.reg.siteFiles[siteFile.Site.Site] = siteFile
	files, _ := fs.ReadDir(l.fsys, dir)
	own.Site.Endpoints.Each(func(res string, m *sitedef.Endpoint) {
		for _, f := range files {
			if r, ok := yamlName(f.Name()); ok && r == res && f.Name() != "site.yaml" {
				pos := own.Site.Endpoints.Pos[res]
				d.Add(sitePath, pos.Line, pos.Col, "endpoint %q is both mounted here and written in %s", res, f.Name())
				return
			}
		}
		if m.Extends == "" {
			pos := own.Site.Endpoints.Pos[res]
			d.Add(sitePath, pos.Line, pos.Col, "endpoint %q: a mounted endpoint says extends: <family>/<resource>; a site's own endpoints are files beside site.yaml", res)
			return
		}
		base := l.base(m.Extends, sitePath, own.Pos.Of(&m.Extends), &d)
		if base == nil {
			return
		}
		epFile, rd := sitedef.ExtendEndpoint(base, m.Extends, sitePath, own.MountNode(res), res)
		if rd.HasErrors() {
			d = append(d, rd...)
			return
		}
		var md diag.List
		md = append(md, rd...)
		if epFile, ok := l.extendFields(epFile, &md); ok {
			l.compile(siteFile, epFile, sitePath, md)
		}
		d = append(d, md...)
	})
	l.report(sitePath, d)
	for _, f := range files {
		name := f.Name()
		res, ok := yamlName(name)
		if f.IsDir() || name == "site.yaml" || !ok {
			continue
		}
		p := path.Join(dir, name)
		data, err := fs.ReadFile(l.fsys, p)
		if err != nil {
			l.report(p, diag.List{{File: p, Line: 1, Col: 1, Message: "reading: " + err.Error()}})
			continue
		}
		epFile, d := sitedef.Parse(p, data)
		if epFile.Endpoint != nil {
			var compile bool
			epFile, compile = l.resolveEndpoint(epFile, p, res, &d, nil)
			if compile {
				if epFile, ok := l.extendFields(epFile, &d); ok {
					l.compile(siteFile, epFile, p, d)
				}
			}
		} else if epFile.Site != nil {
			d.Add(p, 1, 1, "only site.yaml may be kind: site")
		}
		l.report(p, d)
	}
}

// checkAliases indexes the sites' aliases; an alias that is another site's slug, or another site's
// alias too, is an error at the alias (both sites stay loaded, reachable by their own slugs).
func (l *loader) checkAliases() {
	owner := map[string]string{}
	for _, slug := range sortedKeys(l.reg.siteFiles) {
		f := l.reg.siteFiles[slug]
		if f == nil {
			continue
		}
		for i, a := range f.Site.Aliases {
			pos := f.Pos.Of(&f.Site.Aliases[i])
			var d diag.List
			switch {
			case l.reg.sites[a] != nil:
				d.Add(f.Path, max(pos.Line, 1), max(pos.Col, 1), "alias %q is the slug of another site", a)
			case owner[a] != "":
				d.Add(f.Path, max(pos.Line, 1), max(pos.Col, 1), "alias %q is an alias of site %q too", a, owner[a])
			default:
				owner[a] = slug
				l.reg.aliases[a] = slug
			}
			l.report(f.Path, d)
		}
	}
}

// extendFields resolves the fields of ep that extend another endpoint (sitedef.ExtendFields); ok is
// false when that failed, and the endpoint is not compiled.
func (l *loader) extendFields(ep *sitedef.File, d *diag.List) (*sitedef.File, bool) {
	out, fd := sitedef.ExtendFields(ep, l.record)
	*d = append(*d, fd...)
	return out, !fd.HasErrors()
}

// record returns the resolved file of the endpoint a field extends: "<site>.<resource>" (an endpoint
// file beside its site.yaml) or "<family>/<resource>" (a base); or why it cannot be used.
func (l *loader) record(name string) (*sitedef.File, string) {
	if f := l.records[name]; f != nil {
		return f, ""
	}
	if l.resolving[name] {
		return nil, "a cycle: the fields it extends extend this one"
	}
	l.resolving[name] = true
	defer delete(l.resolving, name)
	if strings.Contains(name, "/") {
		if l.broken[name] {
			return nil, "it has errors of its own"
		}
		if f := l.baseFiles[name]; f != nil {
			return f, ""
		}
		return nil, "no such base (bases: " + strings.Join(sortedKeys(l.baseFiles), ", ") + ")"
	}
	site, res, ok := strings.Cut(name, ".")
	if !ok || site == "" || res == "" || strings.ContainsAny(name, "\\") {
		return nil, "name an endpoint as <site>.<resource> or a base as <family>/<resource>"
	}
	p := path.Join(site, res+".yaml")
	data, err := fs.ReadFile(l.fsys, p)
	if err != nil {
		return nil, "no endpoint file " + p
	}
	f, d := sitedef.Parse(p, data)
	if f.Endpoint != nil && f.Endpoint.Extends != "" && !d.HasErrors() {
		if base := l.base(f.Endpoint.Extends, p, f.Pos.Of(&f.Endpoint.Extends), &d); base != nil && !d.HasErrors() {
			var rd diag.List
			f, rd = sitedef.ExtendEndpoint(base, f.Endpoint.Extends, p, f.Node, res)
			d = append(d, rd...)
		}
	}
	if f.Endpoint != nil && !d.HasErrors() {
		var fd diag.List
		f, fd = sitedef.ExtendFields(f, l.record)
		d = append(d, fd...)
	}
	if f.Endpoint == nil || d.HasErrors() {
		why := "it has errors of its own"
		for _, e := range d {
			if !e.Warning {
				why += ": " + e.Message
				break
			}
		}
		return nil, why + " (see " + p + ")"
	}
	l.records[name] = f
	return f, ""
}

// compile queues one endpoint of a site for compiling; d is its file's diagnostics so far, reported
// at p. Nothing the loader does later reads a site endpoint's plan, so compiling waits for
// compileQueued, which spreads the work over the machine's cores: compiling is most of loading.
func (l *loader) compile(site, ep *sitedef.File, p string, d diag.List) {
	l.queue = append(l.queue, &compileJob{site: site, ep: ep, path: p, failed: d.HasErrors()})
}

// compileJob is an endpoint waiting in the loader's queue, and then its plan.
type compileJob struct {
	site, ep *sitedef.File
	path     string
	failed   bool // its file had errors before compiling: the plan is not registered
	plan     *engine.Plan
	diags    diag.List
}

// compileQueued compiles the queued endpoints, GOMAXPROCS at a time, then reports and registers
// each in queue order. The order of diagnostics is the sequential loader's (Load sorts them
// stably by position, and each file's compile diagnostics still come after its other ones).
func (l *loader) compileQueued() {
	jobs := make(chan *compileJob)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(l.queue)) {
		wg.Go(func() {
			for j := range jobs {
				j.plan, j.diags = l.eng.Compile(j.site, j.ep)
			}
		})
	}
	for _, j := range l.queue {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	for _, j := range l.queue {
		l.report(j.path, j.diags)
		if j.failed || j.diags.HasErrors() {
			continue
		}
		l.reg.plans[j.plan.ID] = j.plan
		l.reg.files[j.plan.ID] = j.ep
		if j.ep.Base != nil {
			l.reg.baseOf[j.plan.ID] = j.ep.Base.Name
		}
	}
	l.queue = nil
}

// Plan returns the plan of "site.resource", or nil; the site may be named by one of its aliases.
func (r *Registry) Plan(id string) *engine.Plan {
	if p := r.plans[id]; p != nil {
		return p
	}
	if site, res, ok := strings.Cut(id, "."); ok && r.aliases[site] != "" {
		return r.plans[r.aliases[site]+"."+res]
	}
	return nil
}

// Lookup returns the plan of a site (or an alias of it) and resource, or nil.
func (r *Registry) Lookup(site, resource string) *engine.Plan { return r.Plan(site + "." + resource) }

// Canonical returns the slug of the site a slug or an alias names, or "" when it names none.
func (r *Registry) Canonical(slug string) string {
	if r.sites[slug] != nil {
		return slug
	}
	return r.aliases[slug]
}

// Aliases returns the other slugs a site answers to, as its site.yaml lists them (errors left out).
func (r *Registry) Aliases(slug string) []string {
	var out []string
	if f := r.siteFiles[slug]; f != nil {
		for _, a := range f.Site.Aliases {
			if r.aliases[a] == slug {
				out = append(out, a)
			}
		}
	}
	return out
}

// IDs returns every plan id, sorted.
func (r *Registry) IDs() []string { return r.ids }

// Site returns a site definition by slug or alias.
func (r *Registry) Site(slug string) *sitedef.Site { return r.sites[r.Canonical(slug)] }

// Sites returns every site slug, sorted.
func (r *Registry) Sites() []string {
	out := make([]string, 0, len(r.sites))
	for s := range r.sites {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Bases returns the id ("family/resource") of every family base that compiled, sorted.
func (r *Registry) Bases() []string { return r.baseIDs }

// Base returns the plan of a family base ("family/resource"), or nil. Bases are never routed; their
// plans run the family's own fixture cases.
func (r *Registry) Base(id string) *engine.Plan { return r.bases[id] }

// BaseOf returns the base ("family/resource") a plan extends, or "".
func (r *Registry) BaseOf(id string) string { return r.baseOf[id] }

// File returns the resolved definition of a plan or a base: what the engine runs.
func (r *Registry) File(id string) *sitedef.File { return r.files[id] }

// FamilyParent returns the family a family extends, or "".
func (r *Registry) FamilyParent(fam string) string { return r.famParent[fam] }

// Family returns the family a site extends, or "".
func (r *Registry) Family(slug string) string {
	if f := r.siteFiles[slug]; f != nil && f.Base != nil {
		return f.Base.Name
	}
	return ""
}

// Runnable returns the plan of a routed endpoint ("site.resource") or of a family base
// ("family/resource"): fixture cases run both.
func (r *Registry) Runnable(id string) *engine.Plan {
	if p := r.plans[id]; p != nil {
		return p
	}
	return r.bases[id]
}

// Overrides is what an endpoint that extends a base states itself rather than inherits.
type Overrides struct {
	// Selectors is true when it adds or replaces a field, source or step (parameters and rules aside):
	// then its output is no longer the base's, and its own cases or corpus pages must prove it.
	Selectors bool
	// Rules and SiteRules are the ids of the endpoint rules and site rules it adds or replaces.
	Rules, SiteRules map[string]bool
}

// Overrides reports what plan id overrides of its base; ok is false when it extends nothing, or
// after DropPositions (what a site states itself is known by where it is written).
func (r *Registry) Overrides(id string) (o Overrides, ok bool) {
	f, plan := r.files[id], r.Runnable(id)
	if f == nil || plan == nil || f.Base == nil || r.noPositions {
		return o, false
	}
	o.Rules = map[string]bool{}
	ep := plan.Endpoint
	own := func(p sitedef.Pos) bool { return p.File == "" }
	for _, k := range ep.Fields.Keys {
		o.Selectors = o.Selectors || own(ep.Fields.Pos[k])
	}
	for _, k := range ep.Sources.Keys {
		o.Selectors = o.Selectors || own(ep.Sources.Pos[k])
	}
	for i := range ep.Steps {
		o.Selectors = o.Selectors || own(f.Pos.Of(&ep.Steps[i]))
	}
	for i := range ep.Rules {
		if own(f.Pos.Of(&ep.Rules[i])) {
			o.Rules[ep.Rules[i].ID] = true
		}
	}
	sf := r.siteFiles[plan.Site.Site]
	if strings.Contains(id, "/") {
		sf = r.famFiles[plan.Site.Site]
	}
	o.SiteRules = ownSiteRules(sf, plan.Site.Rules)
	return o, true
}

// FamilySiteRules returns the ids of the site rules a family's site.yaml states itself rather than
// inherits from the family it extends; ok is false where positions are gone or there is no such family.
func (r *Registry) FamilySiteRules(fam string) (own map[string]bool, ok bool) {
	sf := r.famFiles[fam]
	if sf == nil || r.noPositions {
		return nil, false
	}
	return ownSiteRules(sf, sf.Site.Rules), true
}

// ownSiteRules is the ids of the rules a resolved site.yaml (sf, nil for none) states itself: all of
// them when it extends nothing.
func ownSiteRules(sf *sitedef.File, rules []sitedef.Rule) map[string]bool {
	own := map[string]bool{}
	if sf != nil && sf.Base != nil {
		for i := range sf.Site.Rules {
			if sf.Pos.Of(&sf.Site.Rules[i]).File == "" {
				own[sf.Site.Rules[i].ID] = true
			}
		}
		return own
	}
	for _, r := range rules {
		own[r.ID] = true
	}
	return own
}

// String summarises the registry for logs.
func (r *Registry) String() string {
	return fmt.Sprintf("%d sites, %d endpoints", len(r.sites), len(r.plans))
}
