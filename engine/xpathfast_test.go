package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/antchfx/xpath"

	"asa/engine/dom"
	"asa/engine/sitedef"
)

func TestAnalyzeXPath(t *testing.T) {
	tests := []struct {
		src     string
		indexed bool
		wrapper string
	}{
		{"//span[@id='productTitle']", true, ""},
		{"//span[@id='a'] | //input[@id=\"b\"]/@value", true, ""},
		{"normalize-space(//div[@id='x'])", true, "normalize-space"},
		{"boolean(//form[contains(@action, 'captcha')])", true, "boolean"},
		{"//div[@id='a' or @data-hook='b']//li", true, ""},
		{"//div[contains(@class, 'x') and @id='y']", true, ""},
		{"//div[@id='a'][2]", false, ""},
		{"//li[last()]", false, ""},
		{"//div[@id='a'][//b]", false, ""},
		{"//div[@id='a'][not(ancestor::ul)]", true, ""},
		{".//span[@id='a']", false, ""},
		{"(//div[@id='a'])[1]", false, ""},
		{"//*[contains(@class, 'x')]", false, ""},
		{"//div[@id='a'] | .//b", false, ""},
		{"//a[@href = /html/@x]", false, ""},
		{"//a[@x='1' or /html]", false, ""},
	}
	for _, tt := range tests {
		fx := analyzeXPath(tt.src, newIndexWant())
		if (fx != nil) != tt.indexed {
			t.Errorf("%s: indexed %v, want %v", tt.src, fx != nil, tt.indexed)
			continue
		}
		if fx != nil && fx.wrapper != tt.wrapper {
			t.Errorf("%s: wrapper %q, want %q", tt.src, fx.wrapper, tt.wrapper)
		}
	}
}

// TestFastXPathMatchesFull runs every indexable XPath of every shipped sitedef both ways on real and
// fixture pages: the index path must give the nodes the full evaluation gives, in the same order.
func TestFastXPathMatchesFull(t *testing.T) {
	var pages []string
	for _, pat := range []string{"../fixtures/*/*/*/*.html", "../../shared/corpus/amazon/*.html", "../../shared/corpus/google/serp-20*.html"} {
		m, _ := filepath.Glob(pat)
		pages = append(pages, m...)
	}
	if len(pages) == 0 {
		t.Skip("no pages")
	}
	var sels []*xpathSel
	sites, _ := filepath.Glob("../sitedefs/*/site.yaml")
	for _, sp := range sites {
		eps, _ := filepath.Glob(filepath.Join(filepath.Dir(sp), "*.yaml"))
		for _, ep := range eps {
			if strings.HasSuffix(ep, "site.yaml") {
				continue
			}
			sf, _ := readParse(sp)
			ef, _ := readParse(ep)
			p, d := New().Compile(sf, ef)
			if d.HasErrors() {
				t.Fatalf("%s: %v", ep, d)
			}
			sels = append(sels, p.fastSelectors()...)
		}
	}
	if len(sels) < 10 {
		t.Fatalf("only %d indexable XPaths found", len(sels))
	}
	want := newIndexWant()
	for _, s := range sels {
		analyzeXPath(s.src, want)
	}
	checked := 0
	for _, page := range pages {
		body, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		body, _ = dom.ToUTF8(body, "text/html")
		root, err := dom.ParseHTML(body)
		if err != nil {
			continue
		}
		idx := buildIndex(root, want)
		for _, s := range sels {
			fast, ok := s.fast.eval(idx)
			if !ok {
				continue
			}
			e := s.get()
			full := e.Evaluate(dom.NavigatorAt(root, root))
			got, wantS := describeResult(fast), describeResult(full)
			s.put(e)
			if got != wantS {
				t.Errorf("%s on %s:\nindexed %s\nfull    %s", s.src, filepath.Base(page), got, wantS)
			}
			checked++
		}
	}
	t.Logf("%d indexable XPaths, %d comparisons", len(sels), checked)
}

func readParse(p string) (*sitedef.File, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	f, _ := sitedef.Parse(p, b)
	return f, nil
}

// describeResult lists the nodes once each: antchfx repeats a node reached from two nested
// contexts (//div[@id='a' or @id='b']//a with b inside a), the index path does not.
func describeResult(v any) string {
	var parts []string
	seen := map[any]bool{}
	add := func(n xpath.NodeNavigator) {
		h := n.(*dom.HTMLNavigator)
		k := [2]any{h.Current(), h.Attr()}
		if !seen[k] {
			seen[k] = true
			parts = append(parts, n.LocalName()+"="+dom.Text(n))
		}
	}
	switch x := v.(type) {
	case *xpath.NodeIterator:
		for x.MoveNext() {
			add(x.Current())
		}
		return strings.Join(parts, " | ")
	case []xpath.NodeNavigator:
		for _, n := range x {
			add(n)
		}
		return strings.Join(parts, " | ")
	case float64, bool, string:
		return strings.TrimSpace(strings.Join(strings.Fields(anyString(x)), " "))
	}
	return "?"
}

func anyString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return strings.TrimSuffix(strings.TrimRight(strings.TrimRight(strings.Replace(stringify(v), ".000000", "", 1), "0"), "."), ".")
}
