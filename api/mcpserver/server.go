// Package mcpserver is asa's MCP server (Model Context Protocol, for agents): one tool per
// endpoint, plus universal_get, batch_submit and batch_get, derived from the API's OpenAPI document.
// A tool call is run as the API request it stands for, through a Caller: in process through the
// API's own handler (asa serve's /mcp, asa mcp --db) or forwarded to a running server (asa mcp
// --server), so authentication, limits, billing and errors are the API's, with nothing of its own.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Identity is who a tool call runs as: the API key, and the client's address for the API's logs.
type Identity struct {
	Key        string
	RemoteAddr string
}

// IdentityFunc returns the identity of a call: a fixed key over stdio, the key the HTTP request
// carried on /mcp.
type IdentityFunc func(ctx context.Context, req *mcp.CallToolRequest) Identity

// Options describe the server to clients.
type Options struct {
	Version string
	// Instructions are shown to the model by clients that pass them on.
	Instructions string
	Logger       *slog.Logger
}

// Instructions is the default text of Options.Instructions.
const Instructions = `asa turns pages of third-party sites into structured JSON. Each tool site_resource ` +
	`(amazon_product, youtube_video, reddit_post, ...) is one endpoint of the API with the same parameters; ` +
	`universal_get fetches any public URL as extracted JSON, HTML, text or Markdown; batch_submit runs many ` +
	`requests of one endpoint in the background and batch_get polls it. A successful call costs what the ` +
	`same HTTP request costs (5 credits a page with a live key, nothing with a sandbox key asa_test_...); ` +
	`an error is a tool error whose text is the API's error body {error, message, ...}, and costs nothing. ` +
	`Sandbox keys answer from fixture pages: the sandbox_case parameter picks one.`

// New returns an MCP server with tools whose calls c runs under the identity id gives.
func New(tools []Tool, c Caller, id IdentityFunc, opt Options) *mcp.Server {
	if opt.Instructions == "" {
		opt.Instructions = Instructions
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "asa", Title: "asa web-scraping API", Version: opt.Version},
		&mcp.ServerOptions{Instructions: opt.Instructions, Logger: SDKLogger(opt.Logger)})
	for i := range tools {
		t := &tools[i]
		s.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.Input, OutputSchema: t.Output,
			Annotations: annotations(t)}, handler(t, c, id))
	}
	return s
}

// SDKLogger is l for the SDK's own lines, warnings and errors only: it logs every connection at
// info, which over stateless HTTP is every request (the API logs each tool call's request already).
func SDKLogger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(minLevel{l.Handler(), slog.LevelWarn})
}

type minLevel struct {
	slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(a), m.min}
}
func (m minLevel) WithGroup(g string) slog.Handler { return minLevel{m.Handler.WithGroup(g), m.min} }

func annotations(t *Tool) *mcp.ToolAnnotations {
	open, destructive := true, false
	a := &mcp.ToolAnnotations{OpenWorldHint: &open, DestructiveHint: &destructive}
	switch t.kind {
	case kindBatchSubmit:
		// Submitting creates a batch (billed per item); with the same idempotency_key, the same one.
	case kindBatchGet:
		a.ReadOnlyHint, a.IdempotentHint, a.OpenWorldHint = true, true, &destructive
	default:
		// A scrape changes nothing but the credits it costs; asking again fetches again.
		a.ReadOnlyHint = true
	}
	return a
}

func handler(t *Tool, c Caller, id IdentityFunc) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		r, aerr := t.request(args)
		if aerr != nil {
			return errorResult(http.StatusBadRequest, map[string]any{"error": "invalid_params", "message": aerr.msg, "params": []string{aerr.param}}), nil
		}
		resp, err := c.Call(ctx, id(ctx, req), r)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return errorResult(http.StatusServiceUnavailable, map[string]any{"error": "service_unavailable",
				"message": fmt.Sprintf("the asa server could not be reached: %v", err)}), nil
		}
		return result(resp), nil
	}
}

// The _meta keys of a result: what the API's Asa-* headers say.
const (
	MetaStatus           = "asa/status"
	MetaRequestID        = "asa/request_id"
	MetaCost             = "asa/cost"
	MetaExtractorVersion = "asa/extractor_version"
	MetaSandboxCase      = "asa/sandbox_case"
	MetaResolvedURL      = "asa/resolved_url"
	MetaError            = "asa/error"
)

// result makes a tool result of the API's answer: a success is the JSON body, as structured
// content and as text; an error is a tool error whose text is the API's error body.
func result(resp Response) *mcp.CallToolResult {
	meta := mcp.Meta{MetaStatus: resp.Status}
	for k, h := range map[string]string{MetaRequestID: "Asa-Request-Id", MetaExtractorVersion: "Asa-Extractor-Version",
		MetaSandboxCase: "Asa-Sandbox-Case", MetaResolvedURL: "Asa-Resolved-Url"} {
		if v := resp.Header.Get(h); v != "" {
			meta[k] = v
		}
	}
	if n, err := strconv.Atoi(resp.Header.Get("Asa-Cost")); err == nil {
		meta[MetaCost] = n
	}
	if resp.Status >= 200 && resp.Status < 300 {
		res := &mcp.CallToolResult{Meta: meta, Content: []mcp.Content{&mcp.TextContent{Text: string(resp.Body)}}}
		if isObject(resp.Body) {
			res.StructuredContent = json.RawMessage(resp.Body)
		}
		return res
	}
	var eb struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(resp.Body, &eb) != nil || eb.Error == "" {
		// Not an asa error body: something in front of the server (a proxy) answered.
		code := "internal_error"
		if resp.Status == http.StatusBadGateway || resp.Status == http.StatusServiceUnavailable || resp.Status == http.StatusGatewayTimeout {
			code = "service_unavailable"
		}
		r := errorResult(resp.Status, map[string]any{"error": code, "message": fmt.Sprintf("the server answered HTTP %d without an asa error body", resp.Status)})
		for k, v := range meta {
			r.Meta[k] = v
		}
		r.Meta[MetaError] = code
		return r
	}
	meta[MetaError] = eb.Error
	return &mcp.CallToolResult{IsError: true, Meta: meta, Content: []mcp.Content{&mcp.TextContent{Text: string(resp.Body)}}}
}

func errorResult(status int, body map[string]any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Meta: mcp.Meta{MetaStatus: status, MetaError: body["error"]},
		Content: []mcp.Content{&mcp.TextContent{Text: string(mustJSON(body))}}}
}

func isObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return json.Valid(b)
		}
		return false
	}
	return false
}
