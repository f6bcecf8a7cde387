//go:build race

package engine_test

import "testing"

// skipUnderRace skips a corpus-wide equivalence test under -race: it is one goroutine of pure
// computation, where the detector finds nothing and costs ten times the time, and loading the
// catalogue and the corpus is most of it, so no sample is cheap. make test runs it whole without
// the detector.
func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("one goroutine of pure computation: make test runs it without -race")
}
