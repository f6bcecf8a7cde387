//go:build race

package funcs

// raceDetector: the test binary runs under -race, where the index tests' sorted walks over every
// JSON value of the corpus take minutes: under it they sample fewer values, and make test runs
// them whole without it.
const raceDetector = true
