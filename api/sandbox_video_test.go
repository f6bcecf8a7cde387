package api_test

import "testing"

// TestSandboxVideoComments: the spec's video comments (2.5: a list with author, text, like count,
// timestamp) answered to a sandbox key over loopback, as `curl` would get them.
func TestSandboxVideoComments(t *testing.T) {
	e := startSandbox(t)
	r := e.get(t, "/api/v1/youtube/comments?query=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DxaQJbozY_Is&api_key="+e.test)
	if r.status != 200 || r.header.Get("Asa-Sandbox-Case") != "default" || r.header.Get("Asa-Cost") != "0" {
		t.Fatalf("status %d case %q cost %q: %s", r.status, r.header.Get("Asa-Sandbox-Case"), r.header.Get("Asa-Cost"), r.raw)
	}
	list, _ := r.body["comments"].([]any)
	if len(list) == 0 {
		t.Fatalf("no comments: %s", r.raw)
	}
	for i, c := range list {
		c := c.(map[string]any)
		for _, k := range []string{"author", "text", "published"} {
			if s, _ := c[k].(string); s == "" {
				t.Errorf("comment %d: no %s", i, k)
			}
		}
		if _, ok := c["likes"].(float64); !ok {
			t.Errorf("comment %d: likes %v", i, c["likes"])
		}
	}
}
