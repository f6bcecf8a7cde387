package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// User is a dashboard account. Every user belongs to one workspace: signing up creates it.
type User struct {
	ID          int64
	WorkspaceID int64
	Email       string // lower case
	// PasswordHash is the password's hash in PHC form ($argon2id$...); the password itself is never
	// stored or logged.
	PasswordHash string
	CreatedAt    time.Time
}

// Session is a signed-in browser. Only the SHA-256 of its cookie token is stored.
type Session struct {
	ID        int64
	UserID    int64
	CreatedAt time.Time
	ExpiresAt time.Time
}

// NormalizeEmail is the stored form of an email address: trimmed and lower-cased, so an address
// signs up once whatever its case.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// SignUp creates a workspace on the plan, named after the email, and its first user, in one
// transaction. An email (or a workspace of that name) already taken gives ErrDuplicate and writes
// nothing.
func (db *DB) SignUp(ctx context.Context, email, passwordHash, plan string) (User, Workspace, error) {
	email = NormalizeEmail(email)
	credits := DefaultCredits(plan)
	if email == "" || passwordHash == "" || !ValidPlan(plan) || credits == 0 {
		return User{}, Workspace{}, fmt.Errorf("signing up: %w: needs an email, a password hash and a plan with a default allowance", ErrInvalid)
	}
	now := fromMS(ms(time.Now()))
	ws := Workspace{Name: email, Plan: plan, MonthlyCredits: credits, CreatedAt: now}
	u := User{Email: email, PasswordHash: passwordHash, CreatedAt: now}
	err := db.writeTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx,
			`INSERT INTO workspaces (name, plan, monthly_credits, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			ws.Name, ws.Plan, ws.MonthlyCredits, ms(now)).Scan(&ws.ID); err != nil {
			return err
		}
		u.WorkspaceID = ws.ID
		return tx.QueryRowContext(ctx,
			`INSERT INTO users (workspace_id, email, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING id`,
			ws.ID, u.Email, u.PasswordHash, ms(now)).Scan(&u.ID)
	})
	if err != nil {
		return User{}, Workspace{}, fmt.Errorf("signing up: %w", classify(err))
	}
	return u, ws, nil
}

const userCols = `u.id, u.workspace_id, u.email, u.password_hash, u.created_at`

func scanUser(dest []any, u *User, created *int64) []any {
	return append(dest, &u.ID, &u.WorkspaceID, &u.Email, &u.PasswordHash, created)
}

// UserByEmail returns the user with that email (any case), or ErrNotFound.
func (db *DB) UserByEmail(ctx context.Context, email string) (User, error) {
	var u User
	var created int64
	err := db.r.QueryRowContext(ctx, `SELECT `+userCols+` FROM users u WHERE u.email = ?`, NormalizeEmail(email)).
		Scan(scanUser(nil, &u, &created)...)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("reading user: %w", err)
	}
	u.CreatedAt = fromMS(created)
	return u, nil
}

// CreateSession stores a session for the user, under the SHA-256 of its token, valid until expires.
func (db *DB) CreateSession(ctx context.Context, userID int64, tokenHash [32]byte, expires time.Time) (Session, error) {
	now := fromMS(ms(time.Now()))
	s := Session{UserID: userID, CreatedAt: now, ExpiresAt: fromMS(ms(expires))}
	err := db.w.QueryRowContext(ctx,
		`INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?) RETURNING id`,
		hex.EncodeToString(tokenHash[:]), userID, ms(now), ms(expires)).Scan(&s.ID)
	if err != nil {
		return Session{}, fmt.Errorf("creating session: %w", classify(err))
	}
	return s, nil
}

// SessionByHash returns the unexpired session whose token hashes to tokenHash, with its user and
// the user's workspace; ErrNotFound for an unknown, signed-out or expired session.
func (db *DB) SessionByHash(ctx context.Context, tokenHash [32]byte, now time.Time) (Session, User, Workspace, error) {
	var s Session
	var u User
	var ws Workspace
	var sCreated, sExpires, uCreated int64
	wss := workspaceScan{ws: &ws}
	dest := []any{&s.ID, &s.UserID, &sCreated, &sExpires}
	dest = scanUser(dest, &u, &uCreated)
	dest = append(dest, wss.dest()...)
	err := db.r.QueryRowContext(ctx,
		`SELECT s.id, s.user_id, s.created_at, s.expires_at, `+userCols+`, `+workspaceCols+`
		 FROM sessions s JOIN users u ON u.id = s.user_id JOIN workspaces w ON w.id = u.workspace_id
		 WHERE s.token_hash = ? AND s.expires_at > ?`, hex.EncodeToString(tokenHash[:]), ms(now)).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		err = ErrNotFound
	}
	if err != nil {
		return Session{}, User{}, Workspace{}, fmt.Errorf("reading session: %w", err)
	}
	wss.finish()
	s.CreatedAt, s.ExpiresAt, u.CreatedAt = fromMS(sCreated), fromMS(sExpires), fromMS(uCreated)
	return s, u, ws, nil
}

// DeleteSession signs a session out. An unknown token is not an error: signing out twice is fine.
func (db *DB) DeleteSession(ctx context.Context, tokenHash [32]byte) error {
	if _, err := db.w.ExecContext(ctx, `DELETE FROM sessions WHERE token_hash = ?`, hex.EncodeToString(tokenHash[:])); err != nil {
		return fmt.Errorf("deleting session: %w", err)
	}
	return nil
}

// PurgeSessions deletes the sessions expired at now and returns how many.
func (db *DB) PurgeSessions(ctx context.Context, now time.Time) (int64, error) {
	res, err := db.w.ExecContext(ctx, `DELETE FROM sessions WHERE expires_at <= ?`, ms(now))
	if err != nil {
		return 0, fmt.Errorf("purging sessions: %w", err)
	}
	return res.RowsAffected()
}
