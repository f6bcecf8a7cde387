package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// The development set (fixtures/evaluniversal/devset.yaml): article pages with an expected body
// text we wrote, and product pages with expected price, sku and availability. A page is either
// one of ours (page: a file under the devset's directory) or a page of the shared corpus (corpus:
// a path under the corpus, read at run time, never copied). The Zyte-labelled product pages of
// the corpus (MANIFEST resource product-expected) are added to the products without being listed.

type devset struct {
	Articles []articleCase `yaml:"articles"`
	Products []productCase `yaml:"products"`
}

type articleCase struct {
	Name   string `yaml:"name"`
	Page   string `yaml:"page"`
	Corpus string `yaml:"corpus"`
	URL    string `yaml:"url"`
	Text   string `yaml:"text"`  // the expected body, a file beside devset.yaml
	Shows  string `yaml:"shows"` // the faults the page shows, for the reader
	// Heldout marks an expected body written after the filter's rules were frozen: scored apart too.
	Heldout bool   `yaml:"heldout"`
	kind    string // "own", "corpus" or "readability"
	path    string
	want    string
}

type productCase struct {
	Name   string            `yaml:"name"`
	Page   string            `yaml:"page"`
	Corpus string            `yaml:"corpus"`
	URL    string            `yaml:"url"`
	Expect map[string]string `yaml:"expect"` // price, sku, availability; "" or absent: no value expected
	Shows  string            `yaml:"shows"`
	kind   string            // "own", "corpus" or "zyte"
	path   string
}

// loadDevset reads devset.yaml in dir, resolves its pages and expected texts, and adds the
// corpus's Zyte product pages and Readability's news pages.
func loadDevset(dir, corpus string) (*devset, error) {
	b, err := os.ReadFile(filepath.Join(dir, "devset.yaml"))
	if err != nil {
		return nil, err
	}
	var ds devset
	if err := yaml.Unmarshal(b, &ds); err != nil {
		return nil, fmt.Errorf("devset.yaml: %w", err)
	}
	resolve := func(name, page, corp string) (string, string, error) {
		switch {
		case page != "" && corp == "":
			return filepath.Join(dir, page), "own", nil
		case corp != "" && page == "":
			return filepath.Join(corpus, corp), "corpus", nil
		}
		return "", "", fmt.Errorf("devset.yaml: %s: exactly one of page and corpus", name)
	}
	for i := range ds.Articles {
		a := &ds.Articles[i]
		if a.path, a.kind, err = resolve(a.Name, a.Page, a.Corpus); err != nil {
			return nil, err
		}
		t, err := os.ReadFile(filepath.Join(dir, a.Text))
		if err != nil {
			return nil, fmt.Errorf("devset.yaml: %s: %w", a.Name, err)
		}
		a.want = string(t)
	}
	for i := range ds.Products {
		p := &ds.Products[i]
		if p.path, p.kind, err = resolve(p.Name, p.Page, p.Corpus); err != nil {
			return nil, err
		}
	}
	zyte, err := zyteProducts(corpus)
	if err != nil {
		return nil, err
	}
	ds.Products = append(ds.Products, zyte...)
	news, err := readabilityPages(corpus)
	if err != nil {
		return nil, err
	}
	ds.Articles = append(ds.Articles, news...)
	return &ds, nil
}

// zyteProducts are the corpus's product pages with Zyte's ground truth (*.expected.json).
func zyteProducts(corpus string) ([]productCase, error) {
	f, err := os.Open(filepath.Join(corpus, "MANIFEST.tsv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, err
	}
	var out []productCase
	for _, row := range rows {
		if len(row) < 4 || row[3] != "product-expected" || !strings.HasSuffix(row[0], ".expected.json") {
			continue
		}
		expPath := filepath.Join(corpus, row[0])
		var exp map[string]any
		b, err := os.ReadFile(expPath)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &exp); err != nil {
			return nil, fmt.Errorf("%s: %w", expPath, err)
		}
		u, _ := exp["url"].(string)
		pc := productCase{Name: strings.TrimSuffix(row[0], ".expected.json"), URL: u, kind: "zyte",
			path: strings.TrimSuffix(expPath, ".expected.json") + ".html", Expect: map[string]string{}}
		for _, k := range []string{"price", "sku", "availability"} {
			pc.Expect[k] = strings.TrimSpace(firstString(exp[k]))
		}
		out = append(out, pc)
	}
	return out, nil
}

// readabilityPages are the corpus news pages with Readability's expected article beside them
// (page.expected.html). Their expected text is Readability.js's own output, which favours
// go-readability: they are scored apart from the rest.
func readabilityPages(corpus string) ([]articleCase, error) {
	files, err := filepath.Glob(filepath.Join(corpus, "news", "*", "*.expected.html"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []articleCase
	for _, f := range files {
		page := strings.TrimSuffix(f, ".expected.html") + ".html"
		if _, err := os.Stat(page); err != nil {
			continue
		}
		want, err := expectedText(f)
		if err != nil {
			return nil, err
		}
		out = append(out, articleCase{Name: filepath.Base(page), URL: pageURL, kind: "readability", path: page, want: want})
	}
	if len(out) == 0 {
		return nil, errors.New("no Readability news pages in the corpus")
	}
	return out, nil
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
