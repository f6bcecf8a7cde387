package funcs

import (
	"strings"
	"testing"
)

var bracketCases = []string{"", "a", "a.b", "a[0]", "a.b[0].c", "[", "]", "][", "a[*].b", "[[0]]", "x]y[z", "caf\u00e9[1]", "\xff[\x00]"}

// bracketsToDots answers as the replacer it stands for.
func checkBrackets(t *testing.T, p string) {
	t.Helper()
	if got, want := bracketsToDots(p), strings.NewReplacer("[", ".", "]", "").Replace(p); got != want {
		t.Fatalf("%q: %q, want %q", p, got, want)
	}
}

func TestBracketsToDots(t *testing.T) {
	for _, p := range bracketCases {
		checkBrackets(t, p)
	}
}

func FuzzBracketsToDots(f *testing.F) {
	for _, p := range bracketCases {
		f.Add(p)
	}
	f.Fuzz(checkBrackets)
}
