//go:build !race

package dom

import "testing"

const raceDetector = false

func skipUnderRace(*testing.T) {}
