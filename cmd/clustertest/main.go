// Command clustertest runs three `asa serve` nodes on one PostgreSQL and one Redis (each started
// for the run by store/pgtest and store/redistest, on loopback ports in temporary directories) and
// checks that they behave as one service. There is no load balancer: the client spreads its
// requests across the nodes itself.
//
//   - rate: a free key (2 RPS, a burst of 10 per 3 s) asked at three times its ceiling on all
//     three nodes for 30 s is admitted no more than one node would admit;
//   - concurrency: the same plan's ceiling of 10 requests in flight holds across nodes: with ten
//     held on the three nodes, and the rate limits satisfied again, every node refuses an 11th;
//   - revocation: a key revoked on node 1's dashboard is refused by nodes 2 and 3 (whose auth
//     caches held it) within 10 s;
//   - sign-in limit: five failed dashboard sign-ins for one email spread over the nodes make every
//     node refuse the sixth (the limits are counted in Redis);
//   - batch: a 1000-item batch runs to completion while two nodes are SIGKILLed and restarted:
//     every item has exactly one result, one charge per success, one webhook.
//
// It prints the exact counts and times and exits non-zero on any failure. make clustertest.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"asa/store/pgtest"
	"asa/store/redistest"
)

func main() {
	var o opts
	flag.StringVar(&o.bin, "bin", "", "the asa binary (default: go build ./cmd/asa into a temporary directory)")
	flag.DurationVar(&o.rateFor, "rate-for", 30*time.Second, "rate: how long the free key is hammered")
	flag.IntVar(&o.items, "items", 1000, "batch: items in the batch")
	flag.DurationVar(&o.timeout, "timeout", 4*time.Minute, "give up after this long")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "clustertest: FAIL:", err)
		os.Exit(1)
	}
}

type opts struct {
	bin     string
	rateFor time.Duration
	items   int
	timeout time.Duration
	keep    bool
}

func run(o opts) error {
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "asa-clustertest-")
	if err != nil {
		return err
	}
	if o.keep {
		fmt.Println("clustertest: files in", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	pg, err := pgtest.Start()
	if err != nil {
		return fmt.Errorf("postgresql: %w", err)
	}
	defer pg.Stop()
	dsn, drop, err := pg.CreateDB(ctx)
	if err != nil {
		return err
	}
	defer drop()
	rd, err := redistest.Start(ctx)
	if err != nil {
		return fmt.Errorf("redis: %w", err)
	}
	defer rd.Stop()

	bin := o.bin
	if bin == "" {
		bin = filepath.Join(dir, "asa")
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/asa")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("building asa: %w", err)
		}
	} else if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	c, err := newCluster(dir, bin, dsn, rd.URL)
	if err != nil {
		return err
	}
	defer c.close()
	if err := c.startAll(ctx); err != nil {
		return err
	}
	fmt.Printf("clustertest: 3 nodes (%s) on PostgreSQL and Redis (%s)\n", strings.Join(c.addrs(), ", "), rd.Addr)

	var failures []string
	check := func(name string, f func(context.Context) error) {
		t0 := time.Now()
		if err := f(ctx); err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", name, err))
			fmt.Printf("clustertest: %s FAILED (%s): %v\n", name, time.Since(t0).Round(100*time.Millisecond), err)
			return
		}
		fmt.Printf("clustertest: %s ok (%s)\n", name, time.Since(t0).Round(100*time.Millisecond))
	}
	check("rate", func(ctx context.Context) error { return c.rate(ctx, o.rateFor) })
	check("concurrency", c.concurrency)
	check("revocation", c.revocation)
	check("sign-in limit", c.signInLimit)
	check("batch", func(ctx context.Context) error { return c.batch(ctx, o.items) })
	if err := c.stopAll(); err != nil {
		failures = append(failures, err.Error())
	}
	if len(failures) > 0 {
		return errors.New(strings.Join(failures, "\n  "))
	}
	fmt.Printf("clustertest: PASS in %s\n", time.Since(began).Round(100*time.Millisecond))
	return nil
}
