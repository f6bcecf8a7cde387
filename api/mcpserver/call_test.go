package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestRequestOfArguments(t *testing.T) {
	get := &Tool{Name: "amazon_product", kind: kindGet, path: "/api/v1/amazon/product"}
	submit := &Tool{Name: BatchSubmitTool, kind: kindBatchSubmit}
	poll := &Tool{Name: BatchGetTool, kind: kindBatchGet}
	tests := []struct {
		name   string
		tool   *Tool
		args   string
		method string
		path   string
		query  url.Values
		body   string
		header http.Header
		err    string
	}{
		{"strings", get, `{"query":"B0TEST1234","domain":"de"}`, "GET", "/api/v1/amazon/product", url.Values{"query": {"B0TEST1234"}, "domain": {"de"}}, "", nil, ""},
		{"no arguments", get, ``, "GET", "/api/v1/amazon/product", url.Values{}, "", nil, ""},
		{"numbers and booleans", get, `{"pages":2,"start":2.0,"ratio":0.5,"big":1e3,"add_html":true}`, "GET", "/api/v1/amazon/product",
			url.Values{"pages": {"2"}, "start": {"2"}, "ratio": {"0.5"}, "big": {"1000"}, "add_html": {"true"}}, "", nil, ""},
		{"null leaves a parameter out", get, `{"query":"x","domain":null}`, "GET", "/api/v1/amazon/product", url.Values{"query": {"x"}}, "", nil, ""},
		{"array repeats a parameter", get, `{"query":["a","b"]}`, "GET", "/api/v1/amazon/product", url.Values{"query": {"a", "b"}}, "", nil, ""},
		{"object is its JSON text", get, `{"extract_rules":{"title": "//h1"}}`, "GET", "/api/v1/amazon/product", url.Values{"extract_rules": {`{"title":"//h1"}`}}, "", nil, ""},
		{"not an object", get, `[1,2]`, "", "", nil, "", nil, "arguments"},
		{"batch", submit, `{"endpoint":"amazon.product","items":[{"query":"B0TEST1234"}],"idempotency_key":"k1"}`, "POST", "/api/v1/amazon/batch", nil,
			`{"endpoint":"amazon.product","items":[{"query":"B0TEST1234"}]}`, http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {"k1"}}, ""},
		{"batch without endpoint: the API says so", submit, `{"items":[]}`, "POST", "/api/v1/universal/batch", nil, `{"items":[]}`, http.Header{"Content-Type": {"application/json"}}, ""},
		{"batch endpoint that is no path", submit, `{"endpoint":"../x/y"}`, "POST", "/api/v1/universal/batch", nil, `{"endpoint":"../x/y"}`, http.Header{"Content-Type": {"application/json"}}, ""},
		{"batch idempotency_key not a string", submit, `{"idempotency_key":3}`, "", "", nil, "", nil, "idempotency_key"},
		{"poll", poll, `{"batch_id":"a/b","limit":10}`, "GET", "/api/v1/universal/batch/a%2Fb", url.Values{"limit": {"10"}}, "", nil, ""},
		{"poll without id", poll, `{"limit":10}`, "", "", nil, "", nil, "batch_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, aerr := tt.tool.request(json.RawMessage(tt.args))
			if tt.err != "" {
				if aerr == nil || aerr.param != tt.err {
					t.Fatalf("error %+v, want one about %s", aerr, tt.err)
				}
				return
			}
			if aerr != nil {
				t.Fatalf("error %+v", aerr)
			}
			if r.Method != tt.method || r.Path != tt.path || string(r.Body) != tt.body {
				t.Errorf("%s %s %s, want %s %s %s", r.Method, r.Path, r.Body, tt.method, tt.path, tt.body)
			}
			if tt.query != nil && !reflect.DeepEqual(r.Query, tt.query) {
				t.Errorf("query %v, want %v", r.Query, tt.query)
			}
			if !reflect.DeepEqual(r.Header, tt.header) {
				t.Errorf("header %v, want %v", r.Header, tt.header)
			}
		})
	}
}

func TestSelect(t *testing.T) {
	tools := []Tool{{Name: "amazon_product", Endpoint: "amazon.product"}, {Name: "amazon_search", Endpoint: "amazon.search"},
		{Name: "google_search", Endpoint: "google.search"}, {Name: "universal_get", Endpoint: "universal.get"},
		{Name: BatchGetTool}, {Name: BatchSubmitTool}}
	tests := []struct {
		patterns []string
		want     string
		err      string
	}{
		{nil, "amazon_product amazon_search google_search universal_get batch_get batch_submit", ""},
		{[]string{"amazon"}, "amazon_product amazon_search", ""},
		{[]string{"amazon.product", "universal_get"}, "amazon_product universal_get", ""},
		{[]string{"*.search", "batch"}, "amazon_search google_search batch_get batch_submit", ""},
		{[]string{"amazon", "amazon.product"}, "amazon_product amazon_search", ""},
		{[]string{"batch_get"}, "batch_get", ""},
		{[]string{"nosuch"}, "", "names no tool"},
		{[]string{"[a-"}, "", "syntax error"},
	}
	for _, tt := range tests {
		got, err := Select(tools, tt.patterns)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v: error %v, want %q", tt.patterns, err, tt.err)
			}
			continue
		}
		var names []string
		for _, tool := range got {
			names = append(names, tool.Name)
		}
		if err != nil || strings.Join(names, " ") != tt.want {
			t.Errorf("%v: %v %v, want %s", tt.patterns, names, err, tt.want)
		}
	}
}

// FuzzToolRequest: arguments come from the model, untrusted; any of them makes a request or an
// argument error, never a panic, and a GET path is always the tool's own.
func FuzzToolRequest(f *testing.F) {
	for _, s := range []string{`{"query":"x"}`, `{"a":[1,{"b":null}],"c":1e400}`, `{"batch_id":"../../x"}`, `{"endpoint":"a.b","items":[{}]}`, `[`, `"s"`, `{"x":-0.0}`} {
		f.Add(s)
	}
	tools := []*Tool{{kind: kindGet, path: "/api/v1/a/b"}, {kind: kindBatchSubmit}, {kind: kindBatchGet}}
	f.Fuzz(func(t *testing.T, args string) {
		for _, tool := range tools {
			r, aerr := tool.request(json.RawMessage(args))
			if aerr != nil {
				continue
			}
			switch tool.kind {
			case kindGet:
				if r.Path != tool.path {
					t.Fatalf("path %q", r.Path)
				}
			case kindBatchSubmit:
				if !json.Valid(r.Body) || !strings.HasPrefix(r.Path, "/api/v1/") || strings.Count(r.Path, "/") != 4 {
					t.Fatalf("batch request %s %s", r.Path, r.Body)
				}
			case kindBatchGet:
				if !strings.HasPrefix(r.Path, "/api/v1/universal/batch/") || strings.Count(r.Path, "/") != 5 {
					t.Fatalf("poll path %q", r.Path)
				}
			}
		}
	})
}
