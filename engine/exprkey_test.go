package engine

import (
	"testing"

	"github.com/expr-lang/expr/types"

	"asa/engine/dom"
)

// TestExprSharedAcrossEnvironments: an expression is compiled once for every environment that
// agrees on what it reads (the sites of a family each declare fields of their own), and never
// shared where the environments disagree on it.
func TestExprSharedAcrossEnvironments(t *testing.T) {
	e := New()
	envOf := func(fields ...string) types.Map {
		return types.Map{"fields": declare(fields), "params": declare([]string{"query"}), "value": types.Any}
	}
	a, b, c := envOf("title", "price"), envOf("title", "brand"), envOf("brand")
	compile := func(code string, env types.Map) (any, error) {
		return e.compileExpr(code, env, envKey(env), false)
	}
	for _, tt := range []struct {
		code   string
		shared bool
	}{
		{`fields.title ?? params.query`, true},
		{`fields?.title != nil && value != nil`, true},
		{`trim(fields.title)`, true},
		// The object whole, by index, or through a let: the whole environment decides.
		{`len(fields)`, false},
		{`fields["title"]`, false},
		{`let f = fields.title; f`, false},
	} {
		pa, err := compile(tt.code, a)
		if err != nil {
			t.Fatalf("%s: %v", tt.code, err)
		}
		pb, err := compile(tt.code, b)
		if err != nil {
			t.Fatalf("%s: %v", tt.code, err)
		}
		if got := pa == pb; got != tt.shared {
			t.Errorf("%s: shared %v, want %v", tt.code, got, tt.shared)
		}
	}
	// A name one environment declares and the other does not: the second is refused, as without
	// the cache, not served the first one's program.
	if _, err := compile(`fields.title`, c); err == nil {
		t.Error("fields.title compiled where fields declares no title")
	}
	// A different type of what is read: not shared.
	d := envOf("title", "price")
	d["value"] = types.String
	pa, _ := compile(`value ?? fields.title`, a)
	pd, err := compile(`value ?? fields.title`, d)
	if err != nil || pa == pd {
		t.Errorf("value typed any and string gave one program (err %v)", err)
	}
}

// TestInternProjection: equal projections, and equal parts of different ones, are one value.
func TestInternProjection(t *testing.T) {
	e := New()
	tree := func(leaf string) *dom.Projection {
		return &dom.Projection{Keys: map[string]*dom.Projection{
			"offers": {Elem: &dom.Projection{Keys: map[string]*dom.Projection{"price": {Whole: true}, leaf: {Whole: true}}}},
			"name":   {Whole: true},
		}}
	}
	a, b, c := e.internProjection(tree("sku")), e.internProjection(tree("sku")), e.internProjection(tree("gtin"))
	if a != b {
		t.Error("two equal projections interned apart")
	}
	if a == c {
		t.Error("different projections interned as one")
	}
	if a.Keys["name"] != c.Keys["name"] {
		t.Error("an equal part of two projections interned apart")
	}
	if a.Keys["offers"].Elem.Keys["sku"] == nil || c.Keys["offers"].Elem.Keys["gtin"] == nil {
		t.Error("interning lost a key")
	}
	if e.internProjection(nil) != nil {
		t.Error("nil interned as a projection")
	}
}
