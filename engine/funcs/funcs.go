// Package funcs is the fixed, documented set of pure functions that sitedef expressions can
// call (parseNumber, parsePrice, get, find, reFind, ...), plus the Go entry points to the same
// parsers for code that extracts values without a sitedef.
//
// Every function is nil-safe: a nil or unparsable input gives nil, never a panic, so that
// `select:` lists fall through to their next selector. A call errors at run time only when it is
// malformed (an invalid regular expression, a wrong argument count that the compile-time check
// could not see). docs/functions.md is generated from Docs by this package's tests.
package funcs

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/conf"
)

// Set is the function set. Create it once with New and share it: it is safe for concurrent use
// and its only state is a bounded cache of compiled regular expressions.
type Set struct {
	re   *regexCache
	defs []def
}

// Doc documents one function for docs/functions.md and editor help.
type Doc struct {
	Name      string
	Signature string
	Summary   string
	Examples  []Example
}

// Example is an expression and the JSON encoding of its result. Tests run every example, so the
// documentation cannot drift from the code.
type Example struct {
	Expr string
	Want string
}

// def is one function: its documentation, its expr signatures and its implementation.
type def struct {
	name     string
	group    string
	sig      string
	summary  string
	types    []any // signatures, e.g. new(func(string, string) any); see validator
	fn       func(args ...any) (any, error)
	examples []Example
	// hiddenAs registers the function under another name, reachable only through a patch (see
	// findPatch).
	hiddenAs string
}

// New returns a function set with an empty regexp cache.
func New() *Set {
	s := &Set{re: newRegexCache(regexCacheSize)}
	s.defs = append(s.definitions(), schemaDefinitions()...)
	sort.Slice(s.defs, func(i, j int) bool { return s.defs[i].name < s.defs[j].name })
	return s
}

// Options returns the expr options that register every function with its typed signatures, so
// that argument counts and types are checked when an expression is compiled. Seven names replace
// expr builtins with compatible supersets (get, uniq, flatten, toJSON) or deterministic,
// string-keyed versions (keys, values, fromPairs), and find(v, "key") is
// routed to the deep key search while find(list, predicate) stays expr's builtin. Invalid literal
// regular expressions are compile errors.
//
// The signatures are enforced through a Validate function rather than expr.Function's overload
// list: with overloads, expr reports the error of the last overload tried, so a wrong argument
// type in a one-argument call comes out as "not enough arguments", and it rejects the nil
// arguments these nil-safe functions accept.
func (s *Set) Options() []expr.Option {
	opts := make([]expr.Option, 0, len(s.defs)+2)
	for _, d := range s.defs {
		key := d.name
		if d.hiddenAs != "" {
			key = d.hiddenAs
		}
		f := &builtin.Function{Name: d.name, Func: d.fn, Validate: validator(d.name, d.types)}
		opts = append(opts, func(c *conf.Config) { c.Functions[key] = f })
	}
	// find and findAll with the run's Finds (see FindsPatch): the calls are checked as the
	// two-argument ones are, the third argument being the environment's.
	findsSig := []any{new(func(any, string, any) any)}
	findIn := &builtin.Function{Name: hiddenFindIn, Validate: validator("find", findsSig), Func: func(args ...any) (any, error) {
		if err := arity("find", args, 3, 3); err != nil {
			return nil, err
		}
		fs, _ := args[2].(*Finds)
		if r := fs.find(args[0], args[1], false); len(r) > 0 {
			return r[0], nil
		}
		return nil, nil
	}}
	findAllIn := &builtin.Function{Name: hiddenFindAllIn, Validate: validator("findAll", findsSig), Func: func(args ...any) (any, error) {
		if err := arity("findAll", args, 3, 3); err != nil {
			return nil, err
		}
		fs, _ := args[2].(*Finds)
		r := fs.find(args[0], args[1], true)
		if r == nil {
			r = []any{}
		}
		return r, nil
	}}
	// absURL with the run's Bases (see BasesPatch), checked as the two-argument call is.
	absURLIn := &builtin.Function{Name: hiddenAbsURLIn, Validate: validator("absURL", []any{new(func(string, string, any) any)}),
		Func: func(args ...any) (any, error) {
			if err := arity("absURL", args, 3, 3); err != nil {
				return nil, err
			}
			str, ok := stringOf(args[0])
			if !ok {
				return nil, nil
			}
			bs, _ := args[2].(*Bases)
			return orNil(absURLIn(str, optString(args, 1), bs))
		}}
	split := splitOverride()
	opts = append(opts, func(c *conf.Config) {
		c.Functions["split"] = split
		c.Functions[hiddenFindIn] = findIn
		c.Functions[hiddenFindAllIn] = findAllIn
		c.Functions[hiddenAbsURLIn] = absURLIn
	})
	opts = append(opts, expr.Patch(findPatch{}), func(c *conf.Config) {
		c.Visitors = append(c.Visitors, &patternPatch{set: s, config: c})
	})
	return opts
}

var anyType = reflect.TypeOf((*any)(nil)).Elem()

// validator checks a call's argument types against the signatures (pointers to func types) at
// compile time. An argument of unknown type (any) or nil always passes: the functions decide at
// run time, and are nil-safe.
func validator(name string, sigs []any) func(args []reflect.Type) (reflect.Type, error) {
	fts := make([]reflect.Type, len(sigs))
	for i, sig := range sigs {
		fts[i] = reflect.TypeOf(sig).Elem()
	}
	return func(args []reflect.Type) (reflect.Type, error) {
		var argErr error
		arityOK := false
		for _, ft := range fts {
			n := ft.NumIn()
			if ft.IsVariadic() && len(args) < n-1 || !ft.IsVariadic() && len(args) != n {
				continue
			}
			arityOK = true
			err := func() error {
				for i, a := range args {
					var p reflect.Type
					if ft.IsVariadic() && i >= n-1 {
						p = ft.In(n - 1).Elem()
					} else {
						p = ft.In(i)
					}
					if !argFits(a, p) {
						return fmt.Errorf("%s: argument %d must be %s, not %s", name, i+1, kindName(p), a)
					}
				}
				return nil
			}()
			if err == nil {
				return ft.Out(0), nil
			}
			if argErr == nil {
				argErr = err
			}
		}
		if !arityOK {
			return anyType, fmt.Errorf("%s takes %s, not %d", name, arityText(fts), len(args))
		}
		return anyType, argErr
	}
}

func argFits(a, p reflect.Type) bool {
	if a == nil || a.Kind() == reflect.Interface || p.Kind() == reflect.Interface {
		return true
	}
	for a.Kind() == reflect.Pointer {
		a = a.Elem()
	}
	switch p.Kind() {
	case reflect.String:
		return a.Kind() == reflect.String
	case reflect.Int:
		switch a.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Float32, reflect.Float64:
			return true
		}
		return false
	}
	return a.AssignableTo(p)
}

func kindName(p reflect.Type) string {
	switch p.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int:
		return "a number"
	}
	return p.String()
}

// arityText describes the accepted argument counts: "1 argument", "1 or 2 arguments", "at least
// 1 argument".
func arityText(fts []reflect.Type) string {
	var counts []int
	for _, ft := range fts {
		if ft.IsVariadic() {
			return fmt.Sprintf("at least %d arguments", ft.NumIn()-1)
		}
		counts = append(counts, ft.NumIn())
	}
	sort.Ints(counts)
	words := make([]string, len(counts))
	for i, c := range counts {
		words[i] = fmt.Sprint(c)
	}
	unit := "arguments"
	if len(counts) == 1 && counts[0] == 1 {
		unit = "argument"
	}
	return strings.Join(words, " or ") + " " + unit
}

// Docs lists every function, sorted by name.
func (s *Set) Docs() []Doc {
	out := make([]Doc, len(s.defs))
	for i, d := range s.defs {
		out[i] = Doc{Name: d.name, Signature: d.sig, Summary: d.summary, Examples: append([]Example(nil), d.examples...)}
	}
	return out
}

// groupOf returns the documentation section of a function.
func (s *Set) groupOf(name string) string {
	for _, d := range s.defs {
		if d.name == name {
			return d.group
		}
	}
	return ""
}

// hiddenFind is the name the deep key search is registered under. It is not an identifier, so
// no expression can call it directly; only findPatch produces calls to it.
const hiddenFind = "$find"

// findPatch lets two functions share the name find. expr parses find(x, ...) as its predicate
// builtin (find(items, .price > 0)); a "predicate" that never refers to the element (# or
// .field), such as find(data, "videoId"), cannot be meant as one, so it is rewritten into a call
// of the deep key search.
type findPatch struct{}

func (findPatch) Visit(n *ast.Node) {
	b, ok := (*n).(*ast.BuiltinNode)
	if !ok || b.Name != "find" || len(b.Arguments) != 2 {
		return
	}
	p, ok := b.Arguments[1].(*ast.PredicateNode)
	if !ok || UsesPointer(p.Node) {
		return
	}
	if _, isBool := p.Node.(*ast.BoolNode); isBool {
		return
	}
	callee := &ast.IdentifierNode{Value: hiddenFind}
	callee.SetLocation(b.Location())
	ast.Patch(n, &ast.CallNode{Callee: callee, Arguments: []ast.Node{b.Arguments[0], p.Node}})
}

type pointerFinder struct{ found bool }

func (f *pointerFinder) Visit(n *ast.Node) {
	if _, ok := (*n).(*ast.PointerNode); ok {
		f.found = true
	}
}

// UsesPointer says whether a predicate reads its element (# or .field): find's rewrite here, and
// the engine's projection analysis, which must treat find's answer as that rewrite does.
func UsesPointer(n ast.Node) bool {
	f := &pointerFinder{}
	ast.Walk(&n, f)
	return f.found
}

// Argument helpers for the expr wrappers. Arity is checked at compile time through the typed
// signatures; the checks here only guard calls the checker could not see.

func arity(name string, args []any, min, max int) error {
	if len(args) < min || len(args) > max {
		return fmt.Errorf("%s: wrong number of arguments (%d)", name, len(args))
	}
	return nil
}

// optString returns args[i] as a string, or "" when it is absent or nil.
func optString(args []any, i int) string {
	if i >= len(args) {
		return ""
	}
	s, _ := stringOf(args[i])
	return s
}

// patternArg returns a pattern argument, which must be a string: a nil or numeric pattern is a
// mistake in the sitedef, not missing data.
func patternArg(name string, v any) (string, error) {
	p, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s: pattern must be a string, not %T", name, v)
	}
	return p, nil
}
