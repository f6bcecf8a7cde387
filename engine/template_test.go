package engine

import (
	"fmt"
	"math"
	"testing"
)

// stringify formats numbers and booleans as fmt did before it used strconv.
func TestStringifyAsFmt(t *testing.T) {
	old := func(v any) string {
		if x, ok := v.(float64); ok {
			if x == float64(int64(x)) {
				return fmt.Sprintf("%d", int64(x))
			}
			return fmt.Sprintf("%g", x)
		}
		return fmt.Sprint(v)
	}
	for _, v := range []any{0, 1, -7, 1 << 40, int64(-3), int64(1) << 62, true, false, 0.0, 1.0, -2.0, 0.1, 1.5e-7, 123456789.125,
		1e21, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64} {
		if got, want := stringify(v), old(v); got != want {
			t.Errorf("stringify(%#v) = %q, want %q", v, got, want)
		}
	}
}
