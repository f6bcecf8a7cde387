package xpatheval

// ShippedXPaths is one compiled endpoint of the shipped sitedefs: its site, the sources of its
// XPaths, and where its pages are. The external test package sets LoadShipped (it can import
// engine/registry, which imports engine, which imports this package), so the equivalence tests of
// this package run on resolved family endpoints too.
type ShippedXPaths struct {
	Site   string
	ID     string // the endpoint's id (site.resource), or the family base's
	XPaths []string
	// Pages are the fixture and corpus pages this endpoint's XPaths are checked on.
	Pages []string
}

// LoadShipped is set by shipped_test.go's init; nil outside tests.
var LoadShipped func() ([]ShippedXPaths, error)
