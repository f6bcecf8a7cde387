package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5/stdlib"
)

// The store runs on SQLite (one file, one node) or PostgreSQL (many nodes on one server) through
// the same methods and the same SQL. What differs is small and lives here and in postgres.go:
//
//   - Placeholders: the SQL is written with SQLite's ?; the PostgreSQL connections rewrite them to
//     $1, $2, ... (pgConn), so a statement reads the same in both.
//   - Clauses only PostgreSQL needs are written inside a /*pg: ...*/ comment: SQLite skips the
//     comment, the PostgreSQL connections un-comment it. They are the row locks that stand in for
//     SQLite's single writer (FOR NO KEY UPDATE on the workspace before a charge decides on its
//     allowance, FOR UPDATE SKIP LOCKED on the items a claim takes).
//   - Everything else is written once, in SQL both accept: CASE instead of SQLite's two-argument
//     MAX, SUM(CASE ...) instead of summing booleans, ON CONFLICT and RETURNING as both spell them.
//   - The schema: each engine has its own migration files with the same version numbers
//     (migrations/ and migrations/postgres/), BIGINT identities and BOOLEAN on PostgreSQL.
//   - The statements that exist in one engine only (PRAGMAs, the checkpointer, advisory locks) are
//     behind the dialect's fields below.
type dialect struct {
	name string // "sqlite" or "postgres"
	// shared: other nodes use the same database, so an owner that is not us may be alive; a
	// lease is only taken over once it expires.
	shared bool
	// snapshot is how a read that must see one state of the database across statements begins.
	snapshot *sql.TxOptions
}

var (
	sqliteDialect   = dialect{name: "sqlite", snapshot: &sql.TxOptions{ReadOnly: true}}
	postgresDialect = dialect{name: "postgres", shared: true,
		snapshot: &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}}
)

// IsPostgres reports whether a --db value names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite file.
func IsPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// pgConnector opens pgx connections that speak the store's SQL (see pgConn).
type pgConnector struct{ driver.Connector }

func (c pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return pgConn{conn.(*stdlib.Conn)}, nil
}

// pgConn is a pgx connection that rewrites each statement from the store's SQL to PostgreSQL's
// before pgx sees it. Everything else (transactions, argument conversion, session reset) is pgx's.
type pgConn struct{ *stdlib.Conn }

func (c pgConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(pgSQL(query))
}

func (c pgConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, pgSQL(query))
}

func (c pgConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, pgSQL(query), args)
}

func (c pgConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, pgSQL(query), args)
}

// pgCache holds rewritten statements: the store runs a few dozen distinct ones, over and over.
var pgCache sync.Map // string -> string

// pgSQL rewrites a statement for PostgreSQL: each ? outside quotes and line comments becomes $n,
// and each /*pg:X*/ becomes X (X holds no placeholder).
func pgSQL(q string) string {
	if v, ok := pgCache.Load(q); ok {
		return v.(string)
	}
	out := rewritePG(q)
	// Only statements from the store's source are cached; generated ones (multi-row inserts) are
	// bounded in shape by maxGroup, so the cache stays small.
	pgCache.Store(q, out)
	return out
}

func rewritePG(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'' || c == '"':
			// A quoted literal or identifier is copied as is ('' and "" escape themselves).
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+2])
			i += j + 1
		case c == '-' && strings.HasPrefix(q[i:], "--"):
			// A line comment (the migration files have them) is copied to its end.
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i : i+j+1])
			i += j
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
		case strings.HasPrefix(q[i:], "/*pg:"):
			end := strings.Index(q[i:], "*/")
			if end < 0 {
				b.WriteString(q[i:])
				return b.String()
			}
			b.WriteString(q[i+len("/*pg:") : i+end])
			i += end + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
