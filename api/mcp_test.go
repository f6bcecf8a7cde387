package api_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"asa/store"
)

// bearer adds the API key to every request of the MCP client, as an agent's configuration does.
type bearer struct {
	key string
	rt  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return b.rt.RoundTrip(r)
}

// mcpSession connects the SDK's own client to /mcp over streamable HTTP (query is added to the
// URL: api_key=..., tools=...).
func mcpSession(t *testing.T, base, key, query string) *mcp.ClientSession {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	endpoint := base + "/mcp"
	if query != "" {
		endpoint += "?" + query
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "asa-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: bearer{key, tr}}}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// toolError returns the API error body a tool error carries ("" code when the call succeeded).
func toolError(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if !res.IsError {
		return nil
	}
	var body map[string]any
	if len(res.Content) != 1 {
		t.Fatalf("error result with %d contents", len(res.Content))
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body); err != nil {
		t.Fatalf("error text is not the API's error body: %v", err)
	}
	return body
}

// validOutput checks a result's structured content against the tool's output schema and returns
// it as JSON.
func validOutput(t *testing.T, cs *mcp.ClientSession, tool string, res *mcp.CallToolResult) []byte {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema any
	for _, tl := range tools.Tools {
		if tl.Name == tool {
			schema = tl.OutputSchema
		}
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem://"+tool+".json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://" + tool + ".json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err := sch.Validate(v); err != nil {
		t.Errorf("%s: structured content does not match the output schema: %v\n%s", tool, err, raw)
	}
	return raw
}

func metaInt(res *mcp.CallToolResult, k string) int {
	f, _ := res.Meta[k].(float64)
	return int(f)
}

func TestMCPStreamableHTTP(t *testing.T) {
	e := startBatches(t, batchOpts{})
	sandbox := mcpSession(t, e.base, e.test, "")
	live := mcpSession(t, e.base, e.live, "")

	t.Run("tools", func(t *testing.T) {
		res, err := sandbox.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		var product *mcp.Tool
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if tool.Name == "shop_product" {
				product = tool
			}
		}
		want := []string{"batch_get", "batch_submit", "shop_product", "shop_reviews", "shop_thread", "universal_get"}
		if !slices.Equal(names, want) {
			t.Fatalf("tools %v, want %v", names, want)
		}
		in, _ := json.Marshal(product.InputSchema)
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if err := json.Unmarshal(in, &schema); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(schema.Required, []string{"query"}) {
			t.Errorf("required %v", schema.Required)
		}
		if _, ok := schema.Properties["render_js"]; ok {
			t.Error("a reserved parameter (always 501) is offered")
		}
		if enum, _ := schema.Properties["domain"]["enum"].([]any); len(enum) == 0 {
			t.Errorf("domain has no enum of the site's domains: %v", schema.Properties["domain"])
		}
		if _, ok := schema.Properties["sandbox_case"]; !ok {
			t.Error("no sandbox_case")
		}
		out, _ := json.Marshal(product.OutputSchema)
		if !strings.Contains(string(out), `"variants"`) || !strings.Contains(string(out), `"$defs"`) && strings.Contains(string(out), `"$ref"`) {
			t.Errorf("output schema: %s", out)
		}
	})

	t.Run("sandbox call answers the schema", func(t *testing.T) {
		res := callTool(t, sandbox, "shop_product", map[string]any{"query": "AB1234"})
		if body := toolError(t, res); body != nil {
			t.Fatalf("error %v", body)
		}
		if metaInt(res, "asa/cost") != 0 || res.Meta["asa/sandbox_case"] == nil || !strings.HasPrefix(res.Meta["asa/request_id"].(string), "req_") {
			t.Errorf("meta %v", res.Meta)
		}
		validOutput(t, sandbox, "shop_product", res)
		var text any
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &text); err != nil || !reflect.DeepEqual(text, res.StructuredContent) {
			t.Errorf("the text content is not the structured content (%v)", err)
		}
	})

	t.Run("universal_get", func(t *testing.T) {
		res := callTool(t, sandbox, "universal_get", map[string]any{"url": "https://news.example.com/2024/05/harbour-bridge"})
		if body := toolError(t, res); body != nil {
			t.Fatalf("error %v", body)
		}
		raw := validOutput(t, sandbox, "universal_get", res)
		if !strings.Contains(string(raw), `"title"`) || res.Meta["asa/extractor_version"] == nil {
			t.Errorf("universal answer %s, meta %v", raw, res.Meta)
		}
	})

	errorsTests := []struct {
		name   string
		cs     *mcp.ClientSession
		tool   string
		args   map[string]any
		code   string
		params []any
	}{
		{"bad parameter", sandbox, "shop_product", map[string]any{"query": "abc"}, "invalid_params", []any{"query"}},
		{"unknown parameter", live, "shop_product", map[string]any{"query": "AB1234", "colour": "red"}, "invalid_params", []any{"colour"}},
		{"target 404", live, "shop_product", map[string]any{"query": "NF1234"}, "product_not_found", nil},
		{"blocked", live, "shop_product", map[string]any{"query": "BL1234"}, "target_unreachable", nil},
		{"sandbox case for a live key", live, "shop_product", map[string]any{"query": "AB1234", "sandbox_case": "basic"}, "invalid_params", []any{"sandbox_case"}},
		{"batch_get without id", live, "batch_get", nil, "invalid_params", []any{"batch_id"}},
		{"unknown batch", live, "batch_get", map[string]any{"batch_id": "0b1f6a3e-0000-4000-8000-000000000000"}, "not_found", nil},
		{"batch of nothing", live, "batch_submit", map[string]any{"endpoint": "shop.product", "items": []any{}}, "invalid_params", []any{"items"}},
	}
	for _, tt := range errorsTests {
		t.Run(tt.name, func(t *testing.T) {
			res := callTool(t, tt.cs, tt.tool, tt.args)
			body := toolError(t, res)
			if body == nil {
				t.Fatalf("no tool error: %v", res.StructuredContent)
			}
			if body["error"] != tt.code || res.Meta["asa/error"] != tt.code || body["message"] == "" {
				t.Errorf("error %v (meta %v), want %s", body, res.Meta, tt.code)
			}
			if tt.params != nil && !slices.Equal(body["params"].([]any), tt.params) {
				t.Errorf("params %v, want %v", body["params"], tt.params)
			}
			if metaInt(res, "asa/cost") != 0 {
				t.Errorf("an error cost %v", res.Meta["asa/cost"])
			}
		})
	}

	t.Run("live call billed", func(t *testing.T) {
		ctx := context.Background()
		before, err := e.db.CreditsUsed(ctx, e.ws.ID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		res := callTool(t, live, "shop_reviews", map[string]any{"query": "AB1234", "pages": 2.0})
		if body := toolError(t, res); body != nil {
			t.Fatalf("error %v", body)
		}
		if metaInt(res, "asa/cost") != 10 {
			t.Errorf("cost %v, want 10 (two pages)", res.Meta["asa/cost"])
		}
		after, err := e.db.CreditsUsed(ctx, e.ws.ID, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if after-before != 10 {
			t.Errorf("the store charged %d credits, want 10", after-before)
		}
		rows, err := e.db.Usage(ctx, store.UsageQuery{WorkspaceID: e.ws.ID})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range rows {
			found = found || r.Endpoint == "shop.reviews" && r.Credits >= 10
		}
		if !found {
			t.Errorf("no usage of shop.reviews: %+v", rows)
		}
	})

	t.Run("batch", func(t *testing.T) {
		res := callTool(t, live, "batch_submit", map[string]any{"endpoint": "shop.product",
			"items": []any{map[string]any{"query": "AB1234"}, map[string]any{"query": "NF1234"}}, "idempotency_key": "mcp-1"})
		if body := toolError(t, res); body != nil {
			t.Fatalf("error %v", body)
		}
		id, _ := res.StructuredContent.(map[string]any)["id"].(string)
		if id == "" {
			t.Fatalf("no batch id: %v", res.StructuredContent)
		}
		again := callTool(t, live, "batch_submit", map[string]any{"endpoint": "shop.product",
			"items": []any{map[string]any{"query": "AB1234"}, map[string]any{"query": "NF1234"}}, "idempotency_key": "mcp-1"})
		if got, _ := again.StructuredContent.(map[string]any)["id"].(string); got != id {
			t.Errorf("the same idempotency_key made batch %s, then %s", id, got)
		}
		e.waitEnd(t, e.live, id)
		poll := callTool(t, live, "batch_get", map[string]any{"batch_id": id})
		if body := toolError(t, poll); body != nil {
			t.Fatalf("error %v", body)
		}
		b := poll.StructuredContent.(map[string]any)
		if b["status"] != "complete" || b["success_count"] != 1.0 || b["failure_count"] != 1.0 || b["credits_charged"] != 5.0 {
			t.Errorf("batch %v", b)
		}
	})

	t.Run("tools selection and key in the query", func(t *testing.T) {
		cs := mcpSession(t, e.base, "", "api_key="+e.test+"&tools=shop.product,batch")
		if names := toolNames(t, cs); !slices.Equal(names, []string{"batch_get", "batch_submit", "shop_product"}) {
			t.Errorf("tools %v", names)
		}
		if res := callTool(t, cs, "shop_product", map[string]any{"query": "AB1234"}); res.IsError {
			t.Errorf("call with the key in the query: %v", res.Content)
		}
	})

	revoked, _, err := e.db.CreateKey(context.Background(), e.ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.RevokeKey(context.Background(), e.ws.ID, revoked.Short()); err != nil {
		t.Fatal(err)
	}
	refusals := []struct {
		name, method, query, key string
		status                   int
		code                     string
	}{
		{"X-API-Key", http.MethodPost, "", "x:" + e.test, 200, ""},
		{"no key", http.MethodPost, "", "", 401, "unauthorized"},
		{"revoked key", http.MethodPost, "", revoked.String(), 401, "revoked"},
		{"two different keys", http.MethodPost, "api_key=" + e.live, e.test, 400, "invalid_params"},
		{"unknown key", http.MethodPost, "", "asa_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 401, "unauthorized"},
		{"unknown tools", http.MethodPost, "tools=nosuchsite", e.test, 400, "invalid_params"},
		{"unknown /mcp parameter", http.MethodPost, "colour=red", e.test, 400, "invalid_params"},
		{"GET stream", http.MethodGet, "", e.test, 405, "method_not_allowed"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, e.base+"/mcp?"+tt.query, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if k, ok := strings.CutPrefix(tt.key, "x:"); ok {
				req.Header.Set("X-API-Key", k)
			} else if tt.key != "" {
				req.Header.Set("Authorization", "Bearer "+tt.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			if resp.StatusCode != tt.status || tt.code != "" && body["error"] != tt.code {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, raw, tt.status, tt.code)
			}
			if tt.status == 200 {
				tools, _ := body["result"].(map[string]any)["tools"].([]any)
				if len(tools) != 6 {
					t.Errorf("tools/list answered %s", raw)
				}
			}
			if tt.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

// TestMCPCreditsExhausted: a tool call is refused when the workspace's allowance is spent, as the
// same HTTP request is, and costs nothing.
func TestMCPCreditsExhausted(t *testing.T) {
	e := startBatches(t, batchOpts{plan: store.PlanCustom, credits: 5})
	cs := mcpSession(t, e.base, "", "api_key="+e.live)
	first := callTool(t, cs, "shop_product", map[string]any{"query": "AB1234"})
	if first.IsError || metaInt(first, "asa/cost") != 5 {
		t.Fatalf("first call: %v %v", first.Content, first.Meta)
	}
	second := toolError(t, callTool(t, cs, "shop_product", map[string]any{"query": "AB1234"}))
	if second == nil || second["error"] != "insufficient_credits" {
		t.Fatalf("second call: %v", second)
	}
	used, err := e.db.CreditsUsed(context.Background(), e.ws.ID, time.Now())
	if err != nil || used != 5 {
		t.Errorf("credits used %d (%v), want 5", used, err)
	}
}
