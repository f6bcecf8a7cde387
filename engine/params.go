package engine

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"asa/engine/errcode"
)

// Params are validated request parameters: string, int or bool values by declared type; a parameter
// that is absent and has no default is missing from the map.
type Params map[string]any

// MaxParamBytes bounds one parameter value.
const MaxParamBytes = 4096

func invalid(name, format string, args ...any) *errcode.Error {
	e := errcode.New(errcode.InvalidParams, "%s: %s", name, fmt.Sprintf(format, args...))
	e.Params = []string{name}
	return e
}

// Params validates raw query parameters against the endpoint's declarations. Callers remove api_key and
// the reserved parameters first. The error is an *errcode.Error with code invalid_params naming the
// parameter and the rule it broke.
func (p *Plan) Params(raw url.Values) (Params, error) {
	var unknown []string
	for k := range raw {
		if p.paramIdx[k] == nil {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		shown, text := errcode.Listed(unknown)
		e := errcode.New(errcode.InvalidParams, "unknown parameter %s; %s takes %s", text, p.ID, strings.Join(p.paramNames(), ", "))
		e.Params = shown
		return nil, e
	}
	out := Params{}
	given := map[string]bool{}
	// URL values are resolved first: their groups fill other parameters, and a parameter given
	// explicitly must agree with them.
	for _, pr := range p.params {
		vals, ok := raw[pr.name]
		if !ok {
			continue
		}
		if len(vals) != 1 {
			return nil, invalid(pr.name, "given %d times; give it once", len(vals))
		}
		given[pr.name] = true
	}
	for _, pr := range p.params {
		if !given[pr.name] {
			continue
		}
		v := raw.Get(pr.name)
		if len(v) > MaxParamBytes {
			return nil, invalid(pr.name, "longer than %d bytes", MaxParamBytes)
		}
		if pr.urlPattern != nil && looksLikeURL(strings.TrimSpace(v)) {
			if err := p.fromURL(pr, strings.TrimSpace(v), raw, out); err != nil {
				return nil, err
			}
			continue
		}
		if pr.normalize != nil {
			nv, err := evalDirect(nil, pr.normalize, pr.normalizeD, map[string]any{"value": v}, p.verifyDirect)
			if err != nil {
				return nil, invalid(pr.name, "could not be normalised")
			}
			v = stringify(nv)
		}
		if _, done := out[pr.name]; done {
			continue
		}
		cv, err := pr.check(v)
		if err != nil {
			return nil, invalid(pr.name, "%v", err)
		}
		out[pr.name] = cv
	}
	for _, pr := range p.params {
		if _, ok := out[pr.name]; ok {
			continue
		}
		if pr.def != nil {
			cv, err := pr.check(stringify(pr.def))
			if err == nil {
				out[pr.name] = cv
			}
			continue
		}
		if pr.required {
			return nil, invalid(pr.name, "required")
		}
	}
	for _, c := range p.constraints {
		if len(c.oneOf) > 0 {
			n := 0
			for _, name := range c.oneOf {
				if _, ok := out[name]; ok && given[name] {
					n++
				}
			}
			if n != 1 {
				e := errcode.New(errcode.InvalidParams, "give exactly one of %s", strings.Join(c.oneOf, ", "))
				if c.message != "" {
					e.Message = c.message
				}
				e.Params = c.oneOf
				return nil, e
			}
		}
		if c.require != nil {
			ok, err := evalDirect(nil, c.require, c.requireD, map[string]any{"params": map[string]any(out)}, p.verifyDirect)
			if b, isBool := ok.(bool); err != nil || !isBool || !b {
				return nil, errcode.New(errcode.InvalidParams, "%s", c.message)
			}
		}
	}
	return out, nil
}

// Default returns the validated value a parameter takes when a request leaves it out, and whether it
// has one: the sandbox tells the parameters a fixture case really names from those it left at their
// defaults.
func (p *Plan) Default(name string) (any, bool) {
	pr := p.paramIdx[name]
	if pr == nil || pr.def == nil {
		return nil, false
	}
	v, err := pr.check(stringify(pr.def))
	return v, err == nil
}

func (p *Plan) paramNames() []string {
	out := make([]string, len(p.params))
	for i, pr := range p.params {
		out[i] = pr.name
	}
	return out
}

func looksLikeURL(v string) bool {
	l := strings.ToLower(v)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// fromURL fills parameters from the named groups of a URL value.
func (p *Plan) fromURL(pr *param, v string, raw url.Values, out Params) error {
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return invalid(pr.name, "%q is not a valid URL", v)
	}
	m := pr.urlPattern.FindStringSubmatch(v)
	if m == nil {
		if pr.want != "" {
			return invalid(pr.name, "%s is not a URL this endpoint reads; give %s", v, pr.want)
		}
		return invalid(pr.name, "the URL is not one this endpoint recognises (want %s)", pr.urlPattern.String())
	}
	for i, g := range pr.urlPattern.SubexpNames() {
		if g == "" || i == 0 || m[i] == "" {
			continue
		}
		if g == "host" {
			if p.domainParam == "" {
				continue
			}
			dom, ok := p.hostDomain[strings.ToLower(m[i])]
			if !ok {
				dom, ok = p.hostDomain[strings.TrimPrefix(strings.ToLower(m[i]), "www.")]
			}
			if !ok {
				dom, ok = p.regDomain[registrable(m[i])]
			}
			if !ok {
				return invalid(pr.name, "the URL's host %s is not a storefront of this site", m[i])
			}
			if explicit := raw.Get(p.domainParam); explicit != "" && explicit != dom {
				return invalid(p.domainParam, "%q contradicts the URL's storefront %q", explicit, dom)
			}
			out[p.domainParam] = dom
			continue
		}
		target := p.paramIdx[g]
		if target == nil {
			continue
		}
		gv := m[i]
		if target.normalize != nil {
			if nv, err := evalDirect(nil, target.normalize, target.normalizeD, map[string]any{"value": gv}, p.verifyDirect); err == nil {
				gv = stringify(nv)
			}
		}
		cv, err := target.check(gv)
		if err != nil {
			return invalid(g, "taken from the URL: %v", err)
		}
		if g != pr.name {
			if explicit := raw.Get(g); explicit != "" && explicit != m[i] {
				return invalid(g, "%q contradicts the URL's %q", explicit, m[i])
			}
		}
		out[g] = cv
	}
	if _, ok := out[pr.name]; !ok {
		out[pr.name] = v
	}
	return nil
}

// check converts and validates one raw value.
func (pr *param) check(v string) (any, error) {
	switch pr.typ {
	case "int":
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", v)
		}
		if pr.min != nil && n < *pr.min {
			return nil, fmt.Errorf("%d is below the minimum %d", n, *pr.min)
		}
		if pr.max != nil && n > *pr.max {
			return nil, fmt.Errorf("%d is above the maximum %d", n, *pr.max)
		}
		return n, nil
	case "bool":
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true", "1", "yes":
			return true, nil
		case "false", "0", "no", "":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not true or false", v)
	case "enum":
		if !slices.Contains(pr.values, v) {
			return nil, fmt.Errorf("%q is not one of %s", v, strings.Join(pr.values, ", "))
		}
		return v, nil
	case "url":
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%q is not a full http(s) URL", v)
		}
		return v, nil
	default:
		if !utf8.ValidString(v) {
			return nil, fmt.Errorf("not valid UTF-8")
		}
		if v == "" {
			return nil, fmt.Errorf("empty")
		}
		n := utf8.RuneCountInString(v)
		if pr.min != nil && n < *pr.min {
			return nil, fmt.Errorf("shorter than %d characters", *pr.min)
		}
		if pr.max != nil && n > *pr.max {
			return nil, fmt.Errorf("longer than %d characters", *pr.max)
		}
		if pr.pattern != nil && !pr.pattern.MatchString(v) {
			if pr.want != "" {
				return nil, fmt.Errorf("%q is not valid; give %s", v, pr.want)
			}
			return nil, fmt.Errorf("%q does not match %s", v, strings.TrimSuffix(strings.TrimPrefix(pr.pattern.String(), "^(?:"), ")$"))
		}
		return v, nil
	}
}

// inEnum checks a value against the enum tag of a sitedef model field, so the allowed values live once.
func inEnum(model any, field, v string) bool {
	t := reflect.TypeOf(model)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	f, ok := t.FieldByName(field)
	if !ok {
		return false
	}
	return slices.Contains(strings.Split(f.Tag.Get("enum"), ","), v)
}
