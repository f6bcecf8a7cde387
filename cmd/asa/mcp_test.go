package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"asa/store"
)

// The shop test catalogue and its sandbox fixtures: small, and nothing of it reaches the network.
var mcpCatalogue = []string{"--sitedefs", "../../engine/testdata", "--fixtures", "../../api/testdata/fixtures", "--log-level", "warn"}

// mcpStdio runs asa mcp with args on pipes and connects the SDK's client to it; the returned
// function closes the session and returns the command's exit code.
func mcpStdio(t *testing.T, args []string, env map[string]string) (*mcp.ClientSession, func() int, *lockedBuffer) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		code := cmdMCP(context.Background(), args, func(k string) string { return env[k] }, inR, outW, stderr)
		outW.Close() // the client sees the end of the session
		inR.Close()
		done <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "asa-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		inW.Close()
		t.Fatalf("connecting: %v (exit %d)\n%s", err, <-done, stderr.String())
	}
	stop := sync.OnceValue(func() int {
		cs.Close()
		return <-done
	})
	t.Cleanup(func() { stop() })
	return cs, stop, stderr
}

// workspaceKeys creates a workspace with a live and a sandbox key in a new database.
func workspaceKeys(t *testing.T, path string) (store.Workspace, string, string) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws, err := db.CreateWorkspace(ctx, "agents", store.PlanPro, 0)
	if err != nil {
		t.Fatal(err)
	}
	live, _, err := db.CreateKey(ctx, ws.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	test, _, err := db.CreateKey(ctx, ws.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	return ws, live.String(), test.String()
}

// requestsOf counts the requests of endpoint in the workspace's usage.
func requestsOf(t *testing.T, path string, ws int64, endpoint string) int {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Usage(context.Background(), store.UsageQuery{WorkspaceID: ws})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.Endpoint == endpoint {
			n += r.Requests
		}
	}
	return n
}

// checkSession lists the tools and calls shop_product twice: a sandbox success and a bad parameter.
func checkSession(t *testing.T, cs *mcp.ClientSession, wantTools []string) {
	t.Helper()
	ctx := context.Background()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, wantTools) {
		t.Errorf("tools %v, want %v", names, wantTools)
	}
	ok, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop_product", Arguments: map[string]any{"query": "AB1234"}})
	if err != nil {
		t.Fatal(err)
	}
	if ok.IsError || ok.StructuredContent.(map[string]any)["id"] == nil || ok.Meta["asa/sandbox_case"] == nil {
		t.Errorf("sandbox call: %v %v", ok.Content, ok.Meta)
	}
	bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "shop_product", Arguments: map[string]any{"query": "abc"}})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if bad.IsError {
		_ = json.Unmarshal([]byte(bad.Content[0].(*mcp.TextContent).Text), &body)
	}
	if body["error"] != "invalid_params" {
		t.Errorf("bad parameter: %v", bad.Content)
	}
}

func TestMCPStdio(t *testing.T) {
	all := []string{"batch_get", "batch_submit", "shop_product", "shop_reviews", "shop_thread", "universal_get"}

	t.Run("in process", func(t *testing.T) {
		t.Parallel()
		dbPath := filepath.Join(t.TempDir(), "asa.db")
		ws, _, test := workspaceKeys(t, dbPath)
		cs, stop, stderr := mcpStdio(t, append([]string{"--db", dbPath}, mcpCatalogue...), map[string]string{"ASA_API_KEY": test})
		checkSession(t, cs, all)
		if code := stop(); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		if n := requestsOf(t, dbPath, ws.ID, "shop.product"); n != 2 {
			t.Errorf("the database logged %d shop.product requests, want the 2 calls", n)
		}
		if strings.Contains(stderr.String(), test) {
			t.Error("the log holds the key")
		}
	})

	t.Run("forwarding to a server", func(t *testing.T) {
		t.Parallel()
		dbPath := filepath.Join(t.TempDir(), "asa.db")
		ws, live, test := workspaceKeys(t, dbPath)
		addr := freeAddr(t)
		ctx, cancel := context.WithCancel(context.Background())
		served := make(chan int, 1)
		serveErr := &lockedBuffer{}
		go func() {
			served <- run(ctx, append([]string{"serve", "--addr", addr, "--db", dbPath}, mcpCatalogue...), io.Discard, serveErr)
		}()
		stopServe := sync.OnceFunc(func() {
			cancel()
			if code := <-served; code != 0 {
				t.Errorf("serve exited %d: %s", code, serveErr.String())
			}
		})
		t.Cleanup(stopServe)
		for up := false; !up; {
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				up = true
				continue
			}
			select {
			case code := <-served:
				served <- code
				t.Fatalf("serve exited %d: %s", code, serveErr.String())
			case <-time.After(20 * time.Millisecond): // poll; not a bound
			}
		}
		before := requestsOf(t, dbPath, ws.ID, "shop.product")
		cs, stop, stderr := mcpStdio(t, []string{"--server", "http://" + addr, "--api-key", test, "--tools", "shop.product"}, nil)
		checkSession(t, cs, []string{"shop_product"})
		if code := stop(); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		// A tools selection is checked against the server's tools.
		stderr = &lockedBuffer{}
		code := cmdMCP(context.Background(), []string{"--server", "http://" + addr, "--tools", "nosuchsite"},
			func(k string) string { return map[string]string{"ASA_API_KEY": live}[k] }, strings.NewReader(""), io.Discard, stderr)
		if code != 2 || !strings.Contains(stderr.String(), "names no tool") {
			t.Errorf("unknown tools: exit %d, %s", code, stderr.String())
		}
		stopServe() // the server's request log is written by the time it has stopped
		if n := requestsOf(t, dbPath, ws.ID, "shop.product") - before; n != 2 {
			t.Errorf("the server logged %d shop.product requests, want the 2 calls", n)
		}
	})

	refused := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no key", []string{"--db", "asa.db"}, nil, "no API key"},
		{"malformed key", []string{"--api-key", "asa_live_nope"}, nil, "malformed"},
		{"server and db", []string{"--server", "http://127.0.0.1:1", "--db", "asa.db"}, map[string]string{"ASA_API_KEY": "asa_test_EhUC5soKJjsHkgsWYlphpO4Epj6LoW1TYmT8"}, "in-process mode"},
		{"flag without value", []string{"--api-key"}, nil, "needs a value"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			stderr := &lockedBuffer{}
			code := cmdMCP(context.Background(), tt.args, func(k string) string { return tt.env[k] }, strings.NewReader(""), io.Discard, stderr)
			if code != 2 || !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr.String(), tt.want)
			}
		})
	}
}
