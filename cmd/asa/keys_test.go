package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeysDatabaseAndWorkspace: without --db, asa keys says which database it uses (ASA_DB, else
// the default of asa serve); --workspace naming no workspace is an error unless --create-workspace.
func TestKeysDatabaseAndWorkspace(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	ctx := context.Background()
	keys := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(ctx, append([]string{"keys"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	t.Setenv("ASA_DB", db)
	code, _, errText := keys("list")
	if code != 0 || !strings.Contains(errText, "using the database "+db+" (from ASA_DB") || !strings.Contains(errText, "does not exist yet") {
		t.Errorf("list without --db: %d %q", code, errText)
	}
	code, out, errText := keys("create", "--workspace", "acme")
	if code != 1 || !strings.Contains(errText, `no workspace "acme"`) || !strings.Contains(errText, "--create-workspace") || strings.Contains(out, "asa_") {
		t.Errorf("create in an unknown workspace: %d %q %q", code, out, errText)
	}
	code, out, errText = keys("create", "--workspace", "acme", "--create-workspace")
	if code != 0 || !strings.Contains(out, "created workspace acme") || !strings.Contains(out, "asa_live_") {
		t.Errorf("create with --create-workspace: %d %q %q", code, out, errText)
	}
	if strings.Contains(errText, "does not exist yet") {
		t.Errorf("the database exists now: %q", errText)
	}
	code, out, errText = keys("create", "--workspace", "acme")
	if code != 0 || strings.Contains(out, "created workspace") || !strings.Contains(out, "asa_live_") {
		t.Errorf("create in a known workspace: %d %q %q", code, out, errText)
	}
	code, _, errText = keys("list", "--workspace", "acne")
	if code != 1 || !strings.Contains(errText, `no workspace "acne"`) || !strings.Contains(errText, "workspaces: acme") {
		t.Errorf("list an unknown workspace: %d %q", code, errText)
	}
	code, _, errText = keys("revoke", "abc", "--workspace", "acne")
	if code != 1 || !strings.Contains(errText, `no workspace "acne"`) {
		t.Errorf("revoke in an unknown workspace: %d %q", code, errText)
	}
	// An explicit --db is not announced.
	code, _, errText = keys("list", "--db", db)
	if code != 0 || strings.Contains(errText, "using the database") {
		t.Errorf("list --db: %d %q", code, errText)
	}
	// Without ASA_DB, the default of asa serve is named.
	t.Setenv("ASA_DB", "")
	t.Chdir(dir)
	code, _, errText = keys("list")
	if code != 0 || !strings.Contains(errText, "using the database data/asa.db (the default of asa serve") {
		t.Errorf("list with no --db and no ASA_DB: %d %q", code, errText)
	}
}
