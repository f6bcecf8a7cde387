//go:build race

package xpatheval

// raceDetector: the test binary runs under -race, where comparing every XPath on every page of its
// endpoints takes minutes: under it each XPath is compared on one of its pages (the evaluation is
// still concurrent, as in production), and make test runs the comparisons whole without it.
const raceDetector = true
