// Command benchcompare measures asa's extraction against parsel/lxml on the same pages with the same
// XPaths (make bench-compare): for every endpoint, the largest corpus page of 200 KB or more it is
// expected to pass (fixtures/corpus), asa's whole offline path (charset, parse, rules, fields, JSON)
// and a Python parsel script that parses the page and evaluates every XPath of the endpoint the way
// the engine does (bench/parsel_extract.py). The two run back to back, page by page, in interleaved
// rounds; the figures are medians of every run.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"asa/engine"
	"asa/engine/dom"
	"asa/engine/fixture"
	"asa/engine/registry"
)

func main() {
	corpus := flag.String("corpus", "../shared/corpus", "the shared corpus directory")
	sitedefs := flag.String("sitedefs", "sitedefs", "the sitedefs directory")
	fixtures := flag.String("fixtures", "fixtures", "the fixtures directory (its corpus/*.yaml name the pages)")
	python := flag.String("python", "/usr/bin/python3", "the Python with Debian's python3-parsel")
	script := flag.String("script", "bench/parsel_extract.py", "the parsel side")
	minSize := flag.Int64("min-size", 200<<10, "pages smaller than this are left out")
	rounds := flag.Int("rounds", 5, "interleaved rounds")
	runs := flag.Int("runs", 4, "runs of each side per page and round")
	only := flag.String("run", "", "only endpoints whose id contains this")
	flag.Parse()
	if err := run(*corpus, *sitedefs, *fixtures, *python, *script, *minSize, *rounds, *runs, *only); err != nil {
		fmt.Fprintln(os.Stderr, "benchcompare:", err)
		os.Exit(1)
	}
}

type page struct {
	endpoint, file string
	size           int64
	exp            *fixture.Expectation
	plan           *engine.Plan
	body           []byte // as fetched
	asa, parsel    []time.Duration
	asaParse       []time.Duration // charset conversion and parsing alone, run beside each asa run
	lxmlParse      []time.Duration // decoding and parsing within each parsel run
	xpaths         int             // the endpoint's XPaths the parsel side evaluates (some from every list item)
	refused        []string
}

func run(corpus, sitedefs, fixtures, python, script string, minSize int64, rounds, runs int, only string) error {
	reg, diags := registry.Load(engine.New(), os.DirFS(sitedefs))
	if diags.HasErrors() {
		return fmt.Errorf("loading sitedefs: %v", diags)
	}
	exps, err := fixture.LoadExpectations(filepath.Join(fixtures, "corpus"))
	if err != nil {
		return err
	}
	pages, err := choose(reg, exps, corpus, minSize, only)
	if err != nil {
		return err
	}
	if len(pages) == 0 {
		return fmt.Errorf("no corpus page of %d bytes or more is expected to pass an endpoint", minSize)
	}
	tmp, err := os.MkdirTemp("", "benchcompare")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	cmd := exec.Command(python, script)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w (is python3-parsel installed?)", python, err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	in := bufio.NewScanner(stdout)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	call := func(req any, resp any) error {
		b, _ := json.Marshal(req)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			return err
		}
		if !in.Scan() {
			return fmt.Errorf("the parsel script stopped: %v", in.Err())
		}
		return json.Unmarshal(in.Bytes(), resp)
	}

	for i, p := range pages {
		// The parsel side gets the body asa's parser gets: UTF-8, converted once here.
		utf8Body, err := dom.ToUTF8(p.body, fixture.ContentType(p.file))
		if err != nil {
			utf8Body = p.body
		}
		f := filepath.Join(tmp, fmt.Sprintf("%d.html", i))
		if err := os.WriteFile(f, utf8Body, 0o600); err != nil {
			return err
		}
		checks, fields := p.plan.XPathWork()
		if checks == nil {
			checks = []string{}
		}
		if fields == nil {
			fields = []engine.XPathField{}
		}
		p.xpaths = len(checks) + countXPaths(fields)
		var ok struct{ OK bool }
		if err := call(map[string]any{"op": "load", "id": i, "page": f, "checks": checks, "fields": fields}, &ok); err != nil || !ok.OK {
			return fmt.Errorf("loading %s into the parsel script: %v", p.file, err)
		}
	}
	ctx := context.Background()
	for round := 0; round < rounds; round++ {
		for i, p := range pages {
			for range runs {
				d, err := asaOnce(ctx, p)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", p.endpoint, p.file, err)
				}
				p.asa = append(p.asa, d)
				t0 := time.Now()
				b, err := dom.ToUTF8(p.body, fixture.ContentType(p.file))
				if err == nil {
					_, err = dom.ParseHTML(b)
				}
				if err != nil {
					return fmt.Errorf("parsing %s: %w", p.file, err)
				}
				p.asaParse = append(p.asaParse, time.Since(t0))
			}
			var resp struct {
				MS      []float64 `json:"ms"`
				ParseMS []float64 `json:"parse_ms"`
				Refused []string  `json:"refused"`
			}
			if err := call(map[string]any{"op": "run", "id": i, "n": runs}, &resp); err != nil {
				return err
			}
			for i, ms := range resp.MS {
				p.parsel = append(p.parsel, time.Duration(ms*float64(time.Millisecond)))
				p.lxmlParse = append(p.lxmlParse, time.Duration(resp.ParseMS[i]*float64(time.Millisecond)))
			}
			p.refused = resp.Refused
		}
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "endpoint\tpage\tKB\tasa ms\t(parse)\tparsel ms\t(lxml parse)\tparsel/asa\tXPaths\t\n")
	var ratios []float64
	for _, p := range pages {
		a, b := median(p.asa), median(p.parsel)
		r := float64(b) / float64(a)
		ratios = append(ratios, r)
		fmt.Fprintf(w, "%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2fx\t%d\t\n", p.endpoint, p.file, p.size>>10,
			ms(a), ms(median(p.asaParse)), ms(b), ms(median(p.lxmlParse)), r, p.xpaths)
	}
	w.Flush()
	sort.Float64s(ratios)
	fmt.Printf("\n%d pages, %d rounds x %d runs each side; parsel/asa: min %.2fx, median %.2fx, max %.2fx\n",
		len(pages), rounds, runs, ratios[0], ratios[len(ratios)/2], ratios[len(ratios)-1])
	for _, p := range pages {
		if len(p.refused) > 0 {
			fmt.Printf("%s: lxml refused %d XPath(s) (counted as selecting nothing): %s\n", p.endpoint, len(p.refused), strings.Join(p.refused, " ; "))
		}
	}
	return nil
}

// choose picks, for every endpoint, the largest page of at least minSize bytes that one of its
// success expectations names (single-page expectations: the page is the one the endpoint parses).
func choose(reg *registry.Registry, exps []*fixture.Expectation, corpus string, minSize int64, only string) ([]*page, error) {
	best := map[string]*page{}
	for _, e := range exps {
		if e.Error != "" || e.Page == "" || e.Status != 0 && e.Status != 200 || !strings.Contains(e.Endpoint, only) {
			continue
		}
		if !strings.HasSuffix(e.Page, ".html") && !strings.HasSuffix(e.Page, ".htm") {
			continue
		}
		plan := reg.Plan(e.Endpoint)
		if plan == nil {
			continue
		}
		st, err := os.Stat(filepath.Join(corpus, e.Page))
		if err != nil {
			return nil, err
		}
		if st.Size() < minSize {
			continue
		}
		if b := best[e.Endpoint]; b == nil || st.Size() > b.size {
			best[e.Endpoint] = &page{endpoint: e.Endpoint, file: e.Page, size: st.Size(), exp: e, plan: plan}
		}
	}
	var out []*page
	for _, p := range best {
		body, err := os.ReadFile(filepath.Join(corpus, p.file))
		if err != nil {
			return nil, err
		}
		p.body = body
		// The page must pass as the expectation says: a failing run would measure an error path.
		if err := fixture.RunExpectation(context.Background(), reg, corpus, p.exp); err != nil {
			return nil, fmt.Errorf("%s on %s does not pass: %w", p.endpoint, p.file, err)
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *page) int { return strings.Compare(a.endpoint, b.endpoint) })
	return out, nil
}

// asaOnce is what the API does for a request, offline: validate, fetch (a replay of the page), run,
// encode.
func asaOnce(ctx context.Context, p *page) (time.Duration, error) {
	h := http.Header{"Content-Type": {fixture.ContentType(p.file)}}
	rp := &fixture.Replay{Fallback: &fixture.Reply{Status: 200, Header: h, Body: p.body, URL: p.exp.URL}}
	t0 := time.Now()
	ps, err := p.plan.Params(fixture.Values(p.exp.Params))
	if err != nil {
		return 0, err
	}
	res, err := p.plan.Run(ctx, ps, rp)
	if err != nil {
		return 0, err
	}
	if _, err := res.MarshalJSON(); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func countXPaths(fs []engine.XPathField) int {
	n := 0
	for _, f := range fs {
		n += len(f.XPaths) + countXPaths(f.Fields)
	}
	return n
}
