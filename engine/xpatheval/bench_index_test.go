package xpatheval

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"asa/engine/dom"
	"testing"

	"golang.org/x/net/html"
)

// benchSearchPages are the largest search pages of issue 13, each with the endpoint reading it.
var benchSearchPages = []struct{ id, file string }{
	{"amazon.search", "amazon/search-de-katzenfutter.html"},
	{"ebay.search", "ebay/search-de-apple.html"},
	{"etsy.search", "etsy/search-storage-and-organization-2021.html"},
	{"aliexpress.search", "aliexpress/search-barefoot-accessories-2017.html"},
	{"walmart.search", "walmart/search-fragment-2020.html"},
	{"google.search", "google/serp-2026-01-20-why-is-the-sky-blue-7049404a2dd6.html"},
}

// benchPlan returns the Want and compiled XPaths of endpoint id, and the parsed page, or skips.
func benchPlan(b *testing.B, id, file string) (*Want, []*Expr, *html.Node) {
	b.Helper()
	plans, err := loadShippedOnce()
	if err != nil {
		b.Fatal(err)
	}
	root, err := parsePage(filepath.Join("../../../shared/corpus", file))
	if err != nil {
		if os.IsNotExist(err) {
			b.Skip(err)
		}
		b.Fatal(err)
	}
	for _, p := range plans {
		if p.ID != id {
			continue
		}
		want := NewWant()
		var xs []*Expr
		for _, src := range p.XPaths {
			x, err := Compile(src, want)
			if err != nil {
				b.Fatal(err)
			}
			xs = append(xs, x)
		}
		return want, xs, root
	}
	b.Skipf("no endpoint %s", id)
	return nil, nil, nil
}

func BenchmarkBuildIndex(b *testing.B) {
	for _, p := range benchSearchPages {
		b.Run(p.id, func(b *testing.B) {
			want, _, root := benchPlan(b, p.id, p.file)
			b.ReportAllocs()
			for b.Loop() {
				// each run on a collected heap, as BenchmarkExtract runs a page: the index's
				// allocations are paid for, not a collection they happen to trigger
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
				buildIndex(root, want, nil)
			}
		})
	}
}

// benchLists are the list XPaths of the search pages' items.
var benchLists = map[string]string{
	"amazon.search":     "//div[@data-component-type='s-search-result'][string-length(@data-asin) = 10] | //li[contains(@class, 's-result-item')][string-length(@data-asin) = 10]",
	"ebay.search":       "//li[contains(concat(' ', normalize-space(@class), ' '), ' s-item ')]",
	"etsy.search":       "//div[@data-listing-id][contains(@class, 'v2-listing-card')]",
	"aliexpress.search": "//li[@qrdata][contains(concat(' ', normalize-space(@class), ' '), ' list-item ')]",
	"walmart.search":    "//div[starts-with(@data-tl-id, 'ProductTile')][.//a[contains(@class, 'product-title-link')]]",
}

// BenchmarkItems evaluates every relative XPath of an endpoint from each item of its list, as its
// fields are: items walked (no document index) and read from the document index (built before,
// as the rules build it, and not counted).
func BenchmarkItems(b *testing.B) {
	for _, p := range benchSearchPages {
		list := benchLists[p.id]
		if list == "" {
			continue
		}
		for _, way := range []string{"walked", "indexed"} {
			b.Run(p.id+"/"+way, func(b *testing.B) {
				want, xs, root := benchPlan(b, p.id, p.file)
				var rel []*Expr
				for _, x := range xs {
					if strings.HasPrefix(x.src, ".") || strings.HasPrefix(x.src, "(.") || strings.HasPrefix(x.src, "boolean(.") {
						rel = append(rel, x)
					}
				}
				lx, err := Compile(list, want)
				if err != nil {
					b.Fatal(err)
				}
				items := NewEvaluator(want).Nodes(lx, dom.NavigatorAt(root, root))
				if len(items) == 0 {
					b.Fatal("no items")
				}
				b.ReportAllocs()
				for b.Loop() {
					ev := NewEvaluator(want)
					if way == "indexed" {
						b.StopTimer()
						ev.indexFor(root)
						b.StartTimer()
					}
					for _, it := range items {
						mark := ev.BeginItem(it)
						for _, x := range rel {
							ev.Value(x, it, false, true)
						}
						ev.EndItem(mark)
					}
				}
			})
		}
	}
}
