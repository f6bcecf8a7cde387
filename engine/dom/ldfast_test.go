package dom

import (
	"strings"
	"testing"
)

// decodeLDReference is decodeLD before its fast path: copy, depth check, then unmarshal.
func decodeLDReference(s string) []any {
	s = stripWrappers(s)
	if s == "" {
		return nil
	}
	b := []byte(s)
	if err := checkDepth(b); err != nil {
		return nil
	}
	if v, err := unmarshal(b); err == nil {
		return []any{v}
	}
	vs, _ := decodeLenient(b)
	if len(vs) == 0 {
		if u, ok := unescapeQuotes(b); ok {
			if err := checkDepth(u); err != nil {
				return nil
			}
			if v, err := unmarshal(u); err == nil {
				return []any{v}
			}
			vs, _ = decodeLenient(u)
		}
	}
	return vs
}

// checkDepthFirst fails when decodeFastStringDepth takes a text that checkDepth refuses or that
// decodeFastString answers otherwise, and when decodeLD answers otherwise than before its fast path.
func checkDepthFirst(t *testing.T, s string) {
	t.Helper()
	if v, ok := decodeFastStringDepth(s); ok {
		if err := checkDepth([]byte(s)); err != nil {
			t.Fatalf("%.80q: taken, but checkDepth: %v", s, err)
		}
		if w, wok := decodeFastString(s); !wok || !sameJSON(v, w) {
			t.Fatalf("%.80q: %.80v, decodeFastString %v %.80v", s, v, wok, w)
		}
	}
	if got, want := decodeLD(s), decodeLDReference(s); !sameJSON(got, want) {
		t.Fatalf("%.80q: decodeLD %.80v, before %.80v", s, got, want)
	}
}

func TestDecodeFastStringDepth(t *testing.T) {
	for _, tt := range fastJSONCases {
		checkDepthFirst(t, tt.in)
	}
	for _, s := range []string{nested(MaxDepth), nested(MaxDepth + 1), "[" + nested(MaxDepth) + "]",
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), `<!--{"@type":"A"}-->`, `{"a":1} {"b":2}`} {
		checkDepthFirst(t, s)
	}
	if _, ok := decodeFastStringDepth(nested(MaxDepth + 1)); ok {
		t.Fatal("too deep a text taken")
	}
}

func FuzzDecodeFastStringDepth(f *testing.F) {
	for _, tt := range fastJSONCases {
		f.Add(tt.in)
	}
	f.Add(nested(MaxDepth + 1))
	f.Add(`{"@graph":[{"@type":"Recipe","name":"x"}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		checkDepthFirst(t, s)
	})
}
