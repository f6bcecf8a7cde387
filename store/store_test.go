package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"asa/api/apikey"
)

func openTest(t testing.TB) (*DB, string) {
	t.Helper()
	if onPostgres(t) {
		return openTestPG(t)
	}
	// A subdirectory that does not exist yet: Open must create it.
	path := filepath.Join(t.TempDir(), "data", "asa.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

func openAgain(t testing.TB, path string) *DB {
	t.Helper()
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t testing.TB, db *DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.r.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func mustWorkspace(t testing.TB, db *DB, name, plan string, credits int) Workspace {
	t.Helper()
	ws, err := db.CreateWorkspace(context.Background(), name, plan, credits)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func mustKey(t testing.TB, db *DB, wsID int64, test bool) (apikey.Key, KeyRecord) {
	t.Helper()
	k, rec, err := db.CreateKey(context.Background(), wsID, test)
	if err != nil {
		t.Fatal(err)
	}
	return k, rec
}

func TestOpenMigratesOnce(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	all, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM schema_migrations`); n != len(all) || n == 0 {
		t.Fatalf("%d migrations recorded, want %d", n, len(all))
	}
	mustWorkspace(t, db, "acme", PlanFree, 0)
	db.Close()

	for range 2 {
		db, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("reopening: %v", err)
		}
		if n := count(t, db, `SELECT COUNT(*) FROM schema_migrations`); n != len(all) {
			t.Fatalf("after reopen %d migrations recorded, want %d", n, len(all))
		}
		if _, err := db.WorkspaceByName(ctx, "acme"); err != nil {
			t.Fatalf("data lost on reopen: %v", err)
		}
		if ok, err := db.IntegrityCheck(ctx); err != nil || ok != "ok" {
			t.Fatalf("integrity_check = %q, %v", ok, err)
		}
		db.Close()
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	if _, err := db.w.ExecContext(ctx, `INSERT INTO schema_migrations VALUES (9999, '9999_future.sql', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err := Open(ctx, path); err == nil {
		db.Close()
		t.Fatal("opened a schema newer than the binary")
	}
}

func TestOpenRejectsNonFilePaths(t *testing.T) {
	for _, p := range []string{"", ":memory:", "file:x.db", filepath.Join(t.TempDir(), "a?mode=memory")} {
		if db, err := Open(context.Background(), p); !errors.Is(err, ErrInvalid) {
			if db != nil {
				db.Close()
			}
			t.Errorf("Open(%q) = %v, want ErrInvalid", p, err)
		}
	}
}

func TestReadPoolIsReadOnly(t *testing.T) {
	db, _ := openTest(t)
	if _, err := db.r.ExecContext(context.Background(), `DELETE FROM workspaces`); err == nil {
		t.Fatal("read pool accepted a write")
	}
}

func TestWorkspaces(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	for _, tt := range []struct {
		name, plan string
		credits    int
		want       int
		err        error
	}{
		{"free", PlanFree, 0, 5_000, nil},
		{"vibe", PlanVibe, 0, 135_000, nil},
		{"pro", PlanPro, 0, 410_000, nil},
		{"pro-deal", PlanPro, 500_000, 500_000, nil},
		{"custom", PlanCustom, 2_000_000, 2_000_000, nil},
		{"custom-none", PlanCustom, 0, 0, ErrInvalid},
		{"enterprise", "enterprise", 10, 0, ErrInvalid},
		{"negative", PlanFree, -1, 0, ErrInvalid},
		{"", PlanFree, 0, 0, ErrInvalid},
		{"free", PlanPro, 0, 0, ErrDuplicate},
	} {
		ws, err := db.CreateWorkspace(ctx, tt.name, tt.plan, tt.credits)
		if !errors.Is(err, tt.err) {
			t.Fatalf("CreateWorkspace(%q, %q, %d) = %v, want %v", tt.name, tt.plan, tt.credits, err, tt.err)
		}
		if err == nil && (ws.MonthlyCredits != tt.want || ws.ID == 0 || ws.CreatedAt.IsZero()) {
			t.Fatalf("CreateWorkspace(%q) = %+v", tt.name, ws)
		}
	}
	got, err := db.WorkspaceByName(ctx, "vibe")
	if err != nil || got.Plan != PlanVibe || got.MonthlyCredits != 135_000 {
		t.Fatalf("WorkspaceByName = %+v, %v", got, err)
	}
	if _, err := db.WorkspaceByName(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("WorkspaceByName(nobody) = %v", err)
	}
	list, err := db.Workspaces(ctx)
	if err != nil || len(list) != 5 || list[0].Name != "free" || list[4].Name != "custom" {
		t.Fatalf("Workspaces = %+v, %v", list, err)
	}
}

func TestPlanLimits(t *testing.T) {
	for plan, want := range map[string]Limits{
		PlanFree:   {10, 2, 10},
		PlanVibe:   {30, 10, 40},
		PlanPro:    {50, 25, 60},
		PlanCustom: {100, 50, 100},
		"unknown":  {10, 2, 10},
	} {
		if got := PlanLimits(plan); got != want {
			t.Errorf("PlanLimits(%q) = %+v, want %+v", plan, got, want)
		}
	}
}

func TestCreateKeyLimitUnderConcurrency(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanPro, 0)
	other := mustWorkspace(t, db, "other", PlanFree, 0)
	// A second handle on the same file stands for another process (the asa CLI next to the
	// server): there the cap rests on BEGIN IMMEDIATE and the busy timeout, not on the Go pool.
	db2 := openAgain(t, path)

	const n = 25
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		h := []*DB{db, db2}[i%2]
		wg.Go(func() { _, _, errs[i] = h.CreateKey(ctx, ws.ID, i%5 == 0) })
	}
	wg.Wait()
	var ok, limited int
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, ErrKeyLimit):
			limited++
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if ok != MaxActiveKeys || limited != n-MaxActiveKeys {
		t.Fatalf("%d created, %d refused; want %d and %d", ok, limited, MaxActiveKeys, n-MaxActiveKeys)
	}
	keys, err := db.Keys(ctx, ws.ID)
	if err != nil || len(keys) != MaxActiveKeys {
		t.Fatalf("Keys = %d, %v", len(keys), err)
	}

	// The cap is per workspace and counts active keys only.
	mustKey(t, db, other.ID, false)
	if err := db.RevokeKey(ctx, ws.ID, keys[3].ShortPrefix); err != nil {
		t.Fatal(err)
	}
	mustKey(t, db, ws.ID, false)
	if _, _, err := db.CreateKey(ctx, ws.ID, false); !errors.Is(err, ErrKeyLimit) {
		t.Fatalf("21st active key: %v", err)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM api_keys WHERE workspace_id = ? AND state = 'active'`, ws.ID); n != MaxActiveKeys {
		t.Fatalf("%d active keys", n)
	}
	if _, _, err := db.CreateKey(ctx, 999, false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("CreateKey(unknown workspace) = %v", err)
	}
}

func TestKeyLookupRevokeTouch(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanVibe, 0)
	other := mustWorkspace(t, db, "other", PlanVibe, 0)
	key, rec := mustKey(t, db, ws.ID, true)

	if rec.Hash != key.HashHex() || rec.ShortPrefix != key.Short() || !rec.Test || rec.State != KeyActive {
		t.Fatalf("record %+v does not match key", rec)
	}
	got, gotWS, _, err := db.KeyByHash(ctx, key.Hash(), time.Now())
	if err != nil || got != rec || gotWS != ws {
		t.Fatalf("KeyByHash = %+v %+v %v\nwant %+v %+v", got, gotWS, err, rec, ws)
	}
	unknown, _ := apikey.Generate(false)
	if _, _, _, err := db.KeyByHash(ctx, unknown.Hash(), time.Now()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("KeyByHash(unknown) = %v", err)
	}

	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, ts := range []time.Time{t0, t0.Add(-time.Hour), t0.Add(-time.Minute)} {
		if err := db.TouchKey(ctx, rec.ID, ts); err != nil {
			t.Fatal(err)
		}
	}
	if got, _, _, _ := db.KeyByHash(ctx, key.Hash(), time.Now()); !got.LastUsedAt.Equal(t0) {
		t.Fatalf("LastUsedAt = %v, want %v (never moves back)", got.LastUsedAt, t0)
	}

	if err := db.RevokeKey(ctx, other.ID, rec.ShortPrefix); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoking another workspace's key: %v", err)
	}
	if err := db.RevokeKey(ctx, ws.ID, "nosuchprefix"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoking unknown key: %v", err)
	}
	if err := db.RevokeKey(ctx, ws.ID, rec.ShortPrefix); err != nil {
		t.Fatal(err)
	}
	revoked, _, _, err := db.KeyByHash(ctx, key.Hash(), time.Now())
	if err != nil || revoked.State != KeyRevoked || revoked.RevokedAt.IsZero() {
		t.Fatalf("after revoke: %+v, %v", revoked, err)
	}
	if err := db.RevokeKey(ctx, ws.ID, rec.ShortPrefix); err != nil {
		t.Fatalf("second revoke: %v", err)
	}
	again, _, _, _ := db.KeyByHash(ctx, key.Hash(), time.Now())
	if !again.RevokedAt.Equal(revoked.RevokedAt) {
		t.Fatal("second revoke moved revoked_at")
	}
}

func okLog(id string) RequestLog {
	return RequestLog{RequestID: id, Status: 200, Duration: 120 * time.Millisecond}
}

func TestChargeExactlyOnce(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	db2 := openAgain(t, path)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	_, rec := mustKey(t, db, ws.ID, false)

	const n = 50
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		h := []*DB{db, db2}[i%2]
		wg.Go(func() {
			c := Charge{ID: "req-1", WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5}
			errs[i] = h.Charge(ctx, c, okLog(""))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := count(t, db, `SELECT COUNT(*) FROM usage`); got != 1 {
		t.Fatalf("%d ledger rows, want 1", got)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM request_log WHERE request_id = 'req-1' AND cost = 5`); got != 1 {
		t.Fatalf("%d log rows, want 1", got)
	}
	if used, err := db.CreditsUsed(ctx, ws.ID, time.Now()); err != nil || used != 5 {
		t.Fatalf("CreditsUsed = %d, %v", used, err)
	}
}

func TestChargeAllowance(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanCustom, 12)
	_, rec := mustKey(t, db, ws.ID, false)
	march := time.Date(2026, 3, 31, 23, 59, 59, 0, time.UTC)
	charge := func(id string, credits int, at time.Time) error {
		c := Charge{ID: id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "google.search", Credits: credits, At: at}
		return db.Charge(ctx, c, okLog(""))
	}

	for _, step := range []struct {
		id      string
		credits int
		at      time.Time
		err     error
		used    int // March, after the step
	}{
		{"a", 5, march, nil, 5},
		{"b", 5, march, nil, 10},
		{"c", 5, march, ErrInsufficientCredits, 10}, // 15 > 12: refused
		{"d", 2, march, nil, 12},                    // exactly the allowance
		{"e", 1, march, ErrInsufficientCredits, 12},
		{"a", 5, march, nil, 12},                  // replay of a billed charge: no-op, not refused
		{"f", 5, march.Add(time.Second), nil, 12}, // April 1st, a new month
		{"c", 5, march.Add(time.Second), nil, 12}, // the refused id may be charged later
	} {
		if err := charge(step.id, step.credits, step.at); !errors.Is(err, step.err) {
			t.Fatalf("charge %s: %v, want %v", step.id, err, step.err)
		}
		if used, _ := db.CreditsUsed(ctx, ws.ID, march); used != step.used {
			t.Fatalf("after charge %s: %d credits used in March, want %d", step.id, used, step.used)
		}
	}
	if used, _ := db.CreditsUsed(ctx, ws.ID, time.Date(2026, 4, 15, 0, 0, 0, 0, time.FixedZone("", -10*3600))); used != 10 {
		t.Fatalf("April: %d credits used, want 10", used)
	}
	// Refused charges wrote nothing: neither ledger nor log.
	if got := count(t, db, `SELECT COUNT(*) FROM usage`); got != 5 {
		t.Fatalf("%d ledger rows, want 5", got)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM request_log WHERE request_id = 'e'`); got != 0 {
		t.Fatal("refused charge was logged")
	}
	if got := count(t, db, `SELECT COALESCE(SUM(credits), 0) FROM usage WHERE workspace_id = ?`, ws.ID); got != 22 {
		t.Fatalf("ledger sums to %d, want 22 (the monthly totals must agree with it)", got)
	}
}

func TestChargeRefusesWhatIsNeverBilled(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanFree, 0)
	other := mustWorkspace(t, db, "other", PlanFree, 0)
	_, live := mustKey(t, db, ws.ID, false)
	_, sandbox := mustKey(t, db, ws.ID, true)
	_, foreign := mustKey(t, db, other.ID, false)

	c := Charge{ID: "x", WorkspaceID: ws.ID, KeyID: live.ID, Endpoint: "amazon.product", Credits: 5}
	for _, tt := range []struct {
		name string
		edit func(*Charge, *RequestLog)
		err  error
	}{
		{"sandbox key", func(c *Charge, _ *RequestLog) { c.KeyID = sandbox.ID }, ErrInvalid},
		{"error response", func(_ *Charge, l *RequestLog) { l.Status, l.ErrorCode = 502, "target_unreachable" }, ErrInvalid},
		{"another workspace's key", func(c *Charge, _ *RequestLog) { c.KeyID = foreign.ID }, ErrNotFound},
		{"unknown key", func(c *Charge, _ *RequestLog) { c.KeyID = 4242 }, ErrNotFound},
		{"no id", func(c *Charge, _ *RequestLog) { c.ID = "" }, ErrInvalid},
		{"negative credits", func(c *Charge, _ *RequestLog) { c.Credits = -5 }, ErrInvalid},
	} {
		cc, l := c, okLog("")
		tt.edit(&cc, &l)
		if err := db.Charge(ctx, cc, l); !errors.Is(err, tt.err) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.err)
		}
	}
	if got := count(t, db, `SELECT COUNT(*) FROM usage`) + count(t, db, `SELECT COUNT(*) FROM request_log`); got != 0 {
		t.Fatalf("%d rows written by refused charges", got)
	}
}

func TestUsageReport(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanPro, 0)
	_, k1 := mustKey(t, db, ws.ID, false)
	_, k2 := mustKey(t, db, ws.ID, false)
	d1 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	d2 := d1.Add(24 * time.Hour)

	charge := func(id string, key KeyRecord, endpoint string, at time.Time, addOn ...int) {
		c := Charge{ID: id, WorkspaceID: ws.ID, KeyID: key.ID, Endpoint: endpoint, Credits: 5, At: at}
		l := okLog("")
		if len(addOn) > 0 {
			c.Credits += addOn[0]
			l.AddOnCredits = addOn[0]
		}
		if err := db.Charge(ctx, c, l); err != nil {
			t.Fatal(err)
		}
	}
	fail := func(id string, key KeyRecord, endpoint string, at time.Time, status int) {
		l := RequestLog{RequestID: id, WorkspaceID: ws.ID, KeyID: key.ID, Endpoint: endpoint, Status: status, ErrorCode: "x", At: at}
		if err := db.LogRequest(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	charge("1", k1, "amazon.product", d1)
	charge("2", k1, "amazon.product", d1.Add(time.Hour))
	charge("3", k2, "amazon.product", d1)
	fail("4", k1, "amazon.product", d1, 502)
	charge("5", k1, "google.search", d2)
	charge("5r", k1, "google.search", d2, 20) // rendered, with a screenshot
	fail("6", k2, "google.search", d2, 429)

	all, err := db.Usage(ctx, UsageQuery{WorkspaceID: ws.ID})
	if err != nil {
		t.Fatal(err)
	}
	day1, day2 := d1.Truncate(24*time.Hour), d2.Truncate(24*time.Hour)
	want := []UsageRow{
		{day1, "amazon.product", 4, 15, 1, 0},
		{day2, "google.search", 3, 30, 1, 20},
	}
	if fmt.Sprint(all) != fmt.Sprint(want) {
		t.Fatalf("Usage = %v\nwant    %v", all, want)
	}
	byKey, err := db.Usage(ctx, UsageQuery{WorkspaceID: ws.ID, KeyShort: k1.ShortPrefix, Since: day2})
	if err != nil {
		t.Fatal(err)
	}
	if want := []UsageRow{{day2, "google.search", 2, 30, 0, 20}}; fmt.Sprint(byKey) != fmt.Sprint(want) {
		t.Fatalf("Usage(k1, since day 2) = %v, want %v", byKey, want)
	}
	if _, err := db.Usage(ctx, UsageQuery{WorkspaceID: ws.ID, KeyShort: "unknownshort"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
	other := mustWorkspace(t, db, "other", PlanPro, 0)
	// The log is written in the background: a row the database refuses (another workspace's key)
	// is dropped and counted, and does not hold back the rows written with it.
	if err := db.LogRequest(ctx, RequestLog{RequestID: "7", WorkspaceID: other.ID, KeyID: k1.ID, Endpoint: "x", Status: 401}); err != nil {
		t.Fatal(err)
	}
	fail("8", k2, "google.search", d2, 429)
	if rows, err := db.Usage(ctx, UsageQuery{WorkspaceID: other.ID}); err != nil || len(rows) != 0 {
		t.Fatalf("another workspace's key logged: %v, %v", rows, err)
	}
	if n := db.DroppedLogRows(); n != 1 {
		t.Fatalf("%d log rows dropped, want 1", n)
	}
	if rows, _ := db.Usage(ctx, UsageQuery{WorkspaceID: ws.ID, Since: day2}); fmt.Sprint(rows) != fmt.Sprint([]UsageRow{{day2, "google.search", 4, 30, 2, 20}}) {
		t.Fatalf("the row written with the refused one: %v", rows)
	}
}

func TestPurgeRevoked(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanPro, 0)
	_, gone := mustKey(t, db, ws.ID, false)
	_, kept := mustKey(t, db, ws.ID, false)
	now := time.Now()
	for i, k := range []KeyRecord{gone, gone, kept} {
		c := Charge{ID: fmt.Sprint("c", i), WorkspaceID: ws.ID, KeyID: k.ID, Endpoint: "amazon.product", Credits: 5, At: now}
		if err := db.Charge(ctx, c, okLog("")); err != nil {
			t.Fatal(err)
		}
		if err := db.LogRequest(ctx, RequestLog{RequestID: fmt.Sprint("e", i), WorkspaceID: ws.ID, KeyID: k.ID, Endpoint: "amazon.product", Status: 502}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RevokeKey(ctx, ws.ID, gone.ShortPrefix); err != nil {
		t.Fatal(err)
	}

	// Still inside the 90 days: history stays visible.
	if p, err := db.PurgeRevoked(ctx, now.Add(RevokedRetention-time.Hour)); err != nil || p != (Purged{}) {
		t.Fatalf("purge at 89 days = %+v, %v", p, err)
	}
	if rows, _ := db.Usage(ctx, UsageQuery{WorkspaceID: ws.ID, KeyShort: gone.ShortPrefix}); len(rows) != 1 || rows[0].Requests != 4 {
		t.Fatalf("revoked key's usage not visible: %v", rows)
	}

	p, err := db.PurgeRevoked(ctx, now.Add(RevokedRetention+time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// Two charges' log rows and one refusal row counting both 502s of the same minute.
	if p != (Purged{Keys: 1, Usage: 2, Requests: 2, Refusals: 1}) {
		t.Fatalf("purge at 91 days = %+v", p)
	}
	keys, _ := db.Keys(ctx, ws.ID)
	if len(keys) != 1 || keys[0].ID != kept.ID {
		t.Fatalf("keys after purge: %+v", keys)
	}
	if got := count(t, db, `SELECT COUNT(*) FROM usage WHERE key_id = ?`, kept.ID) + count(t, db, `SELECT COUNT(*) FROM request_log WHERE key_id = ?`, kept.ID) +
		count(t, db, `SELECT COUNT(*) FROM refusals WHERE key_id = ?`, kept.ID); got != 3 {
		t.Fatalf("active key lost history: %d rows", got)
	}
	if used, _ := db.CreditsUsed(ctx, ws.ID, now); used != 15 {
		t.Fatalf("CreditsUsed after purge = %d, want 15 (billed stays billed)", used)
	}
	if p, _ := db.PurgeRevoked(ctx, now.Add(RevokedRetention+time.Hour)); p != (Purged{}) {
		t.Fatalf("second purge = %+v", p)
	}
}

// TestKeyNeverStored greps the raw bytes of the database, its WAL and shared-memory index for the
// key, while open (the WAL holds recent pages) and after close (checkpointed into the main file).
func TestKeyNeverStored(t *testing.T) {
	ctx := context.Background()
	db, path := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanPro, 0)
	var secrets [][]byte
	for i := range 4 {
		key, rec := mustKey(t, db, ws.ID, i%2 == 1)
		// The full key, and the part of it that is not the short prefix.
		secrets = append(secrets, []byte(key.String()), []byte(key.String()[len(apikey.LivePrefix)+apikey.ShortLen:]))
		if err := db.TouchKey(ctx, rec.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		if !rec.Test {
			c := Charge{ID: fmt.Sprint("c", i), WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5}
			if err := db.Charge(ctx, c, okLog("")); err != nil {
				t.Fatal(err)
			}
		}
		if i == 3 {
			if err := db.RevokeKey(ctx, ws.ID, rec.ShortPrefix); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(when string) {
		t.Helper()
		var seen int
		for _, suffix := range []string{"", "-wal", "-shm"} {
			b, err := os.ReadFile(path + suffix)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			seen++
			for _, s := range secrets {
				if bytes.Contains(b, s) {
					t.Fatalf("%s: %s contains key material", when, filepath.Base(path+suffix))
				}
			}
		}
		if seen == 0 {
			t.Fatalf("%s: no database files found", when)
		}
	}
	for _, suffix := range []string{"", "-wal"} {
		fi, err := os.Stat(path + suffix)
		if err != nil {
			t.Fatalf("expected %s while open: %v", path+suffix, err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want owner-only", filepath.Base(path+suffix), fi.Mode().Perm())
		}
	}
	check("open")
	db.Close()
	check("closed")
}

func BenchmarkCharge(b *testing.B) {
	ctx := context.Background()
	db, _ := openTest(b)
	ws := mustWorkspace(b, db, "acme", PlanCustom, 1<<40)
	_, rec := mustKey(b, db, ws.ID, false)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		id := fmt.Sprint("req-", i)
		c := Charge{ID: id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5}
		if err := db.Charge(ctx, c, okLog(id)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChargeParallel charges from 64 goroutines per CPU, as a server with many requests
// finishing at once does: the charges commit in groups.
func BenchmarkChargeParallel(b *testing.B) {
	ctx := context.Background()
	db, _ := openTest(b)
	ws := mustWorkspace(b, db, "acme", PlanCustom, 1<<40)
	_, rec := mustKey(b, db, ws.ID, false)
	var mu sync.Mutex
	n := 0
	b.ReportAllocs()
	b.SetParallelism(64)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			n++
			id := fmt.Sprint("req-", n)
			mu.Unlock()
			c := Charge{ID: id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5}
			if err := db.Charge(ctx, c, okLog(id)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestKeyByHashCredits: the key, its workspace and the month's credits in one lookup.
func TestKeyByHashCredits(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "acme", PlanCustom, 100)
	key, rec := mustKey(t, db, ws.ID, false)
	mar := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	for i, at := range []time.Time{mar, mar.Add(time.Hour), mar.AddDate(0, 1, 0)} {
		id := fmt.Sprint("c", i)
		if err := db.Charge(ctx, Charge{ID: id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "x.y", Credits: 5, At: at}, okLog(id)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		at   time.Time
		used int
	}{{mar, 10}, {mar.AddDate(0, 1, 0), 5}, {mar.AddDate(0, 2, 0), 0}} {
		got, gotWS, used, err := db.KeyByHash(ctx, key.Hash(), tt.at)
		if err != nil || got != rec || gotWS != ws || used != tt.used {
			t.Errorf("KeyByHash(%s) = %+v %+v %d %v, want used %d", tt.at.Format("2006-01"), got, gotWS, used, err, tt.used)
		}
	}
	unknown, _ := apikey.Generate(false)
	if _, _, _, err := db.KeyByHash(ctx, unknown.Hash(), mar); !errors.Is(err, ErrNotFound) {
		t.Fatalf("KeyByHash(unknown) = %v", err)
	}
}
