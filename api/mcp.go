package api

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"asa/api/mcpserver"
	"asa/api/openapi"
	"asa/engine/errcode"
)

// MCPPath is where the MCP server answers over streamable HTTP (docs/mcp.md).
const MCPPath = "/mcp"

// mcpState is the /mcp handler, built on first use: deriving a tool per endpoint costs the
// OpenAPI document, which a server nobody asks for MCP should not pay at start.
type mcpState struct {
	once    sync.Once
	handler http.Handler
	tools   []mcpserver.Tool
	err     error
	// servers are the MCP servers by the tools parameter that selected their tools ("" for all).
	mu      sync.Mutex
	servers map[string]*mcp.Server
}

// maxMCPSelections bounds the servers kept for distinct tools selections; past it one is dropped
// for the new one (the whole catalogue's, "", is never dropped).
const maxMCPSelections = 64

// registerMCP mounts the MCP server at /mcp. A tool call runs as an in-process request through
// this server's own handler, with the key the /mcp request carried: the same auth, limits, billing
// and errors as the HTTP API, and nothing of its own to keep in step with it.
func (s *Server) registerMCP(e *echo.Echo) {
	e.Any(MCPPath, s.mcpEndpoint)
}

// MCPTools returns the tools the MCP server offers, derived from the OpenAPI document.
func (s *Server) MCPTools() ([]mcpserver.Tool, error) {
	doc, err := s.openAPIDocument()
	if err != nil {
		return nil, err
	}
	return mcpserver.Tools(doc, mcpserver.ToolOptions{Skip: ReservedParams})
}

// mcpKey carries the authenticated /mcp request's key and client address to the token verifier.
type mcpKey struct{}

type mcpCaller struct {
	key, remote string
	keyID       int64
}

func (s *Server) mcpHTTPHandler() (http.Handler, error) {
	s.mcp.once.Do(func() {
		if s.mcp.tools, s.mcp.err = s.MCPTools(); s.mcp.err != nil {
			return
		}
		s.mcp.servers = map[string]*mcp.Server{}
		stream := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
			srv, _ := r.Context().Value(mcpServerKey{}).(*mcp.Server)
			return srv
		}, &mcp.StreamableHTTPOptions{
			// Stateless: every POST stands alone, so nothing is kept per client and no stream is
			// held open across a shutdown; tool calls need no server-to-client requests.
			Stateless:    true,
			JSONResponse: true,
			// A call whose client has gone stops fetching (protocol 2026-07-28 and later; older
			// clients' calls end at the request timeout).
			PropagateRequestCancellation: true,
			// The localhost guard is for MCP servers without authentication; every call here needs
			// an API key (in a header or the query, never a cookie), and asa often runs behind a
			// reverse proxy on loopback whose Host is the public name.
			DisableLocalhostProtection: true,
			MaxRequestBodyBytes:        s.cfg.BodyLimit,
			Logger:                     mcpserver.SDKLogger(s.log),
		})
		// The SDK reads who the caller is from its TokenInfo: the key for the calls, and the key's
		// id as UserID so that a session (in the SDK's stateful mode) can never change hands.
		verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
			c, ok := ctx.Value(mcpKey{}).(mcpCaller)
			if !ok || c.key != token {
				return nil, auth.ErrInvalidToken
			}
			return &auth.TokenInfo{UserID: "key_" + strconv.FormatInt(c.keyID, 10), Extra: map[string]any{"api_key": c.key, "remote": c.remote}}, nil
		}
		s.mcp.handler = auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(stream)
	})
	return s.mcp.handler, s.mcp.err
}

type mcpServerKey struct{}

// mcpServer returns the MCP server offering the tools selected by the tools parameter (a
// comma-separated list of sites, endpoints, tool names and globs; empty for all).
func (s *Server) mcpServer(selection string) (*mcp.Server, error) {
	var patterns []string
	for _, p := range strings.Split(selection, ",") {
		if p = strings.TrimSpace(p); p != "" {
			patterns = append(patterns, p)
		}
	}
	canon := strings.Join(patterns, ",")
	s.mcp.mu.Lock()
	srv := s.mcp.servers[canon]
	s.mcp.mu.Unlock()
	if srv != nil {
		return srv, nil
	}
	tools, err := mcpserver.Select(s.mcp.tools, patterns)
	if err != nil {
		return nil, err
	}
	inProcess := mcpserver.Handler{H: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) })}
	srv = mcpserver.New(tools, inProcess, func(_ context.Context, req *mcp.CallToolRequest) mcpserver.Identity {
		if req.Extra == nil || req.Extra.TokenInfo == nil {
			return mcpserver.Identity{}
		}
		key, _ := req.Extra.TokenInfo.Extra["api_key"].(string)
		remote, _ := req.Extra.TokenInfo.Extra["remote"].(string)
		return mcpserver.Identity{Key: key, RemoteAddr: remote}
	}, mcpserver.Options{Version: openapi.Version, Logger: s.log})
	s.mcp.mu.Lock()
	if len(s.mcp.servers) >= maxMCPSelections {
		for k := range s.mcp.servers { // any one: a selection is cheap to build again
			if k != "" {
				delete(s.mcp.servers, k)
				break
			}
		}
	}
	s.mcp.servers[canon] = srv
	s.mcp.mu.Unlock()
	return srv, nil
}

// mcpEndpoint serves /mcp: the key is checked as on every API route (api_key, X-API-Key or
// Authorization: Bearer) and refused with the API's error bodies; only then does the MCP handler
// see the request, with the key as its bearer token.
func (s *Server) mcpEndpoint(c echo.Context) error {
	if c.Request().Method != http.MethodPost {
		// Stateless streamable HTTP: no GET stream to open, no session to DELETE.
		c.Response().Header().Set(echo.HeaderAllow, http.MethodPost)
		return s.writeErrorStatus(c, errcode.New(errcode.MethodNotAllowed, "%s is not allowed on %s; MCP over streamable HTTP takes POST", c.Request().Method, MCPPath), http.StatusMethodNotAllowed)
	}
	p, aerr := s.authenticate(c)
	if aerr != nil {
		if aerr.Code == errcode.Unauthorized || aerr.Code == errcode.Revoked {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="asa"`)
		}
		return s.writeError(c, aerr)
	}
	raw, _ := keyOf(c.QueryParams()["api_key"], c.Request().Header)
	h, err := s.mcpHTTPHandler()
	if err != nil {
		return &errcode.Error{Code: errcode.InternalError, Cause: err}
	}
	q := c.QueryParams()
	for k, v := range q {
		if k != "api_key" && k != "tools" || len(v) > 1 {
			return s.writeError(c, &errcode.Error{Code: errcode.InvalidParams, Params: []string{k},
				Message: fmt.Sprintf("%s takes api_key and tools (a comma-separated list of sites, endpoints and tool names), each once; %s is not one of them or is repeated", MCPPath, k)})
		}
	}
	srv, err := s.mcpServer(q.Get("tools"))
	if err != nil {
		return s.writeError(c, &errcode.Error{Code: errcode.InvalidParams, Params: []string{"tools"}, Message: err.Error()})
	}
	r := c.Request()
	ctx := context.WithValue(r.Context(), mcpKey{}, mcpCaller{key: raw, remote: r.RemoteAddr, keyID: p.KeyID})
	r = r.WithContext(context.WithValue(ctx, mcpServerKey{}, srv))
	r.Header = r.Header.Clone()
	r.Header.Del("X-API-Key")
	r.Header.Set("Authorization", "Bearer "+raw)
	h.ServeHTTP(c.Response(), r)
	return nil
}
