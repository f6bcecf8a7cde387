package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Workspace is the unit of billing: keys, usage and the monthly allowance belong to it.
type Workspace struct {
	ID             int64
	Name           string
	Plan           string
	MonthlyCredits int
	// CustomConcurrency and CustomRPS are a Custom workspace's own limits (0: the plan's).
	CustomConcurrency int
	CustomRPS         int
	CreatedAt         time.Time
}

// Limits returns the per-key limits of the workspace's keys: a Custom workspace's own, else its
// plan's.
func (ws Workspace) Limits() Limits {
	l := PlanLimits(ws.Plan)
	if ws.Plan != PlanCustom {
		return l
	}
	if ws.CustomConcurrency > 0 {
		l.Concurrency = ws.CustomConcurrency
	}
	if ws.CustomRPS > 0 {
		l = CustomLimits(l.Concurrency, ws.CustomRPS)
	}
	return l
}

// CreateWorkspace creates a workspace. monthlyCredits 0 means the plan's DefaultCredits; a custom
// plan has no default and needs a positive value. A taken name gives ErrDuplicate.
func (db *DB) CreateWorkspace(ctx context.Context, name, plan string, monthlyCredits int) (Workspace, error) {
	return db.CreateWorkspacePlan(ctx, name, PlanSettings{Plan: plan, MonthlyCredits: monthlyCredits})
}

// CreateWorkspacePlan creates a workspace on the plan p (checked with PlanSettings.Check). A taken
// name gives ErrDuplicate.
func (db *DB) CreateWorkspacePlan(ctx context.Context, name string, p PlanSettings) (Workspace, error) {
	if name == "" {
		return Workspace{}, fmt.Errorf("creating workspace: %w: a name is required", ErrInvalid)
	}
	if err := p.Check(); err != nil {
		return Workspace{}, fmt.Errorf("creating workspace %q: %w", name, err)
	}
	ws := Workspace{Name: name, Plan: p.Plan, MonthlyCredits: p.MonthlyCredits, CustomConcurrency: p.Concurrency,
		CustomRPS: p.RPS, CreatedAt: fromMS(ms(time.Now()))}
	err := db.w.QueryRowContext(ctx,
		`INSERT INTO workspaces (name, plan, monthly_credits, custom_concurrency, custom_rps, created_at)
		 VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		ws.Name, ws.Plan, ws.MonthlyCredits, nullInt(ws.CustomConcurrency), nullInt(ws.CustomRPS), ms(ws.CreatedAt)).Scan(&ws.ID)
	if err != nil {
		return Workspace{}, fmt.Errorf("creating workspace %q: %w", name, classify(err))
	}
	return ws, nil
}

// SetWorkspacePlan moves the named workspace to the plan p (checked with PlanSettings.Check): its
// keys get the new limits on their next request. ErrNotFound for an unknown name.
func (db *DB) SetWorkspacePlan(ctx context.Context, name string, p PlanSettings) (Workspace, error) {
	if err := p.Check(); err != nil {
		return Workspace{}, fmt.Errorf("setting the plan of workspace %q: %w", name, err)
	}
	var ws Workspace
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx,
			`UPDATE workspaces SET plan = ?, monthly_credits = ?, custom_concurrency = ?, custom_rps = ? WHERE name = ?`,
			p.Plan, p.MonthlyCredits, nullInt(p.Concurrency), nullInt(p.RPS), name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = sql.ErrNoRows
			}
			return err
		}
		return scanWorkspace(tx.QueryRowContext(ctx, `SELECT `+workspaceCols+` FROM workspaces w WHERE w.name = ?`, name), &ws)
	})
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return Workspace{}, fmt.Errorf("setting the plan of workspace %q: %w", name, err)
	}
	return ws, nil
}

func nullInt(n int) sql.NullInt64 { return sql.NullInt64{Int64: int64(n), Valid: n != 0} }

const workspaceCols = `w.id, w.name, w.plan, w.monthly_credits, w.custom_concurrency, w.custom_rps, w.created_at`

// workspaceScan holds the scanned workspaceCols until the nullable columns are converted.
type workspaceScan struct {
	ws        *Workspace
	conc, rps sql.NullInt64
	created   int64
}

func (s *workspaceScan) dest() []any {
	return []any{&s.ws.ID, &s.ws.Name, &s.ws.Plan, &s.ws.MonthlyCredits, &s.conc, &s.rps, &s.created}
}

func (s *workspaceScan) finish() {
	s.ws.CustomConcurrency, s.ws.CustomRPS, s.ws.CreatedAt = int(s.conc.Int64), int(s.rps.Int64), fromMS(s.created)
}

func scanWorkspace(row interface{ Scan(...any) error }, ws *Workspace) error {
	s := workspaceScan{ws: ws}
	if err := row.Scan(s.dest()...); err != nil {
		return err
	}
	s.finish()
	return nil
}

// WorkspaceByName returns the named workspace, or ErrNotFound.
func (db *DB) WorkspaceByName(ctx context.Context, name string) (Workspace, error) {
	var ws Workspace
	err := scanWorkspace(db.r.QueryRowContext(ctx, `SELECT `+workspaceCols+` FROM workspaces w WHERE w.name = ?`, name), &ws)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return Workspace{}, fmt.Errorf("reading workspace %q: %w", name, err)
	}
	return ws, nil
}

// Workspaces lists every workspace by id.
func (db *DB) Workspaces(ctx context.Context) ([]Workspace, error) {
	rows, err := db.r.QueryContext(ctx, `SELECT `+workspaceCols+` FROM workspaces w ORDER BY w.id`)
	if err != nil {
		return nil, fmt.Errorf("listing workspaces: %w", err)
	}
	defer rows.Close()
	var out []Workspace
	for rows.Next() {
		var ws Workspace
		if err := scanWorkspace(rows, &ws); err != nil {
			return nil, fmt.Errorf("listing workspaces: %w", err)
		}
		out = append(out, ws)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing workspaces: %w", err)
	}
	return out, nil
}
