package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"asa/engine/diag"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/engine/sitedef"
	"asa/fixtures"
)

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// defaultSitedefs is ./sitedefs when run inside the repository (the author's loop), else embedded.
func defaultSitedefs() string {
	if st, err := os.Stat("sitedefs"); err == nil && st.IsDir() {
		return "sitedefs"
	}
	return ""
}

// defaultFixtures is ./fixtures inside the repository, else the embedded set.
func defaultFixtures() string {
	if st, err := os.Stat("fixtures"); err == nil && st.IsDir() {
		return "fixtures"
	}
	return ""
}

// cmdCheck lints the sitedefs: the whole set, or each PATH named (a sitedefs directory, a site
// directory or one file), reporting every problem as file:line:col. A PATH holding no sitedef is an
// error, so a mistyped path is never an "ok".
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("asa sitedef check", stderr)
	dir := fl.String("sitedefs", defaultSitedefs(), "sitedefs directory checked when no PATH is given (empty: the embedded set)")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: asa sitedef check [--sitedefs DIR] [PATH...]\n\nPATH is a sitedefs directory (<site>/site.yaml, <site>/<resource>.yaml), a site directory or one sitedef file.")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() == 0 {
		reg, diags := loadRegistry(*dir, stdout)
		if n := errorCount(diags); n > 0 {
			fmt.Fprintf(stderr, "%d errors\n", n)
			return 1
		}
		fmt.Fprintf(stdout, "ok: %s\n", reg)
		return 0
	}
	failed := false
	for _, p := range fl.Args() {
		t, err := checkTarget(p)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", p, err)
			failed = true
			continue
		}
		var only []string
		if t.only != "" {
			only = []string{t.only}
		}
		_, diags := loadRegistry(t.root, stdout, only...)
		if n := errorCount(diags); n > 0 {
			fmt.Fprintf(stderr, "%s: %d errors\n", p, n)
			failed = true
			continue
		}
		fmt.Fprintf(stdout, "ok: %s (%d files)\n", p, t.files)
	}
	if failed {
		return 1
	}
	return 0
}

func errorCount(diags diag.List) int {
	n := 0
	for _, d := range diags {
		if !d.Warning {
			n++
		}
	}
	return n
}

// checkDir is what one PATH of `asa sitedef check` names: the sitedefs root to load, the part of
// it to report on ("" for all) and how many sitedef files that part holds.
type checkDir struct {
	root, only string
	files      int
}

// checkTarget finds the sitedefs root of path: a file's root is two levels up
// (<root>/<site>/<file>.yaml), a site directory (with site.yaml) is in its parent, and any other
// directory must hold site directories itself.
func checkTarget(path string) (checkDir, error) {
	st, err := os.Stat(path)
	if err != nil {
		return checkDir{}, err
	}
	clean := filepath.Clean(path)
	isYAML := func(n string) bool { return strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") }
	if !st.IsDir() {
		if !isYAML(clean) {
			return checkDir{}, errors.New("not a sitedef: a sitedef file is YAML (<site>/site.yaml or <site>/<resource>.yaml)")
		}
		site := filepath.Dir(clean)
		if _, err := os.Stat(filepath.Join(site, "site.yaml")); err != nil {
			return checkDir{}, fmt.Errorf("no site.yaml beside it: a sitedef file lives in a site directory with its site.yaml")
		}
		return checkDir{root: filepath.Dir(site), only: filepath.Base(site) + "/" + filepath.Base(clean), files: 1}, nil
	}
	countSite := func(site string) int {
		entries, _ := os.ReadDir(site)
		n := 0
		for _, e := range entries {
			if !e.IsDir() && isYAML(e.Name()) {
				n++
			}
		}
		return n
	}
	if _, err := os.Stat(filepath.Join(clean, "site.yaml")); err == nil {
		site := clean
		if b := filepath.Base(site); b == "." || b == ".." {
			if site, err = filepath.Abs(clean); err != nil {
				return checkDir{}, err
			}
		}
		return checkDir{root: filepath.Dir(site), only: filepath.Base(site), files: countSite(clean)}, nil
	}
	entries, err := os.ReadDir(clean)
	if err != nil {
		return checkDir{}, err
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), "_") {
			if _, err := os.Stat(filepath.Join(clean, e.Name(), "site.yaml")); err == nil {
				n += countSite(filepath.Join(clean, e.Name()))
			}
		}
	}
	if n == 0 {
		return checkDir{}, errors.New("no sitedef here: a sitedefs directory holds <site>/site.yaml and <site>/<resource>.yaml")
	}
	return checkDir{root: clean, files: n}, nil
}

func cmdTest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newFlags("asa sitedef test", stderr)
	dir := fl.String("sitedefs", defaultSitedefs(), "sitedefs directory (empty: the embedded set)")
	fixtures := fl.String("fixtures", "fixtures", "fixtures directory")
	update := fl.Bool("update", false, "rewrite expected.json of success cases from the current output")
	corpus := fl.String("corpus", "", "the shared corpus directory; checks fixtures/corpus/*.yaml against its pages")
	filter := fl.String("run", "", "only cases and expectations whose name contains this")
	verbose := fl.Bool("v", false, "print every passing case too")
	misses := fl.Bool("misses", false, "with --corpus, list every field of an expected file that missed, with its reason")
	fillRates := fl.Bool("fill-rates", false, "with --corpus, print each endpoint's fill rates on the pages it succeeds on (the share of pages where each field has a value; list[].field over the list's items), as extractor health measures live traffic")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	reg, diags := loadRegistry(*dir, stderr)
	passed, failed := 0, 0
	if diags.HasErrors() {
		// Test what compiled, so one broken file does not hide the state of the rest; still fail.
		failed++
		fmt.Fprintln(stdout, "FAIL sitedef check (diagnostics above); testing the endpoints that compiled")
	}
	report := func(name string, err error) {
		if err != nil {
			failed++
			fmt.Fprintf(stdout, "FAIL %s\n  %v\n", name, err)
			return
		}
		passed++
		if *verbose {
			fmt.Fprintf(stdout, "ok   %s\n", name)
		}
	}
	cases, err := fixture.LoadCases(*fixtures)
	if err != nil {
		// Every bad case file is reported; the cases that loaded still run.
		var dl diag.List
		if !errors.As(err, &dl) {
			fmt.Fprintln(stderr, err)
			return 1
		}
		for _, d := range dl {
			report("case file", fmt.Errorf("%s", d))
		}
	}
	fired := map[string]map[string]bool{}
	for _, c := range cases {
		if *filter != "" && !strings.Contains(c.ID(), *filter) {
			continue
		}
		rule, err := fixture.RunCaseRule(ctx, reg, c, *update)
		if rule != "" {
			if fired[c.Endpoint] == nil {
				fired[c.Endpoint] = map[string]bool{}
			}
			fired[c.Endpoint][rule] = true
		}
		report("case "+c.ID(), err)
	}
	if *filter == "" {
		// Real-page expectations count towards the coverage of endpoints that extend a family base.
		exps, _ := fixture.LoadExpectations(filepath.Join(*fixtures, "corpus"))
		for _, p := range fixture.Coverage(reg, cases, fired, exps...) {
			report("coverage", fmt.Errorf("%s", p))
		}
		problems, runs, err := fixture.Negatives(ctx, reg, filepath.Join(*fixtures, "_negative"), cases)
		if err != nil {
			report("negatives", err)
		}
		for _, p := range problems {
			report("negative", fmt.Errorf("%s", p))
		}
		if err == nil {
			passed += runs - len(problems)
		}
		// asa serve answers sandbox keys from these cases and refuses to start when it cannot index
		// them (two defaults of one endpoint, a missing page): an author learns it here, not there.
		if sb, err := fixture.NewSandbox(os.DirFS(*fixtures), reg); err != nil {
			report("sandbox", err)
		} else {
			report("sandbox", nil)
			for _, p := range sb.Unreachable(reg, cases) {
				report("sandbox", errors.New(p))
			}
		}
	}
	if *corpus != "" {
		exps, err := fixture.LoadExpectations(filepath.Join(*fixtures, "corpus"))
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		var results []*fixture.Result
		for _, e := range exps {
			if *filter != "" && !strings.Contains(e.Name(), *filter) {
				continue
			}
			res := fixture.Check(ctx, reg, *corpus, e)
			if !*fillRates {
				res.Output = nil // thousands of outputs are not kept for nothing
			}
			results = append(results, res)
			err := res.Err
			if err != nil {
				err = fmt.Errorf("%s:%d: %w", e.File, e.Line, err)
			}
			report("corpus "+e.Name(), err)
		}
		// Field accuracy against the expected files of the corpus, per family: allowed misses
		// (except) pass the test but count here, so the figure stays honest.
		for _, a := range fixture.FamilyAccuracy(results, familyOf(reg)) {
			a.Write(stdout, *misses)
		}
		if *fillRates {
			for _, ef := range fixture.FillRates(reg, results) {
				ef.Write(stdout)
			}
		}
	}
	fmt.Fprintf(stdout, "%d passed, %d failed\n", passed, failed)
	if failed > 0 {
		return 1
	}
	return 0
}

func cmdSchema(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("asa sitedef schema", stderr)
	out := fl.String("o", "", "write to this file instead of standard output")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	b, err := sitedef.Schema()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return writeOut(*out, append(b, '\n'), stdout, stderr)
}

func cmdDocs(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("asa sitedef docs", stderr)
	out := fl.String("o", "", "write to this file instead of standard output")
	endpoints := fl.Bool("endpoints", false, "write the endpoint catalogue (parameters and fields of every loaded sitedef) instead of the format reference")
	dir := fl.String("sitedefs", defaultSitedefs(), "sitedefs directory (empty: the embedded set), for --endpoints")
	fixturesDir := fl.String("fixtures", defaultFixtures(), "fixtures directory (empty: the embedded set), for --endpoints' sandbox cases")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *endpoints {
		reg, diags := loadRegistry(*dir, stderr)
		if diags.HasErrors() {
			return 1
		}
		var fsys fs.FS = fixtures.FS
		if *fixturesDir != "" {
			fsys = os.DirFS(*fixturesDir)
		}
		sb, err := fixture.NewSandbox(fsys, reg)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return writeOut(*out, []byte(reg.Markdown()+sb.Markdown()), stdout, stderr)
	}
	return writeOut(*out, []byte(sitedef.Reference()), stdout, stderr)
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("asa sitedef list", stderr)
	dir := fl.String("sitedefs", "", "sitedefs directory (empty: the embedded set)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	reg, diags := loadRegistry(*dir, stderr)
	if diags.HasErrors() {
		return 1
	}
	for _, id := range reg.IDs() {
		p := reg.Plan(id)
		summary := p.Endpoint.Summary
		if b := reg.BaseOf(id); b != "" {
			summary += " [" + b + "]"
		}
		fmt.Fprintf(stdout, "%-28s %-22s %s\n", id, p.Version, summary)
	}
	return 0
}

// cmdShow prints the resolved definition of an endpoint (or of a family base, FAMILY/RESOURCE): its
// site and the endpoint with everything it inherits merged in, which is what the engine compiles.
func cmdShow(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("asa sitedef show", stderr)
	dir := fl.String("sitedefs", defaultSitedefs(), "sitedefs directory (empty: the embedded set)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: asa sitedef show [--sitedefs DIR] SITE.RESOURCE | FAMILY/RESOURCE")
		return 2
	}
	id := fl.Arg(0)
	reg, diags := loadRegistry(*dir, io.Discard)
	plan, f := reg.Plan(id), reg.File(id)
	if plan == nil {
		plan = reg.Base(id)
	}
	if plan == nil || f == nil {
		for _, d := range diags {
			fmt.Fprintln(stderr, d.String())
		}
		fmt.Fprintf(stderr, "asa sitedef show: no endpoint %q (asa sitedef list names them)\n", id)
		return 1
	}
	site := *plan.Site
	site.Endpoints, site.Extends, site.Remove = sitedef.Map[sitedef.Endpoint]{}, "", nil
	sb, err := sitedef.Marshal(&site)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	eb, err := sitedef.Marshal(plan.Endpoint, f.Pos)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	from := f.Path
	if f.Base != nil {
		from = fmt.Sprintf("%s (%s) extended by %s", f.Base.Name, f.Base.Path, f.Path)
		// a base that extends another base: name each layer, lowest first
		for b := reg.File(f.Base.Name); b != nil && b.Base != nil; b = reg.File(b.Base.Name) {
			from = fmt.Sprintf("%s (%s) extended by %s", b.Base.Name, b.Base.Path, from)
		}
	}
	fmt.Fprintf(stdout, "# %s as the engine runs it: %s\n", id, from)
	_, _ = stdout.Write(sb)
	fmt.Fprintln(stdout, "---")
	_, _ = stdout.Write(eb)
	return 0
}

func writeOut(path string, b []byte, stdout, stderr io.Writer) int {
	if path == "" {
		_, _ = stdout.Write(b)
		return 0
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}

// familyOf names the family an endpoint extends, for the accuracy report: the lowest one, under
// any family layered on it (a publisher's over recipe counts as recipe); an endpoint in no family is
// its own site's.
func familyOf(reg *registry.Registry) func(id string) string {
	return func(id string) string {
		if base := reg.BaseOf(id); base != "" {
			for below := reg.BaseOf(base); below != ""; below = reg.BaseOf(base) {
				base = below
			}
			fam, _, _ := strings.Cut(base, "/")
			return fam
		}
		site, _, _ := strings.Cut(id, ".")
		return site
	}
}
