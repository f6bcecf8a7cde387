package store

import (
	"context"
	"testing"
	"time"
)

// TestExtractorHealthAddsUp: counts added for the same hour, endpoint, version and field (by two
// nodes, or one node twice) add up; totals sum hours and versions; the purge drops old hours only.
func TestExtractorHealthAddsUp(t *testing.T) {
	ctx := context.Background()
	db, _ := openTest(t)
	h := time.Date(2026, 11, 20, 14, 0, 0, 0, time.UTC)
	node := func(version string, at time.Time, filled int64) {
		t.Helper()
		err := db.AddExtractorHealth(ctx,
			[]FillRow{{Hour: at, Endpoint: "shop.product", Version: version, Field: "price", Responses: 10, Items: 10, Filled: filled},
				{Hour: at, Endpoint: "shop.search", Version: version, Field: "results[].title", Responses: 2, Items: 40, Filled: 39}},
			[]OutcomeRow{{Hour: at, Endpoint: "shop.product", Version: version, Code: "", Count: 10},
				{Hour: at, Endpoint: "shop.product", Version: version, Code: "extraction_failed", Count: 1}})
		if err != nil {
			t.Fatal(err)
		}
	}
	node("shop@1.0.0", h.Add(5*time.Minute), 9)
	node("shop@1.0.0", h.Add(50*time.Minute), 7) // another node, the same hour
	node("shop@1.1.0", h.Add(50*time.Minute), 1) // a new version in the same hour
	node("shop@1.1.0", h.Add(-40*24*time.Hour), 10)

	fills, outs, err := db.ExtractorHealth(ctx, HealthQuery{From: h.Add(-time.Hour), To: h.Add(time.Hour), Endpoint: "shop.product", ByHour: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []FillRow{{Hour: h, Endpoint: "shop.product", Version: "shop@1.0.0", Field: "price", Responses: 20, Items: 20, Filled: 16},
		{Hour: h, Endpoint: "shop.product", Version: "shop@1.1.0", Field: "price", Responses: 10, Items: 10, Filled: 1}}
	if len(fills) != len(want) || fills[0] != want[0] || fills[1] != want[1] {
		t.Errorf("by hour: %+v\nwant %+v", fills, want)
	}
	if len(outs) != 4 || outs[0].Code != "" || outs[0].Count != 20 || outs[1].Code != "extraction_failed" || outs[1].Count != 2 {
		t.Errorf("outcomes by hour: %+v", outs)
	}
	fills, outs, err = db.ExtractorHealth(ctx, HealthQuery{From: h.Add(-60 * 24 * time.Hour), To: h.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	wantTotals := []FillRow{{Endpoint: "shop.product", Field: "price", Responses: 40, Items: 40, Filled: 27},
		{Endpoint: "shop.search", Field: "results[].title", Responses: 8, Items: 160, Filled: 156}}
	if len(fills) != 2 || fills[0] != wantTotals[0] || fills[1] != wantTotals[1] {
		t.Errorf("totals: %+v\nwant %+v", fills, wantTotals)
	}
	if len(outs) != 2 || outs[0].Count != 40 || outs[1].Count != 4 {
		t.Errorf("outcome totals: %+v", outs)
	}
	n, err := db.PurgeExtractorHealth(ctx, h.Add(-HealthRetention))
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 { // two fill rows and two outcome rows of 40 days ago
		t.Errorf("purged %d rows, want 4", n)
	}
	if fills, _, _ := db.ExtractorHealth(ctx, HealthQuery{From: h.Add(-60 * 24 * time.Hour), To: h.Add(time.Hour), Endpoint: "shop.product"}); len(fills) != 1 || fills[0].Responses != 30 {
		t.Errorf("after the purge: %+v", fills)
	}
}
