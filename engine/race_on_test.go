//go:build race

package engine_test

import "testing"

// raceDetector: the test binary runs under -race. The corpus-wide equivalence tests of this
// package are one goroutine of pure computation, where the detector finds nothing and costs ten
// times the time: under it they check a sample, and make test runs them whole without it.
const raceDetector = true

// skipUnderRace skips a corpus-wide equivalence test that samples nothing cheaper than its whole
// run (loading the catalogue and the corpus is most of it): make test runs it without the
// detector, where it takes seconds instead of half a minute.
func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("one goroutine of pure computation: make test runs it without -race")
}
