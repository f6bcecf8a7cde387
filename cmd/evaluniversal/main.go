// Command evaluniversal measures the universal extractor (engine/universal) on the development set
// of the shared corpus (`make eval-universal`):
//
//   - news/: 40 articles with Readability's expected article HTML and metadata. Text precision,
//     recall and F1 are the overlap of word 4-gram shingles (counted with multiplicity) between
//     our parse=text output and the text of the expected article, averaged over pages. Words are
//     runs of letters and digits, lower-cased; each Han, kana or Hangul character is a word.
//     Title, author and published are exact-match rates over the pages whose expectation has the
//     field, compared after collapsing white space and case, and: a title also matches when the
//     expected one is ours followed by a separator and a trailing site name (we strip those, spec
//     2.4); an author after a leading "By"/"Par"/"Von"; published as the same instant (or the same
//     wall-clock time or date when one side has no zone).
//   - the product pages with a *.expected.json (Zyte's product-extraction benchmark ground truth):
//     match rates of structured.product price (to the cent), sku and availability, over the pages
//     whose ground truth has the field.
//   - timing of parse=auto per news page (best of 3 runs): median and p99.
//
// Usage: evaluniversal [-corpus DIR] [-v]
package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"asa/engine/dom"
	"asa/engine/universal"
)

// pageURL is where the news pages are taken to live: Readability's test pages have no URL, and its
// own test suite uses this one.
const pageURL = "http://fakehost/test/page.html"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("evaluniversal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpus := fs.String("corpus", "../shared/corpus", "the shared corpus")
	verbose := fs.Bool("v", false, "one line per page")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, err := os.Stat(filepath.Join(*corpus, "news")); err != nil {
		fmt.Fprintf(stderr, "evaluniversal: no corpus at %s (pass -corpus DIR): %v\n", *corpus, err)
		return 1
	}
	if err := news(*corpus, *verbose, stdout); err != nil {
		fmt.Fprintf(stderr, "evaluniversal: %v\n", err)
		return 1
	}
	if err := products(*corpus, *verbose, stdout); err != nil {
		fmt.Fprintf(stderr, "evaluniversal: %v\n", err)
		return 1
	}
	return 0
}

type expectedMeta struct {
	Title         *string `json:"title"`
	Byline        *string `json:"byline"`
	PublishedTime *string `json:"publishedTime"`
}

type rate struct{ ok, n int }

func (r *rate) add(ok bool) {
	r.n++
	if ok {
		r.ok++
	}
}

func (r rate) String() string {
	if r.n == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3f (%d/%d)", float64(r.ok)/float64(r.n), r.ok, r.n)
}

func news(corpus string, verbose bool, w io.Writer) error {
	pages, err := NewsPages(corpus)
	if err != nil {
		return err
	}
	var sp, sr, sf float64
	var title, author, published rate
	var times []time.Duration
	for _, pg := range pages {
		raw, err := os.ReadFile(pg)
		if err != nil {
			return err
		}
		stem := strings.TrimSuffix(pg, ".html")
		want, err := expectedText(stem + ".expected.html")
		if err != nil {
			return err
		}
		var meta expectedMeta
		if b, err := os.ReadFile(stem + ".expected-metadata.json"); err == nil {
			if err := json.Unmarshal(b, &meta); err != nil {
				return fmt.Errorf("%s: %w", stem+".expected-metadata.json", err)
			}
		}
		var res *universal.Result
		best := time.Duration(math.MaxInt64)
		for range 3 {
			t0 := time.Now()
			res, err = universal.Extract(raw, "text/html", pageURL, universal.Auto)
			best = min(best, time.Since(t0))
		}
		times = append(times, best)
		got := ""
		if err == nil {
			got = res.Text
		} else {
			res = &universal.Result{}
		}
		p, r, f := PRF(got, want)
		sp, sr, sf = sp+p, sr+r, sf+f
		line := fmt.Sprintf("%-34s F1 %.3f (P %.3f R %.3f) %5.1f ms", filepath.Base(pg), f, p, r, ms(best))
		if meta.Title != nil && *meta.Title != "" {
			ok := TitleMatch(res.Title, *meta.Title)
			title.add(ok)
			if !ok {
				line += fmt.Sprintf("\n    title     got %q want %q", res.Title, *meta.Title)
			}
		}
		if meta.Byline != nil && *meta.Byline != "" {
			ok := AuthorMatch(res.Metadata.Author, *meta.Byline)
			author.add(ok)
			if !ok {
				line += fmt.Sprintf("\n    author    got %q want %q", res.Metadata.Author, *meta.Byline)
			}
		}
		if meta.PublishedTime != nil && *meta.PublishedTime != "" {
			ok := DateMatch(res.Metadata.Published, *meta.PublishedTime)
			published.add(ok)
			if !ok {
				line += fmt.Sprintf("\n    published got %q want %q", res.Metadata.Published, *meta.PublishedTime)
			}
		}
		if verbose {
			fmt.Fprintln(w, line)
		}
	}
	n := float64(len(pages))
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	fmt.Fprintf(w, "news articles: %d pages (%s/news), extractor go-readability (readeck) via engine/universal\n", len(pages), corpus)
	fmt.Fprintf(w, "  text       precision %.3f  recall %.3f  F1 %.3f   (word 4-gram shingles, mean over pages; target F1 >= 0.95)\n", sp/n, sr/n, sf/n)
	fmt.Fprintf(w, "  title      exact match %s   (target >= 0.9)\n", title)
	fmt.Fprintf(w, "  author     exact match %s\n", author)
	fmt.Fprintf(w, "  published  exact match %s   (target >= 0.9)\n", published)
	fmt.Fprintf(w, "  parse=auto median %.1f ms  p99 %.1f ms per page   (best of 3 runs; target median < 20 ms)\n",
		ms(percentile(times, 0.5)), ms(percentile(times, 0.99)))
	return nil
}

// NewsPages lists the article pages of corpus/news that have Readability's expected article
// (page.expected.html beside page.html). The other news pages carry other expectations (the
// Postlight parser's page.expected.json) that this measure does not read.
func NewsPages(corpus string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(corpus, "news", "*", "*.expected.html"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		page := strings.TrimSuffix(f, ".expected.html") + ".html"
		if _, err := os.Stat(page); err == nil {
			out = append(out, page)
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return nil, errors.New("no news pages")
	}
	return out, nil
}

func products(corpus string, verbose bool, w io.Writer) error {
	f, err := os.Open(filepath.Join(corpus, "MANIFEST.tsv"))
	if err != nil {
		return err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, -1
	rows, err := r.ReadAll()
	if err != nil {
		return err
	}
	var price, sku, avail rate    // over every page
	var mPrice, mSKU, mAvail rate // over the pages with a schema.org (or OpenGraph) product
	found, pages := 0, 0
	for _, row := range rows {
		if len(row) < 4 || row[3] != "product-expected" || !strings.HasSuffix(row[0], ".expected.json") {
			continue
		}
		expPath := filepath.Join(corpus, row[0])
		pagePath := strings.TrimSuffix(expPath, ".expected.json") + ".html"
		var exp map[string]any
		b, err := os.ReadFile(expPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &exp); err != nil {
			return fmt.Errorf("%s: %w", expPath, err)
		}
		raw, err := os.ReadFile(pagePath)
		if err != nil {
			return err
		}
		pages++
		u, _ := exp["url"].(string)
		res, err := universal.Extract(raw, "text/html", u, universal.Auto)
		var pr universal.Product
		marked := err == nil && res.Structured != nil && res.Structured.Product != nil
		if marked {
			pr = *res.Structured.Product
			found++
		}
		both := func(all, m *rate, ok bool) {
			all.add(ok)
			if marked {
				m.add(ok)
			}
		}
		line := fmt.Sprintf("%-70s", row[0])
		if want := firstString(exp["price"]); want != "" {
			wp, perr := strconv.ParseFloat(strings.TrimSpace(want), 64)
			ok := perr == nil && pr.Price != nil && math.Abs(*pr.Price-wp) < 0.005
			both(&price, &mPrice, ok)
			line += fmt.Sprintf(" price %s(%s)", mark(ok), strings.TrimSpace(want))
		}
		if want := firstString(exp["sku"]); want != "" {
			ok := pr.SKU != nil && strings.TrimSpace(*pr.SKU) == strings.TrimSpace(want)
			both(&sku, &mSKU, ok)
			line += fmt.Sprintf(" sku %s", mark(ok))
		}
		if want := firstString(exp["availability"]); want != "" {
			ok := pr.Availability != nil && strings.EqualFold(*pr.Availability, strings.TrimSpace(want))
			both(&avail, &mAvail, ok)
			line += fmt.Sprintf(" availability %s", mark(ok))
		}
		if verbose {
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintf(w, "product pages with Zyte ground truth: %d; structured.product found on %d (the others carry no schema.org or OpenGraph product markup)\n", pages, found)
	fmt.Fprintf(w, "  price        match %-14s   on pages with markup %s\n", price, mPrice)
	fmt.Fprintf(w, "  sku          match %-14s   on pages with markup %s\n", sku, mSKU)
	fmt.Fprintf(w, "  availability match %-14s   on pages with markup %s\n", avail, mAvail)
	return nil
}

func mark(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISS"
}

func firstString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		if len(v) > 0 {
			s, _ := v[0].(string)
			return s
		}
	}
	return ""
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// expectedText is the text of Readability's expected article HTML as a reader sees it (dom.Text:
// block elements apart, inline elements joined).
func expectedText(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	doc, err := dom.ParseHTML(b)
	if err != nil {
		return "", err
	}
	return dom.Text(dom.Navigator(doc)), nil
}

// Words splits s into lower-case words: runs of letters, marks and digits; each Han, kana or
// Hangul character alone.
func Words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			flush()
			out = append(out, string(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			cur = append(cur, r)
		default:
			flush()
		}
	}
	flush()
	return out
}

// shingles counts the word 4-grams of s (a text under 4 words is one shingle).
func shingles(s string) map[string]int {
	w := Words(s)
	m := map[string]int{}
	if len(w) < 4 {
		if len(w) > 0 {
			m[strings.Join(w, " ")]++
		}
		return m
	}
	for i := 0; i+4 <= len(w); i++ {
		m[strings.Join(w[i:i+4], " ")]++
	}
	return m
}

// PRF is the precision, recall and F1 of got's shingles against want's, with multiplicity.
func PRF(got, want string) (p, r, f float64) {
	g, w := shingles(got), shingles(want)
	var ng, nw, both int
	for k, c := range g {
		ng += c
		both += min(c, w[k])
	}
	for _, c := range w {
		nw += c
	}
	if ng > 0 {
		p = float64(both) / float64(ng)
	}
	if nw > 0 {
		r = float64(both) / float64(nw)
	}
	if ng == 0 && nw == 0 {
		return 1, 1, 1
	}
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return p, r, f
}

func norm(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// TitleMatch: equal, or want is got followed by a separator and more (a trailing site name).
func TitleMatch(got, want string) bool {
	g, w := norm(got), norm(want)
	if g == "" {
		return false
	}
	if g == w {
		return true
	}
	rest, ok := strings.CutPrefix(w, g)
	if !ok {
		return false
	}
	rest = strings.TrimLeft(rest, " ")
	for _, sep := range []string{"|", "-", "–", "—", "·", "•", "::", "»", "/", "~", ":", "_", "[", "(", "（", "｜"} {
		if strings.HasPrefix(rest, sep) {
			return true
		}
	}
	return false
}

// AuthorMatch compares bylines without a leading "By" (or Par, Von, Por).
func AuthorMatch(got, want string) bool {
	strip := func(s string) string {
		s = norm(s)
		for _, p := range []string{"by ", "by: ", "par ", "von ", "por "} {
			s = strings.TrimPrefix(s, p)
		}
		return s
	}
	return got != "" && strip(got) == strip(want)
}

var (
	zoned = []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05.999999999Z0700"}
	local = []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04:05.999999", "2006-01-02T15:04"}
)

// DateMatch: the same instant when both name a zone, else the same wall-clock time, else the
// same date when one side is a date alone.
func DateMatch(got, want string) bool {
	if got == "" {
		return false
	}
	parse := func(s string) (t time.Time, hasZone, hasTime bool, ok bool) {
		s = strings.TrimSpace(s)
		for _, l := range zoned {
			if t, err := time.Parse(l, s); err == nil {
				return t, true, true, true
			}
		}
		for _, l := range local {
			if t, err := time.Parse(l, s); err == nil {
				return t, false, true, true
			}
		}
		if t, err := time.Parse("2006-01-02", s); err == nil {
			return t, false, false, true
		}
		return time.Time{}, false, false, false
	}
	g, gz, gt, ok1 := parse(got)
	w, wz, wt, ok2 := parse(want)
	if !ok1 || !ok2 {
		return norm(got) == norm(want)
	}
	switch {
	case gz && wz:
		return g.Equal(w)
	case gt && wt:
		return g.Format("2006-01-02T15:04:05") == w.Format("2006-01-02T15:04:05")
	default:
		return g.Format("2006-01-02") == w.Format("2006-01-02")
	}
}
