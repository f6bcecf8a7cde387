package engine

import (
	"reflect"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm/runtime"
)

// Member access in expressions (fields.link, params.query, domain.host, item.price) is what a
// sitedef's expressions do most. expr compiles it to a generic fetch: reflection on the map, and a
// copy of the value on the heap for every access (a tenth of a list page's allocations). memberFn
// is the same fetch with a direct path for map[string]any, which every environment map and every
// decoded JSON object is; memberPatch rewrites the accesses into calls of it before the checker runs.

// memberFn is the name of the member function; '$' keeps a sitedef from calling it (the parser
// reads no identifier starting with it but $env).
const memberFn = "$member"

// objectFn is the name of the function an optional member access of unknown type reads its base
// through (objectPatch).
const objectFn = "$object"

// memberOptions declare memberFn and objectFn to the expression compiler.
func memberOptions() []expr.Option {
	return []expr.Option{
		expr.Function(memberFn, func(args ...any) (any, error) {
			if m, ok := args[0].(map[string]any); ok {
				return m[args[1].(string)], nil
			}
			// Anything else fetches as the access did (a nil base panics as it did).
			return runtime.Fetch(args[0], args[1]), nil
		}, new(func(any, string) any)),
		expr.Function(objectFn, func(args ...any) (any, error) {
			return objectOrNil(args[0]), nil
		}, new(func(any) any)),
	}
}

// objectOrNil is v when names can be read from it (a map, a struct or a pointer to one), else nil.
func objectOrNil(v any) any {
	switch v.(type) {
	case map[string]any:
		return v
	case nil, []any, string, float64, int, bool:
		return nil
	}
	switch reflect.TypeOf(v).Kind() {
	case reflect.Map, reflect.Struct, reflect.Pointer, reflect.Interface:
		return v
	}
	return nil
}

// memberPatch rewrites x.name (and x["name"]) into $member(x, "name") where x is an environment
// name whose value is untyped (item, value) or a map declaring name with a type that is not itself a
// map, a predicate's element (#), or such a rewritten access (item.a.b). A name a closed map does not declare (a misspelt
// fields.x) is left to the checker, which reports it as before; so is a map of maps (steps.x.body),
// whose inner names the checker checks. Optional (x?.name) and method accesses are left as written.
// The rewritten access answers what the fetch did; only its static type is lost (any), and the
// compiler emits the same generic operations for any as for the declared scalar types.
type memberPatch struct{ env types.Map }

func (p memberPatch) Visit(node *ast.Node) {
	m, ok := (*node).(*ast.MemberNode)
	if !ok || m.Method {
		return
	}
	name, ok := m.Property.(*ast.StringNode)
	if ok && m.Optional {
		optionalObject(m)
		return
	}
	if m.Optional {
		return
	}
	if !ok || !p.untypedBase(m.Node, name.Value) {
		return
	}
	call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: memberFn}, Arguments: []ast.Node{m.Node, m.Property}}
	call.Callee.SetLocation(m.Location())
	ast.Patch(node, call)
}

// untypedBase reports whether base.name fetches from a value whose static type tells the compiler
// nothing the generic fetch would use.
func (p memberPatch) untypedBase(base ast.Node, name string) bool {
	switch b := base.(type) {
	case *ast.CallNode:
		id, ok := b.Callee.(*ast.IdentifierNode)
		return ok && id.Value == memberFn
	case *ast.PointerNode:
		// # in a predicate (count(items, #.is_sponsored)): an element of items or of a function's
		// list, which are decoded JSON or objects the run built.
		return b.Name == ""
	case *ast.IdentifierNode:
		t, ok := p.env[b.Value]
		if !ok {
			return false
		}
		if t == types.Any {
			return true
		}
		m, ok := t.(types.Map)
		if !ok {
			return false
		}
		v, ok := m[name]
		if !ok {
			v, ok = m[types.Extra]
		}
		if !ok {
			return false
		}
		_, isMap := v.(types.Map)
		return !isMap
	}
	return false
}

// optionalObject makes x?.name, x of no declared type, end its chain with nil when x is not an
// object: a list, a string, a number or a boolean has no names. expr's fetch answers those with an
// error ("invalid operation: int(string)" for a list), and an expression error is a warning and a
// nil field, so a rule written to refuse an answer of the wrong shape (src.listing?.kind !=
// "Listing" given a JSON array) did not fire, and the answer came out as a 200 of empty fields. The
// base is read through objectFn, whose nil the optional access turns into the chain's nil. A base
// of a declared map type (params, domain, fields) is left as written, so the checker still refuses
// a name the map does not declare; a plain x.name keeps its error, which the sitedef tests report.
func optionalObject(m *ast.MemberNode) {
	if t := m.Node.Type(); t != nil && t.Kind() != reflect.Interface {
		return
	}
	call := &ast.CallNode{Callee: &ast.IdentifierNode{Value: objectFn}, Arguments: []ast.Node{m.Node}}
	call.Callee.SetLocation(m.Node.Location())
	call.SetLocation(m.Node.Location())
	m.Node = call
}
