package sitedef

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const baseEP = `kind: endpoint
resource: item
summary: An item.
params:
  url: {type: url, required: true, example: https://a.example/1}
  lang: {type: string, pattern: '[a-z]{2}'}
constraints:
  - require: params.lang != "xx"
steps:
  - id: page
    request: {url: '${ params.url }'}
  - id: extra
    request: {url: '${ params.url }/extra'}
sources:
  ld: {json_ld: Thing}
rules:
  - {id: gone, step: page, match: {status: [404]}, error: product_not_found}
paginate: {items: things, pages: params.pages}
fields:
  title: {type: string, xpath: //h1, required: true}
  price: {type: float, xpath: //b, transform: value * 2}
  box:
    type: object
    fields:
      a: {xpath: //i}
      b: {xpath: //u}
`

// TestExtendEndpoint: the merge rules, each on the smallest child that shows it.
func TestExtendEndpoint(t *testing.T) {
	base, diags := Parse("_families/f/item.yaml", []byte(baseEP))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	tests := []struct {
		name  string
		child string
		want  []string // substrings of the resolved endpoint, as Marshal writes it
		not   []string
		diags []string
	}{
		{"inherits everything", "extends: f/item\n",
			[]string{"summary: An item.", "title: {type: string, xpath: //h1, required: true}", "- id: extra"}, nil, nil},
		{"a field replaces the base's whole", "fields:\n  price: {xpath: //s}\n",
			[]string{"price: {xpath: //s}"}, []string{"value * 2"}, nil},
		{"new fields are appended", "fields:\n  extra: {xpath: //p}\n",
			[]string{"      b: {xpath: //u}\n  extra: {xpath: //p}"}, nil, nil},
		{"params merge key by key", "params:\n  url: {example: https://b.example/2}\n",
			[]string{"url: {type: url, required: true, example: 'https://b.example/2'}"}, nil, nil},
		{"remove then redefine replaces a param whole", "remove: [params.url]\nparams:\n  url: {type: string}\n",
			[]string{"lang: {type: string, pattern: '[a-z]{2}'}\n  url: {type: string}"}, []string{"example: https://a"}, nil},
		{"steps replace by id, in place", "steps:\n  - id: page\n    request: {url: 'https://c.example/${ params.url }'}\n",
			[]string{"- id: page\n    request: {url: 'https://c.example/${ params.url }'}\n  - id: extra"}, nil, nil},
		{"rules append by id", "rules:\n  - {id: wall, match: {body_contains: robot}, error: blocked}\n",
			[]string{"- id: gone", "- id: wall"}, nil, nil},
		{"other lists are replaced", "constraints:\n  - {one_of: [url, lang]}\n",
			[]string{"one_of: [url, lang]"}, []string{`params.lang != "xx"`}, nil},
		{"structures merge key by key", "paginate: {pages: '3'}\n",
			[]string{`paginate: {items: things, pages: "3"}`}, nil, nil},
		{"nested removal", "remove: [fields.box.b, steps.extra, rules.gone, sources.ld, paginate]\n",
			[]string{"a: {xpath: //i}"}, []string{"//u", "id: extra", "id: gone", "json_ld", "paginate"}, nil},
		{"removal of what is not there", "remove: [fields.nope, steps.nope, fields.title.nope, summary.x, '']\n",
			nil, nil, []string{`"fields.nope" names nothing: no "nope" among box, price, title`, `"steps.nope" names nothing: no id "nope" among page, extra`,
				`"fields.title.nope" names nothing: the field has no child fields`, `"summary.x" names nothing: summary is a value`, `"" is not a path`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			child, cd := Parse("s/site.yaml", []byte("kind: endpoint\n"+tt.child))
			if len(cd) > 0 {
				t.Fatal(cd)
			}
			f, diags := ExtendEndpoint(base, "f/item", "s/site.yaml", child.Node, "item")
			var got []string
			for _, d := range diags {
				got = append(got, d.String())
			}
			for i, w := range tt.diags {
				if w == "" {
					continue
				}
				if i >= len(got) || !strings.Contains(got[i], w) {
					t.Errorf("diagnostic %d: want %q in %v", i, w, got)
				}
			}
			if len(tt.diags) == 0 && len(diags) > 0 {
				t.Fatalf("diagnostics: %v", diags)
			}
			if len(tt.diags) > 0 {
				return
			}
			b, err := Marshal(f.Endpoint)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(string(b), w) {
					t.Errorf("want %q in\n%s", w, b)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(string(b), w) {
					t.Errorf("want no %q in\n%s", w, b)
				}
			}
		})
	}
}

// TestExtendSite: identity is the site's own, domains given replace the family's, site rules merge by
// id and can be removed, request headers merge by name.
func TestExtendSite(t *testing.T) {
	fam, diags := Parse("_families/f/site.yaml", []byte(`kind: site
site: f
name: Family
version: 9.9.9
category: news
domains:
  example: {host: www.example.com, locale: en_US}
default_domain: example
request:
  headers: {Accept-Language: en, X-A: a}
  timeout: 10s
rules:
  - {id: captcha, match: {body_contains: robot}, error: blocked}
  - {id: wall, match: {body_contains: subscribe}, error: blocked}
`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	child, diags := Parse("s/site.yaml", []byte(`kind: site
site: s
name: S
version: 1.0.0
extends: f
domains:
  de: {host: www.s.de, locale: de_DE}
request:
  headers: {Accept-Language: de}
remove: [rules.wall]
rules:
  - {id: captcha, match: {body_contains: Roboter}, error: blocked}
`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	f, diags := ExtendSite(fam, "f", child)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	s := f.Site
	got := []any{s.Site, s.Name, s.Version, s.Category, s.Domains.Keys, s.DefaultDomain, s.Request.Headers.Keys,
		*s.Request.Headers.Get("Accept-Language"), s.Request.Timeout.String(), len(s.Rules), s.Rules[0].Match.BodyContains}
	want := []any{"s", "S", "1.0.0", "news", []string{"de"}, "", []string{"Accept-Language", "X-A"}, "de", "10s", 1, "Roboter"}
	for i := range want {
		if g, w := strings.Join(strings.Fields(toString(got[i])), " "), toString(want[i]); g != w {
			t.Errorf("value %d: got %s, want %s", i, g, w)
		}
	}
	if f.Base == nil || f.Base.Name != "f" || f.Base.At.Line != 5 {
		t.Errorf("base ref %+v, want f at line 5", f.Base)
	}
	// Inherited values carry the family's file; the site's own carry none.
	if p := f.Pos.Of(&s.Category); p.File != "_families/f/site.yaml" {
		t.Errorf("category at %+v, want the family's file", p)
	}
	if p := f.Pos.Of(&s.Rules[0].Match.BodyContains); p.File != "" || p.Line != 12 {
		t.Errorf("the site's own rule at %+v, want line 12 of its file", p)
	}
}

func toString(v any) string {
	switch x := v.(type) {
	case []string:
		return "[" + strings.Join(x, " ") + "]"
	default:
		return strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(fmtAny(x), "\n", " "), "  ", " "))
	}
}

func fmtAny(v any) string {
	b, _ := Marshal(map[string]any{"v": v})
	return strings.TrimPrefix(strings.TrimSpace(string(b)), "v: ")
}

// FuzzExtendEndpoint: any child, however malformed, merges onto a base without panicking, and the
// base's shared tree is never changed by it.
func FuzzExtendEndpoint(f *testing.F) {
	f.Add([]byte("fields:\n  price: {xpath: //s}\nremove: [fields.box.b, steps.extra]\n"))
	f.Add([]byte("params: {url: {example: x}}\nsteps: [{id: page}, 3]\nrules: {}\n"))
	f.Add([]byte("remove: [a.b.c, '', fields.box.a.b]\npaginate: [1]\n"))
	base, diags := Parse("_families/f/item.yaml", []byte(baseEP))
	if len(diags) > 0 {
		f.Fatal(diags)
	}
	before, _ := Marshal(base.Endpoint)
	f.Fuzz(func(t *testing.T, data []byte) {
		child, _ := Parse("s/x.yaml", append([]byte("kind: endpoint\n"), data...))
		if child.Node == nil {
			return
		}
		_, _ = ExtendEndpoint(base, "f/item", "s/x.yaml", child.Node, "x")
		again, _ := ExtendEndpoint(base, "f/item", "s/y.yaml", &yaml.Node{Kind: yaml.MappingNode}, "item")
		if b, _ := Marshal(again.Endpoint); string(b) != string(before) {
			t.Fatalf("the base changed:\n%s\nwant\n%s", b, before)
		}
	})
}
