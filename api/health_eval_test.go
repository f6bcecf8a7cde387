package api

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"asa/store"
)

// TestHealthAlertThresholds: the alert rules at their edges, on rows in a real store: a fall of
// more than 20 points fires and one of exactly 20 does not; either window below the minimum
// sample never fires; extraction_failed fires above 5% of at least 50 runs. An alert that no
// longer holds is logged as resolved.
func TestHealthAlertThresholds(t *testing.T) {
	now := time.Date(2026, 11, 20, 14, 30, 0, 0, time.UTC)
	base := now.Add(-72 * time.Hour)
	fill := func(at time.Time, responses, filled int64) store.FillRow {
		return store.FillRow{Hour: at, Endpoint: "shop.product", Version: "shop@1.0.0", Field: "price", Responses: responses, Items: responses, Filled: filled}
	}
	outcome := func(code string, n int64) store.OutcomeRow {
		return store.OutcomeRow{Hour: now, Endpoint: "shop.product", Version: "shop@1.0.0", Code: code, Count: n}
	}
	tests := []struct {
		name  string
		fills []store.FillRow
		outs  []store.OutcomeRow
		want  string // the alert kinds firing, sorted
	}{
		{"a fall of 21 points", []store.FillRow{fill(base, 100, 100), fill(now, 100, 79)}, nil, "fill_drop"},
		{"a fall of exactly 20 points", []store.FillRow{fill(base, 100, 100), fill(now, 100, 80)}, nil, ""},
		{"the previous hour is recent too", []store.FillRow{fill(base, 100, 100), fill(now.Add(-time.Hour), 20, 0), fill(now, 10, 0)}, nil, "fill_drop"},
		{"two hours ago is baseline", []store.FillRow{fill(base, 100, 100), fill(now.Add(-2*time.Hour), 100, 0), fill(now, 100, 100)}, nil, ""},
		{"too few recent responses", []store.FillRow{fill(base, 100, 100), fill(now, 29, 0)}, nil, ""},
		{"too few baseline responses", []store.FillRow{fill(base, 29, 29), fill(now, 100, 0)}, nil, ""},
		{"baseline older than 7 days", []store.FillRow{fill(now.Add(-8*24*time.Hour), 100, 100), fill(now, 100, 0)}, nil, ""},
		{"6% extraction_failed", nil, []store.OutcomeRow{outcome("", 47), outcome("extraction_failed", 3)}, "extraction_failed"},
		{"4% extraction_failed", nil, []store.OutcomeRow{outcome("", 48), outcome("extraction_failed", 2)}, ""},
		{"other errors are not extraction_failed", nil, []store.OutcomeRow{outcome("", 40), outcome("target_unreachable", 10)}, ""},
		{"too few runs", nil, []store.OutcomeRow{outcome("", 40), outcome("extraction_failed", 9)}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asa.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.AddExtractorHealth(context.Background(), tc.fills, tc.outs); err != nil {
				t.Fatal(err)
			}
			m := newHealthMonitor(HealthConfig{Store: db}, nil, slog.New(slog.DiscardHandler), func() time.Time { return now })
			snap, err := m.evaluate(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, a := range snap.Alerts {
				kinds = append(kinds, a.Kind)
			}
			if got := strings.Join(kinds, ","); got != tc.want {
				t.Errorf("alerts %q, want %q", got, tc.want)
			}
		})
	}

	t.Run("resolved", func(t *testing.T) {
		db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "asa.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if err := db.AddExtractorHealth(context.Background(), []store.FillRow{fill(base, 100, 100), fill(now, 40, 0)}, nil); err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		clock := now
		m := newHealthMonitor(HealthConfig{Store: db}, nil, slog.New(slog.NewTextHandler(&logs, nil)), func() time.Time { return clock })
		for range 2 { // an alert is logged once, not at every evaluation
			if _, err := m.evaluate(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		// Two hours later the bad hour has left the recent window, which is good again.
		clock = now.Add(2 * time.Hour)
		if err := db.AddExtractorHealth(context.Background(), []store.FillRow{fill(clock, 40, 40)}, nil); err != nil {
			t.Fatal(err)
		}
		snap, err := m.evaluate(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Alerts) != 0 || m.raised.Load() != 1 {
			t.Errorf("alerts %+v, raised %d", snap.Alerts, m.raised.Load())
		}
		out := logs.String()
		if n := strings.Count(out, `msg="extractor health alert"`); n != 1 {
			t.Errorf("%d alert lines, want 1:\n%s", n, out)
		}
		if !strings.Contains(out, `msg="extractor health alert resolved" kind=fill_drop endpoint=shop.product field=price`) {
			t.Errorf("no resolved line:\n%s", out)
		}
	})
}
