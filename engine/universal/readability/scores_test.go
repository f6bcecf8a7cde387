package readability

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// attrRoundTrip is what upstream reads back of a score it wrote in an attribute.
func attrRoundTrip(score float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(score, 'f', 4, 64), 64)
	return f
}

func checkRoundScore(t *testing.T, x float64) {
	t.Helper()
	got, want := roundScore(x), attrRoundTrip(x)
	if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
		t.Fatalf("roundScore(%v) = %v, want %v", x, got, want)
	}
}

// TestRoundScore: roundScore agrees with the attribute's round trip, bit for bit (the sign of a
// zero included), on scores as grabArticle makes them (class weights, paragraph points divided
// by the ancestor's level, link densities), on ties and near ties, and on large and odd values.
func TestRoundScore(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-5, -1e-5, 5e-5, -5e-5, 0.00015, 0.00025, 1.00005, 2.5e-5,
		1 << 40, -(1 << 40), 1 << 36, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), 5e-324, math.MaxFloat64} {
		checkRoundScore(t, x)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	divs := []float64{1, 2, 3, 6, 9, 12, 15}
	for range 50000 {
		s := float64(rng.IntN(61) - 30)
		for range rng.IntN(40) {
			s = attrRoundTrip(s + float64(rng.IntN(20))/divs[rng.IntN(len(divs))])
		}
		checkRoundScore(t, s)
		checkRoundScore(t, s*(1-rng.Float64()))
		// Near ties: a decimal with a fifth place of 5, nudged by an ulp or so either way.
		tie := float64(rng.IntN(2_000_000_000)-1_000_000_000)/1e4 + 5e-5
		checkRoundScore(t, tie)
		checkRoundScore(t, math.Nextafter(tie, math.Inf(1)))
		checkRoundScore(t, math.Nextafter(tie, math.Inf(-1)))
		checkRoundScore(t, math.Float64frombits(rng.Uint64()))
	}
}

func FuzzRoundScore(f *testing.F) {
	for _, x := range []float64{0, 1.00005, -3.25, 1 << 40, 12.34565} {
		f.Add(x)
	}
	f.Fuzz(checkRoundScore)
}
