package universal_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"asa/engine/errcode"
	"asa/engine/universal"
)

// FuzzExtract: no panic, no error other than extraction_failed, and valid JSON out, whatever the
// page and its Content-Type.
func FuzzExtract(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.html")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "text/html", uint8(0))
	}
	f.Add([]byte(`{"a":[1,2,{"b":null}]}`), "application/json", uint8(0))
	f.Add([]byte("<div itemscope itemtype=x><span itemprop=offers itemscope><meta itemprop=price content=1></span></div>"), "", uint8(1))
	f.Add([]byte(`<script type="application/ld+json">{"@type":"Product","offers":[{"@type":"AggregateOffer","offers":{"offers":{}}}]}</script>`), "text/html", uint8(0))
	f.Add([]byte("<table><tr><td>a<td>b<tr><td><table><tr><td>x</table></table><ul><li><ol><li>"), "text/html", uint8(3))
	f.Add([]byte("%PDF-1.4"), "", uint8(2))
	modes := []universal.Mode{universal.Auto, universal.Text, universal.Markdown, universal.HTML}
	f.Fuzz(func(t *testing.T, page []byte, contentType string, m uint8) {
		if len(page) > 1<<16 {
			return
		}
		res, err := universal.Extract(page, contentType, "https://example.com/a/b", modes[int(m)%len(modes)])
		if err != nil {
			if e := errcode.As(err); e == nil || e.Code != errcode.ExtractionFailed {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		b, err := res.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON: %s", b)
		}
	})
}

// FuzzExtractMainText: no panic escapes, and the word count is the text's.
func FuzzExtractMainText(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.html")
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("<article><p>東京で雨 don't well-known</p></article>"))
	f.Fuzz(func(t *testing.T, page []byte) {
		if len(page) > 1<<16 {
			return
		}
		mt, err := universal.ExtractMainText(page, "https://example.com/a")
		if err == nil && mt.WordCount != universal.WordCount(mt.Text) {
			t.Fatalf("word count %d of %q", mt.WordCount, mt.Text)
		}
	})
}
