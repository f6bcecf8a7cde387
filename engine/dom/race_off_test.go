//go:build !race

package dom

const raceDetector = false
