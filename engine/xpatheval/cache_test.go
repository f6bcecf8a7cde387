package xpatheval

import (
	"maps"
	"slices"
	"sync"
	"testing"
)

// TestCacheSharesCompiled: a Cache compiles a source once, whatever plan asks, index plans
// included, and still records each plan's index keys in that plan's own Want (plans are indexed
// separately).
func TestCacheSharesCompiled(t *testing.T) {
	var c Cache
	const src = `//div[@class="price"]/span`
	w1, w2 := NewWant(), NewWant()
	x1, err := c.Compile(src, w1)
	if err != nil {
		t.Fatal(err)
	}
	x2, err := c.Compile(src, w2)
	if err != nil {
		t.Fatal(err)
	}
	if x1.compiled != x2.compiled {
		t.Error("the same source compiled twice")
	}
	if x1.fast == nil || x1.fast != x2.fast {
		t.Errorf("index plans %p %p: want one, shared", x1.fast, x2.fast)
	}
	direct := NewWant()
	if _, err := Compile(src, direct); err != nil {
		t.Fatal(err)
	}
	for i, w := range []*Want{w1, w2} {
		if !maps.Equal(w.keys, direct.keys) || !maps.Equal(w.tags, direct.tags) || !maps.Equal(w.attrs, direct.attrs) {
			t.Errorf("want %d: keys %v tags %v attrs %v; Compile records %v %v %v", i+1,
				slices.Sorted(maps.Keys(w.keys)), slices.Sorted(maps.Keys(w.tags)), slices.Sorted(maps.Keys(w.attrs)),
				slices.Sorted(maps.Keys(direct.keys)), slices.Sorted(maps.Keys(direct.tags)), slices.Sorted(maps.Keys(direct.attrs)))
		}
	}
	if len(w1.keys)+len(w1.tags)+len(w1.attrs) == 0 {
		t.Error("the test's XPath records no index keys: pick one of the indexable shape")
	}
	if _, err := c.Compile("//div[", nil); err == nil {
		t.Error("a bad XPath compiled")
	}
	if _, ok := c.m["//div["]; ok {
		t.Error("a failed source was kept")
	}
}

// TestCacheConcurrent: plans compile in parallel (registry.Load); every caller gets the one
// compiled form and a working Expr.
func TestCacheConcurrent(t *testing.T) {
	var c Cache
	srcs := []string{`//a/@href`, `//h1`, `(//span)[1]`, `//li[contains(@class, "x")]`}
	var wg sync.WaitGroup
	got := make([][]*Expr, 8)
	for g := range got {
		wg.Go(func() {
			for _, s := range srcs {
				x, err := c.Compile(s, NewWant())
				if err != nil {
					t.Error(err)
					return
				}
				got[g] = append(got[g], x)
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i := range got[g] {
			if got[g][i].compiled != got[0][i].compiled {
				t.Errorf("%s: goroutine %d has its own compiled form", srcs[i], g)
			}
		}
	}
}
