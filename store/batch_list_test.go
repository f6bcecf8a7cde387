package store

import (
	"context"
	"testing"
	"time"
)

func TestWorkspaceBatchesStayInTheirWorkspace(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	a := mustWorkspace(t, db, "a", PlanFree, 0)
	b := mustWorkspace(t, db, "b", PlanFree, 0)
	_, ka := mustKey(t, db, a.ID, true)
	_, kb := mustKey(t, db, b.ID, true)
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		id string
		ws Workspace
		k  KeyRecord
	}{{"11111111-1111-4111-8111-111111111111", a, ka}, {"22222222-2222-4222-8222-222222222222", a, ka}, {"33333333-3333-4333-8333-333333333333", b, kb}} {
		nb := NewBatch{ID: c.id, WorkspaceID: c.ws.ID, KeyID: c.k.ID, Test: true, Endpoint: "shop.product",
			Items: [][]byte{[]byte(`{"query":"x"}`)}, CreatedAt: at.Add(time.Duration(i) * time.Minute)}
		if _, _, err := db.CreateBatch(ctx, nb); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.WorkspaceBatches(ctx, a.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "22222222-2222-4222-8222-222222222222" || got[1].ID != "11111111-1111-4111-8111-111111111111" {
		t.Fatalf("workspace a sees %+v, want its two batches newest first", got)
	}
	got, err = db.WorkspaceBatches(ctx, b.ID, 1)
	if err != nil || len(got) != 1 || got[0].WorkspaceID != b.ID {
		t.Fatalf("workspace b sees %+v, %v", got, err)
	}
}
