package dom

import (
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// checkJSONLDElements fails when JSONLDElements, reading the parser's list of elements, answers
// otherwise than JSONLD's walk of the same tree.
func checkJSONLDElements(t *testing.T, body []byte, what string) {
	t.Helper()
	doc, elems, err := ParseHTMLViewElements(body)
	if err != nil {
		return
	}
	want, err := json.Marshal(JSONLD(doc))
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(JSONLDElements(doc, elems))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s: JSONLDElements %.200s, want %.200s", what, got, want)
	}
}

var jsonLDElementPages = []string{
	``,
	`<p>no script</p>`,
	`<script type="application/ld+json">{"@type":"A","n":1}</script>`,
	`<head><script type="application/ld+json">{"@id":"x","@type":"A"}</script></head><body><div><script TYPE=" Application/LD+JSON ; charset=utf-8">[{"@id":"x","n":2},{"@type":"B"}]</script></div>` +
		`<script>{"@type":"C"}</script><template><script type="application/ld+json">{"@type":"T"}</script></template></body>`,
	`<table><script type="application/ld+json">{"@type":"InTable"}</script><tr><td>x</table>`,
	// Misnested tags: the parser moves elements, and lists none.
	`<b><p><script type="application/ld+json">{"@type":"A"}</script></b>x</p><script type="application/ld+json">{"@type":"B"}</script>`,
	`<select><script type="application/ld+json">{"@type":"S"}</script></select><frameset><script type="application/ld+json">{"@type":"F"}</script>`,
	`<svg><script type="application/ld+json">{"@type":"Svg"}</script></svg><math><script type="application/ld+json">{"@type":"M"}</script>`,
}

func TestJSONLDElements(t *testing.T) {
	for _, p := range jsonLDElementPages {
		checkJSONLDElements(t, []byte(p), p)
	}
	if got := JSONLDElements(nil, nil); got != nil {
		t.Errorf("nil tree: %v", got)
	}
}

// Every corpus page (under -race every eighth: see raceDetector): the parser's list gives the
// JSON-LD a walk gives.
func TestJSONLDElementsCorpus(t *testing.T) {
	dir := corpusDir(t)
	n, i := 0, 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		if i++; raceDetector && i%8 != 0 {
			return nil
		}
		raw := readCorpus(t, dir, mustRel(t, dir, p))
		body, err := ToUTF8(raw, "")
		if err != nil {
			return nil
		}
		checkJSONLDElements(t, body, p)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages", n)
}

func mustRel(t *testing.T, dir, p string) string {
	t.Helper()
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

func FuzzJSONLDElements(f *testing.F) {
	for _, p := range jsonLDElementPages {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, page string) {
		checkJSONLDElements(t, []byte(page), page)
	})
}
