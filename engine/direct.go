package engine

import (
	"fmt"
	"reflect"
	"strings"

	"asa/engine/regexfast"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/vm"
	"github.com/expr-lang/expr/vm/runtime"
)

// Most of a sitedef's expressions are a member read (fields.price_text, item?.name) or one call of
// a function on the value (parsePrice(value, domain.locale), absURL(value, base)). Run on the VM,
// each pays for its setup, an argument buffer and a call through the function table per member
// read, which on a list page of fifty cards came to about as much as the functions' own work. A
// direct evaluator is the same computation as Go closures over the checked tree. It knows a few
// kinds of node; a program with any other has none, and at run time anything it does not answer
// exactly as the VM would (a value of another type, an error, a panic) makes it give up, and the
// program runs on the VM. The programs are pure, so running one again is the same as running it once.

// direct evaluates a program in env; ok false means: run it on the VM.
type direct func(env map[string]any) (v any, ok bool)

// state is a node's outcome: a value, a give-up, or an optional member of a nil (x?.y with x nil),
// which ends the chain it is in with nil.
type state uint8

const (
	stOK state = iota
	stFail
	stChainNil
)

type dnode func(f *frame) (any, state)

// directVar is the environment name under which a run passes its *frame; '$' keeps a sitedef from
// naming it.
const directVar = "$direct"

// frame is a run's scratch for direct evaluation: the environment of the evaluation under way, and
// the argument buffer its calls take their arguments from, as the VM's calls take theirs from one
// buffer per run of a program; a buffer per call was an allocation per call. A call's slots are
// cleared when it returns, so a function that kept its arguments (none does: the VM's buffer
// outlives a call too) would see them change, which a verifying engine reports. A run is one
// goroutine.
type frame struct {
	env  map[string]any
	args []any
	top  int // args[top:] is free
	// elem is the element a predicate is evaluated for (#), set by the builtin running it.
	elem any
	// vars are the values of the let variables in scope, vars[vbase:] the evaluation's own: a
	// variable declared at depth d of the expression is vars[vbase+d] while its body runs.
	vars  []any
	vbase int
	// counts is where each count over items stopped (see countmemo.go).
	counts []countMemo
}

// dctx is what compiling a node needs: the function table and the let variables in scope, the
// innermost last (an identifier names the innermost variable of its name, else the environment's).
type dctx struct {
	fns  map[string]*builtin.Function
	vars []string
}

// variable returns the depth of the variable an identifier names, or -1 for an environment name.
func (cx *dctx) variable(name string) int {
	for d := len(cx.vars) - 1; d >= 0; d-- {
		if cx.vars[d] == name {
			return d
		}
	}
	return -1
}

func newFrame() *frame { return &frame{} }

// evalDirect runs p in env: by its direct form d when it has one and that answers, else on m (nil:
// a VM of its own). verify (tests) runs p on the VM as well and panics when the two differ: the
// parameters and the request have no warnings to carry a difference, and an error would pass for a
// refused parameter.
func evalDirect(m *vm.VM, p *vm.Program, d direct, env map[string]any, verify bool) (any, error) {
	if d != nil {
		if v, ok := d(env); ok {
			if verify {
				if x, err := runOn(m, p, env); err != nil || !reflect.DeepEqual(x, v) {
					panic(fmt.Sprintf("direct evaluation of %q gave %#v, the VM %#v (%v)", p.Source().String(), v, x, err))
				}
			}
			return v, nil
		}
	}
	return runOn(m, p, env)
}

func runOn(m *vm.VM, p *vm.Program, env map[string]any) (any, error) {
	if m == nil {
		return vm.Run(p, env)
	}
	return m.Run(p, env)
}

// compileDirect returns p's direct evaluator, or nil when p has a node it does not know. c is the
// expression compiler's configuration (its function table).
func compileDirect(p *vm.Program, c *conf.Config) direct {
	// Without short-circuit evaluation the VM evaluates both sides of && and ||.
	if p == nil || !c.ShortCircuit {
		return nil
	}
	n := directNode(p.Node(), &dctx{fns: c.Functions})
	if n == nil {
		return nil
	}
	return func(env map[string]any) (any, bool) {
		f, _ := env[directVar].(*frame)
		if f == nil {
			f = newFrame()
		}
		prev, top, vbase := f.env, f.top, f.vbase
		f.env, f.vbase = env, len(f.vars)
		v, st := n(f)
		f.env, f.top, f.vbase = prev, top, vbase
		return v, st == stOK
	}
}

func directNode(n ast.Node, cx *dctx) dnode {
	// The compiler dereferences pointer operands; no environment value is one.
	if t := n.Type(); t != nil && t.Kind() == reflect.Pointer {
		return nil
	}
	switch x := n.(type) {
	case *ast.NilNode:
		return constant(nil)
	case *ast.StringNode:
		return constant(x.Value)
	case *ast.IntegerNode:
		// The compiler converts an integer literal to its checked type (float64 in 1.5 + 1).
		if t := x.Type(); t != nil && t.Kind() != reflect.Int && t.Kind() != reflect.Interface {
			return nil
		}
		return constant(x.Value)
	case *ast.FloatNode:
		if t := x.Type(); t != nil && t.Kind() == reflect.Float32 {
			return nil
		}
		return constant(x.Value)
	case *ast.BoolNode:
		return constant(x.Value)
	case *ast.IdentifierNode:
		// $env is the whole environment, not one of its names.
		if x.Value == "$env" {
			return nil
		}
		name := x.Value
		if d := cx.variable(name); d >= 0 {
			return func(f *frame) (any, state) { return f.vars[f.vbase+d], stOK }
		}
		return func(f *frame) (any, state) { return f.env[name], stOK }
	case *ast.VariableDeclaratorNode:
		// let name = value; expr
		val := directNode(x.Value, cx)
		if val == nil {
			return nil
		}
		cx.vars = append(cx.vars, x.Name)
		body := directNode(x.Expr, cx)
		cx.vars = cx.vars[:len(cx.vars)-1]
		if body == nil {
			return nil
		}
		return func(f *frame) (any, state) {
			v, st := val(f)
			if st != stOK {
				return nil, st
			}
			at := len(f.vars)
			f.vars = append(f.vars, v)
			out, st := body(f)
			f.vars[at] = nil
			f.vars = f.vars[:at]
			return out, st
		}
	case *ast.ChainNode:
		inner := directNode(x.Node, cx)
		if inner == nil {
			return nil
		}
		return func(f *frame) (any, state) {
			v, st := inner(f)
			switch {
			case st == stChainNil:
				return nil, stOK
			case st == stFail:
				return nil, stFail
			case runtime.IsNil(v):
				// The VM ends a chain with an untyped nil.
				return nil, stOK
			}
			return v, stOK
		}
	case *ast.MemberNode:
		if x.Method {
			return nil
		}
		prop, ok := x.Property.(*ast.StringNode)
		if !ok {
			return directIndex(x, cx)
		}
		base := directNode(x.Node, cx)
		if base == nil {
			return nil
		}
		name, optional := prop.Value, x.Optional
		return func(f *frame) (any, state) {
			b, st := base(f)
			if st != stOK {
				return nil, st
			}
			if optional && runtime.IsNil(b) {
				return nil, stChainNil
			}
			return member(b, name)
		}
	case *ast.MapNode:
		// A literal of string keys (a request's {all: "", albums: "a"}[params.item_type]): a new
		// map each time, as the VM makes one.
		keys, vals := make([]string, len(x.Pairs)), make([]dnode, len(x.Pairs))
		for i, p := range x.Pairs {
			pair, ok := p.(*ast.PairNode)
			if !ok {
				return nil
			}
			k, ok := pair.Key.(*ast.StringNode)
			if !ok {
				return nil
			}
			if vals[i] = directNode(pair.Value, cx); vals[i] == nil {
				return nil
			}
			keys[i] = k.Value
		}
		return func(f *frame) (any, state) {
			m := make(map[string]any, len(keys))
			for i, k := range keys {
				v, st := vals[i](f)
				if st != stOK {
					return nil, stFail
				}
				m[k] = v
			}
			return m, stOK
		}
	case *ast.CallNode:
		id, ok := x.Callee.(*ast.IdentifierNode)
		if !ok {
			return nil
		}
		fn, ok := cx.fns[id.Value]
		if !ok || fn.Func == nil {
			return nil
		}
		args := directArgs(x.Arguments, cx)
		if args == nil && len(x.Arguments) > 0 {
			return nil
		}
		if id.Value == objectFn && len(args) == 1 {
			arg := args[0]
			return func(f *frame) (any, state) {
				v, st := arg(f)
				if st != stOK {
					return nil, st
				}
				return objectOrNil(v), stOK
			}
		}
		if id.Value == memberFn && len(args) == 2 {
			base, key := args[0], args[1]
			return func(f *frame) (any, state) {
				b, st := base(f)
				if st != stOK {
					return nil, st
				}
				k, st := key(f)
				if st != stOK {
					return nil, st
				}
				name, ok := k.(string)
				if !ok {
					return nil, stFail
				}
				return member(b, name)
			}
		}
		return callOf(fn.Func, args, false)
	case *ast.PointerNode:
		// # in a predicate; #index, #acc and the like are the VM's.
		if x.Name != "" {
			return nil
		}
		return func(f *frame) (any, state) { return f.elem, stOK }
	case *ast.BuiltinNode:
		if x.Name == "count" {
			return directCount(x, cx)
		}
		// The builtins without a predicate (int, float, string, len, lower, ...): the compiler
		// emits a plain call of their Fast or Func form. Safe forms count memory, which is left to
		// the VM.
		id, ok := builtin.Index[x.Name]
		if !ok || closureBuiltins[x.Name] {
			return nil
		}
		f := builtin.Builtins[id]
		if f.Fast == nil && (f.Safe != nil || f.Func == nil) {
			return nil
		}
		args := directArgs(x.Arguments, cx)
		if args == nil && len(x.Arguments) > 0 {
			return nil
		}
		if f.Fast != nil {
			if len(args) != 1 {
				return nil
			}
			fast, arg := f.Fast, args[0]
			return func(f *frame) (any, state) {
				v, st := arg(f)
				if st != stOK {
					return nil, st
				}
				if !plain(v) {
					return nil, stFail
				}
				return callFast(fast, v)
			}
		}
		return callOf(f.Func, args, true)
	case *ast.UnaryNode:
		if x.Operator != "!" && x.Operator != "not" {
			return nil
		}
		arg := directNode(x.Node, cx)
		if arg == nil {
			return nil
		}
		return func(f *frame) (any, state) {
			v, st := arg(f)
			if st != stOK {
				return nil, st
			}
			b, ok := v.(bool)
			if !ok {
				return nil, stFail
			}
			return !b, stOK
		}
	case *ast.ConditionalNode:
		cond, yes, no := directNode(x.Cond, cx), directNode(x.Exp1, cx), directNode(x.Exp2, cx)
		if cond == nil || yes == nil || no == nil {
			return nil
		}
		return func(f *frame) (any, state) {
			c, st := cond(f)
			if st != stOK {
				return nil, st
			}
			b, ok := c.(bool)
			if !ok {
				return nil, stFail
			}
			if b {
				return yes(f)
			}
			return no(f)
		}
	case *ast.BinaryNode:
		l, r := directNode(x.Left, cx), directNode(x.Right, cx)
		if l == nil || r == nil {
			return nil
		}
		switch x.Operator {
		case "??":
			return func(f *frame) (any, state) {
				v, st := l(f)
				if st != stOK {
					return nil, st
				}
				if !runtime.IsNil(v) {
					return v, stOK
				}
				return r(f)
			}
		case "&&", "and", "||", "or":
			and := x.Operator == "&&" || x.Operator == "and"
			return func(f *frame) (any, state) {
				v, st := l(f)
				if st != stOK {
					return nil, st
				}
				b, ok := v.(bool)
				if !ok {
					return nil, stFail
				}
				if b != and {
					return b, stOK
				}
				return r(f)
			}
		case "contains":
			// the VM's OpContains: false with a nil side, a panic (left to the VM) with a side
			// that is not a string
			return func(f *frame) (any, state) {
				a, st := l(f)
				if st != stOK {
					return nil, st
				}
				b, st := r(f)
				if st != stOK {
					return nil, st
				}
				if runtime.IsNil(a) || runtime.IsNil(b) {
					return false, stOK
				}
				as, ok1 := a.(string)
				bs, ok2 := b.(string)
				if !ok1 || !ok2 {
					return nil, stFail
				}
				// By the needle's rare byte on a long text: `body contains ("id=\"ufi_" + id)`
				// over a whole page stopped strings.Index at every 'i'.
				if len(as) >= minRareContains {
					return regexfast.Index(as, bs) >= 0, stOK
				}
				return strings.Contains(as, bs), stOK
			}
		case "==", "!=", "+", "-", "*", "<", ">", "<=", ">=":
			op := x.Operator
			return func(f *frame) (any, state) {
				a, st := l(f)
				if st != stOK {
					return nil, st
				}
				b, st := r(f)
				if st != stOK {
					return nil, st
				}
				return binary(op, a, b)
			}
		}
	}
	return nil
}

// directCount is count(list, predicate) over a []any, as the VM runs it: the predicate is
// evaluated for each element in order and must give a bool (the VM panics otherwise), and the
// answer is an int. count(items, !#.is_sponsored) runs once per card of a list page, over the cards
// before it. The forms the optimizer gives an early exit (count(...) > n) and other collections
// are the VM's.
func directCount(x *ast.BuiltinNode, cx *dctx) dnode {
	if len(x.Arguments) != 2 || x.Threshold != nil {
		return nil
	}
	pred, ok := x.Arguments[1].(*ast.PredicateNode)
	if !ok {
		return nil
	}
	coll, body := directNode(x.Arguments[0], cx), directNode(pred.Node, cx)
	if coll == nil || body == nil {
		return nil
	}
	carries := countCarries(x.Arguments[0], pred.Node, cx)
	return func(f *frame) (any, state) {
		c, st := coll(f)
		if st != stOK {
			return nil, st
		}
		l, ok := c.([]any)
		if !ok {
			return nil, stFail
		}
		prev := f.elem
		defer func() { f.elem = prev }()
		from, n := 0, 0
		var memo *countMemo
		if carries {
			memo = f.countMemo(x)
			from, n = memo.carried(l)
		}
		for _, e := range l[from:] {
			f.elem = e
			v, st := body(f)
			b, ok := v.(bool)
			if st != stOK || !ok {
				return nil, stFail
			}
			if b {
				n++
			}
		}
		if memo != nil {
			memo.list, memo.n = l, n
		}
		return n, stOK
	}
}

// directIndex is x[i] with an index that is not a member name: an integer literal (split(u,
// "?")[0]) or a key computed at run time ({all: "", albums: "a"}[params.item_type]), as the VM's
// OpFetch runs it: runtime.Fetch, whose panic (an index out of range, a key of another type, a base
// it cannot index) is left to the VM.
func directIndex(x *ast.MemberNode, cx *dctx) dnode {
	base, key := directNode(x.Node, cx), directNode(x.Property, cx)
	if base == nil || key == nil {
		return nil
	}
	optional := x.Optional
	return func(f *frame) (any, state) {
		b, st := base(f)
		if st != stOK {
			return nil, st
		}
		if optional && runtime.IsNil(b) {
			return nil, stChainNil
		}
		k, st := key(f)
		if st != stOK {
			return nil, st
		}
		return fetch(b, k)
	}
}

func fetch(from, i any) (v any, st state) {
	defer func() {
		if recover() != nil {
			v, st = nil, stFail
		}
	}()
	return runtime.Fetch(from, i), stOK
}

// directArgs are the direct forms of args, or nil when one has none.
func directArgs(args []ast.Node, cx *dctx) []dnode {
	out := make([]dnode, len(args))
	for i, a := range args {
		if out[i] = directNode(a, cx); out[i] == nil {
			return nil
		}
	}
	return out
}

// callOf evaluates args and calls fn with them. With deref, a pointer argument is left to the VM,
// which dereferences the arguments of a builtin.
func callOf(fn func(...any) (any, error), args []dnode, deref bool) dnode {
	n := len(args)
	return func(f *frame) (any, state) {
		at := f.top
		if at+n > len(f.args) {
			// The calls under way keep their slots of the old buffer.
			f.args = make([]any, 2*(at+n))
		}
		// The arguments' own calls take the slots above these.
		f.top = at + n
		vals := f.args[at : at+n : at+n]
		st := stOK
		for i, a := range args {
			if vals[i], st = a(f); st == stOK && deref && !plain(vals[i]) {
				st = stFail
			}
			if st != stOK {
				break
			}
		}
		var out any
		if st == stOK {
			out, st = call(fn, vals)
		}
		clear(vals)
		f.top = at
		return out, st
	}
}

// minRareContains is the text length from which contains looks for its needle by the needle's
// rare byte (regexfast.Index): below it strings.Contains is as fast.
const minRareContains = 1024

// closureBuiltins are the builtins the compiler turns into loops over a predicate.
var closureBuiltins = map[string]bool{"all": true, "none": true, "any": true, "one": true, "filter": true, "map": true,
	"count": true, "sum": true, "find": true, "findIndex": true, "findLast": true, "findLastIndex": true,
	"groupBy": true, "sortBy": true, "reduce": true}

// plain reports whether v is what the VM's dereference before a builtin call leaves as it is: not
// a pointer.
func plain(v any) bool {
	return v == nil || reflect.TypeOf(v).Kind() != reflect.Pointer
}

func constant(v any) dnode {
	return func(*frame) (any, state) { return v, stOK }
}

// member is base.name as the VM fetches it, for the objects the VM would fetch it from by a map
// read; other bases are left to the VM.
func member(base any, name string) (any, state) {
	if m, ok := base.(map[string]any); ok {
		return m[name], stOK
	}
	return nil, stFail
}

// call runs a function of the table; an error or a panic is left to the VM, which reports it.
func call(f func(...any) (any, error), args []any) (v any, st state) {
	defer func() {
		if recover() != nil {
			v, st = nil, stFail
		}
	}()
	v, err := f(args...)
	if err != nil {
		return nil, stFail
	}
	return v, stOK
}

// callFast is call for a builtin's one-argument form.
func callFast(f func(any) any, arg any) (v any, st state) {
	defer func() {
		if recover() != nil {
			v, st = nil, stFail
		}
	}()
	return f(arg), stOK
}

// binary is the VM's ==, !=, +, -, * and the comparisons (runtime.Equal, Add, Subtract, Multiply,
// Less, More, LessOrEqual, MoreOrEqual; a panic is left to the VM). The VM dereferences the operands
// of all but ==, != and +: a pointer there is left to it.
func binary(op string, a, b any) (v any, st state) {
	defer func() {
		if recover() != nil {
			v, st = nil, stFail
		}
	}()
	if op != "==" && op != "!=" && op != "+" && (!plain(a) || !plain(b)) {
		return nil, stFail
	}
	switch op {
	case "<":
		return runtime.Less(a, b), stOK
	case ">":
		return runtime.More(a, b), stOK
	case "<=":
		return runtime.LessOrEqual(a, b), stOK
	case ">=":
		return runtime.MoreOrEqual(a, b), stOK
	case "==":
		return runtime.Equal(a, b), stOK
	case "!=":
		return !runtime.Equal(a, b), stOK
	case "-":
		return runtime.Subtract(a, b), stOK
	case "*":
		return runtime.Multiply(a, b), stOK
	}
	return runtime.Add(a, b), stOK
}
