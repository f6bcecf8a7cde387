// Package farmsite writes the one-endpoint sitedef the measuring programs (crashtest, clustertest)
// serve: an item page per id on the target farm, 404 for an unknown one.
package farmsite

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write writes the site <name> (host <name>.example) under sitedefs/<name> in dir and returns the
// sitedefs directory, for asa serve --sitedefs.
func Write(dir, name string) (string, error) {
	root := filepath.Join(dir, "sitedefs")
	sd := filepath.Join(root, name)
	if err := os.MkdirAll(sd, 0o755); err != nil {
		return "", err
	}
	site := fmt.Sprintf(siteYAML, name, name)
	item := fmt.Sprintf(itemYAML, Host(name))
	if err := os.WriteFile(filepath.Join(sd, "site.yaml"), []byte(site), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(sd, "item.yaml"), []byte(item), 0o644); err != nil {
		return "", err
	}
	return root, nil
}

// Host is the host the farm impersonates for the site.
func Host(name string) string { return name + ".example" }

const siteYAML = `kind: site
site: %s
name: %s (a measuring program's target)
category: other
version: 1.0.0
`

const itemYAML = `kind: endpoint
resource: item
summary: One item page of the farm.
params:
  query: {type: string, required: true, pattern: '[A-Z0-9]{1,20}', example: ABC}
steps:
  - id: page
    request:
      url: https://%s/item/${ params.query }
rules:
  - id: not-found
    step: page
    match: {status: [404]}
    error: product_not_found
fields:
  id: {type: string, required: true, xpath: "//h1/@data-id"}
  title: {type: string, xpath: //h1}
`
