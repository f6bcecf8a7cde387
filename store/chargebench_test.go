package store

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkChargeLatency: what a charge adds to a request, on SQLite (one node) and on PostgreSQL
// (one node, and three nodes on one database), at a steady 500 charges a second spread over the
// nodes: each charge starts on schedule whether or not the earlier ones have finished, as requests
// finishing on a busy server do. Reported: p50 and p99 of one Charge call, in microseconds.
//
//	go test ./store -run '^$' -bench ChargeLatency -benchtime 2000x
//
// PostgreSQL is the test server of store/pgtest (loopback, fsync and synchronous_commit off: a
// commit waits for no disk, as SQLite's WAL with synchronous=NORMAL does not). A production server
// with synchronous_commit on adds one WAL flush per group commit.
func BenchmarkChargeLatency(b *testing.B) {
	const rate = 500 // charges a second, all nodes together
	for _, tc := range []struct {
		name  string
		nodes int
		pg    bool
	}{{"sqlite", 1, false}, {"postgres", 1, true}, {"postgres-3nodes", 3, true}} {
		b.Run(tc.name, func(b *testing.B) {
			var nodes []*DB
			if tc.pg {
				db, dsn := openTestPG(b)
				nodes = append(nodes, db)
				for range tc.nodes - 1 {
					nodes = append(nodes, openAgain(b, dsn))
				}
			} else {
				db, _ := openTest(b)
				nodes = append(nodes, db)
			}
			ws := mustWorkspace(b, nodes[0], "acme", PlanCustom, 1<<40)
			_, rec := mustKey(b, nodes[0], ws.ID, false)
			ctx := context.Background()
			lat := make([]time.Duration, b.N)
			var failed atomic.Int64
			var wg sync.WaitGroup
			tick := time.NewTicker(time.Second / rate)
			defer tick.Stop()
			b.ResetTimer()
			for i := range b.N {
				<-tick.C
				db := nodes[i%len(nodes)]
				wg.Go(func() {
					id := fmt.Sprintf("%s-%d-%d", tc.name, b.N, i)
					start := time.Now()
					err := db.Charge(ctx, Charge{ID: id, WorkspaceID: ws.ID, KeyID: rec.ID, Endpoint: "amazon.product", Credits: 5}, okLog(id))
					lat[i] = time.Since(start)
					if err != nil {
						failed.Add(1)
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			if n := failed.Load(); n > 0 {
				b.Fatalf("%d charges failed", n)
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
