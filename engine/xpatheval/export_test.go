package engine

// ShippedPlan is one compiled endpoint of the shipped sitedefs with where its pages are: the external
// test package sets LoadShipped (it can import engine/registry, which imports engine), so the
// equivalence tests of this package run on resolved family endpoints too.
type ShippedPlan struct {
	Plan *Plan
	// Pages are the fixture and corpus pages this endpoint's XPaths are checked on.
	Pages []string
}

// LoadShipped is set by shipped_test.go's init; nil outside tests.
var LoadShipped func() ([]ShippedPlan, error)
