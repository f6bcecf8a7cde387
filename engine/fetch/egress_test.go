package fetch

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOneEgressConstructor: every outbound HTTP client of the project is a fetch.Client (checklist
// item 35 of the reliability study). Non-test code outside this package that builds its own
// http.Client or Transport, or uses net/http's package-level client, fails here. cmd/loadtest and
// cmd/clustertest, and asa mcp forwarding to an asa server (api/mcpserver), are clients of our own
// API, not egresses to targets.
func TestOneEgressConstructor(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skip("not in the module tree")
	}
	allowed := []string{"engine/fetch/", "cmd/loadtest/", "cmd/clustertest/", "api/mcpserver/"}
	bad := regexp.MustCompile(`http\.(Get|Post|Head|PostForm)\(|http\.Default(Client|Transport)\b|http\.Client\{|http\.Transport\{`)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		for _, a := range allowed {
			if strings.HasPrefix(rel, a) {
				return nil
			}
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for i, line := range strings.Split(string(b), "\n") {
			if bad.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
				t.Errorf("%s:%d: outbound HTTP outside engine/fetch (use a fetch.Client: Fetch, Do or Post): %s", rel, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
}
