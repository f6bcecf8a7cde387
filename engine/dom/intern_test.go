package dom

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unsafe"
)

// BenchmarkDecodeYouTube decodes the ytInitialData of the corpus' biggest YouTube pages as a
// script-JSON source with find index (what the engine does for youtube.channel and .video).
func BenchmarkDecodeYouTube(b *testing.B) {
	marker := regexp.MustCompile(`ytInitialData"?\]?\s*=\s*`)
	for _, name := range []string{"channel-metascraper.html", "watch-GJLlxj_dtq8.html"} {
		body, err := os.ReadFile(filepath.Join(corpusDir(b), "youtube", name))
		if err != nil {
			b.Skip(err)
		}
		for _, index := range []bool{false, true} {
			sub := name
			if index {
				sub += "/index"
			}
			b.Run(sub, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					t := NewScriptText(body, nil)
					if _, _, _, err := ScriptJSONShared(body, 0, marker, t, index, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		// As youtube.channel projects it (a few paths and searches; see engine's projection tests).
		proj := parseProjection(channelProjection)
		b.Run(name+"/searched", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t := NewScriptText(body, nil)
				if _, _, _, err := ScriptJSONShared(body, 0, marker, t, false, proj); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// channelProjection is youtube.channel's projection of its ytInitialData, in part.
const channelProjection = "metadata.channelMetadataRenderer*,header.pageHeaderRenderer.content.pageHeaderViewModel*," +
	"contents.twoColumnBrowseResultsRenderer.tabs.[].tabRenderer.selected*," +
	"contents.twoColumnBrowseResultsRenderer.tabs.[].tabRenderer.content.richGridRenderer.contents.[].richItemRenderer.content.lockupViewModel*," +
	"contents.twoColumnBrowseResultsRenderer.tabs.[].tabRenderer.content.sectionListRenderer.~items.[].videoRenderer*," +
	"contents.twoColumnBrowseResultsRenderer.tabs.[].tabRenderer.content.sectionListRenderer.~items.[].richItemRenderer.content.lockupViewModel*," +
	"contents.twoColumnBrowseResultsRenderer.tabs.[].tabRenderer.content.~continuationItemRenderer.~token*," +
	"contents.~channelAgeGateRenderer*"

// internCases repeat small objects and arrays, nested, with the same texts at several depths and
// members whose maps and lists the tables of the tests evict in between.
var internCases = []string{
	`[{"a":1},{"a":1},{"a":2},{"a":1}]`,
	`[[1,2],[1,2],[],[],{},{},[1,2]]`,
	`{"x":{"t":[{"u":"v"}]},"y":{"t":[{"u":"v"}]},"z":[{"u":"v"},{"u":"w"},{"u":"v"}]}`,
	`[{"k":{"a":[1]},"l":{"a":[1]}},{"k":{"a":[1]},"l":{"a":[1]}},{"a":[1]},[{"a":[1]}],[{"a":[1]}]]`,
	`[{"a":1,"a":2},{"a":1,"a":2},{"b":{"a":1,"a":2}},{"b":{"a":1,"a":2}}]`,
	`[{"s":"caf\u00e9"},{"s":"caf\u00e9"},{"s\u0041":1},{"s\u0041":1},{"sA":1}]`,
	`[ {"a" : [ 1 , {"b":null} ]} , {"a":[1,{"b":null}]} , {"a" : [ 1 , {"b":null} ]} ]`,
	`{"a":[[[{"b":[[{}]]}]]],"c":[[[{"b":[[{}]]}]]],"d":[{"b":[[{}]]}]}`,
}

// tinyInternTable has two slots: values of different texts evict each other all the time, so that
// a kept object's members are often not the values just decoded for them.
func tinyInternTable() *internTable {
	t := newInternTable(0)
	t.mask, t.slots = 1, t.slots[:2]
	return t
}

// tinyGrowingInternTable starts with two slots and doubles every 4 bytes a slot decoded, up to 64: a
// growing table moves its values while the decoding goes on.
func tinyGrowingInternTable() *internTable {
	t := tinyInternTable()
	t.grow, t.perSlot, t.maxSlots = 8, 4, 64
	return t
}

// checkInterned fails when decoding in with a table of kept values (a tiny one, and one sized for
// it) answers otherwise than without one: the same value and length, and with an index, the
// layout IndexJSON gives of that very value (each node's map or list the one its parent holds).
func checkInterned(t *testing.T, in []byte) {
	t.Helper()
	s := string(in)
	want, wn, _, wok := decodeFastPrefixInterned(s, false, nil)
	for _, table := range []func() *internTable{tinyInternTable, tinyGrowingInternTable, func() *internTable { return newInternTable(len(s)) }, func() *internTable { return newGrowingInternTable(len(s)) }} {
		for _, index := range []bool{false, true} {
			v, n, ix, ok := decodeFastPrefixInterned(s, index, table())
			if ok != wok || ok && (n != wn || !sameJSON(v, want)) {
				t.Fatalf("%.80q (index %v): interned decode %v %d %.80v, want %v %d %.80v", in, index, ok, n, v, wok, wn, want)
			}
			if ok && index {
				checkSameIndex(t, in, ix, IndexJSON(in[:n], v))
			}
		}
	}
}

func TestDecodeInterned(t *testing.T) {
	for _, in := range internCases {
		checkInterned(t, []byte(in))
	}
	for _, tt := range fastJSONCases {
		checkInterned(t, []byte(tt.in))
	}
	// Equal texts are one value: what saves the maps. The table is direct-mapped with a random
	// seed, so two of the texts may share a slot (about once in a hundred tables), and the later
	// evicts the earlier: a fresh table is tried again, and eight collisions in a row do not happen.
	shared := false
	for range 8 {
		v, _, _, ok := decodeFastPrefixInterned(`[{"a":[1]},{"a":[1]},[2],[2]]`, true, newInternTable(0))
		l, _ := v.([]any)
		if !ok || len(l) != 4 || sameRef(l[1], l[2]) {
			t.Fatalf("interned decode: %v", v)
		}
		if sameRef(l[0], l[1]) && sameRef(l[2], l[3]) {
			shared = true
			break
		}
	}
	if !shared {
		t.Fatal("equal texts not shared in eight tables")
	}
	// Without a table, or past maxInternText, each text is a value of its own.
	long := `{"a":"` + strings.Repeat("x", maxInternText) + `"}`
	for _, c := range []struct {
		in    string
		table *internTable
	}{{`[{"a":1},{"a":1}]`, nil}, {"[" + long + "," + long + "]", newInternTable(0)}} {
		v, _, _, _ := decodeFastPrefixInterned(c.in, false, c.table)
		if l, _ := v.([]any); len(l) != 2 || sameRef(l[0], l[1]) {
			t.Fatalf("%.40q: shared", c.in)
		}
	}
}

func FuzzDecodeInterned(f *testing.F) {
	for _, in := range internCases {
		f.Add([]byte(in))
	}
	for _, tt := range fastJSONCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 || in[0] != '{' && in[0] != '[' {
			return // script values start so
		}
		checkInterned(t, in)
	})
}

// The script JSON of the corpus' YouTube pages (the values interning is for) and every JSON file
// of the corpus of internMinText or more, interned as the decoder does and with a tiny table.
func TestDecodeInternedOnCorpus(t *testing.T) {
	skipUnderRace(t)
	dir := corpusDir(t)
	var texts [][]byte
	pages, _ := filepath.Glob(filepath.Join(dir, "youtube", "*.html"))
	marker := regexp.MustCompile(`(?:ytInitialData|ytInitialPlayerResponse)"?\]?\s*=\s*`)
	for _, p := range pages {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, loc := range marker.FindAllIndex(body, -1) {
			i := loc[1]
			if i < len(body) && body[i] == '{' {
				if n := bytes.Index(body[i:], []byte(scriptEnd)); n > 0 {
					texts = append(texts, body[i:i+n])
				}
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	for _, p := range files {
		if fi, err := os.Stat(p); err != nil || fi.Size() < internMinText || fi.Size() > 1<<20 {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if b = trimJSONPrefix(b); len(b) > 0 && (b[0] == '{' || b[0] == '[') {
			texts = append(texts, b)
		}
	}
	if len(texts) < 10 {
		t.Fatalf("only %d texts", len(texts))
	}
	for _, b := range texts {
		checkInterned(t, b)
	}
	t.Logf("%d texts checked", len(texts))
}

// A node is 20 bytes (a page lays out 20,000), and a key longer than its length field counts is
// kept whole: the index reads it back.
func TestJSONNodeKeys(t *testing.T) {
	if n := unsafe.Sizeof(JSONNode{}); n != 20 {
		t.Errorf("JSONNode is %d bytes", n)
	}
	long := strings.Repeat("k", math.MaxUint16+1)
	for _, in := range []string{
		`{"` + long + `":{"a":1},"b":[{"` + long[1:] + `":2}]}`,
		`[{"` + long + `":null,"x":"` + long + `"}]`,
	} {
		checkPrefixIndex(t, []byte(in))
		checkJSONIndex(t, []byte(in), mustDecode(t, in))
		v, _, ix, ok := decodeFastPrefixIndexed([]byte(in), true)
		if !ok || ix == nil {
			t.Fatalf("%.40q: no index", in)
		}
		found := false
		for i := range ix.Nodes {
			if ix.Key(int32(i)) == long {
				found = true
			}
		}
		if !found || len(ix.Members(long)) != strings.Count(in, `"`+long+`":`)-strings.Count(in, `"`+long+`":null`) {
			t.Fatalf("%.40q: long key not laid out (%v)", in, v != nil)
		}
	}
}

func mustDecode(t *testing.T, in string) any {
	t.Helper()
	v, ok := decodeFast([]byte(in))
	if !ok {
		t.Fatalf("%.40q: not decoded", in)
	}
	return v
}
