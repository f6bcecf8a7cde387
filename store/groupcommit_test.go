package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestGroupCommitIsolation: charges committed in one group stay independent: those the allowance
// refuses roll back alone, the others commit, and a replayed id bills nothing.
func TestGroupCommitIsolation(t *testing.T) {
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "g", PlanCustom, 20)
	_, rec := mustKey(t, db, ws.ID, false)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			id := fmt.Sprintf("c%d", i%10) // c0 and c1 are charged twice
			errs[i] = db.Charge(ctx, Charge{ID: id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "x.y", Credits: 5}, okLog("r"+fmt.Sprint(i)))
		}(i)
	}
	wg.Wait()
	refused := 0
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, ErrInsufficientCredits):
			refused++
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	used, err := db.CreditsUsed(ctx, ws.ID, orNow(time.Time{}))
	if err != nil {
		t.Fatal(err)
	}
	if used != 20 {
		t.Errorf("credits used %d, want the whole allowance 20", used)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM usage`); n != 4 {
		t.Errorf("%d ledger rows, want 4", n)
	}
	if refused < 6 {
		t.Errorf("%d charges refused, want at least 6 of the 10 distinct ones", refused)
	}
}

// TestGroupCommitFailingStatement: a charge whose statement fails (here a trigger refusing one log
// row) fails alone, with nothing of it written, and the charges committed with it stand: the
// group falls back from its savepoint-free path to one savepoint per charge.
func TestGroupCommitFailingStatement(t *testing.T) {
	db, _ := openTest(t)
	ws := mustWorkspace(t, db, "g", PlanCustom, 1000)
	_, rec := mustKey(t, db, ws.ID, false)
	ctx := context.Background()
	trigger := `CREATE TRIGGER boom BEFORE INSERT ON request_log WHEN NEW.request_id = 'r-boom'
		BEGIN SELECT RAISE(ABORT, 'boom'); END`
	if onPostgres(t) {
		trigger = `CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RAISE EXCEPTION ''boom''; END';
		CREATE TRIGGER boom BEFORE INSERT ON request_log FOR EACH ROW WHEN (NEW.request_id = 'r-boom') EXECUTE FUNCTION boom()`
	}
	if _, err := db.w.ExecContext(ctx, trigger); err != nil {
		t.Fatal(err)
	}
	ids := []string{"boom"}
	for i := range 40 {
		ids = append(ids, fmt.Sprint(i))
	}
	var wg sync.WaitGroup
	errs := make([]error, len(ids))
	start := make(chan struct{})
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = db.Charge(ctx, Charge{ID: "c-" + id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "x.y", Credits: 5}, okLog("r-"+id))
		}()
	}
	close(start)
	wg.Wait()
	if db.groupFallbacks.Load() == 0 {
		t.Error("no group fell back, though a statement failed")
	}
	if errs[0] == nil {
		t.Fatal("the charge whose log row the trigger refuses succeeded")
	}
	for i, err := range errs[1:] {
		if err != nil {
			t.Errorf("charge %d: %v", i, err)
		}
	}
	used, err := db.CreditsUsed(ctx, ws.ID, orNow(time.Time{}))
	if err != nil {
		t.Fatal(err)
	}
	if used != 5*40 {
		t.Errorf("credits used %d, want %d", used, 5*40)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM usage WHERE charge_id = 'c-boom'`); n != 0 {
		t.Errorf("the failed charge left %d ledger rows", n)
	}
	if n := count(t, db, `SELECT COUNT(*) FROM usage`); n != 40 {
		t.Errorf("%d ledger rows, want 40", n)
	}
}

// TestBulkChargeMatchesOneByOne: a group decided and written in bulk ends exactly as the same
// charges run one by one: the same refusals, replays and rows, across keys, workspaces, a sandbox
// key, an unknown key, a spent allowance, ids repeated inside the group and a month boundary.
func TestBulkChargeMatchesOneByOne(t *testing.T) {
	type charge struct {
		id   string
		key  int // index into the keys below; 3 is a key that does not exist
		cred int
		at   time.Time
	}
	jan := time.Date(2026, 1, 31, 23, 59, 0, 0, time.UTC)
	feb := jan.Add(2 * time.Minute)
	charges := []charge{
		{"a", 0, 5, jan}, {"b", 0, 5, jan}, {"a", 0, 5, jan}, {"c", 1, 5, jan}, {"d", 2, 5, jan},
		{"e", 3, 5, jan}, {"f", 0, 5, jan}, {"g", 0, 5, jan}, {"h", 0, 5, feb}, {"old", 0, 5, jan},
		{"i", 1, 50, jan}, {"j", 1, 5, feb}, {"b", 0, 5, feb}, {"k", 0, 1, jan},
	}
	type outcome struct {
		errs  []string
		usage []string
	}
	run := func(bulk bool) outcome {
		db, _ := openTest(t)
		ctx := context.Background()
		ws1 := mustWorkspace(t, db, "one", PlanCustom, 20)
		ws2 := mustWorkspace(t, db, "two", PlanCustom, 30)
		_, k0 := mustKey(t, db, ws1.ID, false)
		_, k1 := mustKey(t, db, ws2.ID, false)
		_, k2 := mustKey(t, db, ws1.ID, true)
		keys := []KeyRecord{k0, k1, k2, {ID: 999, WorkspaceID: ws1.ID}}
		// a charge made before the group: its id is a replay inside it
		if err := db.Charge(ctx, Charge{ID: "old", WorkspaceID: ws1.ID, KeyID: k0.ID, Endpoint: "x.y", Credits: 5, At: jan}, okLog("r-old")); err != nil {
			t.Fatal(err)
		}
		var group []*chargeReq
		for i, c := range charges {
			k := keys[c.key]
			log := okLog(fmt.Sprint("r", i))
			log.WorkspaceID, log.KeyID, log.Cost, log.At = k.WorkspaceID, k.ID, c.cred, c.at
			group = append(group, &chargeReq{ctx: ctx, c: Charge{ID: c.id, WorkspaceID: k.WorkspaceID, KeyID: k.ID, Endpoint: "x.y", Credits: c.cred, At: c.at},
				log: log, at: c.at, done: make(chan error, 1)})
		}
		if bulk {
			db.commitGroup(group)
			if n := db.groupFallbacks.Load(); n != 0 {
				t.Errorf("the bulk group fell back to one savepoint per charge")
			}
		} else {
			for _, r := range group {
				db.commitGroup([]*chargeReq{r})
			}
		}
		var o outcome
		for _, r := range group {
			err := <-r.done
			switch {
			case err == nil:
				o.errs = append(o.errs, "ok")
			case errors.Is(err, ErrInsufficientCredits):
				o.errs = append(o.errs, "insufficient")
			case errors.Is(err, ErrInvalid):
				o.errs = append(o.errs, "invalid")
			case errors.Is(err, ErrNotFound):
				o.errs = append(o.errs, "not found")
			default:
				t.Fatalf("charge %s: %v", r.c.ID, err)
			}
		}
		rows, err := db.r.QueryContext(ctx, `SELECT charge_id || ' ' || key_id || ' ' || credits || ' ' || created_at FROM usage ORDER BY charge_id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			o.usage = append(o.usage, s)
		}
		for _, q := range []string{`SELECT workspace_id || ' ' || month || ' ' || credits FROM credit_months ORDER BY 1`,
			`SELECT request_id || ' ' || cost FROM request_log ORDER BY 1`} {
			r2, err := db.r.QueryContext(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for r2.Next() {
				var s string
				if err := r2.Scan(&s); err != nil {
					t.Fatal(err)
				}
				o.usage = append(o.usage, s)
			}
			r2.Close()
		}
		return o
	}
	one, bulk := run(false), run(true)
	if fmt.Sprint(one.errs) != fmt.Sprint(bulk.errs) {
		t.Errorf("outcomes differ:\none by one %v\nbulk       %v", one.errs, bulk.errs)
	}
	if fmt.Sprint(one.usage) != fmt.Sprint(bulk.usage) {
		t.Errorf("rows differ:\none by one %v\nbulk       %v", one.usage, bulk.usage)
	}
	// ws1 allows 20 a month: old, a, b and f fill January, so g and k are refused; a and b again,
	// and old, are replays; ws2 allows 30, so i (50) is refused.
	if want := "[ok ok ok ok invalid not found ok insufficient ok ok insufficient ok ok insufficient]"; fmt.Sprint(one.errs) != want {
		t.Errorf("outcomes %v, want %s", one.errs, want)
	}
}
