package htmlparse

import "testing"

// FuzzParseEquivalent requires Parse to give x/net/html's tree, or its error, on any input, and
// ParseString Parse's.
func FuzzParseEquivalent(f *testing.F) {
	for _, s := range trickySnippets {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if d := equivalent(body); d != "" {
			t.Fatalf("%q: %s", body, d)
		}
		if d := sameAsParse(body); d != "" {
			t.Fatalf("ParseString of %q: %s", body, d)
		}
	})
}
