package engine_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"asa/engine"
	"asa/engine/dom"
	"asa/engine/xpatheval"
)

// TestScanXPathsOnPages: for every rule XPath of the catalogue that a scan of the body may answer,
// on every HTML page of the fixtures and the corpus, the scan's "absent" is the parsed tree's (the
// page has no node the XPath selects), and so is its "present" (a copy it is sure of is selected:
// the page has such a node), whether the scan copies every element or only those that may carry a
// literal of the plan's scan XPaths (Plan.scanFilter). The consent and captcha pages, which have such nodes, are seen to
// need their tree; walmart's product pages are seen to have their __NEXT_DATA__ script.
func TestScanXPathsOnPages(t *testing.T) {
	skipUnderRace(t)
	corpus, reg, _ := loadCorpus(t, engine.New())
	xs := map[string]*xpatheval.Expr{}
	// filters: each XPath's scan runs whole, and filtered as each lazy plan with it filters it
	filters := map[string][]*dom.ScanFilter{}
	lazy, filtered := 0, 0
	for _, id := range reg.IDs() {
		p := reg.Plan(id)
		if engine.LazyTree(p) {
			lazy++
		}
		f := engine.ScanFilter(p)
		if f != nil {
			filtered++
		}
		for _, x := range engine.ScanXPaths(p) {
			xs[x.String()] = x
			if !slices.ContainsFunc(filters[x.String()], func(g *dom.ScanFilter) bool { return fmt.Sprint(g) == fmt.Sprint(f) }) {
				filters[x.String()] = append(filters[x.String()], f)
			}
		}
	}
	if filtered == 0 {
		t.Fatal("no lazy plan filters its scans")
	}
	if len(xs) == 0 || lazy == 0 {
		t.Fatalf("%d scan XPaths, %d lazy plans", len(xs), lazy)
	}
	srcs := make([]string, 0, len(xs))
	for s := range xs {
		srcs = append(srcs, s)
	}
	sort.Strings(srcs)
	var pages []string
	for _, dir := range []string{"../fixtures", corpus} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".html") || strings.HasSuffix(path, ".htm")) {
				pages = append(pages, path)
			}
			return nil
		})
	}
	ev := xpatheval.NewEvaluator(nil)
	checked, present, scanned, surePresent := 0, 0, 0, 0
	walmart := false
	youtube := false
	for _, path := range pages {
		body, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		body, err = dom.ToUTF8(body, "text/html")
		if err != nil {
			continue
		}
		tree, err := dom.ParseHTMLView(body)
		if err != nil {
			continue
		}
		// XPaths naming the same tags share a scan of the page (the scan depends on the names only).
		type scan struct {
			doc  *html.Node
			sure []*html.Node
			ok   bool
		}
		scans := map[string]scan{}
		for _, src := range srcs {
			x := xs[src]
			has := len(ev.Nodes(x, dom.Navigator(tree))) > 0
			for _, f := range append([]*dom.ScanFilter{nil}, filters[src]...) {
				key := strings.Join(x.TagTests(), " ") + fmt.Sprint(f)
				sc, done := scans[key]
				if !done {
					sc.doc, sc.sure, sc.ok = dom.ScanElementsSureView(body, x.TagTests(), f)
					scans[key] = sc
				}
				doc, ok := sc.doc, sc.ok
				checked++
				if has {
					present++
				}
				if !ok {
					continue
				}
				scanned++
				nodes := ev.Nodes(x, dom.Navigator(doc))
				absent := len(nodes) == 0
				if absent && has {
					t.Errorf("%s on %s: the scan says absent, the tree has a node", src, path)
				}
				sure := false
				for _, n := range nodes {
					sure = sure || slices.Contains(sc.sure, n.(*dom.HTMLNavigator).Current())
				}
				if sure && !has {
					t.Errorf("%s on %s: the scan says present, the tree has no node", src, path)
				}
				if sure {
					surePresent++
					if strings.Contains(path, "walmart/product-pokemon") && strings.Contains(src, "__NEXT_DATA__") {
						walmart = true
					}
				}
				if strings.HasSuffix(path, "watch-GJLlxj_dtq8.html") && absent {
					youtube = true
				}
			}
		}
	}
	t.Logf("%d XPaths on %d pages: %d checks, %d answered by the scan, %d with nodes, %d of them found present by the scan", len(srcs), len(pages), checked, scanned, present, surePresent)
	if present == 0 || !youtube {
		t.Errorf("no page has a node (%d), or the scan did not answer on the YouTube watch page (%v)", present, youtube)
	}
	if !walmart {
		t.Errorf("the scan did not find walmart's __NEXT_DATA__ script present")
	}
}
