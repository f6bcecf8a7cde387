package universal_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"asa/engine/dom"
	"asa/engine/errcode"
	"asa/engine/fixture"
	"asa/engine/universal"
)

const pageURL = "https://news.example.com/2024/05/bridge"

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decode marshals r as a client gets it and decodes it for path lookups.
func decode(t testing.TB, r *universal.Result) (any, []byte) {
	t.Helper()
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON %s: %v", b, err)
	}
	return v, b
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name        string
		page        string // file in testdata, or the body itself when body is set
		body        string
		contentType string
		mode        universal.Mode
		want        map[string]any // dotted path -> value or fixture matcher
	}{
		{name: "article auto", page: "article.html", mode: universal.Auto, want: map[string]any{
			"url":                             pageURL,
			"resolved_url":                    pageURL,
			"title":                           "Harbour Bridge Reopens After Repairs",
			"text":                            "startswith:The harbour bridge reopened to traffic on Monday morning",
			"metadata.description":            "The harbour bridge reopened on Monday after eight months of repairs.",
			"metadata.author":                 "Ana Lima, Ben Okafor",
			"metadata.published":              "2024-05-06T08:30:00+02:00",
			"links":                           "count:10",
			"links.0.href":                    "https://news.example.com/privacy",
			"links.0.text":                    "Privacy policy",
			"links.4.href":                    "https://other.example.org/x",
			"links.6.href":                    "https://news.example.com/2024/05/report.pdf",
			"structured.article.type":         "NewsArticle",
			"structured.article.publisher":    "The Example Times",
			"structured.article.modified":     "2024-05-06T10:00:00+02:00",
			"structured.article.keywords":     "count:2",
			"structured.organization.logo":    "https://news.example.com/logo.png",
			"structured.breadcrumbs.0.name":   "Home",
			"structured.breadcrumbs.1.url":    "https://news.example.com/city",
			"structured.product":              "absent",
			"structured.recipe":               "absent",
			"structured.organization.name":    "The Example Times",
			"structured.article.author":       "Ana Lima, Ben Okafor",
			"structured.article.section":      "City",
			"structured.article.headline":     "Harbour Bridge Reopens After Repairs",
			"structured.article.image":        "https://news.example.com/img/bridge.jpg",
			"structured.article.url":          nil,
			"structured.organization.same_as": "count:0",
		}},
		{name: "article text strips boilerplate", page: "article.html", mode: universal.Text, want: map[string]any{
			"text":  "re:(?s)^The harbour bridge.*engineers' report\\.$",
			"title": "absent",
			"links": "absent",
		}},
		{name: "article markdown", page: "article.html", mode: universal.Markdown, want: map[string]any{
			"markdown": "contains:[history of the bridge](https://news.example.com/2024/05/bridge-history)",
		}},
		{name: "html mode", page: "article.html", mode: universal.HTML, want: map[string]any{
			"html":   "contains:<title>Harbour Bridge Reopens After Repairs - The Example Times</title>",
			"status": 0.0,
		}},
		{name: "product json-ld", page: "product-jsonld.html", mode: universal.Auto, want: map[string]any{
			"title":                             "Steel Kettle 1.7 L",
			"structured.product.name":           "Steel Kettle 1.7 L",
			"structured.product.sku":            "KET-17",
			"structured.product.gtin":           "4006381333931",
			"structured.product.brand":          "Kettleworks",
			"structured.product.price":          34.99,
			"structured.product.currency":       "USD",
			"structured.product.availability":   "InStock",
			"structured.product.image":          "https://shop.example.com/k1.jpg",
			"structured.product.rating":         4.6,
			"structured.product.reviews_count":  1186.0,
			"structured.product.mpn":            nil,
			"structured.organization.same_as":   "count:1",
			"structured.organization.same_as.0": "https://social.example/shop",
		}},
		{name: "product microdata with nested offers", page: "product-microdata.html", mode: universal.Auto, want: map[string]any{
			"structured.product.name":         "Pony Cart Harness - Fit Up To 11 Hh",
			"structured.product.price":        115.0,
			"structured.product.currency":     "GBP",
			"structured.product.availability": "InStock",
			"structured.product.mpn":          "PCH-11",
			"structured.product.image":        "https://news.example.com/img/harness.jpg",
			"structured.breadcrumbs":          "count:2",
			"structured.breadcrumbs.1.name":   "Harness",
		}},
		{name: "recipe", page: "recipe.html", mode: universal.Auto, want: map[string]any{
			"structured.recipe.name":           "Lemon & Ricotta Pancakes",
			"structured.recipe.author":         "Maria Rossi",
			"structured.recipe.ingredients":    "count:3",
			"structured.recipe.instructions":   "count:3",
			"structured.recipe.instructions.1": "Add the zest.",
			"structured.recipe.total_time":     "PT25M",
			"structured.recipe.yields":         "4, 4 servings",
			"structured.recipe.rating":         4.8,
			"structured.recipe.reviews_count":  52.0,
			"structured.recipe.image":          "https://food.example.com/p.jpg",
		}},
		{name: "job posting and event", page: "job-event.html", mode: universal.Auto, want: map[string]any{
			"title":                                "Backend Engineer - Jobs at Acme",
			"structured.job_posting.title":         "Backend Engineer",
			"structured.job_posting.organization":  "Acme GmbH",
			"structured.job_posting.location":      "Berlin, 10115, DE",
			"structured.job_posting.salary_min":    65000.0,
			"structured.job_posting.salary_max":    80000.0,
			"structured.job_posting.salary_unit":   "YEAR",
			"structured.job_posting.date_posted":   "2024-03-01",
			"structured.job_posting.valid_through": "2024-04-01T23:59:00",
			"structured.event.name":                "Open Day Concert",
			"structured.event.start":               "2024-06-01T19:00:00+02:00",
			"structured.event.end":                 "2024-06-01",
			"structured.event.location":            "Acme Hall, Hauptstr. 1, Berlin",
			"structured.event.status":              "EventScheduled",
			"structured.event.organizer":           "Acme GmbH",
		}},
		{name: "markdown", page: "markdown.html", mode: universal.Markdown, want: map[string]any{
			"markdown": "contains:## Kinds of widgets",
		}},
		{name: "windows-1252 page", page: "latin1.html", contentType: "text/html", mode: universal.Text, want: map[string]any{
			"text": "startswith:Un café crème coûte 3,50 € à la terrasse",
		}},
		{name: "json target auto", body: `{"b":1,"a":[true,null],"c":{"z":"x"}}`, contentType: "application/json", mode: universal.Auto, want: map[string]any{
			"data.b":   1.0,
			"data.a.0": true,
			"data.c.z": "x",
			"title":    "absent",
		}},
		{name: "json target sniffed from text/plain", body: "  [1,2]", contentType: "text/plain", mode: universal.Auto, want: map[string]any{
			"data": "count:2",
		}},
		{name: "json target text passes through", body: `{"a":1}`, contentType: "application/json", mode: universal.Text, want: map[string]any{
			"text": `{"a":1}`,
		}},
		{name: "plain text passes through", body: "line one\nline two\n", contentType: "text/plain; charset=utf-8", mode: universal.Auto, want: map[string]any{
			"text":       "line one\nline two",
			"title":      nil,
			"links":      "count:0",
			"structured": "type:object",
		}},
		{name: "html without content type is sniffed", body: "<!doctype html><title>Hi there</title><p>Hello</p>", mode: universal.Auto, want: map[string]any{
			"title": "Hi there",
		}},
		{name: "title only page", body: "<html><head><title>Only a title</title></head><body></body></html>", contentType: "text/html", mode: universal.Auto, want: map[string]any{
			"title": "Only a title",
			"text":  nil,
		}},
		{name: "xml feed", body: `<?xml version="1.0"?><rss><channel><title>Feed title</title><item><title>First</title></item></channel></rss>`, contentType: "application/rss+xml", mode: universal.Auto, want: map[string]any{
			"title": "Feed title",
			"text":  "Feed title First",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if tc.page != "" {
				body = read(t, tc.page)
			}
			ct := tc.contentType
			if tc.page != "" && ct == "" {
				ct = "text/html; charset=utf-8"
			}
			res, err := universal.Extract(body, ct, pageURL, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			got, raw := decode(t, res)
			for path, want := range tc.want {
				v, found := fixture.Lookup(got, path)
				if err := fixture.Match(v, found, want); err != nil {
					t.Errorf("%s: %v\n%s", path, err, raw)
				}
			}
		})
	}
}

func TestExtractFailures(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00")
	tests := []struct {
		name, body, contentType string
		mode                    universal.Mode
		msg                     string
	}{
		{"pdf by type", "%PDF-1.7\n...", "application/pdf", universal.Auto, "PDF"},
		{"pdf by magic", "%PDF-1.4\n\x00\x01binary", "application/octet-stream", universal.Text, "PDF"},
		{"pdf in html mode", "%PDF-1.4", "application/pdf", universal.HTML, "PDF"},
		{"image by type", string(png), "image/png", universal.Auto, "image"},
		{"image sniffed", string(png), "", universal.Auto, "binary"},
		{"zip", "PK\x03\x04\x00\x00", "application/zip", universal.Auto, "binary"},
		{"video", "....", "video/mp4", universal.Auto, "media"},
		{"empty body", "", "text/html", universal.Auto, "neither"},
		{"empty page", string(read(t, "empty.html")), "text/html", universal.Auto, "neither"},
		{"empty page text", string(read(t, "empty.html")), "text/html", universal.Text, "no text"},
		{"empty page markdown", string(read(t, "empty.html")), "text/html", universal.Markdown, "no text"},
		{"blank plain text", " \n ", "text/plain", universal.Auto, "empty"},
		{"bad json", "{\"a\":", "application/json", universal.Auto, "JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := universal.Extract([]byte(tc.body), tc.contentType, pageURL, tc.mode)
			if err == nil {
				b, _ := res.MarshalJSON()
				t.Fatalf("want extraction_failed, got %s", b)
			}
			e := errcode.As(err)
			if e == nil || e.Code != errcode.ExtractionFailed || e.Code.Status() != 502 {
				t.Fatalf("want extraction_failed (502), got %v", err)
			}
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not mention %q", e.Message, tc.msg)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]universal.Mode{"": universal.Auto, "auto": universal.Auto, "json": universal.Auto, "JSON": universal.Auto,
		"html": universal.HTML, "text": universal.Text, "markdown": universal.Markdown} {
		if got, err := universal.ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := universal.ParseMode("pdf")
	if e := errcode.As(err); e == nil || e.Code != errcode.InvalidParams || len(e.Params) != 1 || e.Params[0] != "parse" {
		t.Errorf("ParseMode(pdf) = %v; want invalid_params naming parse", err)
	}
}

// TestKeyOrder pins the documented key order of each mode.
func TestKeyOrder(t *testing.T) {
	page := read(t, "article.html")
	for mode, want := range map[universal.Mode]string{
		universal.Auto:     "url resolved_url title text links metadata structured",
		universal.HTML:     "url resolved_url status html",
		universal.Text:     "url resolved_url text",
		universal.Markdown: "url resolved_url markdown",
	} {
		res, err := universal.Extract(page, "text/html", pageURL, mode)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := res.MarshalJSON()
		if got := strings.Join(topKeys(t, b), " "); got != want {
			t.Errorf("%s: keys %q, want %q", mode, got, want)
		}
		if mode == universal.Auto {
			var v struct {
				Metadata   json.RawMessage `json:"metadata"`
				Structured json.RawMessage `json:"structured"`
			}
			_ = json.Unmarshal(b, &v)
			if got := strings.Join(topKeys(t, v.Metadata), " "); got != "description author published" {
				t.Errorf("metadata keys %q", got)
			}
			if got := strings.Join(topKeys(t, v.Structured), " "); got != "article organization breadcrumbs" {
				t.Errorf("structured keys %q", got)
			}
		}
	}
	// A JSON target keeps its own key order.
	res, err := universal.Extract([]byte(`{"z":1,"a":2}`), "application/json", pageURL, universal.Auto)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := res.MarshalJSON()
	if !bytes.Contains(b, []byte(`"data":{"z":1,"a":2}`)) {
		t.Errorf("data lost the target's key order: %s", b)
	}
}

func topKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", b)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestHTMLNotEscaped: html mode returns markup as is, not as \u003c escapes.
func TestHTMLNotEscaped(t *testing.T) {
	res, err := universal.Extract([]byte("<p>a & b</p>"), "text/html", pageURL, universal.HTML)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := res.MarshalJSON()
	if !bytes.Contains(b, []byte(`"html":"<p>a & b</p>"`)) {
		t.Errorf("got %s", b)
	}
}

func TestWordCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"A kettle boils water.", 4},
		{"don't stop: a well-known 3-step plan", 6},
		{"Hello,\n\nworld  again", 3},
		{"東京で雨", 4}, // Han and kana: one word a character
		{"Tokyo 東京 2024", 4},
		{"서울에 비가 온다", 3}, // Korean has spaces
		{"— · • ...", 0},
		{"Ünïcödé wörds", 2},
	} {
		if got := universal.WordCount(tc.in); got != tc.want {
			t.Errorf("WordCount(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestExtractMainText(t *testing.T) {
	page := []byte(`<html lang="fr"><body><nav>Accueil | Actualités</nav><article><h1>Titre</h1>` +
		strings.Repeat(`<p>Une phrase assez longue pour que l'extracteur garde ce paragraphe, avec des virgules, et encore des mots.</p>`, 4) +
		`</article><footer>Mentions légales</footer></body></html>`)
	mt, err := universal.ExtractMainText(page, "https://example.fr/a")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(mt.Text, "Titre\n\nUne phrase assez longue") || strings.Contains(mt.Text, "Accueil") || strings.Contains(mt.Text, "Mentions") {
		t.Errorf("text %q", mt.Text)
	}
	if mt.Lang != "fr" || mt.WordCount != universal.WordCount(mt.Text) || mt.WordCount < 60 {
		t.Errorf("lang %q, word count %d", mt.Lang, mt.WordCount)
	}
	if mt, err := universal.ExtractMainText([]byte(""), ""); err != nil || mt.Text != "" {
		t.Errorf("empty page: %+v %v", mt, err)
	}
}

// ExtractMainTextFrom on a parsed page is ExtractMainText on its body, and leaves the page whole.
func TestExtractMainTextFrom(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for i, p := range newsPages(t) {
		want, err := universal.ExtractMainText(p, "https://example.com/a/b.html")
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		doc, err := dom.ParseHTML(p)
		if err != nil {
			t.Fatal(err)
		}
		var before, after bytes.Buffer
		_ = html.Render(&before, doc)
		got, err := universal.ExtractMainTextFrom(doc, "https://example.com/a/b.html")
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if got != want {
			t.Errorf("page %d: from the parsed page\n%+v\nfrom its body\n%+v", i, got, want)
		}
		_ = html.Render(&after, doc)
		if !bytes.Equal(before.Bytes(), after.Bytes()) {
			t.Errorf("page %d: the parsed page changed", i)
		}
	}
}

// TestJSArtifactMetaIsNoValue: a meta tag a server-side template filled from a JavaScript value it
// did not have ("undefined", "[object Object]") declares nothing; the next key of the same meaning
// is read instead.
func TestJSArtifactMetaIsNoValue(t *testing.T) {
	for _, tc := range []struct{ metas, author string }{
		{`<meta name="author" content="undefined">`, ""},
		{`<meta name="author" content="[object Object]"><meta name="parsely-author" content="Ana Ruiz">`, "Ana Ruiz"},
		{`<meta name="author" content="Ana Ruiz">`, "Ana Ruiz"},
	} {
		page := `<!DOCTYPE html><html><head><title>Ferry service resumes</title>` + tc.metas +
			`</head><body><article><h1>Ferry service resumes</h1><p>The harbour ferry runs again from Monday morning, the operator said after the repairs.</p></article></body></html>`
		res, err := universal.Extract([]byte(page), "text/html", pageURL, universal.Auto)
		if err != nil {
			t.Fatal(err)
		}
		if res.Metadata.Author != tc.author {
			t.Errorf("%s: author %q, want %q", tc.metas, res.Metadata.Author, tc.author)
		}
	}
}

// TestMarkdownResolvesAgainstBaseHref: the main content's links and images resolve as a browser
// resolves them, against the page's first <base href>, in parse=markdown as in parse=auto's links
// (markdown resolved them against the page's URL).
func TestMarkdownResolvesAgainstBaseHref(t *testing.T) {
	para := "<p>A paragraph long enough to be the page's content, with a <a href='notes/x.html'>relative link</a>" +
		" and a picture <img src='img/i.png' alt='pic'>, and then a few more words so that it counts.</p>"
	for _, tc := range []struct{ name, head, wantLink, wantImg string }{
		{"base href", "<base href='https://cdn.example.test/sub/'><base href='https://second.example.test/'>",
			"https://cdn.example.test/sub/notes/x.html", "https://cdn.example.test/sub/img/i.png"},
		{"relative base href", "<base href='/other/'>",
			"https://news.example.com/other/notes/x.html", "https://news.example.com/other/img/i.png"},
		{"base without href", "<base target='_blank'>",
			"https://news.example.com/2024/05/notes/x.html", "https://news.example.com/2024/05/img/i.png"},
		{"no base", "", "https://news.example.com/2024/05/notes/x.html", "https://news.example.com/2024/05/img/i.png"},
	} {
		page := "<html><head>" + tc.head + "<title>T</title></head><body><article><h1>A title</h1>" +
			strings.Repeat(para, 5) + "</article></body></html>"
		res, err := universal.Extract([]byte(page), "text/html", pageURL, universal.Markdown)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(res.Markdown, "[relative link]("+tc.wantLink+")") || !strings.Contains(res.Markdown, "![pic]("+tc.wantImg+")") {
			t.Errorf("%s: want the link %s and the image %s in\n%s", tc.name, tc.wantLink, tc.wantImg, res.Markdown)
		}
		auto, err := universal.Extract([]byte(page), "text/html", pageURL, universal.Auto)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(auto.Links) == 0 || auto.Links[0].Href != tc.wantLink {
			t.Errorf("%s: parse=auto's links %v, want %s first", tc.name, auto.Links, tc.wantLink)
		}
	}
}

// TestCreatorAfterByline: JSON-LD's author, then the author meta tags, then the visible byline; a
// JSON-LD creator only when none of them names anyone (sites put the uploading account there).
func TestCreatorAfterByline(t *testing.T) {
	byline := `<p class="byline">By <span class="author-name">Ana Ruiz</span></p>`
	for _, tc := range []struct{ name, ld, metas, byline, want string }{
		{"creator and byline", `{"@type":"NewsArticle","headline":"Ferry service resumes","creator":"AR7567"}`, "", byline, "Ana Ruiz"},
		{"creator alone", `{"@type":"NewsArticle","headline":"Ferry service resumes","creator":"AR7567"}`, "", "", "AR7567"},
		{"author before byline", `{"@type":"NewsArticle","headline":"Ferry service resumes","author":{"@type":"Person","name":"Bo Lin"},"creator":"AR7567"}`, "", byline, "Bo Lin"},
		{"meta before creator", `{"@type":"NewsArticle","headline":"Ferry service resumes","creator":"AR7567"}`, `<meta name="author" content="Cy Dee">`, "", "Cy Dee"},
	} {
		page := `<!DOCTYPE html><html><head><title>Ferry service resumes</title>` + tc.metas +
			`<script type="application/ld+json">` + tc.ld + `</script></head><body><article><h1>Ferry service resumes</h1>` + tc.byline +
			`<p>The harbour ferry runs again from Monday morning, the operator said after the repairs to the pier were finished.</p></article></body></html>`
		res, err := universal.Extract([]byte(page), "text/html", pageURL, universal.Auto)
		if err != nil {
			t.Fatal(err)
		}
		if res.Metadata.Author != tc.want {
			t.Errorf("%s: author %q, want %q", tc.name, res.Metadata.Author, tc.want)
		}
	}
}

// TestAuthorThatIsNoBylineGivesWay: a candidate that is not a byline once cleaned (a page marking
// both its byline and the author's bio itemprop=author: their names joined run past a byline's
// length) gives way to the next, the visible byline, instead of leaving the author empty.
func TestAuthorThatIsNoBylineGivesWay(t *testing.T) {
	bio := strings.Repeat("Journaliste au Monde, suivre ce journaliste, aller sur sa page. ", 3)
	page := `<!DOCTYPE html><html><head><title>Le projet de loi approuvé</title></head><body>` +
		`<article itemscope itemtype="http://schema.org/NewsArticle"><h1 itemprop="headline">Le projet de loi approuvé</h1>` +
		`<p class="signature">Par <span itemprop="author">Ana Ruiz (avec Bo Lin)</span></p>` +
		`<p>Le projet de loi a été adopté par une large majorité des députés mardi, après deux semaines de débats.</p>` +
		`<p>Les opposants annoncent un recours devant le Conseil constitutionnel dans les prochains jours.</p>` +
		`<aside><span itemprop="author">Ana Ruiz ` + bio + `</span></aside></article></body></html>`
	res, err := universal.Extract([]byte(page), "text/html", pageURL, universal.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if res.Metadata.Author != "Ana Ruiz (avec Bo Lin)" {
		t.Errorf("author %q, want the byline", res.Metadata.Author)
	}
}
