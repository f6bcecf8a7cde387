//go:build race

package readability_test

const raceEnabled = true
