package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

// SQLite's migrations are migrations/NNNN_name.sql, PostgreSQL's migrations/postgres/NNNN_name.sql:
// the same versions, each written in its engine's DDL. A new migration is one file in each.
//
//go:embed migrations/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// migrationLock is the PostgreSQL advisory lock (an arbitrary constant of this program) that makes
// nodes starting together apply the migrations one at a time: the first applies them, the others
// wait and then find nothing left to do.
const migrationLock = 0x61736121 // "asa!"

type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists SQLite's migrations.
func migrations() ([]migration, error) { return migrationsIn("migrations") }

// migrationsFor lists the migrations of the dialect.
func migrationsFor(d dialect) ([]migration, error) {
	if d.name == postgresDialect.name {
		return migrationsIn("migrations/postgres")
	}
	return migrations()
}

// migrationsIn lists the embedded files dir/NNNN_name.sql in version order. Versions must be unique
// and files are never edited once released: a change is a new file.
func migrationsIn(dir string) ([]migration, error) {
	names, err := fs.Glob(migrationFS, dir+"/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	seen := map[int]string{}
	for _, p := range names {
		base := strings.TrimPrefix(p, dir+"/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_description.sql", base)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", prev, base, v)
		}
		seen[v] = base
		b, err := migrationFS.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	return out, nil
}

// migrate applies pending migrations in one write transaction: a crash or a failing file leaves
// the schema as it was, and a second process opening the same database at the same moment waits for
// the lock (SQLite's write lock, PostgreSQL's advisory lock) and then finds nothing left to do.
// PostgreSQL's DDL is transactional, so the same holds there.
func migrate(ctx context.Context, w *sql.DB, d dialect) error {
	all, err := migrationsFor(d)
	if err != nil {
		return fmt.Errorf("migrating store: %w", err)
	}
	err = inTx(ctx, w, func(tx *sql.Tx) error {
		if d.shared {
			// Held to the end of the transaction. Under READ COMMITTED each statement after it sees
			// what the node before us committed.
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrationLock)); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT    NOT NULL,
			applied_at BIGINT  NOT NULL
		)`); err != nil {
			return err
		}
		applied := map[int]bool{}
		rows, err := tx.QueryContext(ctx, `SELECT version FROM schema_migrations`)
		if err != nil {
			return err
		}
		latest := 0
		for rows.Next() {
			var v int
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return err
			}
			applied[v] = true
			latest = max(latest, v)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if n := len(all); n > 0 && latest > all[n-1].version {
			// Running an older binary on a newer schema would write rows the schema no longer
			// expects; refuse instead.
			return fmt.Errorf("database schema version %d is newer than this binary's %d", latest, all[n-1].version)
		}
		now := ms(time.Now())
		for _, m := range all {
			if applied[m.version] {
				continue
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("applying %s: %w", m.name, err)
			}
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				m.version, m.name, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migrating store: %w", err)
	}
	return nil
}
