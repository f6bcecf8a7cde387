package engine

import (
	"strings"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser/lexer"
	"github.com/expr-lang/expr/types"

	"asa/engine/funcs"
)

// exprEnvKey is the part of env that compiling code depends on, in canonical form: the type of
// each name the code reads, and of a declared object (params, src, fields) only the members it
// reads by name. Two environments that agree there give the same program, so the sites of a
// family share their base's programs although each declares fields of its own (with the whole
// environment in the key, each of them compiled every expression again: with their direct forms,
// about 10 MB of the catalogue's 77). Whenever the code could read env in a way the tokens
// do not show (a declared object used whole or by index, $env, a let that could shadow a name), the
// whole environment is the key, as before.
func exprEnvKey(code string, env types.Map, whole string) string {
	toks, err := lexer.Lex(file.NewSource(code))
	if err != nil {
		return whole
	}
	var b strings.Builder
	// Patches and strictness follow from these, not from the names read.
	for _, k := range []string{funcs.FindsVar, funcs.BasesVar, types.Extra} {
		if t, ok := env[k]; ok {
			b.WriteString(k)
			b.WriteByte('=')
			writeEnvKey(&b, t)
			b.WriteByte(';')
		}
	}
	for i, t := range toks {
		if t.Value == "let" || t.Value == "$env" {
			return whole // whatever kind of token the lexer makes of them
		}
		if t.Kind != lexer.Identifier {
			continue
		}
		if i > 0 && toks[i-1].Kind == lexer.Operator && (toks[i-1].Value == "." || toks[i-1].Value == "?.") {
			continue // a member's name, written below with its base
		}
		typ, ok := env[t.Value]
		b.WriteString(t.Value)
		if !ok {
			b.WriteString(":-;")
			continue
		}
		m, isMap := typ.(types.Map)
		member := i+2 < len(toks) && toks[i+1].Kind == lexer.Operator && (toks[i+1].Value == "." || toks[i+1].Value == "?.") &&
			toks[i+2].Kind == lexer.Identifier
		if !isMap || !member {
			b.WriteByte(':')
			writeEnvKey(&b, typ)
			b.WriteByte(';')
			continue
		}
		// base.name: the member's declared type, else the object's open type, else undeclared.
		name := toks[i+2].Value
		b.WriteByte('.')
		b.WriteString(name)
		b.WriteByte(':')
		if mt, ok := m[name]; ok {
			writeEnvKey(&b, mt)
		} else if xt, ok := m[types.Extra]; ok {
			b.WriteString("extra ")
			writeEnvKey(&b, xt)
		} else {
			b.WriteByte('-')
		}
		b.WriteByte(';')
	}
	return b.String()
}
