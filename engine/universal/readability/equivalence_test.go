package readability_test

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	upstream "codeberg.org/readeck/go-readability/v2"
	"golang.org/x/net/html"

	"asa/engine/dom"
	"asa/engine/universal/readability"
)

// result is everything of an article the engine reads, rendered to compare.
type result struct {
	node, title, byline, excerpt, siteName, lang, image, favicon, published, modified, err string
}

func timeString(t time.Time, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return t.String()
}

func renderNode(n *html.Node) string {
	if n == nil {
		return "<nil>"
	}
	var b strings.Builder
	if err := html.Render(&b, n); err != nil {
		return "render error: " + err.Error()
	}
	return b.String()
}

// article is what both packages' Article types offer.
type article interface {
	Title() string
	Byline() string
	Excerpt() string
	SiteName() string
	Language() string
	ImageURL() string
	Favicon() string
	PublishedTime() (time.Time, error)
	ModifiedTime() (time.Time, error)
}

// parseFunc runs one package's parser on doc; node is the article's Node.
type parseFunc func(doc *html.Node, base *url.URL, keepClasses bool) (a article, node *html.Node, err error)

func parseUpstream(doc *html.Node, base *url.URL, keepClasses bool) (article, *html.Node, error) {
	p := upstream.NewParser()
	p.KeepClasses = keepClasses
	a, err := p.ParseAndMutate(doc, base)
	return a, a.Node, err
}

func parseFork(doc *html.Node, base *url.URL, keepClasses bool) (article, *html.Node, error) {
	p := readability.NewParser()
	p.KeepClasses = keepClasses
	a, err := p.ParseAndMutate(doc, base)
	return a, a.Node, err
}

// parseForkFrom is the fork's ParseFrom, which must leave doc as it found it: a doc it changed is
// an error.
func parseForkFrom(doc *html.Node, base *url.URL, keepClasses bool) (article, *html.Node, error) {
	before := renderNode(doc)
	p := readability.NewParser()
	p.KeepClasses = keepClasses
	a, err := p.ParseFrom(doc, base)
	if after := renderNode(doc); after != before {
		return nil, nil, fmt.Errorf("ParseFrom changed its source %s", firstDiff(before, after))
	}
	return a, a.Node, err
}

// run parses body (a tree of its own) and runs parse on it; a panic is a result like the others.
func run(parse parseFunc, body []byte, base *url.URL, keepClasses bool) (r result) {
	defer func() {
		if p := recover(); p != nil {
			r = result{err: fmt.Sprint("panic: ", p)}
		}
	}()
	doc, err := dom.ParseHTML(body)
	if err != nil {
		return result{err: err.Error()}
	}
	a, node, err := parse(doc, base, keepClasses)
	if err != nil {
		return result{err: err.Error()}
	}
	pt, perr := a.PublishedTime()
	mt, merr := a.ModifiedTime()
	return result{node: renderNode(node), title: a.Title(), byline: a.Byline(), excerpt: a.Excerpt(),
		siteName: a.SiteName(), lang: a.Language(), image: a.ImageURL(), favicon: a.Favicon(),
		published: timeString(pt, perr), modified: timeString(mt, merr)}
}

// firstDiff says where want and got first differ, with some context.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	lo := max(0, i-80)
	return fmt.Sprintf("at byte %d:\n  want …%q\n  got  …%q", i, want[lo:min(len(want), i+80)], got[lo:min(len(got), i+80)])
}

// compare runs upstream and the fork's ParseAndMutate and ParseFrom on body, with and without
// KeepClasses (the engine uses both), and returns how they differ, or "".
func compare(body []byte, base *url.URL) string {
	for _, keep := range []bool{false, true} {
		w := run(parseUpstream, body, base, keep)
		if d := diff(w, run(parseFork, body, base, keep)); d != "" {
			return fmt.Sprintf("ParseAndMutate, KeepClasses=%v: %s", keep, d)
		}
		if keep {
			// The engine calls ParseFrom without KeepClasses only (ExtractMainTextFrom).
			continue
		}
		if d := diff(w, run(parseForkFrom, body, base, keep)); d != "" {
			return fmt.Sprintf("ParseFrom, KeepClasses=%v: %s", keep, d)
		}
	}
	return ""
}

// diff says how the results w and g differ, or "".
func diff(w, g result) string {
	if w != g {
		fields := []struct{ name, w, g string }{
			{"err", w.err, g.err}, {"node", w.node, g.node}, {"title", w.title, g.title},
			{"byline", w.byline, g.byline}, {"excerpt", w.excerpt, g.excerpt}, {"siteName", w.siteName, g.siteName},
			{"lang", w.lang, g.lang}, {"image", w.image, g.image}, {"favicon", w.favicon, g.favicon},
			{"published", w.published, g.published}, {"modified", w.modified, g.modified},
		}
		for _, f := range fields {
			if f.w != f.g {
				return fmt.Sprintf("%s differs %s", f.name, firstDiff(f.w, f.g))
			}
		}
	}
	return ""
}

// corpusDir is the shared corpus beside the repository, or $ASA_CORPUS.
func corpusDir() string {
	if d := os.Getenv("ASA_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "..", "..", "shared", "corpus")
}

func htmlFiles(t *testing.T, root string) []string {
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm")) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

func compareFiles(t *testing.T, files []string) {
	base, _ := url.Parse("http://fakehost/test/page.html")
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d := compare(body, base); d != "" {
			t.Errorf("%s: %s", f, d)
		}
	}
}

// TestEquivalentCorpus runs upstream go-readability and the fork on the HTML pages of the corpus
// (every page, about 45 s on two cores; under -race, which slows both about tenfold, every 50th
// page in path order, and with -short every fourth) and requires the same results.
func TestEquivalentCorpus(t *testing.T) {
	files := htmlFiles(t, corpusDir())
	if len(files) == 0 {
		t.Skipf("no corpus under %s (set ASA_CORPUS)", corpusDir())
	}
	stride := 1
	switch {
	case raceEnabled:
		stride = 50
	case testing.Short():
		stride = 4
	}
	var sample []string
	for i := 0; i < len(files); i += stride {
		sample = append(sample, files[i])
	}
	files = sample
	t.Logf("%d corpus pages", len(files))
	compareFiles(t, files)
}

// TestEquivalentFixtures does the same on the repository's own pages: the sitedef fixtures and
// the universal extractor's testdata.
func TestEquivalentFixtures(t *testing.T) {
	files := append(htmlFiles(t, filepath.Join("..", "..", "..", "fixtures")), htmlFiles(t, filepath.Join("..", "testdata"))...)
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	t.Logf("%d fixture pages", len(files))
	compareFiles(t, files)
}

// snippets are small pages where the algorithm takes its less usual paths: the fuzz seeds.
var snippets = []string{
	"",
	"<p>plain",
	`<html lang="fr"><head><title>A title: with a part | Site</title><meta property="og:site_name" content="Site"><meta name="author" content="Ann"></head><body><article><h1>A title: with a part</h1><p class="byline">By Ann</p><p>` + strings.Repeat("Some words, and more words. ", 40) + `</p></article></body></html>`,
	`<div id="sidebar"><a href="/x">a</a><a href="/y">b</a></div><div class="content"><p>` + strings.Repeat("Text, text, text. ", 30) + `</p><p>` + strings.Repeat("More, more. ", 30) + `</p><table><tr><td>1</td><td>2</td></tr></table><div><br><br>x<br><br>y</div></div>`,
	`<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"H","author":{"name":"B"},"datePublished":"2020-01-02T03:04:05Z","publisher":{"name":"P"}}</script><div><p>` + strings.Repeat("Short. ", 10) + `</p></div>`,
	`<noscript><img src="a.jpg"></noscript><img data-src="b.jpg" src="data:image/gif;base64,R0lGOD"><figure><img src="c.jpg"><figcaption>c</figcaption></figure><p>` + strings.Repeat("w, ", 100) + `</p>`,
	// Scores of the page's own, which upstream reads as its own (and a value fixLazyImages copies).
	`<div><div class="post"><p>` + strings.Repeat("Scored, by the page. ", 30) + `</p><figure data-readability-score="https://example.com/b.png" class="lazy"><p>` + strings.Repeat("Caption, text. ", 30) + `</p></figure></div><div data-readability-score="500"><span>A sibling the page scored</span></div></div>`,
	`<div><div><div><p>` + strings.Repeat("Deep, nested. ", 30) + `</p></div></div></div><h2>Title</h2><iframe src="https://www.youtube.com/embed/x"></iframe><pre>a<br>b</pre>`,
	// Phrasing content of foreign namespaces that a div's paragraph takes in (its copy upstream
	// had no Namespace), and links nested in links under nodes cleanConditionally weighs.
	`<div><svg><xmp>a&lt;b</xmp><a href="/s"><text>y</text></a></svg>` + strings.Repeat(" words, words", 40) + `</div>` +
		`<div>Some text <math><mi>x</mi><annotation encoding="application/x-tex">x</annotation></math> and <svg><a href="/s"><text>y</text></a><style>p{}</style></svg>` + strings.Repeat(" words, words", 40) + `</div>` +
		`<div class="content"><p>` + strings.Repeat("Text, text. ", 30) + `</p><div><ul><li><a href="/a">one <svg><a href="/b">two</a></svg></a></li><li><a href="#c">three</a></li></ul><h3><a href="/d">four</a></h3><form><input><a href="/e">five</a></form></div></div>`,
}

func FuzzEquivalent(f *testing.F) {
	for _, s := range snippets {
		f.Add(s)
	}
	base, _ := url.Parse("https://example.com/a/b")
	f.Fuzz(func(t *testing.T, page string) {
		if len(page) > 1<<16 {
			return
		}
		if d := compare([]byte(page), base); d != "" {
			t.Fatal(d)
		}
	})
}
