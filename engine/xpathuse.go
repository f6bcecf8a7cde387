package engine

// XPathField is a field of a plan as its XPaths see it, for measuring another XPath engine on the
// same work (cmd/benchcompare): the XPaths a field tries in order until one gives a value, and for a
// list of objects or an object, the fields evaluated from each node (or the first node) selected.
type XPathField struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"` // "value", "list" (list of objects) or "object"
	All    bool     `json:"all"`  // every node's text, not the first node's
	XPaths []string `json:"xpaths"`
	// Fields are evaluated from each node a list selects, or from the node an object selects (from
	// the field's own context when the object has no XPath).
	Fields []XPathField `json:"fields,omitempty"`
}

// XPathWork lists what the plan evaluates by XPath on a page of its last step: the rules' XPaths
// (each tested for a node), the step variables', the JSON sources', then the fields. Selectors of
// other kinds (expressions, regular expressions, constants) are left out.
func (p *Plan) XPathWork() (checks []string, fields []XPathField) {
	p.eachMatcher(func(m *matcher) {
		if m.xpath != nil {
			checks = append(checks, m.xpath.String())
		}
	})
	for _, s := range p.steps {
		for _, v := range s.vars {
			if v.sel != nil && v.sel.xpath != nil {
				checks = append(checks, v.sel.xpath.String())
			}
		}
		for _, src := range s.sources {
			if src.xpathJSON != nil {
				checks = append(checks, src.xpathJSON.String())
			}
		}
	}
	return checks, xpathFields(p.fields)
}

func xpathFields(fs []*field) []XPathField {
	var out []XPathField
	for _, f := range fs {
		xf := XPathField{Name: f.name, Kind: "value", All: f.kind == kList}
		switch {
		case f.kind == kList && f.elem == kObject:
			xf.Kind = "list"
		case f.kind == kObject && len(f.children) > 0:
			xf.Kind = "object"
		}
		for _, s := range f.sels {
			if s.kind == selXPath {
				xf.All = xf.All || s.all
				xf.XPaths = append(xf.XPaths, s.xpath.String())
			}
		}
		if xf.Kind != "value" && f.recurse == nil {
			// A recursive list (a comment tree) is measured one level deep.
			xf.Fields = xpathFields(f.children)
		}
		if len(xf.XPaths) > 0 || len(xf.Fields) > 0 {
			out = append(out, xf)
		}
	}
	return out
}
