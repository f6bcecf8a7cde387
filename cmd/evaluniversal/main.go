// Command evaluniversal measures the universal extractor (engine/universal) on its development set
// (`make eval-universal`): fixtures/evaluniversal/devset.yaml and the pages of the shared corpus it
// names, read at run time, plus the corpus's Zyte-labelled product pages and Readability's test pages.
//
//   - Article text: precision, recall and F1 of word 4-gram shingles (counted with multiplicity)
//     between the parse=text output and the expected body, per page, averaged over pages (the
//     article-extraction benchmark's method). Words are runs of letters and digits, lower-cased;
//     each Han, kana or Hangul character is a word. Three groups: the pages whose expected body we
//     wrote (ours and corpus pages), Readability's test pages (their expected text is Readability's
//     own output, which favours go-readability), and all of them.
//   - Products: structured.product price, sku and availability, each field's F1 over the product
//     pages: a value equal to the expected one is a true positive; a value given where none is
//     expected, or a wrong one, a false positive; an expected value not given (or wrong) a false
//     negative. Prices compare as decimals (to the cent), sku exactly, availability by its
//     schema.org name.
//   - Time: median and p90 milliseconds per page of parse=text (article pages) and parse=auto (all
//     pages), best of 3 runs of each page.
//
// Every figure is printed per candidate main-text extractor (-candidates, default all).
//
// Usage: evaluniversal [-corpus DIR] [-devset DIR] [-candidates a,b] [-v]
package main

import (
	"encoding/json"
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

// pageURL is where Readability's test pages are taken to live: they have no URL, and its own test
// suite uses this one.
const pageURL = "http://fakehost/test/page.html"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("evaluniversal", flag.ContinueOnError)
	fs.SetOutput(stderr)
	corpus := fs.String("corpus", "../shared/corpus", "the shared corpus")
	dir := fs.String("devset", "fixtures/evaluniversal", "the development set (devset.yaml and our pages)")
	cands := fs.String("candidates", "", "comma-separated main-text extractors to measure (default: all of "+strings.Join(candidateNames(), ", ")+")")
	verbose := fs.Bool("v", false, "one line per page")
	fs.StringVar(&diffPage, "diff", "", "with -v: for the article pages whose name contains this, the lines missing from the output (-) and the lines it has beyond the expected body (+)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if _, err := os.Stat(filepath.Join(*corpus, "MANIFEST.tsv")); err != nil {
		fmt.Fprintf(stderr, "evaluniversal: no corpus at %s (pass -corpus DIR): %v\n", *corpus, err)
		return 1
	}
	ds, err := loadDevset(*dir, *corpus)
	if err != nil {
		fmt.Fprintf(stderr, "evaluniversal: %v\n", err)
		return 1
	}
	names := candidateNames()
	if *cands != "" {
		names = strings.Split(*cands, ",")
	}
	count := map[string]int{}
	for _, a := range ds.Articles {
		count["a."+a.kind]++
	}
	for _, p := range ds.Products {
		count["p."+p.kind]++
	}
	fmt.Fprintf(stdout, "development set: %d article pages (%d ours, %d corpus with our expected body, %d Readability test pages); %d product pages (%d ours, %d corpus with our expectations, %d Zyte-labelled)\n",
		len(ds.Articles), count["a.own"], count["a.corpus"], count["a.readability"], len(ds.Products), count["p.own"], count["p.corpus"], count["p.zyte"])
	var exs []universal.Extractor
	for _, name := range names {
		ex, ok := universal.ParseExtractor(name)
		if !ok {
			fmt.Fprintf(stderr, "evaluniversal: unknown candidate %q (known: %s)\n", name, strings.Join(candidateNames(), ", "))
			return 2
		}
		exs = append(exs, ex)
	}
	for _, ex := range exs {
		if err := evaluate(ds, ex, *verbose, stdout); err != nil {
			fmt.Fprintf(stderr, "evaluniversal: %v\n", err)
			return 1
		}
	}
	if err := timing(ds, exs, stdout); err != nil {
		fmt.Fprintf(stderr, "evaluniversal: %v\n", err)
		return 1
	}
	return 0
}

// diffPage is the -diff flag.
var diffPage string

// lineDiff shows the runs of words of want whose 4-gram shingles got lacks (-) and the runs of got
// that want lacks (+).
func lineDiff(got, want string) string {
	var b strings.Builder
	runs := func(sign string, a, other string) {
		w := Words(a)
		have := shingles(other)
		i := 0
		for i+4 <= len(w) {
			if have[strings.Join(w[i:i+4], " ")] > 0 {
				i++
				continue
			}
			j := i
			for j+4 <= len(w) && have[strings.Join(w[j:j+4], " ")] == 0 {
				j++
			}
			fmt.Fprintf(&b, "      %s %.200s\n", sign, strings.Join(w[i:min(j+3, len(w))], " "))
			i = j + 3
		}
	}
	runs("-", want, got)
	runs("+", got, want)
	return b.String()
}

func candidateNames() []string {
	var out []string
	for _, e := range universal.Extractors {
		out = append(out, string(e))
	}
	return out
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

// prf sums per-page precision, recall and F1.
type prf struct {
	p, r, f float64
	n       int
}

func (s *prf) add(p, r, f float64) { s.p, s.r, s.f, s.n = s.p+p, s.r+r, s.f+f, s.n+1 }

func (s prf) String() string {
	if s.n == 0 {
		return "n/a"
	}
	n := float64(s.n)
	return fmt.Sprintf("precision %.3f  recall %.3f  F1 %.3f  (%d pages)", s.p/n, s.r/n, s.f/n, s.n)
}

// fieldScore counts one product field's true and false positives and false negatives.
type fieldScore struct{ tp, fp, fn int }

func (s *fieldScore) add(got, want string, equal func(a, b string) bool) bool {
	switch {
	case got != "" && want != "" && equal(got, want):
		s.tp++
		return true
	case got != "" && want != "":
		s.fp++
		s.fn++
	case got != "":
		s.fp++
	case want != "":
		s.fn++
	default:
		return true
	}
	return false
}

func (s fieldScore) String() string {
	p, r := 0.0, 0.0
	if s.tp+s.fp > 0 {
		p = float64(s.tp) / float64(s.tp+s.fp)
	}
	if s.tp+s.fn > 0 {
		r = float64(s.tp) / float64(s.tp+s.fn)
	}
	f := 0.0
	if p+r > 0 {
		f = 2 * p * r / (p + r)
	}
	return fmt.Sprintf("F1 %.3f  (precision %.3f recall %.3f; tp %d fp %d fn %d)", f, p, r, s.tp, s.fp, s.fn)
}

// timed runs f three times and keeps the fastest run.
func timed(f func()) time.Duration {
	best := time.Duration(math.MaxInt64)
	for range 3 {
		t0 := time.Now()
		f()
		best = min(best, time.Since(t0))
	}
	return best
}

func evaluate(ds *devset, ex universal.Extractor, verbose bool, w io.Writer) error {
	fmt.Fprintf(w, "\ncandidate %s: %s\n", ex, ex.Describe())
	var ours, held, readab, all prf
	var title, author, published rate
	for _, a := range ds.Articles {
		raw, err := os.ReadFile(a.path)
		if err != nil {
			return err
		}
		u := a.URL
		if u == "" {
			u = pageURL
		}
		res, err := universal.ExtractWith(raw, "text/html", u, universal.Text, ex)
		got := ""
		if err == nil {
			got = res.Text
		}
		p, r, f := PRF(got, a.want)
		all.add(p, r, f)
		if a.kind == "readability" {
			readab.add(p, r, f)
		} else {
			ours.add(p, r, f)
		}
		if a.Heldout {
			held.add(p, r, f)
		}
		auto, err := universal.ExtractWith(raw, "text/html", u, universal.Auto, ex)
		if err != nil {
			auto = &universal.Result{}
		}
		line := fmt.Sprintf("  %-12s %-34s F1 %.3f (P %.3f R %.3f)", a.kind, a.Name, f, p, r)
		if a.kind == "readability" {
			line += readabilityMeta(a.path, auto, &title, &author, &published)
		}
		if verbose {
			fmt.Fprintln(w, line)
			if diffPage != "" && strings.Contains(a.Name, diffPage) {
				fmt.Fprint(w, lineDiff(got, a.want))
			}
		}
	}
	var price, sku, avail fieldScore
	for _, pc := range ds.Products {
		raw, err := os.ReadFile(pc.path)
		if err != nil {
			return err
		}
		res, err := universal.ExtractWith(raw, "text/html", pc.URL, universal.Auto, ex)
		var pr universal.Product
		if err == nil && res.Structured != nil && res.Structured.Product != nil {
			pr = *res.Structured.Product
		}
		gotPrice := ""
		if pr.Price != nil {
			gotPrice = strconv.FormatFloat(*pr.Price, 'f', -1, 64)
		}
		line := fmt.Sprintf("  %-6s %-70s", pc.kind, pc.Name)
		ok := price.add(gotPrice, pc.Expect["price"], samePrice)
		line += fmt.Sprintf(" price %s(%s/%s)", mark(ok), gotPrice, pc.Expect["price"])
		ok = sku.add(deref(pr.SKU), pc.Expect["sku"], func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) })
		line += fmt.Sprintf(" sku %s(%s/%s)", mark(ok), deref(pr.SKU), pc.Expect["sku"])
		ok = avail.add(deref(pr.Availability), pc.Expect["availability"], strings.EqualFold)
		line += fmt.Sprintf(" availability %s(%s/%s)", mark(ok), deref(pr.Availability), pc.Expect["availability"])
		if verbose {
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintf(w, "  text, our expected bodies     %s\n", ours)
	fmt.Fprintf(w, "    of which held out           %s\n", held)
	fmt.Fprintf(w, "  text, Readability test pages  %s\n", readab)
	fmt.Fprintf(w, "  text, all article pages       %s\n", all)
	fmt.Fprintf(w, "  Readability pages metadata    title %s  author %s  published %s\n", title, author, published)
	fmt.Fprintf(w, "  product price          %s\n", price)
	fmt.Fprintf(w, "  product sku            %s\n", sku)
	fmt.Fprintf(w, "  product availability   %s\n", avail)
	return nil
}

// timing measures every candidate on every page, the candidates in turn on each page, so that a
// change in the machine's load weighs on all of them alike (best of 3 runs of each).
func timing(ds *devset, exs []universal.Extractor, w io.Writer) error {
	text := make([][]time.Duration, len(exs))
	auto := make([][]time.Duration, len(exs))
	run := func(path, u string, mode universal.Mode, into [][]time.Duration) error {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, ex := range exs {
			into[i] = append(into[i], timed(func() { _, _ = universal.ExtractWith(raw, "text/html", u, mode, ex) }))
		}
		return nil
	}
	for _, a := range ds.Articles {
		u := a.URL
		if u == "" {
			u = pageURL
		}
		if err := run(a.path, u, universal.Text, text); err != nil {
			return err
		}
		if err := run(a.path, u, universal.Auto, auto); err != nil {
			return err
		}
	}
	for _, pc := range ds.Products {
		if err := run(pc.path, pc.URL, universal.Auto, auto); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\ntime per page (best of 3 runs, candidates in turn on each page)\n")
	for i, ex := range exs {
		sortDur(text[i])
		sortDur(auto[i])
		fmt.Fprintf(w, "  %-26s parse=text median %5.1f ms  p90 %5.1f ms (%d pages)   parse=auto median %5.1f ms  p90 %5.1f ms (%d pages)\n",
			ex, ms(percentile(text[i], 0.5)), ms(percentile(text[i], 0.9)), len(text[i]), ms(percentile(auto[i], 0.5)), ms(percentile(auto[i], 0.9)), len(auto[i]))
	}
	return nil
}

// readabilityMeta scores the title, author and published time against Readability's expected
// metadata (page.expected-metadata.json), and says what missed.
func readabilityMeta(page string, res *universal.Result, title, author, published *rate) string {
	var meta expectedMeta
	b, err := os.ReadFile(strings.TrimSuffix(page, ".html") + ".expected-metadata.json")
	if err != nil || json.Unmarshal(b, &meta) != nil {
		return ""
	}
	line := ""
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
	return line
}

// samePrice compares two prices as decimals, to the cent.
func samePrice(a, b string) bool {
	x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	return err1 == nil && err2 == nil && math.Abs(x-y) < 0.005
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func sortDur(d []time.Duration) { sort.Slice(d, func(i, j int) bool { return d[i] < d[j] }) }

func mark(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISS"
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
