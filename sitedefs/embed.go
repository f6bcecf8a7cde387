// Package sitedefs embeds the site definitions shipped in the binary. `asa --sitedefs DIR` replaces
// them with a directory, so an author iterates without rebuilding.
package sitedefs

import "embed"

// FS holds every <site>/*.yaml and the family bases under _families/<family>/*.yaml.
//
//go:embed */*.yaml _families
var FS embed.FS
