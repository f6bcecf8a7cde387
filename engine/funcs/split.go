package funcs

import (
	"fmt"
	"reflect"
	"strings"

	"asa/engine/regexfast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/vm/runtime"
)

// minFastSplit is the input length from which Split searches by the separator's rare byte;
// below it strings.Index answers as fast.
const minFastSplit = 256

// Split is strings.SplitN(s, sep, n) (strings.Split with n < 0), the same parts in a slice of the
// same length and capacity, with each separator found by regexfast.Index: a split of a page at
// `id="ufi_<id>"` or `data-sigil="comment">` (facebook) spent its time in strings.Index, which
// stops at every occurrence of the separator's first byte, and strings.Split searched the whole
// text twice (once to count the parts).
func Split(s, sep string, n int) []string {
	if n == 0 || sep == "" || len(s) < minFastSplit || len(sep) < 2 {
		return strings.SplitN(s, sep, n)
	}
	if n > 0 {
		// strings.SplitN's slice: room for n parts, at most one part a byte and one more.
		a := make([]string, min(n, len(s)+1))
		i := 0
		for i < len(a)-1 {
			m := regexfast.Index(s, sep)
			if m < 0 {
				break
			}
			a[i] = s[:m]
			s = s[m+len(sep):]
			i++
		}
		a[i] = s
		return a[:i+1]
	}
	var a []string
	for {
		m := regexfast.Index(s, sep)
		if m < 0 {
			break
		}
		a = append(a, s[:m])
		s = s[m+len(sep):]
	}
	a = append(a, s)
	// strings.Split's slice holds the parts exactly (it counts them first).
	return a[:len(a):len(a)]
}

// splitOverride is expr's builtin split, registered under its name so that the parser makes a
// call of it where it would make one of the builtin (expr lets a function replace a builtin): the
// builtin's signatures, so a call is typed as before, and its answer with the parts found by
// Split. The arguments are dereferenced first, as the VM does before it calls a builtin;
// arguments of other types go to the builtin, which answers or panics as it did.
func splitOverride() *builtin.Function {
	std := builtin.Builtins[builtin.Index["split"]]
	return &builtin.Function{Name: std.Name, Types: std.Types, Func: func(args ...any) (any, error) {
		if len(args) < 2 || len(args) > 3 {
			return std.Func(args...)
		}
		s, ok1 := deref(args[0]).(string)
		sep, ok2 := deref(args[1]).(string)
		if !ok1 || !ok2 {
			return std.Func(derefAll(args)...)
		}
		n := -1
		if len(args) == 3 {
			n = runtime.ToInt(deref(args[2]))
		}
		return Split(s, sep, n), nil
	}}
}

// deref is what the VM's OpDeref leaves of v (expr's internal deref.Interface): v, or what the
// pointers and interfaces it holds point to, nil for a nil one.
func deref(v any) any {
	if v == nil {
		return nil
	}
	switch v.(type) {
	case string, int, float64:
		return v
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return nil
		}
		rv = rv.Elem()
	}
	if rv.IsValid() {
		return rv.Interface()
	}
	panic(fmt.Sprintf("cannot dereference %v", v))
}

func derefAll(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		out[i] = deref(a)
	}
	return out
}
