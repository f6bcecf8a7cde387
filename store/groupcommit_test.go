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
	if _, err := db.w.ExecContext(ctx, `CREATE TRIGGER boom BEFORE INSERT ON request_log WHEN NEW.request_id = 'r-boom'
		BEGIN SELECT RAISE(ABORT, 'boom'); END`); err != nil {
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
