package store

import (
	"errors"
	"strings"
	"testing"
)

func TestRewritePG(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		// Quoted text and identifiers keep their question marks; '' and "" escape themselves.
		{`SELECT '?', 'it''s ?', "odd?col" FROM t WHERE x = ?`, `SELECT '?', 'it''s ?', "odd?col" FROM t WHERE x = $1`},
		{`SELECT charge_id FROM usage WHERE charge_id LIKE 'item\_%' ESCAPE '\' AND a = ?`, `SELECT charge_id FROM usage WHERE charge_id LIKE 'item\_%' ESCAPE '\' AND a = $1`},
		// PostgreSQL's clauses come out of their comments; other comments stay.
		{`SELECT 1 FROM w WHERE id = ? /*pg: FOR NO KEY UPDATE*/`, `SELECT 1 FROM w WHERE id = $1  FOR NO KEY UPDATE`},
		{`SELECT ? /* a comment */ LIMIT ?`, `SELECT $1 /* a comment */ LIMIT $2`},
		// Line comments (migration files) are copied whatever they hold.
		{"-- the key's ? stays\nSELECT ?", "-- the key's ? stays\nSELECT $1"},
		// Unterminated pieces are copied as they are rather than lost.
		{`SELECT 'open ?`, `SELECT 'open ?`},
		{`SELECT ? /*pg: FOR UPDATE`, `SELECT $1 /*pg: FOR UPDATE`},
		{`SELECT 1 -- no newline ?`, `SELECT 1 -- no newline ?`},
	} {
		if got := rewritePG(tt.in); got != tt.want {
			t.Errorf("rewritePG(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

func TestRedactDSN(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"data/asa.db", "data/asa.db"},
		{"postgres://asa@db:5432/asa", "postgres://asa@db:5432/asa"},
		{"postgres://asa:s3cret@db:5432/asa?sslmode=require", "postgres://asa:xxxxx@db:5432/asa?sslmode=require"},
		{"postgresql://db/asa?user=asa&password=s3cret", "postgresql://db/asa?password=xxxxx&user=asa"},
		{"postgres://a:b@[bad", "postgres://(unparsable URL)"},
	} {
		if got := RedactDSN(tt.in); got != tt.want {
			t.Errorf("RedactDSN(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestOpenPostgresBadURL: a URL pgx cannot parse is ErrInvalid, and the message keeps the password
// out.
func TestOpenPostgresBadURL(t *testing.T) {
	_, err := Open(t.Context(), "postgres://asa:s3cret@db:notaport/asa")
	if err == nil || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Open: %v, want ErrInvalid", err)
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("the error shows the password: %v", err)
	}
}

// TestMigrationsPaired: every migration exists for both databases, under the same version: a
// migration added for SQLite alone would leave PostgreSQL's schema behind.
func TestMigrationsPaired(t *testing.T) {
	lite, err := migrationsFor(sqliteDialect)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := migrationsFor(postgresDialect)
	if err != nil {
		t.Fatal(err)
	}
	names := func(ms []migration) (out []string) {
		for _, m := range ms {
			out = append(out, m.name)
		}
		return out
	}
	if len(lite) != len(pg) {
		t.Fatalf("SQLite has %v, PostgreSQL %v: add the missing twin under store/migrations/postgres/ (or store/migrations/)", names(lite), names(pg))
	}
	for i := range lite {
		if lite[i].name != pg[i].name {
			t.Errorf("migration %d: %s for SQLite, %s for PostgreSQL: same version and name in both", i, lite[i].name, pg[i].name)
		}
	}
}
