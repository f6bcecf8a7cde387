package dom

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// parseProjection reads a projection from paths separated by commas, each of keys separated by
// dots, where [] is every element, ~k a search for k (Desc) and * marks the node it ends at Whole:
// "a.b,c.[].d*,e.~f.g*".
func parseProjection(spec string) *Projection {
	root := &Projection{}
	for _, path := range strings.Split(spec, ",") {
		whole := strings.HasSuffix(path, "*")
		path = strings.TrimSuffix(path, "*")
		n := root
		if path != "" {
			for _, k := range strings.Split(path, ".") {
				if k == "[]" {
					if n.Elem == nil {
						n.Elem = &Projection{}
					}
					n = n.Elem
					continue
				}
				if strings.HasPrefix(k, "~") {
					if n.Desc == nil {
						n.Desc = map[string]*Projection{}
					}
					if n.Desc[k[1:]] == nil {
						n.Desc[k[1:]] = &Projection{}
					}
					n = n.Desc[k[1:]]
					continue
				}
				if n.Keys == nil {
					n.Keys = map[string]*Projection{}
				}
				if n.Keys[k] == nil {
					n.Keys[k] = &Projection{}
				}
				n = n.Keys[k]
			}
		}
		if whole {
			n.Whole = true
		}
	}
	return root
}

var projectionCases = []struct{ in, proj string }{
	{`{"a":1,"b":{"c":[1,2],"d":"x"},"e":[{"f":1,"g":2},{"g":3}]}`, "a,b.c,e.[].g"},
	{`{"a":1,"b":{"c":[1,2],"d":"x"}}`, "b"},           // b kept, all its members skipped
	{`{"a":1,"b":{}}`, "b"},                            // empty stays empty
	{`{"a":{"x":1},"a":{"y":2}}`, "a.y"},               // the last of a repeated key
	{`{"a":[1,{"b":2}],"c":{"d":3}}`, "a.b,c.[]"},      // an array read by key, an object by element: whole
	{`{"a":"\ud83d\ude00","b":1}`, "b"},                // a surrogate pair skipped
	{`{"a":"\ude00\ud83d","b":"\ud83d"}`, "b"},         // lone surrogates, skipped and read
	{`{"a":"\ud83d\u12","b":1}`, "b"},                  // a bad escape after one: refused
	{`{"a":1e999,"b":1}`, "b"},                         // out of range
	{"{\"a\":\"\xff\",\"b\":1}", "b"},                  // not UTF-8
	{`{"a":[1,2,],"b":1}`, "b"},                        // malformed where skipped
	{`{"a":01,"b":1}`, "b"},                            // a bad number
	{`{"a":"\u00e9\n","b":12345678901234567890}`, "x"}, // escapes, a long integer
	{`{"a":[[[[]]]],"b":{"c":{"d":{}}}}`, "z*,b.c"},    // a Whole node that is not there
	{`{"a":true,"b":false,"c":null,"d":-0.5e3}`, "c"},  // words and numbers skipped
	{`[{"a":1,"b":2},{"b":3},{}]`, "[].a"},             // the root an array
	{`{"a":{"b":{"c":1,"d":2}}}`, "a*,a.b.c"},          // Whole above a path
	{`{"a":1,"b":[{"c":[{"d":1,"e":2}]}]} trailing`, "b.[].c.[].e"},
}

func TestDecodeProjected(t *testing.T) {
	for _, c := range projectionCases {
		checkProjected(t, []byte(c.in), parseProjection(c.proj))
	}
	// Too deep where skipped is too deep: refused as the full decode refuses it.
	deep := `{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `,"b":1}`
	checkProjected(t, []byte(deep), parseProjection("b"))
	if _, _, ok := decodeFastPrefixProjected(deep, parseProjection("b")); ok {
		t.Fatal("too deep a skipped value taken")
	}
	// What a projection saves: the members not read are not in the value.
	v, _, ok := decodeFastPrefixProjected(`{"a":1,"b":{"c":2,"d":3},"e":4}`, parseProjection("b.d"))
	if !ok || !reflect.DeepEqual(v, map[string]any{"b": map[string]any{"d": 3.0}}) {
		t.Fatalf("projected %v", v)
	}
}

// checkProjected fails when the projected decode of in takes it otherwise than the full decode,
// with another length, or answers otherwise on a path p names.
func checkProjected(t *testing.T, in []byte, p *Projection) {
	t.Helper()
	s := string(in)
	want, wn, _, wok := decodeFastPrefixString(s, false)
	got, n, ok := decodeFastPrefixProjected(s, p)
	if ok != wok || ok && n != wn {
		t.Fatalf("%.80q: projected %v %d, full %v %d", in, ok, n, wok, wn)
	}
	if ok && searches(p) {
		if g, w := seen(got, p), seen(want, p); !sameJSON(g, w) {
			t.Fatalf("%.80q: projected sees %.200v, full %.200v", in, g, w)
		}
		return
	}
	if ok {
		if why := projectedAgrees(got, want, p); why != "" {
			t.Fatalf("%.80q: projected %.80v, full %.80v: %s", in, got, want, why)
		}
	}
}

// projectedAgrees says where got, the projected decode of a value by p, differs from want, the
// full decode, in what a reader of p's paths sees ("" where it does not).
func projectedAgrees(got, want any, p *Projection) string {
	if p == nil || p.Whole {
		if !sameJSON(got, want) {
			return "whole values differ"
		}
		return ""
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return "not an object"
		}
		if p.Elem != nil {
			return projectedAgrees(got, want, nil)
		}
		if (len(g) == 0) != (len(w) == 0) {
			return "emptiness differs"
		}
		for k, v := range g {
			wv, in := w[k]
			if !in {
				return "key " + k + " not in the full value"
			}
			if c, read := p.Keys[k]; read {
				if why := projectedAgrees(v, wv, c); why != "" {
					return k + ": " + why
				}
			} else if v != nil {
				return "unread key " + k + " has a value"
			}
		}
		for k := range p.Keys {
			if _, in := w[k]; in {
				if _, gin := g[k]; !gin {
					return "key " + k + " left out"
				}
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok {
			return "not an array"
		}
		if p.Elem == nil {
			return projectedAgrees(got, want, nil)
		}
		if len(g) != len(w) {
			return "lengths differ"
		}
		for i := range w {
			if why := projectedAgrees(g[i], w[i], p.Elem); why != "" {
				return why
			}
		}
		return ""
	}
	return projectedAgrees(got, want, nil)
}

// FuzzDecodeProjected checks the projected decode against the full one on any text (well-formed
// or not) and any projection.
func FuzzDecodeProjected(f *testing.F) {
	for _, c := range projectionCases {
		f.Add([]byte(c.in), c.proj)
	}
	for _, c := range searchCases {
		f.Add([]byte(c.in), c.proj)
	}
	for _, tt := range fastJSONCases {
		f.Add([]byte(tt.in), "a,b.[].c")
		f.Add([]byte(`{"x":`+tt.in+`,"a":1}`), "a")
	}
	f.Fuzz(func(t *testing.T, in []byte, spec string) {
		if len(in) == 0 || in[0] != '{' && in[0] != '[' || len(spec) > 200 {
			return
		}
		checkProjected(t, in, parseProjection(spec))
	})
}

// FuzzSkipJSON checks that skip takes what value takes, to the same byte, and nothing else.
func FuzzSkipJSON(f *testing.F) {
	for _, tt := range fastJSONCases {
		f.Add([]byte(tt.in))
	}
	for _, c := range projectionCases {
		f.Add([]byte(c.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		checkSkip(t, in)
	})
}

func checkSkip(t *testing.T, in []byte) {
	t.Helper()
	s := string(in)
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	dv := fastDecoder{s: s, b: b, maxDepth: MaxDepth}
	_, vok := dv.value()
	ds := fastDecoder{s: s, b: b, maxDepth: MaxDepth}
	sok := ds.skip()
	if vok != sok || vok && dv.i != ds.i {
		t.Fatalf("%.80q: skip %v at %d, value %v at %d", in, sok, ds.i, vok, dv.i)
	}
}

func TestSkipJSON(t *testing.T) {
	for _, tt := range fastJSONCases {
		checkSkip(t, []byte(tt.in))
		checkSkip(t, []byte(tt.in+" x"))
	}
	for _, c := range projectionCases {
		checkSkip(t, []byte(c.in))
	}
	checkSkip(t, bytes.Repeat([]byte("["), MaxDepth+1))
	checkSkip(t, []byte(strings.Repeat("[", MaxDepth)+strings.Repeat("]", MaxDepth)))
	checkSkip(t, []byte(strings.Repeat("[", MaxDepth+1)+strings.Repeat("]", MaxDepth+1)))
}

// searchAll is funcs' findAll as its definition (findKeySorted) walks: every non-nil value of a
// member named key at any depth of v, depth-first, an object's keys sorted, a member's value
// before what it holds.
func searchAll(v any, key string) []any {
	out := []any{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if k == key && x[k] != nil {
					out = append(out, x[k])
				}
				walk(x[k])
			}
		}
	}
	walk(v)
	return out
}

// seen is what a reader of the paths of p sees of v, as a value to compare: the members Keys
// names (and whether each is there), the elements, the matches of each search read by their node,
// and whether v is empty.
func seen(v any, p *Projection) any {
	if p == nil || p.Whole {
		return v
	}
	out := map[string]any{}
	switch x := v.(type) {
	case map[string]any:
		if p.Elem != nil {
			return v
		}
		out["empty"] = len(x) == 0
		for k, c := range p.Keys {
			if m, in := x[k]; in {
				out["."+k] = seen(m, c)
			}
		}
	case []any:
		if p.Elem != nil {
			l := make([]any, len(x))
			for i, e := range x {
				l[i] = seen(e, p.Elem)
			}
			return l
		}
		if len(p.Keys) > 0 {
			return v
		}
		out["empty"] = len(x) == 0
	default:
		return v
	}
	for k, c := range p.Desc {
		ms := searchAll(v, k)
		l := make([]any, len(ms))
		for i, m := range ms {
			l[i] = seen(m, c)
		}
		out["~"+k] = l
	}
	return out
}

var searchCases = []struct{ in, proj string }{
	{`{"a":{"k":1,"z":[1,2]},"b":[{"x":{"k":{"k":2,"y":3}}},5,{"q":1}],"k":null}`, "~k*"},
	{`{"a":{"k":1,"z":[1,2]},"b":[{"x":{"k":{"k":2,"y":3}}},5,{"q":1}],"k":null}`, "~k.y*"},
	{`{"a":{"k":1,"z":[1,2]},"b":[{"x":{"k":{"k":2,"y":3}}},5,{"q":1}]}`, "~k"}, // matches read for presence
	{`{"a":{"k":{"t":1,"u":2}},"k":[{"t":3}]}`, "~k.~t*"},                       // a search in the matches of a search
	{`{"a":{"k":{"t":1}},"a":{"z":1},"b":{"k":2},"b":{"k":3}}`, "~k*"},          // repeated keys: the last wins
	{`{"a":{"z":1},"a":{"k":1}}`, "~k*"},                                        // the last holds the match
	{`{"a":{"k":1},"b":{"c":{"k":2}}}`, "b.c,~k*"},                              // a path and a search
	{`{"k":{"k":1},"b":{"k":2}}`, "k.k*,~k*"},                                   // a member a path and a search reach
	{`{"a":{"k":1},"b":{"k":2}}`, "~k.x*,b.~k.y*"},                              // two searches for k
	{`{"a":[],"b":{},"c":[[{"k":1}],[]],"d":[1,"k",{"k":[]}]}`, "~k*"},          // empty values, nested arrays
	{`{"a":[1,2,3],"b":{"x":1}}`, "a.~k*,b.~k*"},                                // searched values without matches
	{`{"a":[{"x":1,"k":2},{"y":1}]}`, "a.[].x*,~k*"},                            // elements read and searched
	{`{"a":{"b":"\ud83d","k":1}}`, "~k*"},                                       // left to encoding/json
	{`{"a":{"b":[1,2,],"k":1}}`, "~k*"},                                         // malformed where stepped over
	{`{"a":{"b":01,"k":1}}`, "~k*"},                                             // a bad number
	{"{\"a\":{\"b\":\"\xff\",\"k\":1}}", "~k*"},                                 // not UTF-8
	{`{"items":[{"r":{"content":{"v":{"id":"a"}}}},{"g":{"id":"b"}}],"more":{"items":[{"v":1}]}}`, "~items.[].r.content.v.id*,~items.[].v*"},
}

func TestDecodeSearched(t *testing.T) {
	for _, c := range searchCases {
		checkProjected(t, []byte(c.in), parseProjection(c.proj))
	}
	// Too deep where stepped over under a search.
	deep := `{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `,"k":1}`
	checkProjected(t, []byte(deep), parseProjection("~k*"))
	// What a search saves: the values that hold no match are not there.
	v, _, ok := decodeFastPrefixProjected(`{"a":{"b":{"c":2}},"d":[{"e":1},{"k":{"x":1}}],"k":3}`, parseProjection("~k*"))
	if !ok || !reflect.DeepEqual(v, map[string]any{"d": []any{nil, map[string]any{"k": map[string]any{"x": 1.0}}}, "k": 3.0}) {
		t.Fatalf("searched %v", v)
	}
	// A text too long for a search to be sure to end within funcs' budget is decoded whole.
	long := `{"k":1,"a":"` + strings.Repeat("x", maxSearchedText) + `"}`
	v, _, ok = decodeFastPrefixProjected(long, parseProjection("~k*"))
	if m, _ := v.(map[string]any); !ok || len(m) != 2 {
		t.Fatal("a long text searched as projected")
	}
}

// FuzzDecodeSearched checks a search (findAll) over the projected decode of any text against the
// same search over the full decode, and that the projected decode takes exactly what the full one
// takes: a search for key alone, and with a search for key2 in its matches, next to a path.
func FuzzDecodeSearched(f *testing.F) {
	for _, c := range searchCases {
		f.Add([]byte(c.in), "k", "t")
	}
	for _, tt := range fastJSONCases {
		f.Add([]byte(`{"x":`+tt.in+`,"k":{"t":1}}`), "k", "t")
	}
	f.Fuzz(func(t *testing.T, in []byte, key, key2 string) {
		if len(in) == 0 || in[0] != '{' && in[0] != '[' || strings.ContainsAny(key+key2, ".,*~") {
			return
		}
		if key == "" || key2 == "" || key == "[]" || key2 == "[]" {
			return
		}
		checkProjected(t, in, parseProjection("~"+key+"*"))
		checkProjected(t, in, parseProjection("~"+key+".~"+key2+"*"))
		checkProjected(t, in, parseProjection(key2+".x*,~"+key+"."+key2))
	})
}
