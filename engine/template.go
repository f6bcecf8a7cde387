package engine

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/vm"
)

// template is a string with ${ expr } parts.
type template struct {
	src   string
	parts []tplPart
	// verify runs every part with a direct form on the VM too, and fails when the two differ (tests).
	verify bool
}

type tplPart struct {
	lit  string
	prog *vm.Program // nil for a literal
	d    direct      // prog's direct form, or nil
	code string
}

// withDirect gives t's expressions their direct forms (see direct.go): a request's URL and query
// are built before the page is fetched, when the VM's code is not yet in the cache on a busy server.
func (t *template) withDirect(compile func(*vm.Program) direct, verify bool) *template {
	for i := range t.parts {
		t.parts[i].d = compile(t.parts[i].prog)
	}
	t.verify = verify
	return t
}

// run evaluates one expression part in env.
func (t *template) run(m *vm.VM, p *tplPart, env map[string]any) (any, error) {
	return evalDirect(m, p.prog, p.d, env, t.verify)
}

// parseTemplate splits s into literals and expressions; compile is called for each expression.
func parseTemplate(s string, compile func(code string) (*vm.Program, error)) (*template, error) {
	t := &template{src: s}
	rest := s
	for {
		i := strings.Index(rest, "${")
		if i < 0 {
			if rest != "" {
				t.parts = append(t.parts, tplPart{lit: rest})
			}
			return t, nil
		}
		if i > 0 {
			t.parts = append(t.parts, tplPart{lit: rest[:i]})
		}
		end := closingBrace(rest[i+2:])
		if end < 0 {
			return nil, fmt.Errorf("unclosed ${ in template %q", s)
		}
		code := strings.TrimSpace(rest[i+2 : i+2+end])
		if code == "" {
			return nil, fmt.Errorf("empty ${ } in template %q", s)
		}
		p, err := compile(code)
		if err != nil {
			return nil, err
		}
		t.parts = append(t.parts, tplPart{prog: p, code: code})
		rest = rest[i+2+end+1:]
	}
}

// closingBrace finds the } that closes an expression, skipping nested braces and quoted strings.
func closingBrace(s string) int {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// single reports whether the template is exactly one expression, whose value is used as it is.
func (t *template) single() bool { return len(t.parts) == 1 && t.parts[0].prog != nil }

// eval renders the template. escape, when set, is applied to expression values (path escaping in URLs).
func (t *template) eval(m *vm.VM, env map[string]any, escape func(string) string) (string, error) {
	if t == nil {
		return "", nil
	}
	if len(t.parts) == 1 && t.parts[0].prog == nil {
		return t.parts[0].lit, nil
	}
	var b strings.Builder
	for i := range t.parts {
		p := &t.parts[i]
		if p.prog == nil {
			b.WriteString(p.lit)
			continue
		}
		v, err := t.run(m, p, env)
		if err != nil {
			return "", fmt.Errorf("evaluating ${ %s }: %w", p.code, err)
		}
		s := stringify(v)
		if escape != nil && !t.single() {
			s = escape(s)
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// value evaluates a template that may be a single expression, keeping its type (JSON bodies).
func (t *template) value(m *vm.VM, env map[string]any) (any, error) {
	if t.single() {
		return t.run(m, &t.parts[0], env)
	}
	return t.eval(m, env, nil)
}

// evalURL renders a URL template: values inside the path are path-escaped, values after ? are
// query-escaped, and a template that is one expression alone is taken as a whole URL.
func (t *template) evalURL(m *vm.VM, env map[string]any) (string, error) {
	if t.single() {
		return t.eval(m, env, nil)
	}
	inQuery := false
	var b strings.Builder
	for i := range t.parts {
		p := &t.parts[i]
		if p.prog == nil {
			b.WriteString(p.lit)
			if strings.Contains(p.lit, "?") {
				inQuery = true
			}
			continue
		}
		v, err := t.run(m, p, env)
		if err != nil {
			return "", fmt.Errorf("evaluating ${ %s }: %w", p.code, err)
		}
		s := stringify(v)
		// The scheme and host come first: a value before the first path slash is a host, not escaped.
		if !strings.Contains(strings.TrimPrefix(strings.TrimPrefix(b.String(), "https://"), "http://"), "/") {
			b.WriteString(s)
			continue
		}
		if inQuery {
			b.WriteString(url.QueryEscape(s))
		} else {
			b.WriteString(url.PathEscape(s))
		}
	}
	return b.String(), nil
}

func stringify(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		if x == float64(int64(x)) {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		// a parameter's default (pages: 1), read on every request: fmt's printer state, which a
		// collection empties, is not worth taking for it
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	default:
		return fmt.Sprint(x)
	}
}
