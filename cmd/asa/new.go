package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/engine/scaffold"
	"asa/engine/sitedef"
)

var (
	newSiteRe = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9_-]*[a-z0-9_])?$`)
	newNameRe = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
)

// cmdNew scaffolds a sitedef, a fixture case and a corpus expectation from a saved page (the author's
// first step; the proposals come from package scaffold). It never overwrites a file.
func cmdNew(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newFlags("asa sitedef new", stderr)
	from := fl.String("from", "", "the saved page (HTML) to start from")
	family := fl.String("family", "", "mount this family's base RESOURCE instead of writing an endpoint")
	pageURL := fl.String("url", "", "the page's address (default: its canonical link or og:url)")
	dir := fl.String("sitedefs", "sitedefs", "sitedefs directory to write into")
	fixtures := fl.String("fixtures", "fixtures", "fixtures directory to write the case and expectation into")
	corpus := fl.String("corpus", "../shared/corpus", "the corpus directory: a page under it gets a corpus expectation")
	caseName := fl.String("case", "default", "the fixture case's name")
	var id string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		id, args = args[0], args[1:]
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if id == "" && fl.NArg() == 1 {
		id = fl.Arg(0)
	}
	site, resource, ok := strings.Cut(id, ".")
	if !ok || !newSiteRe.MatchString(site) || !newNameRe.MatchString(resource) || *from == "" || !newNameRe.MatchString(*caseName) {
		fmt.Fprintln(stderr, "usage: asa sitedef new SITE.RESOURCE --from PAGE [--family F] [--url URL] [--sitedefs DIR] [--fixtures DIR] [--corpus DIR] [--case NAME]")
		fmt.Fprintln(stderr, "  SITE: lower case letters, digits, _ and -; RESOURCE and NAME: lower case letters, digits and _")
		return 2
	}
	page, err := os.ReadFile(*from)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	a, err := scaffold.Analyze(page, *pageURL)
	if err != nil {
		fmt.Fprintf(stderr, "asa sitedef new: %s: %v\n", *from, err)
		return 1
	}

	siteDir := filepath.Join(*dir, site)
	sitePath, epPath := filepath.Join(siteDir, "site.yaml"), filepath.Join(siteDir, resource+".yaml")
	caseDir := filepath.Join(*fixtures, site, resource, *caseName)
	files := map[string]string{}
	params := map[string]string{"url": a.URL}
	if *family != "" {
		reg, _ := registry.Load(engine.New(), os.DirFS(*dir))
		base := reg.Base(*family + "/" + resource)
		if base == nil {
			fmt.Fprintf(stderr, "asa sitedef new: no base %s/%s under %s/%s (bases: %s)\n", *family, resource, *dir, sitedef.FamiliesDir, strings.Join(reg.Bases(), ", "))
			return 1
		}
		known := map[string]bool{}
		for _, k := range base.Endpoint.Fields.Keys {
			known[k] = true
		}
		for _, k := range base.Endpoint.Sources.Keys {
			known["src."+k] = true
		}
		if base.Endpoint.Params.Get("url") == nil {
			params = map[string]string{}
			for k, v := range base.ExampleParams() {
				params[k] = v[0]
			}
		}
		files[sitePath] = a.FamilySiteYAML(site, *family, resource, known)
	} else {
		if _, err := os.Stat(sitePath); err != nil {
			category := "other"
			if strings.Contains(a.Type, "Article") || a.Type == "BlogPosting" {
				category = "news"
			}
			files[sitePath] = a.SiteYAML(site, category)
		}
		files[epPath] = a.EndpointYAML(resource)
	}
	files[filepath.Join(caseDir, "case.yaml")] = a.CaseYAML(params)
	files[filepath.Join(caseDir, "page.html")] = string(page)
	names := make([]string, 0, len(files))
	for p := range files {
		if _, err := os.Stat(p); err == nil {
			fmt.Fprintf(stderr, "asa sitedef new: %s exists; not overwriting anything\n", p)
			return 1
		}
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		if err := os.WriteFile(p, []byte(files[p]), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}

	// Check what was written, then run it once: the golden output, and the values for the expectation.
	reg, diags := registry.Load(engine.New(), os.DirFS(*dir), site)
	for _, d := range diags {
		d.File = filepath.Join(*dir, d.File)
		fmt.Fprintln(stderr, d.String())
	}
	plan := reg.Plan(id)
	if diags.HasErrors() || plan == nil {
		fmt.Fprintln(stderr, "asa sitedef new: the scaffold does not load; fix it from the diagnostics above")
		return 1
	}
	cases, err := fixture.LoadCases(*fixtures)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	for _, c := range cases {
		if c.ID() == id+"/"+*caseName {
			if err := fixture.RunCase(ctx, reg, c, true); err != nil {
				fmt.Fprintf(stderr, "asa sitedef new: running the case: %v\n", err)
				return 1
			}
			fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(caseDir, "expected.json"))
		}
	}
	if rel, ok := under(*corpus, *from); ok {
		out := fixture.Execute(ctx, plan, fixture.Values(toAny(params)), &fixture.Replay{Fallback: &fixture.Reply{Status: 200, URL: a.URL,
			Header: http.Header{"Content-Type": {"text/html"}}, Body: page}})
		if out.Err != nil {
			fmt.Fprintf(stderr, "asa sitedef new: the endpoint fails on the page: %v\n", out.Err)
			return 1
		}
		exp := scaffold.ExpectationYAML(id, rel, a.URL, params, expectValues(out.Data, plan))
		p := filepath.Join(*fixtures, "corpus", site+".yaml")
		f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString(exp)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		fmt.Fprintf(stdout, "wrote an expectation of %s in %s\n", rel, p)
	} else {
		fmt.Fprintf(stdout, "%s is not under the corpus %s: no corpus expectation written\n", *from, *corpus)
	}
	fmt.Fprintf(stdout, "\nNext: edit %s, trim %s to what it reads, then\n  asa sitedef check %s\n  asa sitedef test --run %s --corpus %s\n",
		map[bool]string{true: sitePath, false: epPath}[*family != ""], filepath.Join(caseDir, "page.html"), siteDir, site, *corpus)
	return 0
}

// under returns page's path relative to dir when it lies inside it.
func under(dir, page string) (string, bool) {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(page)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(ad, ap)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

func toAny(m map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// expectValues picks the output's short text values, in output order, for a first expectation.
func expectValues(data any, plan *engine.Plan) [][2]string {
	m, _ := data.(map[string]any)
	var out [][2]string
	for _, k := range plan.Endpoint.Fields.Keys {
		s, ok := m[k].(string)
		if !ok || s == "" || len(s) > 200 || strings.ContainsAny(s, "\n") || looksLikeMatcher(s) {
			continue
		}
		out = append(out, [2]string{k, s})
		if len(out) == 8 {
			break
		}
	}
	return out
}

// looksLikeMatcher: a value such as "re:..." or "present" would be read as a matcher, not a value.
func looksLikeMatcher(s string) bool {
	if s == "present" || s == "absent" {
		return true
	}
	p, _, ok := strings.Cut(s, ":")
	return ok && len(p) <= 10 && regexp.MustCompile(`^[a-z_]+$`).MatchString(p)
}
