package scaffold

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"asa/engine/sitedef"
)

func TestHelpers(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"recipeIngredient", "recipe_ingredient"}, {"aggregateRating", "aggregate_rating"}, {"og:title", "og_title"},
		{"3d", "f_3d"}, {"@type", "type"}, {"ÜberSchrift", ""}, {"__NEXT", "next"},
	} {
		if got := snake(tt.in); got != tt.want {
			t.Errorf("snake(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"en-GB", "en_GB"}, {"en", "en_US"}, {"de", "de_DE"}, {"pt_br", "pt_BR"}, {"", "en_US"}, {"x1", "en_US"}, {"nl-nl", "nl_NL"},
	} {
		if got := locale(tt.in); got != tt.want {
			t.Errorf("locale(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLDField(t *testing.T) {
	tests := []struct {
		key  string
		v    any
		typ  string
		expr string
		ok   bool
	}{
		{"name", "Soup", "string", "src.ld?.name", true},
		{"image", "https://x/a.jpg", "url", "src.ld?.image", true},
		{"recipeYield", 4.0, "int", "src.ld?.recipeYield", true},
		{"ratingValue", 4.5, "float", "src.ld?.ratingValue", true},
		{"author", map[string]any{"name": "Ada"}, "string", "src.ld?.author?.name", true},
		{"image", map[string]any{"url": "https://x/a.jpg"}, "url", "src.ld?.image?.url", true},
		{"recipeIngredient", []any{"a", "b"}, "list<string>", "src.ld?.recipeIngredient", true},
		{"recipeInstructions", []any{map[string]any{"text": "a"}}, "list<string>", "map(src.ld?.recipeInstructions ?? [], #?.text)", true},
		{"mixed", []any{"a", 1.0}, "", "", false},
		{"@id", "x", "", "", false},
		{"odd key", "x", "", "", false},
		{"empty", "  ", "", "", false},
	}
	for _, tt := range tests {
		f, ok := ldField(tt.key, tt.v, "src.ld?."+tt.key)
		if ok != tt.ok || (ok && (f.Type != tt.typ || f.Selects[0].Expr != tt.expr)) {
			t.Errorf("ldField(%q, %v) = %+v %v, want %s %s %v", tt.key, tt.v, f, ok, tt.typ, tt.expr, tt.ok)
		}
	}
}

func TestAnalyzeRefuses(t *testing.T) {
	if _, err := Analyze([]byte("<html><body>no address</body></html>"), ""); err == nil || !strings.Contains(err.Error(), "--url") {
		t.Errorf("a page with no URL: %v", err)
	}
	if _, err := Analyze(make([]byte, MaxPage+1), "https://x.example/"); err == nil {
		t.Error("an over-long page is accepted")
	}
	a, err := Analyze([]byte("<html><head><title>T</title></head></html>"), "https://x.example/p")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Fields) == 0 || a.Fields[0].Name != "title" || !a.Fields[0].Required {
		t.Errorf("a bare page: fields %+v, want a required title from <title>", a.Fields)
	}
}

// FuzzAnalyze: any page either is refused or gives field names that are valid and unique, and YAML
// that holds them.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte(`<html lang="en"><head><link rel="canonical" href="https://a.example/x"><script type="application/ld+json">{"@type":"Recipe","name":"x","a":{"b":1}}</script></head></html>`))
	f.Add([]byte(`<div itemscope itemtype="https://schema.org/Product"><span itemprop="name">x</span></div>`))
	f.Add([]byte(`<script>window.__INITIAL_STATE__ = {"a": "b"};</script>`))
	f.Fuzz(func(t *testing.T, page []byte) {
		a, err := Analyze(page, "https://a.example/x")
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, n := range a.FieldNames() {
			if !nameRe.MatchString(n) || seen[n] {
				t.Fatalf("field name %q invalid or repeated", n)
			}
			seen[n] = true
		}
		site := a.SiteYAML("s", "other")
		ep := a.EndpointYAML("page")
		for name, y := range map[string]string{"site.yaml": site, "page.yaml": ep} {
			if _, diags := sitedef.Parse(name, []byte(y)); len(diags) > 0 {
				t.Fatalf("%s does not parse: %v\n%s", name, diags, y)
			}
		}
	})
}

// TestQuotedScalarsRoundTrip: what the scaffold writes as a quoted value reads back as itself, line
// breaks, quotes, backslashes and control characters included.
func TestQuotedScalarsRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "it's", `say "hi"`, `a\b`, "two\nlines", "cr\rlf\r\n", "tab\tstop",
		"nel\u0085ls\u2028ps\u2029", "bom\ufeff", "x: y # z", "'${ params.url }'", "ünïcödé ✓", "\x00\x1f\x7f"} {
		var got string
		if err := yaml.Unmarshal([]byte("v: "+q(s)+"\n"), &struct {
			V *string `yaml:"v"`
		}{&got}); err != nil {
			t.Errorf("%q written as %s: %v", s, q(s), err)
			continue
		}
		if got != s {
			t.Errorf("%q written as %s reads back as %q", s, q(s), got)
		}
	}
}
