package engine_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/registry"
)

const renderSite = `kind: site
site: spa
name: SPA
category: marketplace
version: 1.0.0
`

func spaEndpoint(steps string) string {
	return `kind: endpoint
resource: page
summary: A page.
params:
  query: {type: string, required: true, example: abc}
steps:
` + steps + `
fields:
  title: {type: string, xpath: //h1}
`
}

// A step that needs rendering says so on the Request it gives the fetcher; others do not.
func TestRenderStepRequest(t *testing.T) {
	fsys := fstest.MapFS{
		"spa/site.yaml": {Data: []byte(renderSite)},
		"spa/page.yaml": {Data: []byte(spaEndpoint(`  - id: page
    render: true
    wait_for: ' #app h1 '
    request: {url: 'https://spa.example/p/${ params.query }'}
  - id: api
    parse: json
    request: {url: 'https://spa.example/api/${ params.query }'}`))},
	}
	reg, diags := registry.Load(engine.New(), fsys)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var got []engine.Request
	f := engine.FetcherFunc(func(_ context.Context, req *engine.Request) (*engine.Response, error) {
		got = append(got, *req)
		body := `<h1>T</h1>`
		if req.Parse == "json" {
			body = `{}`
		}
		return &engine.Response{Status: 200, URL: req.URL, Body: []byte(body)}, nil
	})
	plan := reg.Plan("spa.page")
	ps, err := plan.Params(url.Values{"query": {"abc"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Run(context.Background(), ps, f); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	if r := got[0]; !r.Render || r.WaitFor != "#app h1" || r.Parse != "html" {
		t.Errorf("page step: render %v wait_for %q parse %q", r.Render, r.WaitFor, r.Parse)
	}
	if r := got[1]; r.Render || r.WaitFor != "" || r.Parse != "json" {
		t.Errorf("api step: render %v wait_for %q parse %q", r.Render, r.WaitFor, r.Parse)
	}
}

func TestRenderStepDiagnostics(t *testing.T) {
	tests := []struct {
		name, steps, params, want string
	}{
		{"render on a POST", `  - id: page
    render: true
    request: {url: 'https://spa.example/p', method: POST, body: x}`, "", "render: true needs a GET step parsed as html"},
		{"render of json", `  - id: page
    render: true
    parse: json
    request: {url: 'https://spa.example/p'}`, "", "render: true needs a GET step parsed as html"},
		{"wait_for without render", `  - id: page
    wait_for: '#x'
    request: {url: 'https://spa.example/p'}`, "", "wait_for is for a step with render: true"},
		{"wait_for too long", `  - id: page
    render: true
    wait_for: '` + strings.Repeat("a", engine.MaxWaitFor+1) + `'
    request: {url: 'https://spa.example/p'}`, "", "wait_for is longer than 512 bytes"},
		{"a parameter named wait_for", `  - id: page
    request: {url: 'https://spa.example/p'}`, "  wait_for: {type: string}\n", `parameter "wait_for" is reserved by the API`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := spaEndpoint(tt.steps)
			if tt.params != "" {
				ep = strings.Replace(ep, "params:\n", "params:\n"+tt.params, 1)
			}
			_, diags := registry.Load(engine.New(), fstest.MapFS{
				"spa/site.yaml": {Data: []byte(renderSite)},
				"spa/page.yaml": {Data: []byte(ep)},
			})
			if !strings.Contains(diags.Error(), tt.want) {
				t.Errorf("diagnostics %q lack %q", diags.Error(), tt.want)
			}
		})
	}
}
