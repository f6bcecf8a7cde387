//go:build !race

package xpatheval

const raceDetector = false
