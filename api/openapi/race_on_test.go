//go:build race

package openapi_test

import "testing"

// skipUnderRace skips a test of the whole catalogue's document that is one goroutine of pure
// computation (compiling and validating JSON Schemas), where the detector finds nothing and costs
// ten times the time: make test runs it without the detector.
func skipUnderRace(t *testing.T) {
	t.Helper()
	t.Skip("one goroutine of pure computation: make test runs it without -race")
}
