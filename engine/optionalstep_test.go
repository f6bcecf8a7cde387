package engine_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"asa/engine/fixture"
)

// An endpoint whose second request is an extra: the whole description of a video whose own answer
// cuts it. Whatever becomes of the extra, the video is answered.
const optionalArticle = `kind: endpoint
resource: article
summary: One video.
params:
  query: {type: string, required: true}
steps:
  - id: page
    request: {url: "https://blog.example/api/videos/${ params.query }"}
    parse: json
  - id: extra
    optional: true
    request: {url: "https://blog.example/api/videos/${ params.query }/description"}
    parse: json
    vars:
      words: {expr: 'len(split(src.full?.description ?? "", " "))'}
sources:
  video: {body: true, from: page}
  full: {body: true, from: extra}
rules:
  - id: throttled
    step: extra
    match: {body_contains: slow down}
    error: blocked
fields:
  description:
    type: string
    expr: src.full?.description ?? src.video?.description
  extra_status:
    type: int
    expr: steps.extra?.status
  words:
    type: int
    expr: vars.words
`

// A failed optional step leaves the run as if it had been skipped, with a warning: unreachable, a
// status it does not expect, a rule firing on its answer, a body that does not parse.
func TestOptionalStep(t *testing.T) {
	reg, diags := loadBlog(optionalArticle)
	if diags.HasErrors() {
		t.Fatalf("sitedef: %v", diags)
	}
	jsonReply := func(status int, body string) *fixture.Reply {
		return &fixture.Reply{Status: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}
	}
	video := jsonReply(200, `{"description": "A short cut..."}`)
	const fallback = `{"description":"A short cut...","extra_status":null,"words":null}`
	for _, tc := range []struct {
		name    string
		extra   *fixture.Reply // nil: no answer, the target unreachable
		want    string
		warning string
	}{
		{name: "answered", extra: jsonReply(200, `{"description": "A short cut of a long text"}`),
			want: `{"description":"A short cut of a long text","extra_status":200,"words":7}`},
		{name: "unreachable", want: fallback, warning: "step extra (optional) left out"},
		{name: "status", extra: jsonReply(503, `{}`), want: fallback, warning: "the target answered 503"},
		{name: "rule", extra: jsonReply(200, `{"error": "slow down"}`), want: fallback, warning: "every attempt was blocked"},
		{name: "not json", extra: jsonReply(200, `<html>gateway</html>`), want: fallback, warning: "step extra (optional) left out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			replies := map[string]*fixture.Reply{"page": video}
			if tc.extra != nil {
				replies["extra"] = tc.extra
			}
			out := run(t, reg, "blog.article", url.Values{"query": {"v1"}}, replies)
			if out.Err != nil {
				t.Fatalf("unexpected error: %v", out.Err)
			}
			if string(out.JSON) != tc.want {
				t.Errorf("got  %s\nwant %s", out.JSON, tc.want)
			}
			warnings := strings.Join(out.Res.Warnings, "\n")
			if tc.warning == "" && warnings != "" || !strings.Contains(warnings, tc.warning) {
				t.Errorf("warnings %q, want one containing %q", warnings, tc.warning)
			}
		})
	}
	// The first step is the page the endpoint answers from: it cannot be optional.
	_, diags = loadBlog(strings.Replace(optionalArticle, "  - id: page\n", "  - id: page\n    optional: true\n", 1))
	if got := fmt.Sprint(diags); !strings.Contains(got, "step page: the first step cannot be optional") {
		t.Errorf("diagnostics %q, want the first step refused", got)
	}
}
