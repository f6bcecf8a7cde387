package sitedef

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // substrings of the diagnostics, in order
	}{
		{"ok site", "kind: site\nsite: x\nname: X\ncategory: other\nversion: 1.0.0\n", nil},
		{"unknown key with suggestion", "kind: site\nsiet: x\n", []string{`f.yaml:2:1: error: unknown key "siet" (did you mean "site"?)`}},
		{"wrong kind of value", "kind: site\ndomains: [a]\n", []string{"f.yaml:2:10: error: expected a mapping, found a list"}},
		{"bad int", "kind: site\nretry: {max_attempts: lots}\n", []string{`f.yaml:2:23: error: expected a whole number, found "lots"`}},
		{"bad duration", "kind: site\nrequest: {timeout: soon}\n", []string{`f.yaml:2:20: error: "soon" is not a duration`}},
		{"duplicate key", "kind: site\nname: a\nname: b\n", []string{"f.yaml:3:1:"}},
		{"unknown kind", "kind: sight\n", []string{`unknown kind "sight"`}},
		{"not a mapping", "- a\n", []string{"a sitedef file is a mapping"}},
		{"yaml syntax", "kind: site\nname: [\n", []string{"f.yaml:2:1: error: invalid YAML: did not find expected node content"}},
		{"alias refused", "kind: site\nname: &n x\nsummary: *n\n", []string{"aliases are not allowed"}},
		{"all errors at once", "kind: endpoint\nfoo: 1\nfields:\n  a: {xpth: //a, type: [x]}\n", []string{`unknown key "foo"`, `unknown key "xpth"`, "expected a string, found a list"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := Parse("f.yaml", []byte(tt.src))
			if len(diags) != len(tt.want) {
				t.Fatalf("want %d diagnostics, got %d: %v", len(tt.want), len(diags), diags)
			}
			for i, w := range tt.want {
				if !strings.Contains(diags[i].String(), w) {
					t.Errorf("diagnostic %d: %q does not contain %q", i, diags[i].String(), w)
				}
			}
		})
	}
}

func TestMapKeepsOrder(t *testing.T) {
	f, diags := Parse("f.yaml", []byte("kind: endpoint\nfields:\n  z: {xpath: //z}\n  a: {xpath: //a}\n  m: {expr: '1'}\n"))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if got := strings.Join(f.Endpoint.Fields.Keys, ","); got != "z,a,m" {
		t.Errorf("order %s", got)
	}
	p := f.Pos.Of(&f.Endpoint.Fields.Vals["a"].XPath)
	if p.Line != 4 || p.Col != 14 {
		t.Errorf("position of fields.a.xpath: %+v", p)
	}
}

func TestSchemaAndReference(t *testing.T) {
	b, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"url_pattern"`, `"list<object>"`, `"additionalProperties": false`, `"Match"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s", want)
		}
	}
	ref := Reference()
	if !strings.Contains(ref, "## Field") || !strings.Contains(ref, "`recurse`") {
		t.Errorf("reference incomplete")
	}
}
