package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"asa/store/pgtest"
)

// Several nodes on one PostgreSQL database: each node is its own *DB (its own pools, group
// committer and request-log writer) on the same database, as N asa serve processes would be.

func openNodes(t *testing.T, n int) []*DB {
	t.Helper()
	first, dsn := openTestPG(t)
	nodes := []*DB{first}
	for range n - 1 {
		nodes = append(nodes, openAgain(t, dsn))
	}
	return nodes
}

func TestPGNodesMigrateOnce(t *testing.T) {
	if !onPostgres(t) {
		t.Skip("PostgreSQL only")
	}
	first, dsn := openTestPG(t)
	first.Close() // migrated; now drop the schema and let four nodes start together on it
	var wg sync.WaitGroup
	dbs := make([]*DB, 4)
	errs := make([]error, 4)
	fresh := openAgain(t, dsn)
	if _, err := fresh.w.Exec(`DROP SCHEMA public CASCADE; CREATE SCHEMA public`); err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	for i := range dbs {
		wg.Go(func() { dbs[i], errs[i] = Open(context.Background(), dsn) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("node %d: %v", i, err)
		}
		defer dbs[i].Close()
	}
	all, _ := migrationsFor(postgresDialect)
	if n := count(t, dbs[0], `SELECT COUNT(*) FROM schema_migrations`); n != len(all) {
		t.Fatalf("%d migrations recorded, want %d, each once", n, len(all))
	}
}

// TestPGNodesChargeOnceWithinAllowance: three nodes charge the same ids and more than the allowance
// at once: every id is billed once, and the month's total stops exactly at the allowance.
func TestPGNodesChargeOnceWithinAllowance(t *testing.T) {
	if !onPostgres(t) {
		t.Skip("PostgreSQL only")
	}
	ctx := context.Background()
	nodes := openNodes(t, 3)
	ws := mustWorkspace(t, nodes[0], "acme", PlanCustom, 100)
	_, rec := mustKey(t, nodes[0], ws.ID, false)
	// 40 distinct ids of 5 credits (200 asked of 100), each sent by all three nodes.
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, refused := map[string]int{}, 0
	for i := range 40 {
		for _, db := range nodes {
			wg.Go(func() {
				id := fmt.Sprintf("c%02d", i)
				err := db.Charge(ctx, Charge{ID: id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "x.y", Credits: 5}, okLog("r-"+id))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok[id]++
				case errors.Is(err, ErrInsufficientCredits):
					refused++
				default:
					t.Errorf("charge %s: %v", id, err)
				}
			})
		}
	}
	wg.Wait()
	used, err := nodes[1].CreditsUsed(ctx, ws.ID, time.Now())
	if err != nil || used != 100 {
		t.Fatalf("credits used %d %v, want the allowance, 100", used, err)
	}
	if n := count(t, nodes[2], `SELECT COUNT(*) FROM usage`); n != 20 {
		t.Fatalf("%d ledger rows, want 20", n)
	}
	if n := count(t, nodes[2], `SELECT COALESCE(SUM(credits), 0) FROM usage`); n != 100 {
		t.Fatalf("ledger holds %d credits, want 100", n)
	}
	if n := count(t, nodes[2], `SELECT COUNT(*) FROM request_log WHERE cost > 0`); n != 20 {
		t.Fatalf("%d billed log rows, want 20", n)
	}
	// An id billed once answers ok on every node (a replay); one never billed was refused.
	if len(ok) != 20 {
		t.Fatalf("%d ids billed, want 20: %v", len(ok), ok)
	}
}

// TestPGNodesClaimEachItemOnce: three nodes claim from the same batches at once, in small bites,
// until the queue is empty: every item is claimed by exactly one of them.
func TestPGNodesClaimEachItemOnce(t *testing.T) {
	if !onPostgres(t) {
		t.Skip("PostgreSQL only")
	}
	ctx := context.Background()
	nodes := openNodes(t, 3)
	ws := mustWorkspace(t, nodes[0], "acme", PlanPro, 0)
	_, key := mustKey(t, nodes[0], ws.ID, false)
	mustBatch(t, nodes[0], ws, key, "a", 200, false)
	mustBatch(t, nodes[0], ws, key, "b", 100, false)
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[string]string{}
	for i, db := range nodes {
		owner := fmt.Sprintf("node%d", i)
		wg.Go(func() {
			for {
				got, err := db.ClaimItems(ctx, owner, 7, t0, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, it := range got {
					if prev, dup := seen[it.ChargeID]; dup {
						t.Errorf("%s claimed by %s and %s", it.ChargeID, prev, owner)
					}
					seen[it.ChargeID] = owner
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 300 {
		t.Fatalf("%d items claimed, want 300", len(seen))
	}
	if n := count(t, nodes[0], `SELECT COALESCE(SUM(queued_count), 0) FROM batches`); n != 0 {
		t.Fatalf("queued_count sums to %d after every item was claimed", n)
	}
	if n := count(t, nodes[0], `SELECT COUNT(*) FROM batch_items WHERE attempts != 1`); n != 0 {
		t.Fatalf("%d items claimed more than once", n)
	}
}

// TestPGNodesTakeOverAfterLease: a node dies holding items; another takes them over once the lease
// expires (not before), runs them, and the dead node's late completion writes nothing. Its webhook
// goes out once, from one node.
func TestPGNodesTakeOverAfterLease(t *testing.T) {
	if !onPostgres(t) {
		t.Skip("PostgreSQL only")
	}
	ctx := context.Background()
	nodes := openNodes(t, 3)
	dead, live := nodes[0], nodes[1]
	ws := mustWorkspace(t, dead, "acme", PlanPro, 0)
	_, key := mustKey(t, dead, ws.ID, false)
	mustBatch(t, dead, ws, key, "b", 4, true)
	held := claim(t, dead, "dead", 4, t0)
	if n, err := live.RequeueItems(ctx, "live", t0.Add(30*time.Second)); err != nil || n != 0 {
		t.Fatalf("requeued %d %v while the lease runs, want 0", n, err)
	}
	if n, err := live.RequeueItems(ctx, "live", t0.Add(61*time.Second)); err != nil || n != 4 {
		t.Fatalf("requeued %d %v after the lease, want 4", n, err)
	}
	for _, it := range claim(t, live, "live", 10, t0.Add(62*time.Second)) {
		complete(t, live, it, "live", true, 5)
	}
	if _, err := dead.CompleteItem(ctx, ItemOutcome{Item: held[0], Owner: "dead", OK: true, Credits: 5}); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("the dead node's completion: %v, want ErrLeaseLost", err)
	}
	if n := count(t, live, `SELECT COUNT(*) FROM usage`); n != 4 {
		t.Fatalf("%d ledger rows, want one per item, 4", n)
	}
	// Every node looks for due deliveries at once: one gets it.
	var wg sync.WaitGroup
	var mu sync.Mutex
	claimed := 0
	for i, db := range nodes {
		wg.Go(func() {
			ds, err := db.ClaimDeliveries(ctx, fmt.Sprint("n", i), 5, t0.Add(time.Hour), time.Minute)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			claimed += len(ds)
			mu.Unlock()
		})
	}
	wg.Wait()
	if claimed != 1 {
		t.Fatalf("the delivery was claimed %d times, want once", claimed)
	}
}

// TestPGStoreUnavailable: the PostgreSQL server goes away. Charges fail with ErrUnavailable (the API
// answers 503), Ping says so, nothing is half written; once the server is back the same store
// charges again without being reopened. Its own server: halting the package's would fail the
// other tests.
func TestPGStoreUnavailable(t *testing.T) {
	srv, err := pgtest.Start()
	if err != nil {
		if !pgtest.InCI() && errors.Is(err, pgtest.ErrNoBinaries) {
			t.Skip(err)
		}
		t.Fatal(err)
	}
	defer srv.Stop()
	ctx := context.Background()
	dsn, drop, err := srv.CreateDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	db, err := OpenWith(ctx, dsn, Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ws := mustWorkspace(t, db, "acme", PlanPro, 0)
	_, rec := mustKey(t, db, ws.ID, false)
	charge := func(id string) error {
		return db.Charge(ctx, Charge{ID: id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "x.y", Credits: 5}, okLog(id))
	}
	if err := charge("before"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Halt(); err != nil {
		t.Fatal(err)
	}
	if err := charge("during"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("charge while the server is down: %v, want ErrUnavailable", err)
	}
	if err := db.Ping(ctx); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Ping while the server is down: %v, want ErrUnavailable", err)
	}
	if _, _, _, err := db.KeyByHash(ctx, [32]byte{}, time.Now()); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("key lookup while the server is down: %v, want ErrUnavailable", err)
	}
	if err := srv.Resume(); err != nil {
		t.Fatal(err)
	}
	// The pool's connections died with the server; the first uses find that out and reconnect.
	for i := 0; ; i++ {
		err := charge("after")
		if err == nil {
			break
		}
		if !errors.Is(err, ErrUnavailable) || i == 50 {
			t.Fatalf("charge after the server came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping after the server came back: %v", err)
	}
	if used, err := db.CreditsUsed(ctx, ws.ID, time.Now()); err != nil || used != 10 {
		t.Fatalf("credits used %d %v, want 10 (before and after; nothing of the refused charge)", used, err)
	}
}
