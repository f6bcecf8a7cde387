package dom

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// corpusDir returns the real-page corpus (read-only, never copied into the repository):
// $ASA_CORPUS, else ../shared/corpus next to the repository root, which is two levels up from
// this package. The test is skipped when neither exists.
func corpusDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("ASA_CORPUS")
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			tb.Skip(err)
		}
		dir = filepath.Join(wd, "..", "..", "..", "shared", "corpus")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		tb.Skipf("no corpus at %s (set ASA_CORPUS)", dir)
	}
	return dir
}

func readCorpus(tb testing.TB, dir, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		tb.Skipf("corpus page missing: %v", err)
	}
	return b
}

func parseCorpus(t *testing.T, dir, name string) (*html.Node, []byte) {
	t.Helper()
	body, err := ToUTF8(readCorpus(t, dir, name), "")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ParseHTML(body)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc, body
}

func xpathText(t *testing.T, doc any, expr string) string {
	t.Helper()
	nav := selectFirst(t, doc, expr)
	if nav == nil {
		return ""
	}
	return Text(nav)
}

// manifestRow is a row of the corpus's MANIFEST.tsv: what a file is, as its collector describes it.
type manifestRow struct {
	kind, resource, notes string
}

// fragment reports whether the file is not a whole page: a DOM fragment or an embedded-data blob
// cut out of one, as the row's resource or notes say.
func (r manifestRow) fragment() bool {
	return strings.Contains(strings.ToLower(r.resource+" "+r.notes), "fragment")
}

// expected reports whether the file is someone's expected output, not a page.
func (r manifestRow) expected() bool {
	return strings.HasSuffix(r.resource, "expected") || strings.Contains(r.notes, "EXPECTED OUTPUT")
}

// readManifest reads dir/MANIFEST.tsv; a file without a row gets the strict checks.
func readManifest(t *testing.T, dir string) map[string]manifestRow {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "MANIFEST.tsv"))
	if err != nil {
		t.Logf("no MANIFEST.tsv: every file is checked as a whole page: %v", err)
		return nil
	}
	rows := map[string]manifestRow{}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 9 {
			continue
		}
		rows[f[0]] = manifestRow{kind: f[2], resource: f[3], notes: f[8]}
	}
	return rows
}

// assignRE marks the value of a script assignment: window._initialData = {...}, var x = [...].
var assignRE = regexp.MustCompile(`[\w$\]"']\s*=`)

// scriptData decodes the JSON value each script of a fragment assigns, and counts those that
// decode to a non-empty object or array.
func scriptData(doc *html.Node) (scripts, values int) {
	walkHTML(doc, func(n *html.Node) {
		if n.Type != html.ElementNode || n.DataAtom != atom.Script {
			return
		}
		scripts++
		v, err := ScriptJSON([]byte(scriptText(n)), assignRE)
		switch v := v.(type) {
		case map[string]any:
			if err == nil && len(v) > 0 {
				values++
			}
		case []any:
			if err == nil && len(v) > 0 {
				values++
			}
		}
	})
	return scripts, values
}

// Every HTML and XML page of the corpus converts, parses, and yields text and JSON-LD. A fragment
// (a MANIFEST row says so) is checked for what it is: a DOM fragment yields text; an embedded-data
// fragment, only a script, yields the data its script assigns. Expected outputs are not pages.
func TestCorpusAll(t *testing.T) {
	skipUnderRace(t)
	dir := corpusDir(t)
	if testing.Short() {
		t.Skip("short")
	}
	manifest := readManifest(t, dir)
	var pages, fragments, unlisted int
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		row, listed := manifest[rel]
		if !listed && rel != "MANIFEST.tsv" && rel != "README.md" {
			unlisted++
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch filepath.Ext(p) {
		case ".html":
			pages++
			body, err := ToUTF8(raw, "")
			if err != nil || !utf8.Valid(body) {
				t.Errorf("%s: ToUTF8: %v, valid %v", rel, err, utf8.Valid(body))
				return nil
			}
			if utf8.Valid(raw) && &body[len(body)-1] != &raw[len(raw)-1] {
				t.Errorf("%s: ToUTF8 copied a UTF-8 page", rel)
			}
			doc, err := ParseHTML(body)
			if err != nil {
				t.Errorf("%s: ParseHTML: %v", rel, err)
				return nil
			}
			hasText := Text(Navigator(doc)) != ""
			switch {
			case row.fragment():
				fragments++
				if hasText {
					break
				}
				if scripts, values := scriptData(doc); scripts == 0 || values != scripts {
					t.Errorf("%s: a fragment with no text, and %d of its %d scripts assign data", rel, values, scripts)
				}
			case !hasText && len(body) > 5000:
				t.Errorf("%s: no text", rel)
			}
			_ = JSONLD(doc)
		case ".xml":
			pages++
			doc, err := ParseXML(raw)
			if err != nil {
				t.Errorf("%s: ParseXML: %v", rel, err)
				return nil
			}
			if Text(Navigator(doc)) == "" {
				t.Errorf("%s: no text", rel)
			}
		case ".json":
			if row.expected() || !listed && (strings.Contains(rel, "expected") || strings.HasSuffix(rel, ".meta.json")) {
				return nil
			}
			pages++
			if _, err := DecodeJSON(raw); err != nil {
				t.Errorf("%s: DecodeJSON: %v", rel, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages, %d of them fragments; %d files without a MANIFEST row", pages, fragments, unlisted)
}

func TestCorpusCharsets(t *testing.T) {
	dir := corpusDir(t)
	tests := []struct{ page, xpath, contains string }{
		// Saved as UTF-8 while the <meta> still says windows-1251 / gb2312.
		{"pikabu/pikabu-metascraper.html", "//title", "Пикабу"},
		{"news/qq/qq.html", "//title", "腾讯"},
		// Really GB2312.
		{"baidu/home-baidu-cn-circa2010.html", "//title", "百度"},
		// No declaration at all.
		{"google/serp-ru-2016-09-12.html", "//title", "Google"},
		{"amazon/product-amazon.de-dp-B00BRMIU7A.html", "//span[@id='productTitle']", ""},
	}
	for _, tt := range tests {
		t.Run(tt.page, func(t *testing.T) {
			doc, _ := parseCorpus(t, dir, tt.page)
			got := xpathText(t, doc, tt.xpath)
			if got == "" || !strings.Contains(got, tt.contains) {
				t.Errorf("%s = %q, want it to contain %q", tt.xpath, got, tt.contains)
			}
		})
	}
	// The Russian SERP is UTF-8 without a declaration: its Cyrillic must survive.
	doc, _ := parseCorpus(t, dir, "google/serp-ru-2016-09-12.html")
	if txt := Text(Navigator(doc)); !regexp.MustCompile(`\p{Cyrillic}{4,}`).MatchString(txt) {
		t.Error("serp-ru: no Cyrillic text")
	}
}

func TestCorpusAmazon(t *testing.T) {
	dir := corpusDir(t)
	for _, tt := range []struct{ page, asin, titlePrefix string }{
		{"amazon/product-amazon.com-dp-B01GOH7PKA.html", "B01GOH7PKA", ""},
		{"amazon/product-amazon.co.uk-dp-B076TQK2D6.html", "B076TQK2D6", ""},
		{"amazon/product-amazon.de-dp-B00BRMIU7A.html", "B00BRMIU7A", ""},
	} {
		t.Run(tt.page, func(t *testing.T) {
			doc, _ := parseCorpus(t, dir, tt.page)
			if got := xpathText(t, doc, "//input[@id='ASIN']/@value"); got != tt.asin {
				t.Errorf("ASIN = %q, want %q", got, tt.asin)
			}
			title := xpathText(t, doc, "//span[@id='productTitle']")
			if title == "" || strings.ContainsAny(title, "\n\t\u00a0") || strings.Contains(title, "  ") {
				t.Errorf("productTitle = %q", title)
			}
			// Amazon product pages of this vintage carry no JSON-LD.
			if p := FindJSONLD(JSONLD(doc), "Product"); p != nil {
				t.Logf("JSON-LD Product: %v", p["name"])
			}
		})
	}
	// The captcha met after sign-in (a CVF form, not the /errors/validateCaptcha one).
	doc, body := parseCorpus(t, dir, "amazon/captcha-1.html")
	if selectFirst(t, doc, "//form[contains(@class, 'cvf-widget-form-captcha')]") == nil {
		t.Error("captcha-1: no captcha form")
	}
	if !bytes.Contains(body, []byte("characters")) {
		t.Error("captcha-1: no captcha sentence")
	}
}

func TestCorpusYouTube(t *testing.T) {
	dir := corpusDir(t)
	playerRE := regexp.MustCompile(`ytInitialPlayerResponse\s*=`)
	dataRE := regexp.MustCompile(`ytInitialData\s*=`)
	for _, tt := range []struct{ page, videoID string }{
		{"youtube/watch-GJLlxj_dtq8.html", "GJLlxj_dtq8"},
		{"youtube/watch-metascraper-video.html", ""},
	} {
		t.Run(tt.page, func(t *testing.T) {
			body := readCorpus(t, dir, tt.page)
			v, err := ScriptJSON(body, playerRE)
			if err != nil {
				t.Fatal(err)
			}
			id := dig(v, "videoDetails", "videoId")
			if id == nil || (tt.videoID != "" && id != tt.videoID) {
				t.Errorf("videoDetails.videoId = %v, want %q", id, tt.videoID)
			}
			v, err = ScriptJSON(body, dataRE)
			if err != nil {
				t.Fatal(err)
			}
			if dig(v, "contents") == nil {
				t.Errorf("ytInitialData has no contents")
			}
		})
	}
	// The 2019-era page: ytplayer.config = {...}, whose args.player_response is JSON in a string.
	body := readCorpus(t, dir, "youtube/watch-ytdl-regular.html")
	if v, err := ScriptJSON(body, playerRE); v != nil || err != nil {
		t.Errorf("ytdl-regular has no ytInitialPlayerResponse, got %T, %v", v, err)
	}
	cfg, err := ScriptJSON(body, regexp.MustCompile(`ytplayer\.config\s*=`))
	if err != nil {
		t.Fatal(err)
	}
	pr, _ := dig(cfg, "args", "player_response").(string)
	if !strings.HasPrefix(pr, "{") {
		t.Fatalf("args.player_response = %.40q", pr)
	}
	v, err := ScriptJSON(body, regexp.MustCompile(`"player_response"\s*:`))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := DecodeJSON([]byte(pr))
	if id := dig(v, "videoDetails", "videoId"); id == nil || id != dig(want, "videoDetails", "videoId") {
		t.Errorf("player_response string literal: videoId %v", id)
	}
	// Channel and search pages carry ytInitialData only.
	for _, page := range []string{"youtube/channel-metascraper.html", "youtube/results-page-empty-query.html"} {
		v, err := ScriptJSON(readCorpus(t, dir, page), dataRE)
		if err != nil || dig(v, "responseContext") == nil {
			t.Errorf("%s: ytInitialData %T, %v", page, v, err)
		}
	}
	// The consent page has neither.
	if v, err := ScriptJSON(readCorpus(t, dir, "youtube/consent-page.html"), playerRE); v != nil || err != nil {
		t.Errorf("consent page: %T, %v", v, err)
	}
}

func TestCorpusJSONLD(t *testing.T) {
	dir := corpusDir(t)
	// Every recipe page whose HTML carries a JSON-LD Recipe yields it, with a name; where
	// recipe-scrapers' expected output has a title, the name is that title, or one holds the other
	// (a site's "... Recipe - Site" against the bare title, or the reverse).
	pages, _ := filepath.Glob(filepath.Join(dir, "recipes", "*", "*.html"))
	recipeRE := regexp.MustCompile(`"@type"\s*:\s*\[?\s*"(?i:Recipe)"`)
	var found, titled int
	for _, p := range pages {
		rel, _ := filepath.Rel(dir, p)
		doc, body := parseCorpus(t, dir, filepath.ToSlash(rel))
		r := FindJSONLD(JSONLD(doc), "Recipe")
		if r == nil {
			if bytes.Contains(body, []byte("ld+json")) && recipeRE.Match(body) {
				t.Errorf("%s: JSON-LD Recipe not found", rel)
			}
			continue
		}
		found++
		name, _ := r["name"].(string)
		if name == "" {
			t.Errorf("%s: Recipe without name", rel)
			continue
		}
		var exp struct{ Title string }
		if b, err := os.ReadFile(strings.TrimSuffix(p, ".html") + ".expected.json"); err == nil && json.Unmarshal(b, &exp) == nil && exp.Title != "" {
			titled++
			n, e := collapse(html.UnescapeString(name)), collapse(exp.Title)
			if !strings.Contains(n, e) && !strings.Contains(e, n) {
				t.Errorf("%s: Recipe name %q, expected title %q", rel, name, exp.Title)
			}
		}
	}
	if len(pages) > 0 && (found < 30 || titled < found/2) {
		t.Errorf("only %d of %d recipe pages have a JSON-LD Recipe, %d with an expected title", found, len(pages), titled)
	}
	t.Logf("%d of %d recipe pages have a JSON-LD Recipe, %d checked against an expected title", found, len(pages), titled)

	// Blocks real pages break, recovered by the lenient decoder.
	for _, tt := range []struct{ page, typ string }{
		{"bluesky/profile.html", "ProfilePage"},           // raw newline inside a string
		{"wsj/wsj-metascraper.html", "NewsArticle"},       // "width": , (missing values)
		{"news/nytimes/nytimes-5.html", "CollectionPage"}, // <![CDATA[ ]]> wrapper
		{"news/theguardian/guardian-1.html", "WebPage"},
	} {
		doc, _ := parseCorpus(t, dir, tt.page)
		if FindJSONLD(JSONLD(doc), tt.typ) == nil {
			t.Errorf("%s: no JSON-LD %s", tt.page, tt.typ)
		}
	}
}

// Every JSON-LD block of every HTML page of the corpus decodes to at least one object: what
// JSONLD skips, a lenient reader must have had no way to read. And every type a block names, at
// any depth, is found by FindJSONLD.
func TestCorpusJSONLDBlocks(t *testing.T) {
	skipUnderRace(t)
	dir := corpusDir(t)
	if testing.Short() {
		t.Skip("short")
	}
	typeRE := regexp.MustCompile(`"@type"\s*:\s*"([^"]+)"`)
	var blocks, pages, types int
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".html" {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(raw, []byte("ld+json")) {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		doc, _ := parseCorpus(t, dir, filepath.ToSlash(rel))
		pages++
		named := map[string]bool{}
		walkHTML(doc, func(n *html.Node) {
			if n.Type != html.ElementNode || n.DataAtom != atom.Script || !isLDScript(n) {
				return
			}
			src := strings.TrimSpace(scriptText(n))
			if src == "" {
				return // emptied by the page or by its upstream redaction
			}
			blocks++
			var objs []map[string]any
			for _, v := range decodeLD(src) {
				flattenLD(v, &objs)
			}
			if len(objs) == 0 {
				t.Errorf("%s: JSON-LD block of %d bytes yields nothing: %.120q", rel, len(src), src)
			}
			for _, m := range typeRE.FindAllStringSubmatch(src, -1) {
				named[lastSegment(m[1])] = true
			}
		})
		objs := JSONLD(doc)
		for typ := range named {
			types++
			if FindJSONLD(objs, typ) == nil {
				t.Errorf("%s: the JSON-LD names a %s that FindJSONLD does not find", rel, typ)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d JSON-LD blocks on %d pages; %d types named, each found", blocks, pages, types)
}

// dig follows keys through nested JSON objects.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// The corpus pages the negative fixtures imitate are recognised by the same selectors.
func TestCorpusInterstitials(t *testing.T) {
	dir := corpusDir(t)
	for _, tt := range []struct{ page, xpath string }{
		{"google/sorry-captcha-page.html", "//div[contains(@class,'g-recaptcha')]"},
		{"google/consent-ru-2022-03-31.html", "//form[contains(@action,'consent.google.com')]"},
	} {
		doc, _ := parseCorpus(t, dir, tt.page)
		if selectFirst(t, doc, tt.xpath) == nil {
			t.Errorf("%s: %s selects nothing", tt.page, tt.xpath)
		}
	}
}
