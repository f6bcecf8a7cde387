package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"asa/store"
)

// planFlags are the plan flags of `asa workspace` and `asa keys create`.
type planFlags struct {
	fl                        *flag.FlagSet
	plan                      *string
	credits, concurrency, rps *int
}

func addPlanFlags(fl *flag.FlagSet, defPlan string) planFlags {
	return planFlags{
		fl:          fl,
		plan:        fl.String("plan", defPlan, "plan: free, vibe, pro or custom"),
		credits:     fl.Int("credits", 0, "monthly credits (required for custom; default: the plan's)"),
		concurrency: fl.Int("concurrency", 0, fmt.Sprintf("custom plan: requests in flight per key, %d to %d (default %d)", store.MinCustomConcurrency, store.MaxCustomConcurrency, store.PlanLimits(store.PlanCustom).Concurrency)),
		rps:         fl.Int("rps", 0, fmt.Sprintf("custom plan: sustained requests per second per key, %d to %d (default %d); the burst is twice that for 3 s", store.MinCustomRPS, store.MaxCustomRPS, store.PlanLimits(store.PlanCustom).RPS)),
	}
}

// planValueFlags are the plan flags that take a value (for reorder).
var planValueFlags = map[string]bool{"plan": true, "credits": true, "concurrency": true, "rps": true}

// given reports whether any plan flag was on the command line.
func (p planFlags) given() bool {
	set := false
	p.fl.Visit(func(f *flag.Flag) { set = set || planValueFlags[f.Name] })
	return set
}

func (p planFlags) settings() store.PlanSettings {
	return store.PlanSettings{Plan: *p.plan, MonthlyCredits: *p.credits, Concurrency: *p.concurrency, RPS: *p.rps}
}

// over returns the settings of the flags given, the rest kept from ws: a credit allowance or a
// custom limit stays unless the plan changes.
func (p planFlags) over(ws store.Workspace) store.PlanSettings {
	set := map[string]bool{}
	p.fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	s := store.PlanSettings{Plan: ws.Plan, MonthlyCredits: ws.MonthlyCredits, Concurrency: ws.CustomConcurrency, RPS: ws.CustomRPS}
	if set["plan"] && *p.plan != ws.Plan {
		s = store.PlanSettings{Plan: *p.plan}
	}
	if set["credits"] {
		s.MonthlyCredits = *p.credits
	}
	if set["concurrency"] {
		s.Concurrency = *p.concurrency
	}
	if set["rps"] {
		s.RPS = *p.rps
	}
	return s
}

// describe says a workspace's plan in one line.
func describe(ws store.Workspace) string {
	l := ws.Limits()
	return fmt.Sprintf("plan %s, %d credits a month; per key %d in flight, %d requests/s, %d per %v",
		ws.Plan, ws.MonthlyCredits, l.Concurrency, l.RPS, l.Burst, store.BurstWindow)
}

func cmdWorkspace(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	sub := args[0]
	fl := newFlags("asa workspace "+sub, stderr)
	dbPath := fl.String("db", defaultServeConfig().DB, "SQLite database file")
	pf := addPlanFlags(fl, store.PlanFree)
	vf := map[string]bool{"db": true}
	for k := range planValueFlags {
		vf[k] = true
	}
	if err := fl.Parse(reorder(args[1:], vf)); err != nil {
		return 2
	}
	want := 1
	if sub == "list" {
		want = 0
	}
	if fl.NArg() != want || (sub == "list" && pf.given()) {
		fmt.Fprintf(stderr, "asa workspace %s: see asa help\n", sub)
		return 2
	}
	db, err := store.Open(ctx, *dbPath)
	if err != nil {
		fmt.Fprintf(stderr, "asa workspace: %v\n", err)
		return 1
	}
	defer db.Close()
	fail := func(err error) int {
		fmt.Fprintf(stderr, "asa workspace %s: %v\n", sub, err)
		if errors.Is(err, store.ErrInvalid) {
			return 2
		}
		return 1
	}
	switch sub {
	case "list":
		wss, err := db.Workspaces(ctx)
		if err != nil {
			return fail(err)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "WORKSPACE\tPLAN\tCREDITS/MONTH\tCONCURRENCY\tRPS\tBURST/3s")
		for _, ws := range wss {
			l := ws.Limits()
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\n", ws.Name, ws.Plan, ws.MonthlyCredits, l.Concurrency, l.RPS, l.Burst)
		}
		_ = tw.Flush()
		return 0
	case "create":
		ws, err := db.CreateWorkspacePlan(ctx, fl.Arg(0), pf.settings())
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "created workspace %s (%s)\n", ws.Name, describe(ws))
		return 0
	case "set":
		ws, err := db.WorkspaceByName(ctx, fl.Arg(0))
		if err != nil {
			return fail(err)
		}
		if ws, err = db.SetWorkspacePlan(ctx, ws.Name, pf.over(ws)); err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "workspace %s: %s\n", ws.Name, describe(ws))
		return 0
	}
	fmt.Fprintf(stderr, "asa workspace: unknown subcommand %q (list, create, set)\n", sub)
	return 2
}

// workspaceConfig is one entry of the configuration's workspaces: a workspace and its plan, created
// or brought to that plan when asa serve starts.
type workspaceConfig struct {
	Name        string `yaml:"name"`
	Plan        string `yaml:"plan"`
	Credits     int    `yaml:"credits"`
	Concurrency int    `yaml:"concurrency"`
	RPS         int    `yaml:"rps"`
}

func (w workspaceConfig) settings() store.PlanSettings {
	return store.PlanSettings{Plan: w.Plan, MonthlyCredits: w.Credits, Concurrency: w.Concurrency, RPS: w.RPS}
}

// checkWorkspaces validates the configured workspaces: a name each, once, and a valid plan.
func checkWorkspaces(wss []workspaceConfig) error {
	seen := map[string]bool{}
	for i, w := range wss {
		if w.Name == "" || seen[w.Name] {
			return fmt.Errorf("workspaces[%d]: needs a name of its own", i)
		}
		seen[w.Name] = true
		s := w.settings()
		if err := s.Check(); err != nil {
			return fmt.Errorf("workspaces[%d] (%s): %w", i, w.Name, err)
		}
	}
	return nil
}

// applyWorkspaces creates each configured workspace that does not exist and moves the others to
// their configured plan: the file is the source of truth for the plans it names.
func applyWorkspaces(ctx context.Context, db *store.DB, wss []workspaceConfig, log *slog.Logger) error {
	for _, w := range wss {
		s := w.settings()
		if err := s.Check(); err != nil {
			return fmt.Errorf("workspace %s: %w", w.Name, err)
		}
		ws, err := db.WorkspaceByName(ctx, w.Name)
		switch {
		case errors.Is(err, store.ErrNotFound):
			ws, err = db.CreateWorkspacePlan(ctx, w.Name, s)
			if err == nil {
				log.Info("created a configured workspace", "workspace", ws.Name, "plan", describe(ws))
				continue
			}
			if !errors.Is(err, store.ErrDuplicate) {
				return err
			}
			// Another node on the same PostgreSQL database, starting at the same moment, created it.
			if ws, err = db.WorkspaceByName(ctx, w.Name); err != nil {
				return err
			}
		case err != nil:
			return err
		}
		if (store.PlanSettings{Plan: ws.Plan, MonthlyCredits: ws.MonthlyCredits, Concurrency: ws.CustomConcurrency, RPS: ws.CustomRPS}) == s {
			continue
		}
		if ws, err = db.SetWorkspacePlan(ctx, w.Name, s); err != nil {
			return err
		}
		log.Info("set a workspace's plan from the configuration", "workspace", ws.Name, "plan", describe(ws))
	}
	return nil
}
