package engine

import (
	"github.com/expr-lang/expr/ast"
)

// A list item's organic_position is count(items, !#.is_sponsored) + 1: items is the list's items
// before this one, so a list of n cards counted n²/2 predicates (55-90 µs a page on eBay's and
// AliExpress's searches). The list loop (objectList) only appends to items, within the capacity it
// made, so the items a count saw last are a prefix of the items it sees next, in the same array:
// the count carries on from where it stopped. Only a predicate that reads nothing but its element
// (#, member reads of it, literals, operators) may carry on: its answer for an earlier item cannot
// have changed.

// countMemo is where one count(items, predicate) of an expression stopped in a run: the items it
// counted (holding their array, which no other list can then reuse) and how many passed.
type countMemo struct {
	site *ast.BuiltinNode
	list []any
	n    int
}

// memo returns the count site's entry in the frame (a run's), made on its first use.
func (f *frame) countMemo(site *ast.BuiltinNode) *countMemo {
	for i := range f.counts {
		if f.counts[i].site == site {
			return &f.counts[i]
		}
	}
	f.counts = append(f.counts, countMemo{site: site})
	return &f.counts[len(f.counts)-1]
}

// carried returns how many of l's first elements the entry counted, and how many passed: 0, 0
// unless l starts with the list it counted last, in the same array.
func (m *countMemo) carried(l []any) (k, n int) {
	k = len(m.list)
	if k == 0 || k > len(l) || &m.list[0] != &l[0] {
		return 0, 0
	}
	return k, m.n
}

// countCarries reports whether count(coll, pred) may carry on from an earlier count: coll is the
// environment's items (not a let variable), which only the list loop appends to, and pred reads
// nothing but its element.
func countCarries(coll ast.Node, pred ast.Node, cx *dctx) bool {
	id, ok := coll.(*ast.IdentifierNode)
	return ok && id.Value == "items" && cx.variable("items") < 0 && readsElemOnly(pred)
}

// readsElemOnly reports whether n's value depends on nothing but the predicate's element (#).
func readsElemOnly(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.PointerNode:
		return x.Name == ""
	case *ast.NilNode, *ast.BoolNode, *ast.IntegerNode, *ast.FloatNode, *ast.StringNode:
		return true
	case *ast.MemberNode:
		return !x.Method && readsElemOnly(x.Node) && readsElemOnly(x.Property)
	case *ast.CallNode:
		// the member reads memberPatch made of #.name
		id, ok := x.Callee.(*ast.IdentifierNode)
		return ok && id.Value == memberFn && len(x.Arguments) == 2 && readsElemOnly(x.Arguments[0]) && readsElemOnly(x.Arguments[1])
	case *ast.UnaryNode:
		return readsElemOnly(x.Node)
	case *ast.BinaryNode:
		return readsElemOnly(x.Left) && readsElemOnly(x.Right)
	case *ast.ConditionalNode:
		return readsElemOnly(x.Cond) && readsElemOnly(x.Exp1) && readsElemOnly(x.Exp2)
	}
	return false
}
