package htmlparse

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// diffTrees returns where two trees first differ, or "" when they are the same: node types, Data,
// DataAtom, Namespace, every attribute in order, and the shape. It walks without recursion, as
// trees of hostile input can be deep.
func diffTrees(want, got *html.Node) string {
	path := []string{}
	for w, g := want, got; ; {
		if d := diffNode(w, g); d != "" {
			return strings.Join(path, " > ") + ": " + d
		}
		// Descend, else move to the next sibling, else climb until there is one.
		if w.FirstChild != nil || g.FirstChild != nil {
			if w.FirstChild == nil || g.FirstChild == nil {
				return strings.Join(path, " > ") + " " + w.Data + ": one has children, the other not"
			}
			path = append(path, w.Data)
			w, g = w.FirstChild, g.FirstChild
			continue
		}
		for {
			if (w.NextSibling == nil) != (g.NextSibling == nil) {
				return strings.Join(path, " > ") + fmt.Sprintf(": after %q, one has a next sibling, the other not", w.Data)
			}
			if w.NextSibling != nil {
				w, g = w.NextSibling, g.NextSibling
				break
			}
			if w == want {
				return ""
			}
			w, g = w.Parent, g.Parent
			path = path[:len(path)-1]
			if w == want {
				return ""
			}
		}
	}
}

func diffNode(w, g *html.Node) string {
	if (w == nil) != (g == nil) {
		return "nil node"
	}
	if w.Type != g.Type || w.Data != g.Data || w.DataAtom != g.DataAtom || w.Namespace != g.Namespace {
		return fmt.Sprintf("node: want %v %q %v %q, got %v %q %v %q", w.Type, w.Data, w.DataAtom, w.Namespace, g.Type, g.Data, g.DataAtom, g.Namespace)
	}
	if len(w.Attr) != len(g.Attr) {
		return fmt.Sprintf("<%s> attributes: want %q, got %q", w.Data, w.Attr, g.Attr)
	}
	for i := range w.Attr {
		if w.Attr[i] != g.Attr[i] {
			return fmt.Sprintf("<%s> attribute %d: want %q, got %q", w.Data, i, w.Attr[i], g.Attr[i])
		}
	}
	return ""
}

// equivalent parses body with x/net/html and with Parse and returns how they differ, or "".
func equivalent(body []byte) string {
	want, wantErr := html.Parse(bytes.NewReader(body))
	got, gotErr := Parse(body)
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
		return fmt.Sprintf("error: want %v, got %v", wantErr, gotErr)
	}
	if wantErr != nil {
		if got != nil {
			return "a tree with the error"
		}
		return ""
	}
	return diffTrees(want, got)
}

// trickySnippets are inputs where tokenizing or tree construction takes an unusual path; they
// are the table of TestEquivalentSnippets and the seeds of FuzzParseEquivalent.
var trickySnippets = []string{
	"",
	"plain",
	"<p>a<b>b<i>c</b>d</i>e</p>",
	"<a href=x>1<p>2</a>3</p>",
	"<b><p>x</b>y",
	"<table>stray<tr>text<td>cell</td>more</tr></table>",
	"<table><tr><td>a</td></tr>x<caption>c</caption></table>",
	"<table><b>bold</b><tr><td>1</table>",
	"<script><!--<script>x</script>y</script>z",
	"<script><!--<script>x</script>-->y</script>z",
	"<script>a</script b>c",
	"<script>a</SCRIPT>b",
	"<script>a</script",
	"<script>a</scrip</script>",
	"<script><!--",
	"<script><!--<script>",
	"<script><!--<script></script",
	"<script>-->--!>--<!-- --></script>",
	"<style>a</style x>b<title>&amp;</title>",
	"<textarea>\r\n&lt;x</textarea>",
	"<title>a</titl></title>",
	"<xmp><b></xmp><iframe><p></iframe><noembed>a</noembed><noframes>b</noframes>",
	"<noscript><p>x</noscript>",
	"<plaintext>a</plaintext><b>",
	"<svg><path d=1 /><foreignObject><p>x</p></foreignObject><title>t</title></svg>",
	"<svg viewbox=0 xlink:href=x><clippath/><![CDATA[a<b]]></svg>",
	"<math><mi>x</mi><annotation-xml encoding=text/html><div>d</div></annotation-xml></math>",
	"<math definitionurl=x><mtext><b>y</b></mtext><mglyph/></math>",
	"<template><tr><td>a</td></tr></template><template><template>x</template></template>",
	"<frameset><frame src=a></frameset><noframes>x</noframes>",
	"<html><frameset rows=*><frame></frameset></html>",
	"a\r\nb\rc\r\r\n",
	"a\x00b<p \x00=\x00>\x00</p><script>\x00</script><!--\x00-->",
	"&amp &amp; &notit; &notin; &#x41 &#65; &#0; &#x110000; &#128; &bogus; &",
	"<a href='?a=1&b=2&amp;c=3&copy=4&copy;'>x</a>",
	"<p id=a id=b ID=c class=x CLASS=y>dup</p>",
	"<DIV CLASS=Up><SPAN>x</SPAN></DIV>",
	"<!DOCTYPE html><html><head></head><body></body></html>",
	"<!doctype html public \"-//W3C//DTD HTML 4.01 Transitional//EN\">x",
	"<!DOCTYPE>x",
	"<!DOCTYP",
	"<![CDATA[x]]>",
	"<!-->a<!--->b<!---->c<!-- -- -->d<!--x--!>e<!--",
	"<!--a--",
	"<?xml version=1?>x",
	"</>x</ p>y</3>",
	"<p a=/>x<p a=\"/\"/>y<br/>",
	"<a b c=d e='f' g=\"h\" i= j =k / >",
	"<a =x>y</a>",
	"<select><option>a<option>b</select><select><optgroup><option></select>",
	"<ul><li>a<li>b</ul><dl><dt>a<dd>b</dl>",
	"<h1><h2>x</h1></h2>",
	"<button><button>x",
	"<form><form>x</form>",
	"<image src=x>",
	"<isindex>",
	"<body a=1><body b=2>x",
	"<html a=1><html b=2>",
	"<head><meta charset=utf-8><base><link></head><body>",
	"<p>" + strings.Repeat("<div>", 600),
	strings.Repeat("<b>", 100) + "x",
	"<table><td>" + strings.Repeat("<table><td>", 50),
	"<ruby>a<rb>b<rt>c<rp>d</ruby>",
	"<marquee><object><applet>x</applet></object></marquee>",
	"<input type=hidden><table><input type=hidden><input type=text></table>",
	"<nobr>a<nobr>b",
	"<a><svg><a>x</a></svg></a>",
}

func TestEquivalentSnippets(t *testing.T) {
	for _, s := range trickySnippets {
		if d := equivalent([]byte(s)); d != "" {
			t.Errorf("%q: %s", s, d)
		}
	}
}

// TestEquivalentPages parses every page of the repository's fixtures and of the real-page corpus
// with both parsers.
func TestEquivalentPages(t *testing.T) {
	dirs := []string{filepath.Join("..", "..", "..", "fixtures")}
	if c := corpusDir(); c != "" {
		dirs = append(dirs, c)
	} else if os.Getenv("CI") == "true" {
		t.Fatal("no corpus (set ASA_CORPUS)")
	}
	pages, compared := 0, 0
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
			if raceDetector && pages%8 != 1 {
				return nil // a sample under -race (see race_on_test.go)
			}
			compared++
			if d := equivalent(body); d != "" {
				t.Errorf("%s: %s", path, d)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d pages compared", compared, pages)
}

// corpusDir returns the real-page corpus, $ASA_CORPUS or ../shared/corpus next to the repository
// root, or "" when neither exists.
func corpusDir() string {
	dir := os.Getenv("ASA_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", "shared", "corpus")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	return dir
}

// TestEquivalentExhaustive compares the parsers on every sequence of up to four pieces after
// prefixes that put the tokenizer in its fiddliest states (comments, script data and its
// escapes, RAWTEXT, RCDATA, tags and attributes, CDATA in foreign content), as upstream's
// TestComments does for comments.
func TestEquivalentExhaustive(t *testing.T) {
	prefixes := []string{"<!--", "<script>", "<script><!--", "<script><!--<script>", "<style>", "<textarea>", "<title>", "<p a", "<svg><![CDATA[", "<!DOCTYPE"}
	pieces := []string{"-", "!", ">", "<", "/", "script", "SCRIPT", " ", "a", "\r", "&amp", "\x00", "="}
	const maxPieces = 4
	if testing.Short() {
		prefixes = prefixes[:3]
	}
	var b []byte
	var walk func(prefix []byte, depth int)
	n := 0
	walk = func(prefix []byte, depth int) {
		n++
		if d := equivalent(prefix); d != "" {
			t.Fatalf("%q: %s", prefix, d)
		}
		if depth == maxPieces {
			return
		}
		for _, p := range pieces {
			walk(append(prefix, p...), depth+1)
		}
	}
	for _, p := range prefixes {
		b = append(b[:0], p...)
		walk(b, 0)
	}
	t.Logf("%d inputs", n)
}

// TestParseErrors checks that where x/net/html refuses a document, Parse refuses it with the same
// error and no tree.
func TestParseErrors(t *testing.T) {
	tests := []struct{ name, body string }{
		{"nested divs", strings.Repeat("<div>", 600)},
		{"nested in a table cell", "<table><tr><td>" + strings.Repeat("<span>", 520)},
		{"nested svg", "<svg>" + strings.Repeat("<g>", 520)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, wantErr := html.Parse(strings.NewReader(tt.body))
			if wantErr == nil {
				t.Fatal("x/net/html accepts it")
			}
			doc, err := Parse([]byte(tt.body))
			if err == nil || err.Error() != wantErr.Error() || doc != nil {
				t.Fatalf("got %v, %v; want nil, %v", doc, err, wantErr)
			}
		})
	}
}
