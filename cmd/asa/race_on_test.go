//go:build race

package main

import "testing"

// skipUnderRace skips a test that replays the whole catalogue on the whole corpus: under -race it
// takes minutes, and it is one command at a time with nothing the detector could find that the
// race tests of the packages it calls do not. make test runs it without the detector.
func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("replays the whole catalogue: make test runs it without -race")
}
