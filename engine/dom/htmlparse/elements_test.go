package htmlparse

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// sameElements returns how ParseStringElements of s differs from ParseString of s and, when it
// lists the elements, how its list differs from a walk of its tree ("" when not); listed reports
// whether it listed them.
func sameElements(s string) (d string, listed bool) {
	want, wantErr := ParseString(s)
	got, elems, gotErr := ParseStringElements(s)
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
		return "error: want " + errString(wantErr) + ", got " + errString(gotErr), false
	}
	if wantErr != nil {
		if got != nil || elems != nil {
			return "a tree or a list with the error", false
		}
		return "", false
	}
	if d := diffTrees(want, got); d != "" {
		return "tree: " + d, false
	}
	if elems == nil {
		return "", false
	}
	i := 0
	for n := got; n != nil; n = next(n, got) {
		if n.Type != html.ElementNode {
			continue
		}
		if i >= len(elems) {
			return fmt.Sprintf("the walk has more than the %d listed elements", len(elems)), true
		}
		if elems[i] != n {
			return fmt.Sprintf("element %d: walk <%s>, list <%s>", i, n.Data, elems[i].Data), true
		}
		i++
	}
	if i != len(elems) {
		return fmt.Sprintf("%d listed, %d walked", len(elems), i), true
	}
	return "", true
}

func next(n, root *html.Node) *html.Node {
	if n.FirstChild != nil {
		return n.FirstChild
	}
	for ; n != root; n = n.Parent {
		if n.NextSibling != nil {
			return n.NextSibling
		}
	}
	return nil
}

// misnested are snippets whose elements the parser moves or clones.
var misnested = []string{
	"<b>1<p>2</b>3</p>",
	"<a><div><a>x</a></div></a>",
	"<table><div>x</div><tr><td>y</table>",
	"<table><tr><b>x</b><td>y</td></tr></table>",
	"<p><b><i><u><s>x</p>y",
	"<b><table><td></b><i></table>x",
	"<body><frameset></frameset>",
	"<div><b><div><b><div><b>x</div></div></div>",
	"<a href=1><table><a href=2>x</table>",
	"<template><b><p>x</b></template><table><template><b>y</b></template></table>",
}

func TestElementsSnippets(t *testing.T) {
	for _, s := range append(append([]string{}, trickySnippets...), misnested...) {
		if d, _ := sameElements(s); d != "" {
			t.Errorf("%q: %s", s, d)
		}
	}
	// Trees built in order are listed: the list is not nil by caution alone.
	for _, s := range []string{"", "plain", "<!DOCTYPE html><html><head><title>t</title></head><body><div class=a><p>x<b>y</b></p></div></body></html>",
		"<table><tr><td>a</td></tr></table>", "<b>x</b><p>y", "<svg><path/></svg><math><mi>x</mi></math>", "<body a=1><body b=2>x<html c=3>"} {
		if d, listed := sameElements(s); d != "" || !listed {
			t.Errorf("%q: %s, listed %v", s, d, listed)
		}
	}
	for _, s := range misnested[:4] {
		if _, listed := sameElements(s); listed {
			t.Errorf("%q: listed, though the parser moved elements", s)
		}
	}
}

// TestElementsPages lists the elements of every page of the repository's fixtures and of the
// real-page corpus.
func TestElementsPages(t *testing.T) {
	dirs := []string{filepath.Join("..", "..", "..", "fixtures")}
	if c := corpusDir(); c != "" {
		dirs = append(dirs, c)
	} else if os.Getenv("CI") == "true" {
		t.Fatal("no corpus (set ASA_CORPUS)")
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
			body, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			pages++
			// Under -race every fourth page (see raceDetector); make test runs them all without it.
			if raceDetector && pages%4 != 0 {
				return nil
			}
			diff, ok := sameElements(string(body))
			if diff != "" {
				t.Errorf("%s: %s", path, diff)
			}
			if ok {
				listed++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d pages, %d listed", pages, listed)
}

// soup are the pieces FuzzElementsSoup builds pages of: formatting, special, table and foreign
// elements, open and closed in any order, which is where the parser moves elements.
var soup = []string{
	"<a>", "</a>", "<b>", "</b>", "<i>", "</i>", "<p>", "</p>", "<div>", "</div>", "<table>", "</table>",
	"<tr>", "</tr>", "<td>", "</td>", "<tbody>", "<caption>", "<span>", "</span>", "<nobr>", "<li>",
	"<ul>", "</ul>", "<select>", "<option>", "<template>", "</template>", "<svg>", "</svg>", "<math>",
	"<mi>", "<foreignObject>", "<body x=1>", "<html y=2>", "<frameset>", "<frame>", "<form>", "</form>",
	"<h1>", "</h1>", "<button>", "<input type=hidden>", "<br>", "</br>", "<hr/>", "x", " ", "<script>s</script>",
	"<style>", "</style>", "<head>", "</head>", "</body>", "</html>", "<!--c-->", "<col>", "<colgroup>",
	"<title>", "</title>", "<meta>", "<textarea>", "</textarea>", "<applet>", "<marquee>", "<object>",
}

func FuzzElementsSoup(f *testing.F) {
	f.Add([]byte{0, 10, 12, 14, 2, 1, 3})
	f.Add([]byte{2, 6, 3, 7})
	f.Add([]byte{34, 35, 36, 37, 38})
	f.Fuzz(func(t *testing.T, picks []byte) {
		var sb strings.Builder
		for _, c := range picks {
			sb.WriteString(soup[int(c)%len(soup)])
		}
		if d, _ := sameElements(sb.String()); d != "" {
			t.Fatalf("%q: %s", sb.String(), d)
		}
	})
}

func FuzzElements(f *testing.F) {
	for _, s := range append(append([]string{}, trickySnippets...), misnested...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, _ := sameElements(s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
	})
}
