package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"
)

func TestSignUpAndSessions(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	u, ws, err := db.SignUp(ctx, "  Ada@Example.com ", "$argon2id$hash", PlanFree)
	if err != nil {
		t.Fatal(err)
	}
	if u.Email != "ada@example.com" || ws.Name != "ada@example.com" || ws.Plan != PlanFree || ws.MonthlyCredits != DefaultCredits(PlanFree) || u.WorkspaceID != ws.ID {
		t.Fatalf("user %+v workspace %+v", u, ws)
	}
	// The same address in another case is the same account; nothing is half-written.
	if _, _, err := db.SignUp(ctx, "ADA@example.com", "$argon2id$other", PlanFree); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("second sign-up: %v, want ErrDuplicate", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM workspaces`); n != 1 {
		t.Fatalf("%d workspaces after a refused sign-up, want 1", n)
	}
	got, err := db.UserByEmail(ctx, "ada@EXAMPLE.com")
	if err != nil || got.ID != u.ID || got.PasswordHash != "$argon2id$hash" {
		t.Fatalf("UserByEmail = %+v, %v", got, err)
	}
	if _, err := db.UserByEmail(ctx, "bob@example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown user: %v", err)
	}
	if _, _, err := db.SignUp(ctx, "x@example.com", "h", PlanCustom); !errors.Is(err, ErrInvalid) {
		t.Fatalf("custom plan without allowance: %v", err)
	}

	now := time.Now()
	tok := sha256.Sum256([]byte("token"))
	if _, err := db.CreateSession(ctx, u.ID, tok, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	s, su, sws, err := db.SessionByHash(ctx, tok, now)
	if err != nil || s.UserID != u.ID || su.Email != u.Email || sws.ID != ws.ID {
		t.Fatalf("SessionByHash = %+v %+v %+v, %v", s, su, sws, err)
	}
	if _, _, _, err := db.SessionByHash(ctx, tok, now.Add(2*time.Hour)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired session: %v", err)
	}
	if _, _, _, err := db.SessionByHash(ctx, sha256.Sum256([]byte("other")), now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM sessions WHERE token_hash LIKE '%token%'`); n != 0 {
		t.Fatal("a session token is stored in clear")
	}
	if err := db.DeleteSession(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := db.SessionByHash(ctx, tok, now); !errors.Is(err, ErrNotFound) {
		t.Fatalf("signed-out session: %v", err)
	}
	if err := db.DeleteSession(ctx, tok); err != nil {
		t.Fatalf("signing out twice: %v", err)
	}

	old := sha256.Sum256([]byte("old"))
	if _, err := db.CreateSession(ctx, u.ID, old, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if n, err := db.PurgeSessions(ctx, now.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("PurgeSessions = %d, %v", n, err)
	}
}
