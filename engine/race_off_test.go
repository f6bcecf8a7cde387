//go:build !race

package engine_test

import "testing"

const raceDetector = false

func skipUnderRace(*testing.T) {}
