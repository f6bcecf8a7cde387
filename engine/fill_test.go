package engine_test

import (
	"encoding/json"
	"net/url"
	"testing"

	"asa/engine"
	"asa/engine/fixture"
)

func TestFillFields(t *testing.T) {
	reg := loadShop(t)
	var paths []string
	for _, f := range reg.Plan("shop.product").FillFields() {
		paths = append(paths, f.Path)
	}
	want := []string{"id", "title", "price", "currency", "rating", "in_stock", "images", "variants", "offers", "html",
		"variants[].id", "variants[].label", "variants[].position", "offers[].seller", "offers[].price"}
	if len(paths) != len(want) {
		t.Fatalf("fill fields %q, want %q", paths, want)
	}
	for i := range want {
		if paths[i] != want[i] {
			t.Fatalf("fill fields %q, want %q", paths, want)
		}
	}
}

func TestFill(t *testing.T) {
	reg := loadShop(t)
	plan := reg.Plan("shop.product")
	fields := plan.FillFields()
	live := run(t, reg, "shop.product", url.Values{"query": {"AB1234"}}, map[string]*fixture.Reply{"page": reply(page(""))})
	if live.Err != nil {
		t.Fatal(live.Err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(live.JSON, &decoded); err != nil {
		t.Fatal(err)
	}
	byPath := func(data map[string]any) map[string]engine.FillCount {
		out := map[string]engine.FillCount{}
		for i, c := range engine.Fill(fields, data) {
			out[fields[i].Path] = c
		}
		return out
	}
	tests := []struct {
		name string
		data map[string]any
		want map[string]engine.FillCount
	}{
		// The engine's own output and the same output decoded from JSON count alike.
		{"result data", live.Res.Data, nil},
		{"decoded JSON", decoded, nil},
		{"empty values", map[string]any{"id": "", "title": "x", "price": 0.0, "in_stock": false, "images": []any{}, "variants": []any{
			map[string]any{"id": "A", "label": nil}, map[string]any{"id": "", "label": "b", "position": 2.0}}}, map[string]engine.FillCount{
			"id": {1, 1, 0}, "title": {1, 1, 1}, "price": {1, 1, 1}, "in_stock": {1, 1, 1}, "rating": {1, 1, 0}, "images": {1, 1, 0},
			"variants": {1, 1, 1}, "variants[].id": {1, 2, 1}, "variants[].label": {1, 2, 1}, "variants[].position": {1, 2, 1},
			"offers": {1, 1, 0}, "offers[].seller": {}, "offers[].price": {}, "html": {}}},
		// A field with a when: condition counts only where the output has it.
		{"conditional field present", map[string]any{"html": ""}, map[string]engine.FillCount{"html": {1, 1, 0}, "id": {1, 1, 0}}},
	}
	full := map[string]engine.FillCount{"id": {1, 1, 1}, "title": {1, 1, 1}, "price": {1, 1, 1}, "currency": {1, 1, 1},
		"rating": {1, 1, 1}, "in_stock": {1, 1, 1}, "images": {1, 1, 1}, "variants": {1, 1, 1}, "offers": {1, 1, 0},
		"variants[].id": {1, 2, 2}, "variants[].label": {1, 2, 2}, "variants[].position": {1, 2, 2}, "offers[].seller": {}, "offers[].price": {}, "html": {}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == nil {
				want = full
			}
			got := byPath(tc.data)
			for p, w := range want {
				if got[p] != w {
					t.Errorf("%s: %+v, want %+v", p, got[p], w)
				}
			}
		})
	}
}

func TestFilled(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{{nil, false}, {"", false}, {[]any{}, false}, {map[string]any{}, false}, {map[string]any{"a": nil, "b": ""}, false}, {[]string{}, false},
		{map[string]any{"a": nil, "b": 0.0}, true},
		{"x", true}, {0.0, true}, {false, true}, {[]string{"a"}, true}, {[]any{nil}, true}} {
		if got := engine.Filled(tc.v); got != tc.want {
			t.Errorf("Filled(%#v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}
