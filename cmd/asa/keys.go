package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"asa/store"
	"asa/store/redisrevoke"
)

// reorder moves flags before positional arguments, so `asa keys revoke PREFIX --db x` works too.
func reorder(args []string, valueFlags map[string]bool) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && a != "-" {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && valueFlags[name] && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(flags, pos...)
}

func cmdKeys(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	sub := args[0]
	fl := newFlags("asa keys "+sub, stderr)
	dbPath := fl.String("db", defaultServeConfig().DB, "SQLite database file or postgres:// URL")
	workspace := fl.String("workspace", "", "workspace name")
	test := fl.Bool("test", false, "create a sandbox key (asa_test_)")
	pf := addPlanFlags(fl, store.PlanFree) // the plan of a new workspace
	createWS := fl.Bool("create-workspace", false, "create: make the --workspace if it does not exist (else an unknown name is an error)")
	redisURL := fl.String("redis", os.Getenv("ASA_REDIS"), "revoke: the deployment's Redis (env ASA_REDIS), to tell every node at once rather than when their auth caches expire")
	if err := fl.Parse(reorder(args[1:], map[string]bool{"db": true, "workspace": true, "plan": true, "credits": true, "concurrency": true, "rps": true, "redis": true})); err != nil {
		return 2
	}
	resolveDB(fl, dbPath, "asa keys", stderr)
	db, err := store.Open(ctx, *dbPath)
	if err != nil {
		fmt.Fprintf(stderr, "asa keys: %v\n", err)
		return 1
	}
	defer db.Close()
	switch sub {
	case "create":
		if *workspace == "" {
			fmt.Fprintln(stderr, "asa keys create: --workspace NAME is required")
			return 2
		}
		if s := pf.settings(); s.Check() != nil {
			fmt.Fprintf(stderr, "asa keys create: %v\n", s.Check())
			return 2
		}
		ws, err := db.WorkspaceByName(ctx, *workspace)
		if errors.Is(err, store.ErrNotFound) && !*createWS {
			fmt.Fprintf(stderr, "asa keys create: no workspace %q in %s%s; pass --create-workspace to create it\n", *workspace, store.RedactDSN(*dbPath), knownWorkspaces(ctx, db))
			return 1
		}
		if errors.Is(err, store.ErrNotFound) {
			ws, err = db.CreateWorkspacePlan(ctx, *workspace, pf.settings())
			if err == nil {
				fmt.Fprintf(stdout, "created workspace %s (%s)\n", ws.Name, describe(ws))
			}
		} else if err == nil && pf.given() {
			fmt.Fprintf(stderr, "asa keys create: workspace %s exists; its plan is unchanged (%s): change it with asa workspace set\n", ws.Name, describe(ws))
		}
		if err != nil {
			fmt.Fprintf(stderr, "asa keys create: %v\n", err)
			return 1
		}
		key, rec, err := db.CreateKey(ctx, ws.ID, *test)
		if errors.Is(err, store.ErrKeyLimit) {
			fmt.Fprintf(stderr, "asa keys create: workspace %s already has %d active keys; revoke one first\n", ws.Name, store.MaxActiveKeys)
			return 1
		}
		if err != nil {
			fmt.Fprintf(stderr, "asa keys create: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "created key %s in workspace %s; it is shown once, only its hash is stored:\n", rec.ShortPrefix, ws.Name)
		fmt.Fprintln(stdout, key.String())
		return 0
	case "list":
		if code := requireWorkspace(ctx, db, *workspace, *dbPath, "asa keys list", stderr); code != 0 {
			return code
		}
		wss, err := db.Workspaces(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "asa keys list: %v\n", err)
			return 1
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "WORKSPACE\tSHORT PREFIX\tMODE\tSTATE\tCREATED\tLAST USED")
		for _, ws := range wss {
			if *workspace != "" && ws.Name != *workspace {
				continue
			}
			keys, err := db.Keys(ctx, ws.ID)
			if err != nil {
				fmt.Fprintf(stderr, "asa keys list: %v\n", err)
				return 1
			}
			for _, k := range keys {
				mode := "live"
				if k.Test {
					mode = "test"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", ws.Name, k.ShortPrefix, mode, k.State, stamp(k.CreatedAt), stamp(k.LastUsedAt))
			}
		}
		_ = tw.Flush()
		return 0
	case "revoke":
		if fl.NArg() != 1 {
			fmt.Fprintln(stderr, "asa keys revoke: want one SHORT_PREFIX (asa keys list shows them)")
			return 2
		}
		prefix := fl.Arg(0)
		if code := requireWorkspace(ctx, db, *workspace, *dbPath, "asa keys revoke", stderr); code != 0 {
			return code
		}
		wss, err := db.Workspaces(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "asa keys revoke: %v\n", err)
			return 1
		}
		found := 0
		for _, ws := range wss {
			if *workspace != "" && ws.Name != *workspace {
				continue
			}
			if err := db.RevokeKey(ctx, ws.ID, prefix); err == nil {
				found++
				fmt.Fprintf(stdout, "revoked %s in workspace %s\n", prefix, ws.Name)
			} else if !errors.Is(err, store.ErrNotFound) {
				fmt.Fprintf(stderr, "asa keys revoke: %v\n", err)
				return 1
			}
		}
		if found == 0 {
			fmt.Fprintf(stderr, "asa keys revoke: no key with short prefix %s\n", prefix)
			return 1
		}
		if *redisURL != "" {
			if err := publishRevocation(ctx, *redisURL, prefix); err != nil {
				// The revocation stands; the nodes see it when their cache entries expire.
				fmt.Fprintf(stderr, "asa keys revoke: not announced to the nodes (they refuse the key within their auth cache's TTL): %v\n", err)
			}
		}
		return 0
	}
	fmt.Fprintf(stderr, "asa keys: unknown subcommand %q (create, list, revoke)\n", sub)
	return 2
}

// resolveDB settles the database of a command run without --db (ASA_DB, else the default asa serve
// uses) and says which it is on stderr: a key created in the wrong file is a key that never works.
func resolveDB(fl *flag.FlagSet, dbPath *string, cmd string, stderr io.Writer) {
	given := false
	fl.Visit(func(f *flag.Flag) { given = given || f.Name == "db" })
	if given {
		return
	}
	how := "the default of asa serve"
	if env := os.Getenv("ASA_DB"); env != "" {
		*dbPath, how = env, "from ASA_DB"
	}
	state := ""
	if _, err := os.Stat(*dbPath); errors.Is(err, os.ErrNotExist) && !store.IsPostgres(*dbPath) {
		state = ", which does not exist yet and is created empty"
	}
	fmt.Fprintf(stderr, "%s: using the database %s (%s%s; --db PATH for another)\n", cmd, store.RedactDSN(*dbPath), how, state)
}

// requireWorkspace refuses a --workspace that names no workspace (0 when name is empty or known).
func requireWorkspace(ctx context.Context, db *store.DB, name, dbPath, cmd string, stderr io.Writer) int {
	if name == "" {
		return 0
	}
	_, err := db.WorkspaceByName(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintf(stderr, "%s: no workspace %q in %s%s\n", cmd, name, store.RedactDSN(dbPath), knownWorkspaces(ctx, db))
		return 1
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
		return 1
	}
	return 0
}

// knownWorkspaces is ` (workspaces: a, b)` for an error message, or "" when there are none.
func knownWorkspaces(ctx context.Context, db *store.DB) string {
	wss, err := db.Workspaces(ctx)
	if err != nil || len(wss) == 0 {
		return " (it has no workspace)"
	}
	names := make([]string, len(wss))
	for i, ws := range wss {
		names[i] = ws.Name
	}
	return " (workspaces: " + strings.Join(names, ", ") + ")"
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

func cmdUsage(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := newFlags("asa usage", stderr)
	dbPath := fl.String("db", defaultServeConfig().DB, "SQLite database file or postgres:// URL")
	workspace := fl.String("workspace", "", "workspace name (default: every workspace)")
	key := fl.String("key", "", "only this key (short prefix)")
	since := fl.String("since", "", "first day, YYYY-MM-DD (default: the start of this month)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	from := time.Now().UTC()
	from = time.Date(from.Year(), from.Month(), 1, 0, 0, 0, 0, time.UTC)
	if *since != "" {
		t, err := time.Parse("2006-01-02", *since)
		if err != nil {
			fmt.Fprintf(stderr, "asa usage: --since %q is not YYYY-MM-DD\n", *since)
			return 2
		}
		from = t
	}
	db, err := store.Open(ctx, *dbPath)
	if err != nil {
		fmt.Fprintf(stderr, "asa usage: %v\n", err)
		return 1
	}
	defer db.Close()
	wss, err := db.Workspaces(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "asa usage: %v\n", err)
		return 1
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKSPACE\tDAY\tENDPOINT\tREQUESTS\tERRORS\tCREDITS")
	for _, ws := range wss {
		if *workspace != "" && ws.Name != *workspace {
			continue
		}
		rows, err := db.Usage(ctx, store.UsageQuery{WorkspaceID: ws.ID, KeyShort: *key, Since: from})
		if err != nil {
			fmt.Fprintf(stderr, "asa usage: %v\n", err)
			return 1
		}
		total := 0
		for _, r := range rows {
			total += r.Credits
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\n", ws.Name, r.Day.Format("2006-01-02"), r.Endpoint, r.Requests, r.Errors, r.Credits)
		}
		used, _ := db.CreditsUsed(ctx, ws.ID, time.Now())
		fmt.Fprintf(tw, "%s\ttotal\t\t\t\t%d (this month %d of %d)\n", ws.Name, total, used, ws.MonthlyCredits)
	}
	_ = tw.Flush()
	return 0
}

// publishRevocation tells every node of the deployment that the key is revoked (their auth caches
// forget it at once).
func publishRevocation(ctx context.Context, url, short string) error {
	bus, err := redisrevoke.Open(url)
	if err != nil {
		return err
	}
	defer bus.Close()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return bus.Publish(ctx, short)
}
