// Package docs embeds the user documentation so `asa serve` can serve it at /docs/ (the docs_url of
// every error body points into api.md).
package docs

import "embed"

// FS holds the Markdown pages.
//
//go:embed *.md
var FS embed.FS
