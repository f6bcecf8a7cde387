//go:build !race

package htmlparse

const raceDetector = false
