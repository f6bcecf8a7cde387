package registry

import (
	"fmt"
	"sort"
	"strings"

	"asa/engine"
	"asa/engine/sitedef"
)

// Markdown renders the endpoint catalogue (docs/endpoints.md): every endpoint written out in full with
// its parameters and output fields, and every family once (its bases' parameters and fields), generated
// from the loaded sitedefs so it cannot drift from what the API serves. The sites built on a family are
// not listed one by one: adding one changes no generated file (asa sitedef list, /catalogue and asa
// sitedef show give them at run time).
func (r *Registry) Markdown() string {
	var b strings.Builder
	b.WriteString("# Endpoints\n\nGenerated from the sitedefs by `asa sitedef docs`; do not edit by hand. Every endpoint is\n`GET /api/v1/<site>/<resource>` with `api_key`; see [api.md](api.md) for authentication, headers, limits,\nbilling and errors.\n")
	for _, slug := range r.Sites() {
		var own []string
		for _, id := range r.IDs() {
			if strings.HasPrefix(id, slug+".") && r.BaseOf(id) == "" {
				own = append(own, id)
			}
		}
		if len(own) == 0 {
			continue // every endpoint comes from a family: documented under Families
		}
		s := r.Site(slug)
		fmt.Fprintf(&b, "\n## %s (`%s`, %s, version %s)\n", s.Name, slug, s.Category, s.Version)
		if s.Summary != "" {
			fmt.Fprintf(&b, "\n%s\n", s.Summary)
		}
		if as := r.Aliases(slug); len(as) > 0 {
			fmt.Fprintf(&b, "\nAlso answers as `%s`: `GET /api/v1/%s/<resource>` is the same endpoint.\n", strings.Join(as, "`, `"), as[0])
		}
		if s.Domains.Len() > 0 {
			var ds []string
			s.Domains.Each(func(k string, d *sitedef.Domain) { ds = append(ds, fmt.Sprintf("`%s` (%s)", k, d.Host)) })
			fmt.Fprintf(&b, "\nDomains (default `%s`): %s.\n", s.DefaultDomain, strings.Join(ds, ", "))
		}
		for _, id := range own {
			p := r.Plan(id)
			fmt.Fprintf(&b, "\n### `GET /api/v1/%s/%s`\n", slug, p.Endpoint.Resource)
			writeEndpoint(&b, p)
		}
	}
	families := map[string][]string{}
	var names []string
	for _, id := range r.Bases() {
		fam, _, _ := strings.Cut(id, "/")
		if families[fam] == nil {
			names = append(names, fam)
		}
		families[fam] = append(families[fam], id)
	}
	if len(names) > 0 {
		b.WriteString("\n## Families\n\nMany sites share one definition, a family base, mounted with a few lines per site\n" +
			"([sitedef-format.md](sitedef-format.md#families)). Each base below is served on every site of its family as\n" +
			"`GET /api/v1/<site>/<resource>`; a site may add, replace or remove fields. The sites, their hosts and\n" +
			"versions: `asa sitedef list` and the `/catalogue` page; one site's exact definition: `asa sitedef show SITE.RESOURCE`.\n")
	}
	for _, fam := range names {
		for _, id := range families[fam] {
			p := r.Base(id)
			fmt.Fprintf(&b, "\n### `%s` (family `%s`, %s): `GET /api/v1/<site>/%s`\n", id, fam, p.Site.Category, p.Endpoint.Resource)
			writeEndpoint(&b, p)
		}
	}
	return b.String()
}

func writeEndpoint(b *strings.Builder, p *engine.Plan) {
	e, s := p.Endpoint, p.Site
	fmt.Fprintf(b, "\n%s\n", e.Summary)
	if e.Description != "" {
		fmt.Fprintf(b, "\n%s\n", strings.TrimSpace(e.Description))
	}
	b.WriteString("\n| parameter | type | required | default | rule | description |\n|---|---|---|---|---|---|\n")
	e.Params.Each(func(name string, pr *sitedef.Param) {
		typ, rule := pr.Type, ""
		switch {
		case pr.ValuesFrom == "domains":
			rule = "a domain above"
		case len(pr.Values) > 0:
			rule = "one of " + strings.Join(quoteAll(pr.Values), ", ")
		case pr.Pattern != "":
			rule = "matches `" + strings.ReplaceAll(pr.Pattern, "|", `\|`) + "`"
		}
		if pr.Min != nil || pr.Max != nil {
			rule = strings.TrimPrefix(rule+"; "+bounds(pr), "; ")
		}
		if pr.URLPattern != "" {
			rule = strings.TrimPrefix(rule+"; or a URL of the site", "; ")
		}
		req := ""
		if pr.Required {
			req = "yes"
		}
		def := ""
		if pr.Default != nil {
			def = fmt.Sprintf("`%v`", pr.Default)
		} else if pr.ValuesFrom == "domains" && s.DefaultDomain != "" {
			def = "`" + s.DefaultDomain + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s |\n", name, typ, req, def, rule, cell(pr.Description))
	})
	if len(e.Constraints) > 0 {
		var cs []string
		for _, c := range e.Constraints {
			if c.Message != "" {
				cs = append(cs, c.Message)
			} else if len(c.OneOf) > 0 {
				cs = append(cs, "exactly one of "+strings.Join(c.OneOf, ", "))
			}
		}
		fmt.Fprintf(b, "\nAlso: %s.\n", strings.Join(cs, "; "))
	}
	b.WriteString("\n| field | type | description |\n|---|---|---|\n")
	writeFields(b, &e.Fields, "")
	codes := map[string]bool{}
	for _, c := range p.RuleCodes() {
		codes[string(c)] = true
	}
	var cl []string
	for c := range codes {
		if c == "blocked" {
			c = "target_unreachable (blocked)"
		}
		cl = append(cl, "`"+c+"`")
	}
	sort.Strings(cl)
	if len(cl) > 0 {
		fmt.Fprintf(b, "\nErrors its rules produce: %s; and, as for every endpoint, `invalid_params`, `extraction_failed`, `target_unreachable`.\n", strings.Join(cl, ", "))
	}
}

func writeFields(b *strings.Builder, m *sitedef.Map[sitedef.Field], prefix string) {
	m.Each(func(name string, f *sitedef.Field) {
		if f.Hidden {
			return
		}
		typ := f.Type
		if typ == "" {
			typ = "string"
			if f.Fields.Len() > 0 {
				typ = "object"
			}
		}
		desc := f.Description
		if f.Recurse {
			desc = strings.TrimSpace(desc + " (nested like its parent)")
		}
		if f.When != "" {
			desc = strings.TrimSpace(desc + " Present only when `" + f.When + "`.")
		}
		fmt.Fprintf(b, "| `%s%s` | %s | %s |\n", prefix, name, strings.ReplaceAll(typ, "|", `\|`), cell(desc))
		if f.Fields.Len() > 0 {
			sub := prefix + name + "."
			if strings.HasPrefix(typ, "list<") {
				sub = prefix + name + "[]."
			}
			writeFields(b, &f.Fields, sub)
		}
	})
}

func quoteAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = "`" + v + "`"
	}
	return out
}

func bounds(p *sitedef.Param) string {
	unit := ""
	if p.Type == "string" {
		unit = " characters"
	}
	switch {
	case p.Min != nil && p.Max != nil:
		return fmt.Sprintf("%d to %d%s", *p.Min, *p.Max, unit)
	case p.Min != nil:
		return fmt.Sprintf("at least %d%s", *p.Min, unit)
	default:
		return fmt.Sprintf("at most %d%s", *p.Max, unit)
	}
}

func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
