//go:build race

package engine_test

// raceDetector: the test binary runs under -race. The corpus-wide equivalence tests of this
// package are one goroutine of pure computation, where the detector finds nothing and costs ten
// times the time: under it they check a sample, and make test runs them whole without it.
const raceDetector = true
