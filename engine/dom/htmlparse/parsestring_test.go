package htmlparse

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// sameAsParse returns how ParseString of body's text differs from Parse of body ("" when not).
func sameAsParse(body []byte) string {
	want, wantErr := Parse(body)
	got, gotErr := ParseString(string(body))
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
		return "error: want " + errString(wantErr) + ", got " + errString(gotErr)
	}
	if wantErr != nil {
		return ""
	}
	return diffTrees(want, got)
}

func errString(err error) string {
	if err == nil {
		return "none"
	}
	return err.Error()
}

func TestParseString(t *testing.T) {
	for _, s := range trickySnippets {
		if d := sameAsParse([]byte(s)); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
	}
	dir := corpusDir()
	if dir == "" {
		t.Skip("no corpus")
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "youtube", "*.html"))
	more, _ := filepath.Glob(filepath.Join(dir, "amazon", "product-*.html"))
	pages = append(pages, more...)
	for _, p := range pages {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// The parser reads the text it is given and never writes it.
		orig := bytes.Clone(body)
		if d := sameAsParse(body); d != "" {
			t.Fatalf("%s: %s", p, d)
		}
		if !bytes.Equal(body, orig) {
			t.Fatalf("%s: written", p)
		}
	}
}
