package funcs

import (
	"reflect"
	"sort"
	"testing"
)

// TestKeysSorted: keys and values follow the sorted keys on every run (expr's builtins follow Go's
// random map order), for decoded JSON, for fromPairs and for expr's own groupBy maps.
func TestKeysSorted(t *testing.T) {
	s := New()
	m := map[string]any{}
	var want []any
	for _, k := range []string{"j", "c", "h", "a", "f", "b", "i", "e", "g", "d"} {
		m[k] = k + "!"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		want = append(want, k)
	}
	env := map[string]any{"m": m}
	for i := 0; i < 20; i++ {
		got, err := run(t, s, `keys(m)`, env)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("keys(m) = %v, %v; want %v", got, err, want)
		}
		vals, err := run(t, s, `values(m)`, env)
		if err != nil || !reflect.DeepEqual(vals.([]any)[0], "a!") || !reflect.DeepEqual(vals.([]any)[9], "j!") {
			t.Fatalf("values(m) = %v, %v", vals, err)
		}
		got, err = run(t, s, `keys(fromPairs(map(["z", "x", "y", "w"], [#, 1])))`, env)
		if err != nil || !reflect.DeepEqual(got, []any{"w", "x", "y", "z"}) {
			t.Fatalf("keys(fromPairs(...)) = %v, %v", got, err)
		}
	}
	// fromPairs builds the string-keyed map every object field takes.
	got, err := run(t, s, `fromPairs([["a", 1]])`, env)
	if _, ok := got.(map[string]any); err != nil || !ok {
		t.Errorf("fromPairs gives %T, %v; want map[string]any", got, err)
	}
}
