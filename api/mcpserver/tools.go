package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// kind says how a tool call becomes an HTTP request of the API.
type kind int

const (
	// kindGet: GET the operation's path with the arguments as query parameters.
	kindGet kind = iota
	// kindBatchSubmit: POST /api/v1/{site}/batch with the arguments as the JSON body.
	kindBatchSubmit
	// kindBatchGet: GET /api/v1/{site}/batch/{batch_id} with offset and limit.
	kindBatchGet
)

// Names of the batch tools.
const (
	BatchSubmitTool = "batch_submit"
	BatchGetTool    = "batch_get"
)

// Tool is one MCP tool: its schemas, cut from the OpenAPI document the server serves, and the API
// request a call of it becomes.
type Tool struct {
	// Name is the operation id: site_resource (amazon_product), universal_get, batch_submit, batch_get.
	Name        string
	Description string
	// Endpoint is site.resource of an endpoint tool ("" for the batch tools).
	Endpoint string
	// Input and Output are JSON Schemas (2020-12): the operation's parameters and its 200 answer.
	Input, Output json.RawMessage
	kind          kind
	path          string
}

// ToolOptions tune what Tools derives.
type ToolOptions struct {
	// Skip are query parameters left out of every input schema: the reserved ones, which only
	// ever answer 501.
	Skip []string
}

// document is the part of the OpenAPI document the tools are made of.
type document struct {
	Paths      map[string]map[string]operation `json:"paths"`
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

type operation struct {
	OperationID string      `json:"operationId"`
	Summary     string      `json:"summary"`
	Description string      `json:"description"`
	Parameters  []parameter `json:"parameters"`
	RequestBody *struct {
		Content map[string]struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"content"`
	} `json:"requestBody"`
	Responses map[string]struct {
		Content map[string]struct {
			Schema json.RawMessage `json:"schema"`
		} `json:"content"`
	} `json:"responses"`
	Endpoint string `json:"x-asa-endpoint"`
	Version  string `json:"x-asa-extractor-version"`
}

type parameter struct {
	Name        string          `json:"name"`
	In          string          `json:"in"`
	Description string          `json:"description"`
	Required    bool            `json:"required"`
	Schema      json.RawMessage `json:"schema"`
	Example     json.RawMessage `json:"example"`
}

// Tools derives the tools from the OpenAPI document of the API (api/openapi): one per endpoint
// (GET operation with x-asa-endpoint), named by its operation id, plus batch_submit and batch_get.
// Deriving them from the document, not from the registry, keeps one description of parameters and
// answers, and lets `asa mcp --server` offer exactly what the server it forwards to serves.
func Tools(doc []byte, opt ToolOptions) ([]Tool, error) {
	var d document
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	var tools []Tool
	for p, ops := range d.Paths {
		for method, op := range ops {
			var t Tool
			var err error
			switch {
			case method == "get" && op.Endpoint != "":
				t, err = d.endpointTool(p, op, opt)
			case method == "post" && op.OperationID == "create_batch":
				t, err = d.batchSubmitTool(op)
			case method == "get" && op.OperationID == "get_batch":
				t, err = d.batchGetTool(op)
			default:
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(method), p, err)
			}
			tools = append(tools, t)
		}
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools, nil
}

func (d *document) endpointTool(p string, op operation, opt ToolOptions) (Tool, error) {
	in, err := d.inputSchema(op.Parameters, "query", opt.Skip)
	if err != nil {
		return Tool{}, err
	}
	out, err := d.outputSchema(op, "200")
	if err != nil {
		return Tool{}, err
	}
	desc := appendPara(op.Summary, op.Description)
	ref := "GET " + p
	if op.Version != "" {
		ref += " (extractor " + op.Version + ")"
	}
	return Tool{Name: op.OperationID, Description: appendPara(desc, "HTTP equivalent: "+ref+"."), Endpoint: op.Endpoint,
		Input: in, Output: out, kind: kindGet, path: p}, nil
}

func (d *document) batchSubmitTool(op operation) (Tool, error) {
	if op.RequestBody == nil {
		return Tool{}, fmt.Errorf("no request body")
	}
	body, err := d.resolve(op.RequestBody.Content["application/json"].Schema)
	if err != nil {
		return Tool{}, err
	}
	props, err := parseObject(body.get("properties"))
	if err != nil {
		return Tool{}, fmt.Errorf("request body properties: %w", err)
	}
	for _, p := range op.Parameters {
		if p.In == "header" && p.Name == "Idempotency-Key" {
			s, err := parseObject(p.Schema)
			if err != nil {
				return Tool{}, err
			}
			props.set("idempotency_key", append(object{{"description", mustJSON(p.Description)}}, s...))
		}
	}
	in := object{{"type", mustJSON("object")}}
	in.set("properties", props)
	if r := body.get("required"); r != nil {
		in.set("required", r)
	}
	in.set("additionalProperties", false)
	out, err := d.outputSchema(op, "201")
	if err != nil {
		return Tool{}, err
	}
	desc := appendPara(op.Summary+".", op.Description)
	desc = appendPara(desc, "Poll it with "+BatchGetTool+" and the id this answers. HTTP equivalent: POST /api/v1/{site}/batch (Idempotency-Key header: idempotency_key).")
	return Tool{Name: BatchSubmitTool, Description: desc, Input: mustJSON(in), Output: out, kind: kindBatchSubmit}, nil
}

func (d *document) batchGetTool(op operation) (Tool, error) {
	var params []parameter
	for _, p := range op.Parameters {
		switch {
		case p.Name == "site":
			// The poll finds a batch by its id in the key's workspace, whatever the site.
		case p.Name == "batch_id":
			p.In, p.Description = "query", "The id batch_submit answered."
			params = append(params, p)
		default:
			params = append(params, p)
		}
	}
	in, err := d.inputSchema(params, "query", nil)
	if err != nil {
		return Tool{}, err
	}
	out, err := d.outputSchema(op, "200")
	if err != nil {
		return Tool{}, err
	}
	desc := appendPara(op.Summary+": its status, counts and the results of finished items.", op.Description)
	desc = appendPara(desc, "HTTP equivalent: GET /api/v1/{site}/batch/{batch_id}.")
	return Tool{Name: BatchGetTool, Description: desc, Input: in, Output: out, kind: kindBatchGet}, nil
}

// inputSchema is the object schema of the parameters found in in, in their order.
func (d *document) inputSchema(params []parameter, in string, skip []string) (json.RawMessage, error) {
	props := object{}
	required := []string{}
	for _, p := range params {
		if p.In != in || slices.Contains(skip, p.Name) {
			continue
		}
		s, err := parseObject(p.Schema)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", p.Name, err)
		}
		if p.Description != "" {
			s = append(object{{"description", mustJSON(p.Description)}}, s.without("description")...)
		}
		if p.Example != nil && s.get("examples") == nil {
			s.set("examples", json.RawMessage("["+string(p.Example)+"]"))
		}
		props.set(p.Name, s)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	o := object{{"type", mustJSON("object")}}
	o.set("properties", props)
	if len(required) > 0 {
		o.set("required", required)
	}
	o.set("additionalProperties", false)
	return mustJSON(o), nil
}

// outputSchema is the schema of the operation's answer with status, standing alone: the component
// schemas it refers to are carried along under $defs.
func (d *document) outputSchema(op operation, status string) (json.RawMessage, error) {
	raw := op.Responses[status].Content["application/json"].Schema
	if raw == nil {
		return nil, fmt.Errorf("no JSON schema for %s", status)
	}
	o, err := d.resolve(raw)
	if err != nil {
		return nil, err
	}
	if o.get("type") == nil {
		// universal_get answers one of several objects (anyOf): MCP wants an object at the root.
		o = append(object{{"type", mustJSON("object")}}, o...)
	}
	root := mustJSON(o)
	defs := object{}
	seen := map[string]bool{}
	queue := refsIn(root)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		s, ok := d.Components.Schemas[name]
		if !ok {
			return nil, fmt.Errorf("$ref to missing schema %s", name)
		}
		defs.set(name, rewriteRefs(s))
		queue = append(queue, refsIn(s)...)
	}
	o, err = parseObject(rewriteRefs(root))
	if err != nil {
		return nil, err
	}
	if len(defs) > 0 {
		o.set("$defs", defs)
	}
	return mustJSON(o), nil
}

// resolve follows a schema's top-level $ref to the component.
func (d *document) resolve(raw json.RawMessage) (object, error) {
	o, err := parseObject(raw)
	if err != nil {
		return nil, err
	}
	var r string
	if err := json.Unmarshal(o.get("$ref"), &r); err == nil {
		name := strings.TrimPrefix(r, componentRef)
		s, ok := d.Components.Schemas[name]
		if !ok {
			return nil, fmt.Errorf("$ref to missing schema %s", name)
		}
		return parseObject(s)
	}
	return o, nil
}

const componentRef = "#/components/schemas/"

var refRE = regexp.MustCompile(`"\$ref":\s*"#/components/schemas/([^"]+)"`)

// refsIn lists the component schemas raw refers to. The document is our own generated JSON, whose
// refs always have this form.
func refsIn(raw json.RawMessage) []string {
	var out []string
	for _, m := range refRE.FindAllSubmatch(raw, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

func rewriteRefs(raw json.RawMessage) json.RawMessage {
	return bytes.ReplaceAll(raw, []byte(`"`+componentRef), []byte(`"#/$defs/`))
}

func appendPara(s, p string) string {
	switch {
	case s == "":
		return p
	case p == "":
		return s
	}
	return s + "\n\n" + p
}

// Select keeps the tools that patterns name: a site (amazon), an endpoint (amazon.product), a tool
// name (amazon_product, batch_get) or a glob of either (amazon.*, google_*). "batch" names both
// batch tools. No patterns keeps every tool.
func Select(tools []Tool, patterns []string) ([]Tool, error) {
	if len(patterns) == 0 {
		return tools, nil
	}
	var out []Tool
	used := make([]bool, len(patterns))
	for _, t := range tools {
		site, _, _ := strings.Cut(t.Endpoint, ".")
		keep := false
		for i, p := range patterns {
			ok := p == site && site != "" || p == "batch" && t.Endpoint == ""
			for _, s := range []string{t.Endpoint, t.Name} {
				m, err := path.Match(p, s)
				if err != nil {
					return nil, fmt.Errorf("tool pattern %q: %w", p, err)
				}
				ok = ok || m && s != ""
			}
			if ok {
				used[i], keep = true, true
			}
		}
		if keep {
			out = append(out, t)
		}
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("tool pattern %q names no tool (a site, site.resource, a tool name or a glob of them)", patterns[i])
		}
	}
	return out, nil
}
