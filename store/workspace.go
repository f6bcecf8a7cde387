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
	CreatedAt      time.Time
}

// CreateWorkspace creates a workspace. monthlyCredits 0 means the plan's DefaultCredits; a custom
// plan has no default and needs a positive value. A taken name gives ErrDuplicate.
func (db *DB) CreateWorkspace(ctx context.Context, name, plan string, monthlyCredits int) (Workspace, error) {
	if name == "" || !ValidPlan(plan) || monthlyCredits < 0 {
		return Workspace{}, fmt.Errorf("creating workspace %q: %w: plan %q, monthly credits %d", name, ErrInvalid, plan, monthlyCredits)
	}
	if monthlyCredits == 0 {
		monthlyCredits = DefaultCredits(plan)
		if monthlyCredits == 0 {
			return Workspace{}, fmt.Errorf("creating workspace %q: %w: plan %q needs a monthly credit allowance", name, ErrInvalid, plan)
		}
	}
	ws := Workspace{Name: name, Plan: plan, MonthlyCredits: monthlyCredits, CreatedAt: fromMS(ms(time.Now()))}
	err := db.w.QueryRowContext(ctx,
		`INSERT INTO workspaces (name, plan, monthly_credits, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
		ws.Name, ws.Plan, ws.MonthlyCredits, ms(ws.CreatedAt)).Scan(&ws.ID)
	if err != nil {
		return Workspace{}, fmt.Errorf("creating workspace %q: %w", name, classify(err))
	}
	return ws, nil
}

const workspaceCols = `w.id, w.name, w.plan, w.monthly_credits, w.created_at`

func scanWorkspace(row interface{ Scan(...any) error }, ws *Workspace) error {
	var created int64
	if err := row.Scan(&ws.ID, &ws.Name, &ws.Plan, &ws.MonthlyCredits, &created); err != nil {
		return err
	}
	ws.CreatedAt = fromMS(created)
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
