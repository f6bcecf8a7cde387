//go:build !race

package openapi_test

import "testing"

func skipUnderRace(*testing.T) {}
