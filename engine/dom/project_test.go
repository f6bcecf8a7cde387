package dom

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// parseProjection reads a projection from paths separated by commas, each of keys separated by
// dots, where [] is every element and * marks the node it ends at Whole: "a.b,c.[].d*".
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
	{`{"a":"\ud83d\ude00","b":1}`, "b"},                // a surrogate skipped: left to encoding/json
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
