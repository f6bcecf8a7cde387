package errcode

import (
	"fmt"
	"strings"
	"testing"
)

func TestListed(t *testing.T) {
	many := func(n int) []string {
		var out []string
		for i := n - 1; i >= 0; i-- { // unsorted on purpose
			out = append(out, fmt.Sprintf("p%03d", i))
		}
		return out
	}
	tests := []struct {
		name  string
		in    []string
		shown int
		text  string
	}{
		{"none", nil, 0, ""},
		{"a few, sorted", []string{"b", "a"}, 2, "a, b"},
		{"exactly the cap", many(20), 20, "p000, p001, p002, p003, p004, p005, p006, p007, p008, p009, p010, p011, p012, p013, p014, p015, p016, p017, p018, p019"},
		{"over the cap", many(10000), 20, "p018, p019, ... and 9980 more"},
		{"a long name is cut", []string{strings.Repeat("é", 100)}, 1, strings.Repeat("é", 32) + "..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.in...)
			shown, text := Listed(in)
			if len(shown) != tt.shown || !strings.HasSuffix(text, tt.text) {
				t.Errorf("shown %d %q; want %d, text ending %q", len(shown), text, tt.shown, tt.text)
			}
			if len(text) > 20*70+40 {
				t.Errorf("text of %d bytes", len(text))
			}
			for i := range in {
				if in[i] != tt.in[i] {
					t.Fatal("Listed changed its argument")
				}
			}
		})
	}
}
