package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"asa/api"
	"asa/api/apikey"
	"asa/api/mcpserver"
	"asa/api/openapi"
)

const mcpUsage = `Usage: asa mcp [--api-key KEY] [--server URL | serve flags: --db PATH --config FILE --sitedefs DIR ...]
               [--tools LIST]

Serves MCP (Model Context Protocol) over stdio for an agent: stdin and stdout carry JSON-RPC, the log
goes to stderr. Every tool call is one request of the API under the key, billed and limited as that
request over HTTP.

  --api-key KEY   the API key the calls run under (env ASA_API_KEY, which keeps it out of ps)
  --server URL    forward every call to the asa server at URL (its tools are read from
                  URL/api/v1/openapi.json); without it, calls run in this process on the database
                  of --db (env ASA_DB, default data/asa.db) with asa serve's flags and configuration
  --tools LIST    offer only these tools: comma-separated sites (amazon), endpoints (amazon.product),
                  tool names (universal_get), globs of them (google.*) and batch; default all

docs/mcp.md shows how to add it to an agent.
`

// mcpFlags are asa mcp's own flags; the rest are asa serve's, for the in-process mode.
type mcpFlags struct {
	apiKey, server string
	tools          []string
}

// splitMCPFlags takes asa mcp's own flags out of args (--name value or --name=value).
func splitMCPFlags(args []string) (mcpFlags, []string, error) {
	var f mcpFlags
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || (name != "api-key" && name != "server" && name != "tools") {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return f, nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		switch name {
		case "api-key":
			f.apiKey = val
		case "server":
			f.server = val
		case "tools":
			for _, t := range strings.Split(val, ",") {
				if t = strings.TrimSpace(t); t != "" {
					f.tools = append(f.tools, t)
				}
			}
		}
	}
	return f, rest, nil
}

// cmdMCP serves MCP over stdin and stdout until stdin closes or ctx is done.
func cmdMCP(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			fmt.Fprint(stdout, mcpUsage)
			return 0
		}
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "asa mcp: "+format+"\n", a...)
		return 2
	}
	f, rest, err := splitMCPFlags(args)
	if err != nil {
		return fail("%v", err)
	}
	key := f.apiKey
	if key == "" {
		key = getenv("ASA_API_KEY")
	}
	if key == "" {
		return fail("no API key: set ASA_API_KEY or pass --api-key (asa keys create prints one)")
	}
	if _, err := apikey.Parse(key); err != nil {
		return fail("the API key is malformed: %v", err)
	}
	var (
		caller mcpserver.Caller
		tools  []mcpserver.Tool
		log    *slog.Logger
	)
	if f.server != "" {
		if len(rest) > 0 {
			return fail("--server forwards every call to that server; %s is a flag of the in-process mode", rest[0])
		}
		log = slog.New(slog.NewTextHandler(stderr, nil))
		remote := mcpserver.NewRemote(f.server)
		doc, err := remote.FetchOpenAPI(ctx)
		if err != nil {
			log.Error("reading the server's tools", "server", f.server, "err", err)
			return 1
		}
		if tools, err = mcpserver.Tools(doc, mcpserver.ToolOptions{Skip: api.ReservedParams}); err != nil {
			log.Error("reading the server's tools", "server", f.server, "err", err)
			return 1
		}
		caller = remote
	} else {
		cfg, err := loadServeConfig(rest, getenv, stderr)
		if err != nil {
			return fail("%v", err)
		}
		log = newLogger(cfg, stderr)
		// stdout is the protocol's: the first run's keys go to stderr.
		svc, ok := openService(ctx, cfg, log, stderr, stderr, false)
		if !ok {
			return 1
		}
		defer svc.close()
		// Batches submitted here run here (beside any asa serve on the same database: items are
		// leased, never run twice).
		bctx, stop := context.WithCancel(ctx)
		batches := make(chan error, 1)
		go func() { batches <- svc.srv.RunBatches(bctx) }()
		// Extractor health counts the calls made here too; its last counts are added on the way out.
		health := make(chan error, 1)
		go func() { health <- svc.srv.RunHealth(bctx) }()
		defer func() { stop(); <-batches; <-health }()
		if tools, err = svc.srv.MCPTools(); err != nil {
			log.Error("deriving the tools", "err", err)
			return 1
		}
		caller = mcpserver.Handler{H: svc.srv.Handler()}
	}
	if tools, err = mcpserver.Select(tools, f.tools); err != nil {
		return fail("--tools: %v", err)
	}
	srv := mcpserver.New(tools, caller, func(context.Context, *mcp.CallToolRequest) mcpserver.Identity {
		return mcpserver.Identity{Key: key}
	}, mcpserver.Options{Version: openapi.Version, Logger: log})
	log.Info("asa mcp on stdio", "tools", len(tools), "server", f.server)
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopCloser{stdout}})
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		log.Error("mcp session", "err", err)
		return 1
	}
	return 0
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
