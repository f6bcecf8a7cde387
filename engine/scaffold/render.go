package scaffold

import (
	"fmt"
	"net/url"
	"strings"
)

// q quotes a scalar for YAML: always single-quoted, so an expression holding ": ", "#" or "??" is
// never cut or misread.
// q is s as a quoted YAML scalar: single-quoted, or double-quoted with escapes when s holds a
// control character or a line break, which a single-quoted scalar would fold into a space.
func q(s string) string {
	if strings.IndexFunc(s, needsEscape) < 0 {
		return "'" + strings.ReplaceAll(s, "'", "''") + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case needsEscape(r):
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// needsEscape reports the runes a YAML scalar cannot hold as themselves: control characters and
// the line breaks YAML reads (CR, LF, NEL, LS, PS).
func needsEscape(r rune) bool {
	return r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff
}

// comment is s on one line, for a YAML comment: the line breaks a page's text may hold would end
// the comment and start a line of YAML.
func comment(s string) string {
	return strings.Map(func(r rune) rune {
		if needsEscape(r) {
			return ' '
		}
		return r
	}, s)
}

// DomainKey names the page's host as a domain: its last label (com, de, uk ...).
func (a *Analysis) DomainKey() string {
	labels := strings.Split(a.Host, ".")
	k := labels[len(labels)-1]
	if !nameRe.MatchString(k) {
		return "main"
	}
	return k
}

func (a *Analysis) domainLine() string {
	return fmt.Sprintf("  %s: {host: %s, locale: %s}\n", a.DomainKey(), a.Host, a.Locale)
}

// SiteYAML is the site.yaml of a new site of its own.
func (a *Analysis) SiteYAML(site, category string) string {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../sitedef.schema.json\n")
	fmt.Fprintf(&b, "kind: site\nsite: %s\nname: %s\ncategory: %s\nversion: 0.1.0\n", site, q(a.SiteName), category)
	b.WriteString("domains:\n")
	b.WriteString(a.domainLine())
	return b.String()
}

// FamilySiteYAML is the one file of a site that extends family and mounts its base resource. The
// page's proposals the base lacks (baseFields) are listed as comments, ready to uncomment.
func (a *Analysis) FamilySiteYAML(site, family, resource string, baseFields map[string]bool) string {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=../sitedef.schema.json\n")
	fmt.Fprintf(&b, "kind: site\nsite: %s\nname: %s\nversion: 0.1.0\nextends: %s\n", site, q(a.SiteName), family)
	b.WriteString("domains:\n")
	b.WriteString(a.domainLine())
	fmt.Fprintf(&b, "endpoints:\n  %s:\n    extends: %s/%s\n", resource, family, resource)
	var extra []Field
	for _, f := range a.Fields {
		if !baseFields[f.Name] {
			extra = append(extra, f)
		}
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, "    # The page also has these, which %s/%s does not extract; uncomment what the site should add:\n", family, resource)
		b.WriteString("    # fields:\n")
		var fb strings.Builder
		writeFields(&fb, extra, "      ")
		for _, line := range strings.Split(strings.TrimRight(fb.String(), "\n"), "\n") {
			b.WriteString("    # " + strings.TrimPrefix(line, "    ") + "\n")
		}
		if a.usesSource("ld", extra) && !baseFields["src.ld"] {
			b.WriteString("    # (they read src.ld: the base must declare sources: {ld: {json_ld: " + a.Type + "}})\n")
		}
	}
	return b.String()
}

func (a *Analysis) usesSource(name string, fs []Field) bool {
	for _, f := range fs {
		for _, s := range f.Selects {
			if strings.Contains(s.Expr, "src."+name+"?") {
				return true
			}
		}
	}
	return false
}

// EndpointYAML is an endpoint file reading the page by URL with every proposal as a field.
func (a *Analysis) EndpointYAML(resource string) string {
	var b strings.Builder
	what := a.Type
	if what == "" {
		what = "page"
	}
	b.WriteString("# yaml-language-server: $schema=../sitedef.schema.json\n")
	b.WriteString("# Proposed by asa sitedef new from a saved page: check each field against the page, keep what the\n")
	b.WriteString("# endpoint should return, rename freely, and add rules for the site's error pages.\n")
	fmt.Fprintf(&b, "kind: endpoint\nresource: %s\nsummary: %s\n", resource, q("One "+what+" by URL."))
	b.WriteString("params:\n  url:\n    type: url\n    required: true\n")
	fmt.Fprintf(&b, "    example: %s\n", q(a.URL))
	b.WriteString("    description: The page's URL.\n")
	b.WriteString("steps:\n  - id: page\n    request:\n      url: '${ params.url }'\n")
	if len(a.Sources) > 0 {
		b.WriteString("sources:\n")
		for _, s := range a.Sources {
			fmt.Fprintf(&b, "  %s: {%s: %s}   # %s\n", s.Name, s.Key, q(s.Value), comment(s.Note))
		}
	}
	b.WriteString("fields:\n")
	writeFields(&b, a.Fields, "  ")
	return b.String()
}

func writeFields(b *strings.Builder, fs []Field, ind string) {
	for _, f := range fs {
		if f.From != "" {
			fmt.Fprintf(b, "%s# %s\n", ind, comment(f.From))
		}
		fmt.Fprintf(b, "%s%s:\n", ind, f.Name)
		fmt.Fprintf(b, "%s  type: %s\n", ind, f.Type)
		if f.Required {
			fmt.Fprintf(b, "%s  required: true\n", ind)
		}
		switch {
		case len(f.Children) > 0:
			fmt.Fprintf(b, "%s  fields:\n", ind)
			writeFields(b, f.Children, ind+"    ")
		case len(f.Selects) == 1:
			writeSel(b, f.Selects[0], ind+"  ")
		case len(f.Selects) > 1:
			fmt.Fprintf(b, "%s  select:\n", ind)
			for _, s := range f.Selects {
				if s.XPath != "" {
					fmt.Fprintf(b, "%s    - xpath: %s\n", ind, q(s.XPath))
				} else {
					fmt.Fprintf(b, "%s    - expr: %s\n", ind, q(s.Expr))
				}
			}
		}
	}
}

func writeSel(b *strings.Builder, s Selector, ind string) {
	if s.XPath != "" {
		fmt.Fprintf(b, "%sxpath: %s\n", ind, q(s.XPath))
		return
	}
	fmt.Fprintf(b, "%sexpr: %s\n", ind, q(s.Expr))
}

// CaseYAML is the fixture case replaying the page.
func (a *Analysis) CaseYAML(params map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "description: %s\n", q("Saved from "+a.URL+" (trim the page to what the sitedef reads: fixtures hold small pages)"))
	b.WriteString("params:\n")
	for _, k := range sortedKeys(params) {
		fmt.Fprintf(&b, "  %s: %s\n", k, q(params[k]))
	}
	b.WriteString("responses:\n  page: {body: page.html}\nexpect: {output: expected.json}\n")
	return b.String()
}

// ExpectationYAML is one corpus expectation: page (relative to the corpus), and the values the
// endpoint gave, for the author to check against the page.
func ExpectationYAML(endpoint, page, pageURL string, params map[string]string, values [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- endpoint: %s\n  page: %s\n  url: %s\n", endpoint, q(page), q(pageURL))
	b.WriteString("  params:\n")
	for _, k := range sortedKeys(params) {
		fmt.Fprintf(&b, "    %s: %s\n", k, q(params[k]))
	}
	b.WriteString("  # Values the scaffolded endpoint gave: check each against the page before trusting it.\n")
	b.WriteString("  expect:\n")
	for _, kv := range values {
		fmt.Fprintf(&b, "    %s: %s\n", kv[0], q(kv[1]))
	}
	return b.String()
}

// URLHost returns the host of a URL, lower case.
func URLHost(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}
