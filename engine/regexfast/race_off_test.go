//go:build !race

package regexfast

const raceDetector = false
