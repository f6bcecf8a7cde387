package xpatheval

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"asa/engine/dom"
)

// TestIndexFromParsedElements builds the document index of every fixture and corpus page from the
// parser's list of elements and by the walk, for every indexable XPath of the shipped sitedefs
// and the joined attributes of cards: the same lists, the same joined values, the same element
// list and positions.
func TestIndexFromParsedElements(t *testing.T) {
	want := joiningWant()
	for _, s := range shippedSelectors(t, nil) {
		if s.fast != nil {
			analyzeXPath(s.src, want)
		}
	}
	dirs := []string{filepath.Join("..", "..", "fixtures")}
	if c := os.Getenv("ASA_CORPUS"); c != "" {
		dirs = append(dirs, c)
	} else if _, err := os.Stat("../../../shared/corpus"); err == nil {
		dirs = append(dirs, "../../../shared/corpus")
	}
	pages, listed := 0, 0
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if ext := strings.ToLower(filepath.Ext(path)); ext != ".html" && ext != ".htm" {
				return nil
			}
			pages++
			if raceDetector && pages%8 != 1 {
				return nil // a sample under -race (see race_on_test.go)
			}
			body, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			body, _ = dom.ToUTF8(body, "text/html")
			root, elems, err := dom.ParseHTMLViewElements(body)
			if err != nil || elems == nil {
				return nil
			}
			listed++
			if d := sameIndex(buildIndex(root, want, nil), buildIndex(root, want, elems)); d != "" {
				t.Errorf("%s: %s", path, d)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if listed == 0 {
		t.Fatal("no page listed")
	}
	t.Logf("%d pages, %d listed and compared", pages, listed)
}

// sameIndex returns how two indexes of one document differ ("" when not), elements listed.
func sameIndex(walked, fromList *docIndex) string {
	sameNodes := func(a, b []*html.Node) bool { return slices.Equal(a, b) }
	if len(walked.attrs) != len(fromList.attrs) || len(walked.tags) != len(fromList.tags) || len(walked.joined) != len(fromList.joined) {
		return "different keys"
	}
	for k, l := range walked.attrs {
		if !sameNodes(l, fromList.attrs[k]) {
			return "attribute key " + k
		}
	}
	for k, l := range walked.tags {
		if !sameNodes(l, fromList.tags[k]) {
			return "tag " + k
		}
	}
	if !sameNodes(walked.elements(), fromList.elements()) {
		return "elements"
	}
	for k, j := range walked.joined {
		g := fromList.joined[k]
		if g == nil || string(j.vals) != string(g.vals) || !sameNodes(j.elems, g.elems) || !slices.Equal(j.starts, g.starts) || !slices.Equal(j.pos, g.pos) {
			return "joined " + k
		}
	}
	return ""
}
