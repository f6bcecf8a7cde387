// Command asa is the asa binary: the API server and the sitedef author's tools.
package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"asa/engine"
	"asa/engine/diag"
	"asa/engine/fetch/farm"
	"asa/engine/registry"
	"asa/sitedefs"
)

const usage = `asa: a web-scraping API and its sitedef tools.

Usage:
  asa serve [--addr HOST:PORT] [--db PATH] [--config FILE] [--sitedefs DIR] [--fixtures DIR] [--public-url URL]
            [--allow-private-network] [--log-format text|json] [--log-level LEVEL] [--request-timeout D]
            [--farm IP:PORT --farm-ca FILE] [--batch-concurrency N] [--batch-lease D] [--db-pool-size N]
                                                  run the API service (docs/configuration.md)
  asa keys create --workspace NAME [--test] [--create-workspace [--plan free|vibe|pro|custom] [--credits N]
                  [--concurrency N] [--rps N]] [--db PATH]
                                                  create a key; the full key is printed once, alone on the last line;
                                                  an unknown workspace is an error unless --create-workspace (then
                                                  it is created on that plan); keys commands without --db say which
                                                  database they use: ASA_DB, else data/asa.db as asa serve;
                                                  every --db takes a SQLite file or a postgres:// URL
  asa keys list [--workspace NAME] [--db PATH]     list keys (short prefix, mode, state, created, last used)
  asa keys revoke SHORT_PREFIX [--workspace NAME] [--db PATH]
  asa workspace list [--db PATH]                   list workspaces with their plan, credits and per-key limits
  asa workspace create|set NAME [--plan free|vibe|pro|custom] [--credits N] [--concurrency N] [--rps N]
                   [--db PATH]
                                                  create a workspace or change its plan; custom takes its own
                                                  limits: --concurrency 100 to 5000, --rps 50 to 500 (burst 2x
                                                  for 3 s) and --credits (docs/configuration.md)
  asa usage [--workspace NAME] [--key SHORT_PREFIX] [--since YYYY-MM-DD] [--db PATH]
                                                  usage per day and endpoint
  asa batch submit SITE.RESOURCE ITEMS.jsonl [--webhook URL] [--idempotency-key K] [--detach] [-o FILE]
                                                  submit a batch (one JSON object per line), show its progress,
                                                  print the batch record with every result when it ends
  asa batch get ID [--offset N --limit N] [-o FILE] print a batch record (every result unless --limit)
                                                  batch commands take --addr HOST:PORT (env ASA_ADDR) and
                                                  --api-key KEY (env ASA_API_KEY)
  asa mcp [--api-key KEY] [--server URL | --db PATH ...] [--tools LIST]
                                                  an MCP server over stdio for agents: one tool per endpoint,
                                                  universal_get, batch_submit, batch_get; calls run in process
                                                  on --db (asa serve's flags) or go to --server; the key from
                                                  ASA_API_KEY or --api-key (docs/mcp.md). asa serve answers
                                                  MCP over streamable HTTP at /mcp
  asa farm [--addr IP:PORT] [--pages DIR] [--ca-out FILE] [--control-addr IP:PORT] [--latency D]
                                                  a local HTTPS target farm with switchable faults, for
                                                  demos and tests (asa serve --farm IP:PORT --farm-ca FILE)
  asa sitedef check [--sitedefs DIR] [PATH...]     lint sitedefs; file:line:col diagnostics, exit 1 on errors
  asa sitedef test [--sitedefs DIR] [--fixtures DIR] [--update] [--corpus DIR] [--run SUBSTR] [-v]
                                                  run fixture cases, coverage, negatives and corpus expectations
  asa sitedef schema [-o FILE]                     write the JSON Schema of the sitedef format
  asa sitedef docs [-o FILE]                       write the sitedef reference (Markdown)
  asa sitedef list [--sitedefs DIR]                list every endpoint with its version
  asa sitedef show [--sitedefs DIR] SITE.RESOURCE  print the resolved definition (family bases merged in)
  asa sitedef new SITE.RESOURCE --from PAGE [--family F] [--url URL] [--sitedefs DIR] [--fixtures DIR] [--corpus DIR]
                                                  scaffold a sitedef (or a family site file), a fixture case
                                                  and a corpus expectation from a saved page
  asa extract SITE.RESOURCE FILE... [--param k=v ...] [--url URL] [--sitedefs DIR] [--all-steps FILE]
              [--profile [--runs N]]
                                                  run one endpoint on saved responses: one FILE per step in
                                                  step order, or STEP=FILE to name the step (again for its
                                                  next page; STEP@N=FILE for page N; --all-steps FILE for
                                                  every other step); universal.get runs the
                                                  universal extraction (--param parse=text ...); --profile
                                                  prints where a run's time goes (against parse-only, by
                                                  phase, by field) instead of the JSON; -h for more

Global: --sitedefs DIR replaces the sitedefs embedded in the binary.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "sitedef":
		if len(args) < 2 {
			fmt.Fprint(stderr, usage)
			return 2
		}
		switch args[1] {
		case "check":
			return cmdCheck(args[2:], stdout, stderr)
		case "test":
			return cmdTest(ctx, args[2:], stdout, stderr)
		case "schema":
			return cmdSchema(args[2:], stdout, stderr)
		case "docs":
			return cmdDocs(args[2:], stdout, stderr)
		case "list":
			return cmdList(args[2:], stdout, stderr)
		case "show":
			return cmdShow(args[2:], stdout, stderr)
		case "new":
			return cmdNew(ctx, args[2:], stdout, stderr)
		}
	case "extract":
		return cmdExtract(ctx, args[1:], stdout, stderr)
	case "serve":
		return cmdServe(ctx, args[1:], stdout, stderr)
	case "keys":
		return cmdKeys(ctx, args[1:], stdout, stderr)
	case "usage":
		return cmdUsage(ctx, args[1:], stdout, stderr)
	case "workspace", "workspaces":
		return cmdWorkspace(ctx, args[1:], stdout, stderr)
	case "batch":
		return cmdBatch(ctx, args[1:], os.Getenv, stdout, stderr)
	case "mcp":
		return cmdMCP(ctx, args[1:], os.Getenv, os.Stdin, stdout, stderr)
	case "farm":
		if err := farm.Main(ctx, args[1:], stdout); err != nil {
			fmt.Fprintf(stderr, "asa farm: %v\n", err)
			return 1
		}
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "asa: unknown command %q\n\n%s", args[0], usage)
	return 2
}

// sitedefFS returns the sitedefs to load: a directory when named, else the embedded set.
func sitedefFS(dir string) fs.FS {
	if dir == "" {
		return sitedefs.FS
	}
	return os.DirFS(dir)
}

// loadRegistry loads and compiles sitedefs, printing diagnostics to w.
func loadRegistry(dir string, w io.Writer, only ...string) (*registry.Registry, diag.List) {
	reg, diags := registry.Load(engine.New(), sitedefFS(dir), only...)
	for _, d := range diags {
		if dir != "" {
			d.File = dir + "/" + d.File
		} else {
			d.File = "sitedefs/" + d.File
		}
		fmt.Fprintln(w, d.String())
	}
	return reg, diags
}
