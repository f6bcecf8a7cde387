package dom

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// checkShared fails when the values of markers decoded from one ScriptText, in the given order,
// differ from ScriptJSONText's of each on its own (value, text, error and index).
func checkShared(t *testing.T, body []byte, markers []*regexp.Regexp, order []int) {
	t.Helper()
	starts := make([]int, len(markers))
	for k, m := range markers {
		starts[k] = -1
		if loc := m.FindIndex(body); loc != nil {
			starts[k] = loc[0]
		}
	}
	for _, st := range []*ScriptText{NewScriptText(body, starts), NewScriptTextView(body, starts)} {
		checkSharedText(t, body, markers, order, starts, st)
	}
}

// checkSharedText is checkShared of the values decoded from st.
func checkSharedText(t *testing.T, body []byte, markers []*regexp.Regexp, order, starts []int, st *ScriptText) {
	t.Helper()
	for _, k := range order {
		if starts[k] < 0 {
			continue
		}
		want, wantText, wantIx, wantErr := ScriptJSONText(body[starts[k]:], markers[k])
		got, gotText, gotIx, gotErr := ScriptJSONShared(body, starts[k], markers[k], st, true, nil)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%s in %.80q: error %v, want %v", markers[k], body, gotErr, wantErr)
		}
		if !sameJSON(got, want) || !bytes.Equal(gotText, wantText) {
			t.Fatalf("%s in %.80q: %.80v text %.80q, want %.80v text %.80q", markers[k], body, got, gotText, want, wantText)
		}
		if (gotIx == nil) != (wantIx == nil) {
			t.Fatalf("%s in %.80q: index %v, want %v", markers[k], body, gotIx != nil, wantIx != nil)
		}
		if gotIx != nil {
			// An index holds the very maps of its value: it is compared with IndexJSON's of it.
			checkSameIndex(t, gotText, gotIx, IndexJSON(gotText, got))
		}
		plain, plainErr := ScriptJSON(body[starts[k]:], markers[k])
		got, _, _, gotErr = ScriptJSONShared(body, starts[k], markers[k], st, false, nil)
		if (gotErr == nil) != (plainErr == nil) || !sameJSON(got, plain) {
			t.Fatalf("%s in %.80q: unindexed %.80v %v, want %.80v %v", markers[k], body, got, gotErr, plain, plainErr)
		}
	}
}

var sharedMarkers = []*regexp.Regexp{
	regexp.MustCompile(`"product"\s*:`),
	regexp.MustCompile(`"reviews"\s*:`),
	regexp.MustCompile(`"idml"\s*:`),
	regexp.MustCompile(`x`),
}

var sharedCases = []string{
	`<script>{"product":{"a":1},"reviews":[1,2],"idml":{"b":"c"}}</script>`,
	`<script>{"idml":{"b":"c"}}</script><p>x</p><script>{"product":{"a":"</scrip"},"reviews":[1]}</script>`,
	`<script>a = {"reviews":[1,</script>{"product":{"a":1}}</script><script>{"idml":[]}</script>`,
	`{"product":{"a":1}}`,
	`<script>{"product":{"a":1}}</script`,
	`<script>{"product":"{\"a\":1}","reviews":{"x":"\ud83d\ude00"}}</script>`,
	`</script>{"reviews":{"product":{"idml":[x]}}}</script></script>`,
	`"product":</script>{"a":1}</script>"reviews": {"b":[]}</script>`,
}

func sharedOrders(n int) [][]int {
	fwd, rev, mid := make([]int, n), make([]int, n), make([]int, 0, n)
	for i := range n {
		fwd[i], rev[i] = i, n-1-i
	}
	for i := 1; i < n; i += 2 {
		mid = append(mid, i)
	}
	for i := 0; i < n; i += 2 {
		mid = append(mid, i)
	}
	return [][]int{fwd, rev, mid}
}

func TestScriptTextShared(t *testing.T) {
	for _, in := range sharedCases {
		for _, order := range sharedOrders(len(sharedMarkers)) {
			checkShared(t, []byte(in), sharedMarkers, order)
		}
	}
}

// The marketplace pages of the corpus, with the markers their sitedefs use.
func TestScriptTextCorpus(t *testing.T) {
	dir := corpusDir(t)
	sets := map[string][]*regexp.Regexp{
		"walmart": sharedMarkers[:3],
		"amazon": {
			regexp.MustCompile(`'colorImages'\s*:\s*\{\s*'initial'\s*:`),
			regexp.MustCompile(`"videos"\s*:`),
			regexp.MustCompile(`"dimensionsDisplay"\s*:`),
			regexp.MustCompile(`"dimensionValuesDisplayData"\s*:`),
		},
		"bestbuy": {regexp.MustCompile(`__NEXT_DATA__`), regexp.MustCompile(`"product"\s*:`)},
	}
	pages := 0
	for site, markers := range sets {
		files, _ := filepath.Glob(filepath.Join(dir, site, "*.html"))
		for _, f := range files {
			if !strings.Contains(filepath.Base(f), "product") {
				continue
			}
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, order := range sharedOrders(len(markers)) {
				checkShared(t, body, markers, order)
			}
		}
	}
	t.Logf("%d pages", pages)
}

func FuzzScriptTextShared(f *testing.F) {
	for _, in := range sharedCases {
		f.Add([]byte(in), uint8(0))
		f.Add([]byte(in), uint8(1))
	}
	f.Fuzz(func(t *testing.T, body []byte, o uint8) {
		orders := sharedOrders(len(sharedMarkers))
		checkShared(t, body, sharedMarkers, orders[int(o)%len(orders)])
	})
}

// BenchmarkScriptTextWalmart decodes the three script-JSON sources of a walmart product page,
// each with its own copy of its text (separate) and from one ScriptText (shared).
func BenchmarkScriptTextWalmart(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(corpusDir(b), "walmart", "product-great-value-milk-10450114.html"))
	if err != nil {
		b.Skip(err)
	}
	markers := sharedMarkers[:3]
	starts := make([]int, len(markers))
	for k, m := range markers {
		starts[k] = m.FindIndex(body)[0]
	}
	b.Run("separate", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			for k, m := range markers {
				if _, _, _, err := ScriptJSONText(body[starts[k]:], m); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("shared", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			st := NewScriptText(body, starts)
			for k, m := range markers {
				if _, _, _, err := ScriptJSONShared(body, starts[k], m, st, true, nil); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
