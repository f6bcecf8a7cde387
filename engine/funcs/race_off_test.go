//go:build !race

package funcs

const raceDetector = false
