//go:build !race

package engine_test

import "testing"

func skipUnderRace(*testing.T) {}
