package engine

import (
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// A field reads its siblings by name (fields.price), and a site that mounts a family adds its own
// fields after the base's: a base field the site overrides may read a field the site added, which
// comes later in the file. So fields are not evaluated in file order but in the order their
// references need: each after the siblings it names, and otherwise in file order (the output keeps
// file order). A sitedef whose fields read only earlier siblings, as every sitedef had to before,
// runs exactly as before.

// evalOrder returns fs in evaluation order, or the fields of a cycle (each reads the next, the last
// the first) when there is one; order is then file order, so the plan still runs as it reads.
func evalOrder(fs []*field) (order, cycle []*field) {
	idx := make(map[string]int, len(fs))
	for i, f := range fs {
		idx[f.name] = i
	}
	deps := make([][]int, len(fs))
	forward := false
	for i, f := range fs {
		names, dynamic := f.siblingRefs()
		if dynamic {
			// fields read as a whole (a let, a function's argument): whatever it reads, it may read
			// every sibling evaluated before it, as in file order.
			for j := range i {
				deps[i] = append(deps[i], j)
			}
		}
		for _, n := range names {
			if j, ok := idx[n]; ok && j != i {
				deps[i] = append(deps[i], j)
				forward = forward || j > i
			}
		}
	}
	if !forward {
		return fs, nil
	}
	// Depth-first, visiting fields in file order: each field is placed after its dependencies, and
	// a field nothing forces later keeps its place relative to the ones before it.
	const (
		unseen = iota
		active
		done
	)
	state := make([]int, len(fs))
	var stack []int
	var visit func(i int) []*field
	visit = func(i int) []*field {
		switch state[i] {
		case done:
			return nil
		case active:
			k := len(stack) - 1
			for stack[k] != i {
				k--
			}
			var c []*field
			for _, j := range stack[k:] {
				c = append(c, fs[j])
			}
			return c
		}
		state[i] = active
		stack = append(stack, i)
		for _, j := range deps[i] {
			if c := visit(j); c != nil {
				return c
			}
		}
		stack = stack[:len(stack)-1]
		state[i] = done
		order = append(order, fs[i])
		return nil
	}
	for i := range fs {
		if c := visit(i); c != nil {
			return fs, c
		}
	}
	return order, nil
}

// siblingRefs lists the names the field's own expressions read as fields.<name> (its child fields'
// expressions read their own level), and whether one reads fields otherwise (as a whole).
func (f *field) siblingRefs() (names []string, dynamic bool) {
	progs := []*vm.Program{f.post, f.when, f.limit}
	for _, s := range f.sels {
		progs = append(progs, s.prog, s.transform, s.fieldTransform)
	}
	for _, p := range progs {
		if p == nil {
			continue
		}
		v := &fieldRefs{}
		root := p.Node()
		ast.Walk(&root, v)
		names = append(names, v.names...)
		dynamic = dynamic || v.idents > v.members
	}
	return names, dynamic
}

// fieldRefs collects fields.<name> members; idents counts every use of the name fields, members
// those that are such a member's object.
type fieldRefs struct {
	names           []string
	idents, members int
}

func (v *fieldRefs) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.IdentifierNode:
		if x.Value == "fields" {
			v.idents++
		}
	case *ast.MemberNode:
		v.member(x.Node, x.Property)
	case *ast.CallNode:
		// memberPatch's rewriting of fields.name
		if id, ok := x.Callee.(*ast.IdentifierNode); ok && id.Value == memberFn && len(x.Arguments) == 2 {
			v.member(x.Arguments[0], x.Arguments[1])
		}
	}
}

func (v *fieldRefs) member(obj, prop ast.Node) {
	id, ok := obj.(*ast.IdentifierNode)
	if !ok || id.Value != "fields" {
		return
	}
	if s, ok := prop.(*ast.StringNode); ok {
		v.names = append(v.names, s.Value)
		v.members++
	}
}
