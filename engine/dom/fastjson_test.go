package dom

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var fastJSONCases = []struct {
	in   string
	fast bool // decodeFast takes it (else encoding/json decides)
}{
	{`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, true},
	{` [ ] `, true},
	{`[]`, true},
	{`{}`, true},
	{`"x\"\\\/\b\f\n\r\t\u00e9\u20ac"`, true},
	{`"é€ plain"`, true},
	{`{"a":1,"a":2}`, true},
	// short strings are shared through a small cache: repeats, slot collisions ("ad" and "ba"),
	// the longest kept and one longer, non-ASCII, escaped, empty
	{`[{"ad":"ba","ba":"ad"},{"ad":"ab","ba":"ba"},{"ad":"","ba":"\u0061d"}]`, true},
	{`{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","é":"é","a\"b":"a\"b"}`, true},
	{`-0.5e+10`, true},
	{`0`, true},
	{`1E3`, true},
	// surrogate escapes, as encoding/json reads them: a pair is one rune, anything else U+FFFD
	{`"\ud83d\ude00"`, true},
	{`"a\uD83D\uDE00b\ud83d\ude00"`, true},
	{`"\ud83d"`, true},
	{`"\ude00\ud83d"`, true},
	{`"\ud83d\u0041"`, true},
	{`"\ud83d\ud83d\ude00"`, true},
	{`"\ud83d\n"`, true},
	{`"\ud83d\"`, false},
	{`"\ud83d\u12"`, false},
	{`"\ud83d\u12x4"`, false},
	{"\"\xff\"", false},      // not UTF-8: encoding/json replaces it
	{"\"a\\n\xff\"", false},  // the same after an escape
	{"\"tab\there\"", false}, // a control byte: an error
	{`01`, false},
	{`1.`, false},
	{`.5`, false},
	{`1e`, false},
	{`-`, false},
	{`1e999`, false}, // out of range
	{`[1,]`, false},
	{`{"a":1,}`, false},
	{`{"a" 1}`, false},
	{`[1 2]`, false},
	{`tru`, false},
	{`nul`, false},
	{`{"a":1}x`, false},
	{`"\x"`, false},
	{`"\u12"`, false},
	{`"abc`, false},
	{``, false},
	{`{"a":[{"b":"\u0041"}]}`, true},
	// integers: the boxed small ones, negative zero, the longest read without strconv and longer
	{`[-0,0,1,-1,1023,1024,-1023,999999999999999,-999999999999999,1234567890123456,12345678901234567890,0.0,-0.0,1e2]`, true},
	{`{"a":-0}`, true},
	// members and elements stacked while nested values decode; repeated keys among them
	{`{"a":{"b":[1,{"c":[2,3],"d":{}},[]],"a":4},"e":[[[]]],"a":{"x":"y"}}`, true},
	{`[{"k":"USD"},{"k":"USD","v":"EUR"},{"k":"EUR"}]`, true},
}

func TestDecodeFastAgreesWithEncodingJSON(t *testing.T) {
	for _, tt := range fastJSONCases {
		v, ok := decodeFast([]byte(tt.in))
		if ok != tt.fast {
			t.Errorf("%q: fast %v, want %v", tt.in, ok, tt.fast)
		}
		checkFastJSON(t, []byte(tt.in))
		if ok {
			want, _ := unmarshalStd([]byte(tt.in))
			if !sameJSON(v, want) {
				t.Errorf("%q: %#v, want %#v", tt.in, v, want)
			}
		}
	}
}

// checkFastJSON fails when decodeFast takes an input encoding/json refuses or decodes otherwise.
func checkFastJSON(t *testing.T, in []byte) {
	t.Helper()
	v, ok := decodeFast(in)
	if !ok {
		return
	}
	want, err := unmarshalStd(in)
	if err != nil {
		t.Fatalf("%q: decodeFast took what encoding/json refuses (%v)", in, err)
	}
	if !sameJSON(v, want) {
		t.Fatalf("%q: %#v, want %#v", in, v, want)
	}
	checkJSONIndex(t, in, v)
	if len(in) > 0 && (in[0] == '{' || in[0] == '[') {
		checkPrefixIndex(t, in)
	}
}

// checkJSONIndex fails when IndexJSON does not lay v, decoded from in, out in pre-order: each
// node its parent's member or element, what is nested in it right after it, and every member and
// every object or array element there; or lays it out when an object repeats a key.
func checkJSONIndex(t *testing.T, in []byte, v any) {
	t.Helper()
	ix := IndexJSON(in, v)
	if ix == nil {
		// Only a repeated key may stop it: the same text without repeats has its index.
		if !repeatsKey(in) {
			t.Fatalf("%q: no index", in)
		}
		return
	}
	// The nodes as a walk of v would lay them out, with their values.
	type node struct {
		key         string
		val         any
		parent, end int32
		member      bool
	}
	var want []node
	repeated := false
	var walk func(v any, key string, member bool, parent int32)
	walk = func(v any, key string, member bool, parent int32) {
		at := int32(len(want))
		want = append(want, node{key: key, val: v, parent: parent, member: member})
		switch x := v.(type) {
		case map[string]any:
			// In the text's order, which the decoder follows: the keys in order of appearance.
			keys := objectKeys(ix, at)
			distinct := map[string]bool{}
			for _, k := range keys {
				if _, ok := x[k]; !ok || distinct[k] {
					repeated = true // or a key that is not the object's: the check below fails
				}
				distinct[k] = true
			}
			if len(keys) != len(x) || repeated {
				repeated = true
				return
			}
			for _, k := range keys {
				walk(x[k], k, true, at)
			}
		case []any:
			for _, e := range x {
				switch e.(type) {
				case map[string]any, []any:
					walk(e, "", false, at)
				}
			}
		}
		want[at].end = int32(len(want))
	}
	walk(v, "", false, -1)
	if repeated || len(ix.Nodes) != len(want) {
		t.Fatalf("%q: %d nodes, want %d (keys not the objects' own: %v)", in, len(ix.Nodes), len(want), repeated)
	}
	for i := range want {
		g, w := ix.Nodes[i], want[i]
		_, obj := w.val.(map[string]any)
		_, list := w.val.([]any)
		if w.member && !obj && !list {
			// A scalar member: its value read off its object (Value).
			if ix.Container(int32(i)) != nil || g.Null != (w.val == nil) {
				t.Fatalf("%q: node %d (a scalar member) is %+v", in, i, g)
			}
		} else if c := ix.Container(int32(i)); !sameJSON(c, w.val) || !sameContainer(c, w.val) || g.Null {
			t.Fatalf("%q: node %d is %+v, want %+v", in, i, g, w)
		}
		if ix.Key(int32(i)) != w.key || g.Parent != w.parent || g.End != w.end || g.Member != w.member || !sameJSON(ix.Value(int32(i)), w.val) {
			t.Fatalf("%q: node %d is %+v (key %q, value %v), want %+v", in, i, g, ix.Key(int32(i)), ix.Value(int32(i)), w)
		}
	}
}

// repeatsKey reports whether the JSON text in has an object that repeats a key:
// encoding/json's token stream counts each object's members against its map.
func repeatsKey(in []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(in))
	type frame struct {
		keys    map[string]bool
		isObj   bool
		wantKey bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch x := tok.(type) {
		case json.Delim:
			switch x {
			case '{':
				stack = append(stack, frame{keys: map[string]bool{}, isObj: true, wantKey: true})
				continue
			case '[':
				stack = append(stack, frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].isObj && stack[n-1].wantKey {
				if stack[n-1].keys[x] {
					return true
				}
				stack[n-1].keys[x] = true
				stack[n-1].wantKey = false
				continue
			}
		}
		if n := len(stack); n > 0 && stack[n-1].isObj {
			stack[n-1].wantKey = true
		}
	}
}

// objectKeys returns the keys of the members of the object at node at of ix, in the index's order
// (the text's, which a map does not keep); checkJSONIndex checks they are the object's keys, once
// each.
func objectKeys(ix *JSONIndex, at int32) []string {
	var keys []string
	if int(at) >= len(ix.Nodes) {
		return nil
	}
	for i := at + 1; i < ix.Nodes[at].End && int(i) < len(ix.Nodes); i = max(ix.Nodes[i].End, i+1) {
		if ix.Nodes[i].Parent == at {
			keys = append(keys, ix.Key(i))
		}
	}
	return keys
}

// sameJSON is reflect.DeepEqual that also tells negative zero from zero.
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || x == nil != (y == nil) {
			return false
		}
		for i := range x {
			if !sameJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || x == nil != (y == nil) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func FuzzDecodeFast(f *testing.F) {
	for _, tt := range fastJSONCases {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if checkDepth(in) != nil {
			return // the callers refuse it before decoding
		}
		checkFastJSON(t, in)
	})
}

// Every JSON file of the corpus up to 256 KB (the larger ones cost the race detector most and add
// no shape): decodeFast takes the real JSON sites send (or it would save nothing), and answers as
// encoding/json. The script JSON and JSON-LD of the corpus pages go through it in the corpus
// expectations.
func TestDecodeFastOnCorpus(t *testing.T) {
	skipUnderRace(t)
	dir := corpusDir(t)
	taken, total := 0, 0
	check := func(name string, b []byte) {
		b = trimJSONPrefix(b)
		if checkDepth(b) != nil || !json.Valid(b) {
			return
		}
		total++
		if _, ok := decodeFast(b); ok {
			taken++
		}
		checkFastJSON(t, b)
	}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !strings.HasSuffix(p, ".json") {
			return nil
		}
		if fi, err := d.Info(); err != nil || fi.Size() > 256<<10 {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		check(p, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total == 0 {
		t.Skip("no JSON in the corpus")
	}
	if taken*10 < total*9 {
		t.Errorf("decodeFast took %d of %d valid JSON texts of the corpus, want 90%%", taken, total)
	}
	t.Logf("decodeFast took %d of %d valid JSON texts", taken, total)
}

// specialBytes must point at the first byte of eight that is not plainASCII, whatever the bytes
// around it: every byte value at every position, between plain bytes and after and before
// special ones.
func TestSpecialBytes(t *testing.T) {
	fills := []byte{'a', ' ', '~', '"', '\\', 0, 0x1f, 0x80, 0xff}
	for pos := range 8 {
		for c := range 256 {
			for _, before := range fills {
				for _, after := range fills {
					var w [8]byte
					for i := range w {
						switch {
						case i < pos:
							w[i] = 'x'
						case i == pos:
							w[i] = byte(c)
						default:
							w[i] = after
						}
					}
					if pos > 0 {
						w[pos-1] = before
					}
					want := 8
					for i, b := range w {
						if !plainASCII[b] {
							want = i
							break
						}
					}
					m := specialBytes(binary.LittleEndian.Uint64(w[:]))
					got := 8
					if m != 0 {
						got = bits.TrailingZeros64(m) >> 3
					}
					if got != want {
						t.Fatalf("%q: first special byte %d, want %d", w, got, want)
					}
				}
			}
		}
	}
}

// decodeScriptValue answers what decodeBalanced does (value, text and error) for any text: the
// value in a script, followed by "</script" or not, broken, too deep, cut by a "</script" inside
// a string, or one the fast decoder leaves to encoding/json.
var scriptValueCases = []string{
	`{"a":[1,"b"]};</script>`,
	`{"a":1}</script>{"b":2}`,
	`[1,2] ; x = {"c":3}</script>`,
	`{"a":1}`,
	`{"a":"</script>"}</script>`,
	`{"a":[1,}</script>`,
	`{"a":"\ud83d\ude00"}</script>`,
	`{"a":1</script>}`,
	`{"a":{"b":[]}}}</script>`,
	nested(MaxDepth) + `</script>`,
	nested(MaxDepth+1) + `</script>`,
	`[` + nested(MaxDepth) + `]</script>`,
}

func checkScriptValue(t *testing.T, in []byte) {
	t.Helper()
	gotText, wantText := jsonText{index: true}, jsonText{}
	got, gotErr := decodeScriptValue(in, &gotText, 0)
	want, wantErr := decodeBalanced(in, &wantText)
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%.80q: error %v, want %v", in, gotErr, wantErr)
	}
	if !sameJSON(got, want) || !bytes.Equal(gotText.text, wantText.text) {
		t.Fatalf("%.80q: %.80v text %.80q, want %.80v text %.80q", in, got, gotText.text, want, wantText.text)
	}
	if gotText.ix != nil {
		checkSameIndex(t, in, gotText.ix, IndexJSON(gotText.text, got))
	}
	if n := bytes.Index(in, []byte(scriptEnd)); n > 0 {
		checkPrefixIndex(t, in[:n])
	}
}

// checkPrefixIndex fails when decodeFastPrefixIndexed does not decode in as decodeFastPrefix does,
// or lays the value out otherwise than IndexJSON of its text.
func checkPrefixIndex(t *testing.T, in []byte) {
	t.Helper()
	v, n, ix, ok := decodeFastPrefixIndexed(in, true)
	w, wn, wok := decodeFastPrefix(in)
	if ok != wok || ok && (n != wn || !sameJSON(v, w)) {
		t.Fatalf("%.80q: indexed decode %v %d %.80v, want %v %d %.80v", in, ok, n, v, wok, wn, w)
	}
	if !ok {
		return
	}
	if ix != nil && !bytes.Contains(in, []byte(`\`)) {
		for _, k := range ix.keys {
			if len(k) <= math.MaxUint16 { // longer ones are stored whole
				t.Fatalf("%.80q: %d keys without escapes stored as keys with escapes", in, len(ix.keys))
			}
		}
	}
	checkSameIndex(t, in, ix, IndexJSON(in[:n], v))
}

// checkSameIndex fails when the decoder's index got is not want (IndexJSON's) node for node: the
// same keys, parents and extents, the very maps and lists (Finds locates nodes by identity), and
// the same values.
func checkSameIndex(t *testing.T, in []byte, got, want *JSONIndex) {
	t.Helper()
	if got == nil || want == nil {
		if got != want {
			t.Fatalf("%.80q: decoder's index %v, IndexJSON's %v", in, got != nil, want != nil)
		}
		return
	}
	if len(got.Nodes) != len(want.Nodes) {
		t.Fatalf("%.80q: %d nodes, want %d", in, len(got.Nodes), len(want.Nodes))
	}
	for i := range want.Nodes {
		g, w := got.Nodes[i], want.Nodes[i]
		if got.Key(int32(i)) != want.Key(int32(i)) || g.Parent != w.Parent || g.End != w.End || g.Member != w.Member || g.Null != w.Null || (got.Container(int32(i)) == nil) != (want.Container(int32(i)) == nil) {
			t.Fatalf("%.80q: node %d is %+v, want %+v", in, i, g, w)
		}
		gv, wv := got.Value(int32(i)), want.Value(int32(i))
		if !sameJSON(gv, wv) || !sameContainer(gv, wv) {
			t.Fatalf("%.80q: node %d's value is %.80v, want %.80v", in, i, gv, wv)
		}
	}
	checkMembers(t, in, got)
	checkMembers(t, in, want)
}

// checkMembers fails when ix.Members does not answer, for each key of ix (and for "" and a key
// it lacks), the members under it whose value is not null, as a scan of the nodes finds them.
func checkMembers(t *testing.T, in []byte, ix *JSONIndex) {
	t.Helper()
	keys := map[string]bool{"": true, "missing": true}
	for i := range ix.Nodes {
		keys[ix.Key(int32(i))] = true
	}
	for k := range keys {
		var want []int32
		for i, n := range ix.Nodes {
			if n.Member && ix.Key(int32(i)) == k && ix.Value(int32(i)) != nil {
				want = append(want, int32(i))
			}
		}
		if got := ix.Members(k); !slices.Equal(got, want) {
			t.Fatalf("%.80q: members %q at %v, want %v", in, k, got, want)
		}
	}
}

// sameContainer reports whether a and b, when maps or lists, are the same one.
func sameContainer(a, b any) bool {
	switch a.(type) {
	case map[string]any, []any:
		ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
		return ra.Kind() == rb.Kind() && ra.UnsafePointer() == rb.UnsafePointer() && ra.Len() == rb.Len()
	}
	return true
}

func TestDecodeScriptValue(t *testing.T) {
	for _, in := range scriptValueCases {
		checkScriptValue(t, []byte(in))
	}
}

func FuzzDecodeScriptValue(f *testing.F) {
	for _, in := range scriptValueCases {
		f.Add([]byte(in))
	}
	for _, tt := range fastJSONCases {
		f.Add([]byte(tt.in + "</script>"))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 || in[0] != '{' && in[0] != '[' {
			return // the caller's values start so
		}
		checkScriptValue(t, in)
	})
}

// Enough boxed strings, slices and numbers that their chunks run out and grow many times over: each
// value is its own, whatever was boxed after it.
func TestDecodeFastChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range 2000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"%d%s",%d.5,-%d,[%d],"s%d",{"k":%d}`, i, strings.Repeat("x", 41), i, i, i, i%70, 1e6+i)
	}
	b.WriteString("]")
	checkFastJSON(t, []byte(b.String()))
	if _, ok := decodeFast([]byte(b.String())); !ok {
		t.Fatal("decodeFast does not take it")
	}
}

// An integer past 15 digits keeps its digits (an id of Twitter or Instagram), in the fast decoder
// and in the encoding/json path a text it leaves there takes (a string that is not UTF-8).
func TestLongIntegersExact(t *testing.T) {
	tests := []struct {
		num  string
		want any
	}{
		{"1234567890123456789", 1234567890123456789},
		{"-1234567890123456789", -1234567890123456789},
		{"9007199254740993", 9007199254740993}, // 2^53+1: a float64 reads 2^53
		{"999999999999999", float64(999999999999999)},
		{"-999999999999999", float64(-999999999999999)},
		{"12345678901234567890", 12345678901234567890.0}, // past an int
		{"1234567890123456.5", 1234567890123456.5},
		{"1234567890123456e2", 1234567890123456e2},
	}
	for _, tt := range tests {
		for _, in := range []string{`{"id":` + tt.num + `}`, `{"id":` + tt.num + `,"s":"` + "\xff" + `"}`} {
			v, err := DecodeJSON([]byte(in))
			if err != nil {
				t.Fatalf("%q: %v", in, err)
			}
			if got := v.(map[string]any)["id"]; got != tt.want {
				t.Errorf("%q: id %#v, want %#v", in, got, tt.want)
			}
		}
		v, err := DecodeStd(json.NewDecoder(strings.NewReader("[" + tt.num + "]")))
		if err != nil || v.([]any)[0] != tt.want {
			t.Errorf("DecodeStd %s: %#v (%v), want %#v", tt.num, v, err, tt.want)
		}
	}
}
