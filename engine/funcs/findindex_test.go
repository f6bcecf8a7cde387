package funcs

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/expr-lang/expr"

	"asa/engine/dom"
)

// startOfText is the marker that makes dom.ScriptJSONText decode a whole JSON text.
var startOfText = regexp.MustCompile(`^`)

// sortedWalkAll is findKeySorted(v, key, true) for every key at once: one walk in the same order,
// appending each non-nil entry to its key's list. TestFindsOracle ties it to findKeySorted.
func sortedWalkAll(v any) map[string][]any {
	out := map[string][]any{}
	var walk func(v any)
	walk = func(v any) {
		if l, ok := listOf(v); ok {
			for _, x := range l {
				walk(x)
			}
			return
		}
		es, _ := entriesOf(v)
		for _, e := range es {
			if e.val != nil {
				out[e.key] = append(out[e.key], e.val)
			}
			walk(e.val)
		}
	}
	walk(v)
	return out
}

// checkIndexed compares, for the nodes at positions roots of the index of v (decoded from text)
// and for keys (plus every key under each node when allKeys), the index's answers and Finds'
// (probe, locate, index) with the sorted walk's: Finds' both with the index the decoder laid out,
// pre (when not nil), and with the one laid out from the text.
func checkIndexed(t *testing.T, name string, v any, text []byte, pre *dom.JSONIndex, roots func(*dom.JSONIndex) []int32, keys []string, allKeys bool) {
	t.Helper()
	ix := dom.IndexJSON(text, v)
	if ix == nil {
		t.Fatalf("%s: not indexed", name)
	}
	fs := NewFinds()
	fs.Add(v, text, nil)
	if len(fs.docs) != 1 {
		t.Fatalf("%s: not registered", name)
	}
	all := []*Finds{fs}
	if pre != nil {
		fs := NewFinds()
		fs.Add(v, text, pre)
		all = append(all, fs)
	}
	doc := &findIndex{JSONIndex: ix, byKey: map[string][]int32{}}
	for i, at := range roots(ix) {
		// Finds' own path (probe, locate) for the first roots: locating scans the document.
		viaFinds := i < 2 || allKeys
		root := ix.Container(at)
		want := sortedWalkAll(root)
		ks := keys
		if allKeys {
			ks = slices.Clone(keys)
			for k := range want {
				ks = append(ks, k)
			}
		}
		for _, k := range ks {
			w := want[k]
			if got := doc.find(at, k, true); !reflect.DeepEqual(got, w) {
				t.Fatalf("%s: node %d, findAll %q from the index: got %d values, want %d", name, at, k, len(got), len(w))
			}
			var w1 []any
			if len(w) > 0 {
				w1 = w[:1]
			}
			if got := doc.find(at, k, false); !reflect.DeepEqual(got, w1) {
				t.Fatalf("%s: node %d, find %q from the index: got %v, want %v", name, at, k, got, w1)
			}
			if !viaFinds {
				continue
			}
			for j, fs := range all {
				if got := fs.find(root, k, true); !reflect.DeepEqual(got, w) {
					t.Fatalf("%s: node %d, findAll %q (Finds %d): got %d values, want %d", name, at, k, j, len(got), len(w))
				}
				if got := fs.find(root, k, false); !reflect.DeepEqual(got, w1) {
					t.Fatalf("%s: node %d, find %q (Finds %d): got %v, want %v", name, at, k, j, got, w1)
				}
			}
		}
	}
}

// decode decodes a JSON text as the engine does a script's, with its text and its index.
func decode(t *testing.T, in []byte) (any, []byte, *dom.JSONIndex) {
	t.Helper()
	v, text, ix, err := dom.ScriptJSONText(inScript(in), startOfText)
	if err != nil {
		t.Fatal(err)
	}
	return v, text, ix
}

// inScript is in as a script element's text ends: the decoder lays out the index of a value
// followed by "</script" as it decodes it.
func inScript(in []byte) []byte {
	return append(in[:len(in):len(in)], "</script>"...)
}

// containers returns the positions of ix's non-empty maps and lists.
func containers(ix *dom.JSONIndex) []int32 {
	var out []int32
	for i := range ix.Nodes {
		switch x := ix.Container(int32(i)).(type) {
		case map[string]any:
			if len(x) > 0 {
				out = append(out, int32(i))
			}
		case []any:
			if len(x) > 0 {
				out = append(out, int32(i))
			}
		}
	}
	return out
}

// TestFindsOracle ties sortedWalkAll, the oracle of the index tests, to findKeySorted.
func TestFindsOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 500 {
		v := randomTree(r, 6)
		all := sortedWalkAll(v)
		for _, k := range []string{"k", "a", "b", "items", "z", "k2", "text", "missing"} {
			if got, want := all[k], findKeySorted(v, k, true); !reflect.DeepEqual(got, want) {
				t.Fatalf("tree %d, key %q: got %v, want %v", i, k, got, want)
			}
		}
	}
}

// TestFindsSameAsWalk checks the index's answers against the sorted walk on random trees (each as
// JSON text, decoded with its index), from every map and list of each, for every key.
func TestFindsSameAsWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 2000 // each checked with the decoder's index and with IndexJSON's
	if raceDetector || testing.Short() {
		n = 300
	}
	for range n {
		in, err := json.Marshal(map[string]any{"root": randomTree(r, 7), "k": randomTree(r, 3)})
		if err != nil {
			t.Fatal(err)
		}
		v, text, pre := decode(t, in)
		checkIndexed(t, "tree", v, text, pre, containers, []string{"missing", ""}, true)
	}
}

// TestFindsBigSubtrees: searches of subtrees bigger than the probe, answered from the index
// through locate, in documents whose maps' keys are out of order and whose matches nest.
func TestFindsBigSubtrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		items := make([]any, 300)
		for j := range items {
			items[j] = map[string]any{"z": randomTree(r, 4), "k": randomTree(r, 3), "a": map[string]any{"k": float64(j)}}
		}
		in, err := json.Marshal(map[string]any{"b": map[string]any{"items": items, "k": "x"}, "a": items[:10]})
		if err != nil {
			t.Fatal(err)
		}
		v, text, pre := decode(t, in)
		if pre == nil {
			t.Fatal("the decoder did not lay the document out")
		}
		// Their searches are the index's: locate finds the big subtrees.
		jx := &findIndex{JSONIndex: pre}
		for _, sub := range []any{v, v.(map[string]any)["b"], v.(map[string]any)["b"].(map[string]any)["items"]} {
			if jx.locate(sub) < 0 {
				t.Fatal("a big subtree is not located")
			}
		}
		checkIndexed(t, "big", v, text, pre, func(ix *dom.JSONIndex) []int32 { return containers(ix)[:4] }, []string{"k", "a", "z", "items", "missing"}, false)
	}
}

// TestFindsNotIndexed: a document whose text does not lay it out whole (an object repeats a key)
// is walked; so is a value that is not in a registered document.
func TestFindsNotIndexed(t *testing.T) {
	items := make([]any, 0, 2*probeNodes)
	for i := range 2 * probeNodes {
		items = append(items, map[string]any{"k": float64(i)})
	}
	body, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	// A repeated key: the map keeps the last value.
	v, text, pre := decode(t, []byte(`{"k":{"k":1},"items":`+string(body)+`,"k":2}`))
	if pre != nil {
		t.Fatal("a repeated key: the decoder laid the document out")
	}
	fs := NewFinds()
	fs.Add(v, text, pre)
	if got, want := fs.find(v, "k", true), findKeySorted(v, "k", true); !reflect.DeepEqual(got, want) {
		t.Fatalf("a repeated key: got %d values, want %d", len(got), len(want))
	}
	if fs.docs[0].ix != nil {
		t.Fatal("a repeated key: indexed")
	}
	other := make([]any, 2000)
	for i := range other {
		other[i] = map[string]any{"k": float64(i)}
	}
	if got := fs.find(other, "k", true); len(got) != len(other) {
		t.Fatalf("a value of no document: got %d values", len(got))
	}
}

// TestFindsCorpus checks the index's answers against the sorted walk on the JSON of the corpus:
// every value after a marker the sitedefs' script_json sources use (and every JSON file), from
// its root and from a sample of its maps and lists, for a sample of its keys.
func TestFindsCorpus(t *testing.T) {
	dir := os.Getenv("ASA_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus: %v", err)
	}
	// The script_json markers of the sitedefs (and those of TikTok's and Next.js's data scripts),
	// each found by its literal start first: the regexp package would crawl through the corpus.
	marker := regexp.MustCompile(`^(?:ytInitialData"?\]?\s*=\s*|ytInitialPlayerResponse"?\]?\s*=\s*|__sc_hydration\s*=\s*|window\._sharedData\s*=\s*|window\._initialData\s*=\s*|window\.___r\s*=\s*|shotData:\s*|AF_initDataCallback\(\{key: 'ds:\d', hash: '\d+', data:|__UNIVERSAL_DATA_FOR_REHYDRATION__[^>]*>|SIGI_STATE[^>]*>|__NEXT_DATA__[^>]*>)`)
	literals := []string{"ytInitialData", "ytInitialPlayerResponse", "__sc_hydration", "window._sharedData", "window._initialData", "window.___r", "shotData:", "AF_initDataCallback(", "__UNIVERSAL_DATA_FOR_REHYDRATION__", "SIGI_STATE", "__NEXT_DATA__"}
	// Under -race or -short: every tenth value, from fewer nodes, for fewer keys.
	roots, keysPer, every := 12, 12, 1
	if raceDetector || testing.Short() {
		roots, keysPer, every = 3, 4, 10
	}
	docs, seen := 0, 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !strings.HasSuffix(path, ".html") && !strings.HasSuffix(path, ".json") {
			return nil
		}
		body, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var starts []int
		if strings.HasSuffix(path, ".json") {
			starts = []int{0}
		}
		for _, lit := range literals {
			for i := 0; ; {
				j := bytes.Index(body[i:], []byte(lit))
				if j < 0 {
					break
				}
				if marker.Match(body[i+j:]) {
					starts = append(starts, i+j)
				}
				i += j + len(lit)
			}
		}
		for _, s := range starts {
			mk := marker
			if strings.HasSuffix(path, ".json") && s == 0 {
				mk = startOfText
			}
			v, text, pre, err := dom.ScriptJSONText(body[s:], mk)
			if err != nil || v == nil {
				continue
			}
			ix := dom.IndexJSON(text, v)
			if ix == nil || len(containers(ix)) == 0 {
				continue // an object repeats a key (FuzzFinds and TestFindsNotIndexed cover it), or {}
			}
			if seen++; seen%every != 0 {
				continue
			}
			docs++
			cs := containers(ix)
			sample := []int32{0}
			for i := 1; i < roots && len(cs) > 0; i++ {
				sample = append(sample, cs[len(cs)*i/roots])
			}
			// Keys: a spread of the document's keys, the most frequent first among them.
			count := map[string]int{}
			for j, n := range ix.Nodes {
				if n.Member {
					count[ix.Key(int32(j))]++
				}
			}
			ks := make([]string, 0, len(count))
			for k := range count {
				ks = append(ks, k)
			}
			slices.SortFunc(ks, func(a, b string) int {
				if d := count[b] - count[a]; d != 0 {
					return d
				}
				return strings.Compare(a, b)
			})
			var keys []string
			for i := 0; i < keysPer && len(ks) > 0; i++ {
				keys = append(keys, ks[len(ks)*i/keysPer])
			}
			keys = append(keys, "missing")
			name, _ := filepath.Rel(dir, path)
			checkIndexed(t, name, v, text, pre, func(*dom.JSONIndex) []int32 { return sample }, keys, false)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if docs == 0 {
		t.Fatal("no JSON found in the corpus")
	}
	t.Logf("%d JSON values checked", docs)
}

// FuzzFinds checks the index's answers against the sorted walk on any JSON text and key, from
// every map and list of the value.
func FuzzFinds(f *testing.F) {
	for _, s := range []string{
		`{"a":{"k":1,"b":[{"k":2},{"k":null}]},"k":{"k":3},"z":[[{"k":"x"}]]}`,
		`[{"k":[{"k":1}]},{"b":{"a":{"k":true}},"a":{"k":false}}]`,
		`{"items":[1,2],"k2":{"items":{"items":[]}},"text":"k"}`,
		`{"k":{"k":1},"k":2}`,
	} {
		f.Add([]byte(s), "k")
		f.Add([]byte(s), "items")
	}
	f.Fuzz(func(t *testing.T, in []byte, key string) {
		v, text, pre, err := dom.ScriptJSONText(inScript(in), startOfText)
		if err != nil || v == nil {
			return
		}
		if dom.IndexJSON(text, v) == nil {
			// An object repeats a key: searches walk.
			fs := NewFinds()
			fs.Add(v, text, pre)
			for _, all := range []bool{false, true} {
				if got, want := fs.find(v, key, all), findKeySorted(v, key, all); !reflect.DeepEqual(got, want) {
					t.Fatalf("key %q, all %v: got %v, want %v", key, all, got, want)
				}
			}
			return
		}
		if len(containers(dom.IndexJSON(text, v))) == 0 {
			return // {} or []: nothing to search
		}
		checkIndexed(t, "fuzz", v, text, pre, containers, []string{key}, false)
	})
}

// TestFindsPatch: with FindsPatch, find(v, "key") and findAll(v, key) pass the environment's
// Finds, and answer as without it, whether or not the environment holds one.
func TestFindsPatch(t *testing.T) {
	items := make([]any, 0, 2*probeNodes)
	for i := range 2 * probeNodes {
		items = append(items, map[string]any{"id": float64(i), "k": map[string]any{"id": "x"}})
	}
	in, err := json.Marshal(map[string]any{"data": map[string]any{"items": items}})
	if err != nil {
		t.Fatal(err)
	}
	doc, text, pre := decode(t, in)
	fs := NewFinds()
	fs.Add(doc, text, pre)
	set := New()
	for _, code := range []string{`findAll(doc.data, "id")`, `find(doc.data, "id")`, `find(doc.data.items, "k")`, `len(findAll(doc, "missing"))`, `find([1, 5], # > 3)`} {
		plain, err := expr.Compile(code, append(set.Options(), expr.Env(map[string]any{"doc": doc}))...)
		if err != nil {
			t.Fatal(err)
		}
		want, err := expr.Run(plain, map[string]any{"doc": doc})
		if err != nil {
			t.Fatal(err)
		}
		patched, err := expr.Compile(code, append(set.Options(), expr.Env(map[string]any{"doc": doc, FindsVar: fs}), expr.Patch(FindsPatch{}))...)
		if err != nil {
			t.Fatal(err)
		}
		if passes := strings.Contains(patched.Disassemble(), FindsVar); passes == strings.Contains(code, "#") {
			t.Errorf("%s: passes the Finds %v:\n%s", code, passes, patched.Disassemble())
		}
		for _, env := range []map[string]any{{"doc": doc, FindsVar: fs}, {"doc": doc, FindsVar: nil}} {
			got, err := expr.Run(patched, env)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: got %v, want %v", code, got, want)
			}
		}
	}
}
