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
