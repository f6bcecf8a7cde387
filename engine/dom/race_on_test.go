//go:build race

package dom

import "testing"

// raceDetector: the test binary runs under -race. The corpus equivalence tests are one goroutine
// of pure computation, where the detector finds nothing and costs ten times the time: under it
// they check a sample or skip (skipUnderRace), and make test runs them whole without it.
const raceDetector = true

// skipUnderRace skips an equivalence test whose sample would still cost the detector its ten
// times: make test runs it whole without -race.
func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("one goroutine of pure computation: make test runs it without -race")
}
