package funcs

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"asa/engine/dom"
)

// randomTree builds a decoded-JSON-like value whose keys repeat across levels, so that find and
// findAll meet matches at several depths and in several entries of one map.
func randomTree(r *rand.Rand, depth int) any {
	keys := []string{"k", "a", "b", "items", "z", "k2", "text"}
	switch n := r.IntN(10); {
	case depth == 0 || n < 2:
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return float64(r.IntN(100))
		case 2:
			return fmt.Sprint("s", r.IntN(100))
		}
		return true
	case n < 5:
		l := make([]any, r.IntN(5))
		for i := range l {
			l[i] = randomTree(r, depth-1)
		}
		return l
	default:
		m := map[string]any{}
		for range r.IntN(6) {
			m[keys[r.IntN(len(keys))]] = randomTree(r, depth-1)
		}
		return m
	}
}

// TestFindKeySameAsSorted checks findKey against its definition, findKeySorted, on random trees,
// on Go values entriesOf reads by reflection, and on walks the budget cuts short.
func TestFindKeySameAsSorted(t *testing.T) {
	type item struct{ K, A any }
	cyclic := map[string]any{"a": 1, "k": 2}
	cyclic["self"] = cyclic
	big := make([]any, findBudget+2)
	for i := range big {
		big[i] = i
	}
	big[len(big)-1] = map[string]any{"k": "past the budget"}
	big[3] = map[string]any{"k": "within the budget"}
	// Nested deeper than maxFindDepth, a match at the bottom: the walk is findKeySorted's.
	var deep any = map[string]any{"k": "bottom"}
	for range maxFindDepth + 5 {
		deep = map[string]any{"a": deep, "z": []any{1}}
	}

	// The walks the budget cuts short are slow (a cycle is two million calls deep): each once.
	for _, c := range []struct {
		v   any
		key string
		all bool
	}{{cyclic, "missing", true}, {big, "k", true}, {big, "missing", false}, {deep, "k", true}, {deep, "k", false}} {
		got, want := findKey(c.v, c.key, c.all), findKeySorted(c.v, c.key, c.all)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%T, key %q, all %v: got %v, want %v", c.v, c.key, c.all, got, want)
		}
	}
	values := []any{
		[]any{item{K: 1, A: map[string]any{"k": 2}}, map[string]int{"k": 3, "a": 4}},
		map[string]any{"b": []any{map[string]any{"k": 1}}, "a": map[string]any{"k": map[string]any{"k": 2}}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		values = append(values, randomTree(r, 6))
	}
	for i, v := range values {
		for _, key := range []string{"k", "a", "items", "missing"} {
			for _, all := range []bool{false, true} {
				got, want := findKey(v, key, all), findKeySorted(v, key, all)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("value %d, key %q, all %v: got %v, want %v", i, key, all, got, want)
				}
			}
		}
	}
}

// BenchmarkFindKey is findAll and find over a tree shaped like YouTube's ytInitialData: tens of
// thousands of small maps, the key searched for absent (findAll) or deep (find).
func BenchmarkFindKey(b *testing.B) {
	var build func(depth int) any
	build = func(depth int) any {
		if depth == 0 {
			return map[string]any{"text": "t", "simpleText": "s", "url": "u", "width": 1.0}
		}
		l := make([]any, 6)
		for i := range l {
			l[i] = map[string]any{"renderer": build(depth - 1), "trackingParams": "x", "style": "y"}
		}
		return map[string]any{"contents": l, "header": map[string]any{"title": "h"}}
	}
	tree := build(5)
	tree.(map[string]any)["zz"] = map[string]any{"token": "t"}
	benchFinds(b, tree, []findCase{
		{"findAll-absent", "channelAgeGateRenderer", true},
		{"findAll-present", "url", true},
		{"find-last", "token", false},
	})
}

type findCase struct {
	name, key string
	all       bool
}

// benchFinds runs findKey on tree for each case.
func benchFinds(b *testing.B, tree any, cases []findCase) {
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				findKey(tree, c.key, c.all)
			}
		})
	}
}

// ytInitialData decodes the ytInitialData of a YouTube channel page of the corpus.
func ytInitialData(tb testing.TB) any {
	dir := os.Getenv("ASA_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	body, err := os.ReadFile(filepath.Join(dir, "youtube", "channel-metascraper.html"))
	if err != nil {
		tb.Skipf("corpus page missing: %v", err)
	}
	v, err := dom.ScriptJSON(body, regexp.MustCompile(`ytInitialData"?\]?\s*=\s*`))
	if err != nil || v == nil {
		tb.Fatalf("no ytInitialData: %v", err)
	}
	return v
}

// BenchmarkFindKeyYouTube is the channel sitedef's searches of its ytInitialData: two keys that
// are not there, one that is.
func BenchmarkFindKeyYouTube(b *testing.B) {
	benchFinds(b, ytInitialData(b), []findCase{
		{"findAll-absent", "channelAgeGateRenderer", true},
		{"findAll-present", "continuationItemRenderer", true},
		{"find-present", "token", false},
	})
}

// FuzzFindKey checks find and findAll against their definition, findKeySorted, on any JSON text
// and key.
func FuzzFindKey(f *testing.F) {
	for _, s := range []string{
		`{"a":{"k":1,"b":[{"k":2},{"k":null}]},"k":{"k":3},"z":[[{"k":"x"}]]}`,
		`[{"k":[{"k":1}]},{"b":{"a":{"k":true}},"a":{"k":false}}]`,
		`{"items":[1,2],"k2":{"items":{"items":[]}},"text":"k"}`,
	} {
		f.Add([]byte(s), "k")
		f.Add([]byte(s), "items")
	}
	f.Fuzz(func(t *testing.T, in []byte, key string) {
		v, err := dom.DecodeJSON(in)
		if err != nil {
			return
		}
		for _, all := range []bool{false, true} {
			if got, want := findKey(v, key, all), findKeySorted(v, key, all); !reflect.DeepEqual(got, want) {
				t.Fatalf("key %q, all %v: got %v, want %v", key, all, got, want)
			}
		}
	})
}
