package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"asa/store/pgtest"
)

func TestPlanSettingsCheck(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   PlanSettings
		want PlanSettings
		err  error
	}{
		{"free defaults", PlanSettings{Plan: PlanFree}, PlanSettings{Plan: PlanFree, MonthlyCredits: 5_000}, nil},
		{"custom low end", PlanSettings{Plan: PlanCustom, MonthlyCredits: 9}, PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, Concurrency: 100, RPS: 50}, nil},
		{"custom top of range", PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, Concurrency: 500, RPS: 500}, PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, Concurrency: 500, RPS: 500}, nil},
		{"custom 500+", PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, Concurrency: MaxCustomConcurrency, RPS: 60}, PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, Concurrency: MaxCustomConcurrency, RPS: 60}, nil},
		{"custom without credits", PlanSettings{Plan: PlanCustom, Concurrency: 200}, PlanSettings{}, ErrInvalid},
		{"concurrency under 100", PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, Concurrency: 99}, PlanSettings{}, ErrInvalid},
		{"concurrency over the cap", PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, Concurrency: MaxCustomConcurrency + 1}, PlanSettings{}, ErrInvalid},
		{"rps under 50", PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, RPS: 49}, PlanSettings{}, ErrInvalid},
		{"rps over 500", PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, RPS: 501}, PlanSettings{}, ErrInvalid},
		{"negative", PlanSettings{Plan: PlanCustom, MonthlyCredits: 9, RPS: -5}, PlanSettings{}, ErrInvalid},
		{"limits on pro", PlanSettings{Plan: PlanPro, Concurrency: 200}, PlanSettings{}, ErrInvalid},
		{"unknown plan", PlanSettings{Plan: "gold"}, PlanSettings{}, ErrInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			err := got.Check()
			if !errors.Is(err, tt.err) {
				t.Fatalf("Check(%+v) = %v, want %v", tt.in, err, tt.err)
			}
			if err == nil && got != tt.want {
				t.Fatalf("Check(%+v) filled %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

// TestCustomWorkspaceLimits: a Custom workspace's own limits are stored, changed, and reach the
// lookup an API request makes (burst twice the sustained rate); other plans keep their table's.
func TestCustomWorkspaceLimits(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws, err := db.CreateWorkspacePlan(ctx, "big", PlanSettings{Plan: PlanCustom, MonthlyCredits: 5_000_000, Concurrency: 300, RPS: 200})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Limits{Concurrency: 300, RPS: 200, Burst: 400}); ws.Limits() != want {
		t.Fatalf("created: %+v, want %+v", ws.Limits(), want)
	}
	key, _ := mustKey(t, db, ws.ID, false)
	_, got, _, err := db.KeyByHash(ctx, key.Hash(), time.Now())
	if err != nil || got.Limits() != (Limits{300, 200, 400}) || got.MonthlyCredits != 5_000_000 {
		t.Fatalf("KeyByHash: %+v %v", got, err)
	}
	if _, err := db.SetWorkspacePlan(ctx, "big", PlanSettings{Plan: PlanCustom, MonthlyCredits: 6_000_000, Concurrency: 800, RPS: 500}); err != nil {
		t.Fatal(err)
	}
	_, got, _, _ = db.KeyByHash(ctx, key.Hash(), time.Now())
	if got.Limits() != (Limits{800, 500, 1000}) || got.MonthlyCredits != 6_000_000 {
		t.Fatalf("after the change: %+v", got)
	}
	if _, err := db.SetWorkspacePlan(ctx, "big", PlanSettings{Plan: PlanCustom, MonthlyCredits: 1, RPS: 501}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("rps 501: %v", err)
	}
	// Back to Pro: the custom limits go with the plan.
	if _, err := db.SetWorkspacePlan(ctx, "big", PlanSettings{Plan: PlanPro}); err != nil {
		t.Fatal(err)
	}
	got, err = db.WorkspaceByName(ctx, "big")
	if err != nil || got.Limits() != PlanLimits(PlanPro) || got.MonthlyCredits != 410_000 || got.CustomRPS != 0 {
		t.Fatalf("back to pro: %+v %v", got, err)
	}
	if _, err := db.SetWorkspacePlan(ctx, "nobody", PlanSettings{Plan: PlanFree}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown workspace: %v", err)
	}
	// A Custom workspace created the old way gets the low end of the range.
	old := mustWorkspace(t, db, "old", PlanCustom, 10)
	if old.Limits() != PlanLimits(PlanCustom) {
		t.Fatalf("custom without its own limits: %+v", old.Limits())
	}
}

// TestMigrationScopesIdempotencyKeys opens a database at schema 3 holding a sandbox batch's
// idempotency key: after the migration the key keeps its batch, in the sandbox mode only.
func TestMigrationScopesIdempotencyKeys(t *testing.T) {
	ctx := context.Background()
	path, driver := filepath.Join(t.TempDir(), "asa.db"), "sqlite3"
	d, sandbox := sqliteDialect, "1"
	if onPostgres(t) {
		// An empty database (the tests' template is migrated already), written to without the
		// store's rewriting: the statements below are PostgreSQL's own.
		d, sandbox, path, driver = postgresDialect, "TRUE", pgtest.DB(t), "pgx"
	}
	raw, err := sql.Open(driver, path)
	if err == nil && onPostgres(t) {
		_, err = raw.ExecContext(ctx, `DROP SCHEMA public CASCADE; CREATE SCHEMA public`)
	}
	if err != nil {
		t.Fatal(err)
	}
	all, err := migrationsFor(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if m.version > 3 {
			break
		}
		if _, err := raw.ExecContext(ctx, m.sql); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	for _, q := range []string{
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`,
		`INSERT INTO schema_migrations VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0)`,
		`INSERT INTO workspaces (id, name, plan, monthly_credits, created_at) VALUES (1, 'acme', 'pro', 1000, 0)`,
		`INSERT INTO batches (id, workspace_id, key_id, test, endpoint, status, total_count, queued_count, created_at)
		 VALUES ('sb', 1, 7, ` + sandbox + `, 'shop.product', 'pending', 1, 1, 0)`,
		`INSERT INTO batch_idempotency (workspace_id, key, request_hash, batch_id, created_at) VALUES (1, 'k', 'h', 'sb', 0)`,
	} {
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	db := openAgain(t, path)
	if n := count(t, db, `SELECT COUNT(*) FROM batch_idempotency WHERE workspace_id = 1 AND test = ? AND key = 'k' AND batch_id = 'sb'`, true); n != 1 {
		t.Fatalf("the sandbox key's row after the migration: %d", n)
	}
	ws, err := db.WorkspaceByName(ctx, "acme")
	if err != nil || ws.Limits() != PlanLimits(PlanPro) {
		t.Fatalf("workspace after the migration: %+v %v", ws, err)
	}
}
