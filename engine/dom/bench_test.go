package dom

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"asa/engine/dom/htmlparse"
)

// largestAmazonProduct returns the biggest amazon/product-*.html page of the corpus.
func largestAmazonProduct(b *testing.B) []byte {
	dir := corpusDir(b)
	pages, _ := filepath.Glob(filepath.Join(dir, "amazon", "product-*.html"))
	var best string
	var size int64
	for _, p := range pages {
		if fi, err := os.Stat(p); err == nil && fi.Size() > size {
			best, size = p, fi.Size()
		}
	}
	if best == "" {
		b.Skip("no amazon product page in the corpus")
	}
	body, err := os.ReadFile(best)
	if err != nil {
		b.Skip(err)
	}
	b.Logf("%s, %d bytes", filepath.Base(best), len(body))
	return body
}

// BenchmarkParseHTML measures ToUTF8 + ParseHTML on the largest Amazon product page, next to
// x/net/html.Parse and htmlparse.Parse alone: "dom" must cost about what "htmlparse" does, and
// "htmlparse" is what the fork gains over "x-net-html".
func BenchmarkParseHTML(b *testing.B) {
	body := largestAmazonProduct(b)
	b.Run("dom", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			u, err := ToUTF8(body, "text/html;charset=UTF-8")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := ParseHTML(u); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("x-net-html", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := html.Parse(bytes.NewReader(body)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("htmlparse", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := htmlparse.Parse(body); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkToUTF8(b *testing.B) {
	body := largestAmazonProduct(b)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ToUTF8(body, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkText(b *testing.B) {
	doc, err := ParseHTML(largestAmazonProduct(b))
	if err != nil {
		b.Fatal(err)
	}
	nav := Navigator(doc)
	b.ReportAllocs()
	for b.Loop() {
		_ = Text(nav)
	}
}

func BenchmarkScriptJSON(b *testing.B) {
	body, err := os.ReadFile(filepath.Join(corpusDir(b), "youtube", "watch-GJLlxj_dtq8.html"))
	if err != nil {
		b.Skip(err)
	}
	re := regexp.MustCompile(`ytInitialPlayerResponse\s*=`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ScriptJSON(body, re); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeEmbedded decodes the big embedded JSON of the pages whose time it is (issue 20):
// YouTube's ytInitialData and ytInitialPlayerResponse, TikTok's rehydration data, Walmart's
// __NEXT_DATA__.
func BenchmarkDecodeEmbedded(b *testing.B) {
	dir := corpusDir(b)
	for _, c := range []struct{ name, file, marker string }{
		{"youtube-channel-data", "youtube/channel-metascraper.html", `ytInitialData"?\]?\s*=\s*`},
		{"youtube-video-data", "youtube/watch-GJLlxj_dtq8.html", `ytInitialData"?\]?\s*=\s*`},
		{"youtube-video-player", "youtube/watch-GJLlxj_dtq8.html", `ytInitialPlayerResponse"?\]?\s*=\s*`},
		{"tiktok-video", "tiktok/video.html", `__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>`},
		{"tiktok-profile", "tiktok/profile.html", `__UNIVERSAL_DATA_FOR_REHYDRATION__"[^>]*>`},
		{"walmart-product", "walmart/product-pokemon-go-plus-plus-1203950273.html", `__NEXT_DATA__"[^>]*>`},
	} {
		body, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil {
			b.Skip(err)
		}
		re := regexp.MustCompile(c.marker)
		loc := re.FindIndex(body)
		if loc == nil {
			b.Fatalf("%s: no %s", c.file, c.marker)
		}
		body = body[loc[0]:]
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if v, err := ScriptJSON(body, re); err != nil || v == nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJSONLD reads the JSON-LD of every corpus page that has some (parsed beforehand); one op
// is every page once.
func BenchmarkJSONLD(b *testing.B) {
	dir := corpusDir(b)
	pages, _ := filepath.Glob(filepath.Join(dir, "*", "*.html"))
	more, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.html"))
	var docs []*html.Node
	for _, p := range append(pages, more...) {
		raw, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(raw, []byte("ld+json")) {
			continue
		}
		body, err := ToUTF8(raw, "")
		if err != nil {
			continue
		}
		if doc, err := ParseHTML(body); err == nil {
			docs = append(docs, doc)
		}
	}
	if len(docs) == 0 {
		b.Skip("no corpus page with JSON-LD")
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, d := range docs {
			FindJSONLD(JSONLD(d), "Product")
		}
	}
}

// BenchmarkNormalised is the whitespace check every text and attribute value passes through, on a
// script's JSON (long runs of visible ASCII) and on prose, against the byte-by-byte loop it
// replaced, in the same run.
func BenchmarkNormalised(b *testing.B) {
	js := strings.Repeat(`{"id":123456,"title":"Some-Title","url":"https://x.example/a/b?c=d"},`, 700)
	prose := strings.TrimSpace(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 1000))
	for _, c := range []struct{ name, s string }{{"json", js}, {"prose", prose}} {
		for _, f := range []struct {
			name string
			fn   func(string) bool
		}{{"words", normalised}, {"bytes", normalisedByByte}} {
			b.Run(c.name+"/"+f.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.s)))
				for b.Loop() {
					if !f.fn(c.s) {
						b.Fatal("not normalised")
					}
				}
			})
		}
	}
}
