//go:build race

package main

// raceDetector: the test binary runs under -race, where replaying the whole corpus takes minutes.
const raceDetector = true
