package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"asa/cmd/internal/farmsite"
	"asa/engine/fetch/farm"
)

// The target is farmsite's item page per id on the farm (as in cmd/crashtest). HOLD ids wait until
// the cluster releases them (the concurrency check), NF ids are 404, BATCH ids answer in 50-350 ms,
// every other id at once.

// node is one asa serve process.
type node struct {
	n      int
	addr   string
	base   string
	cmd    *exec.Cmd
	exited chan error
	starts int
}

type cluster struct {
	dir, bin, dsn, redis string
	farm                 *farm.Farm
	caFile               string
	logs                 *os.File
	nodes                []*node
	client               *http.Client

	mu      sync.Mutex
	hits    map[string]int
	hold    chan struct{} // closed to answer the HOLD items
	holding int           // HOLD requests waiting at the farm
}

func newCluster(dir, bin, dsn, redisURL string) (*cluster, error) {
	c := &cluster{dir: dir, bin: bin, dsn: dsn, redis: redisURL, hits: map[string]int{}, hold: make(chan struct{}),
		client: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	if _, err := farmsite.Write(dir, "cluster"); err != nil {
		return nil, err
	}
	f, err := farm.New(farm.Options{Hosts: []string{farmsite.Host("cluster")}, ControlAddr: "off"})
	if err != nil {
		return nil, err
	}
	c.farm = f
	c.caFile = filepath.Join(dir, "farm-ca.pem")
	if err := os.WriteFile(c.caFile, f.CACertPEM(), 0o644); err != nil {
		return nil, err
	}
	f.HandleFunc("cluster.example", "/item/", func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/item/")
		c.mu.Lock()
		c.hits[id]++
		hold := c.hold
		c.mu.Unlock()
		var wait <-chan time.Time
		switch {
		case strings.HasPrefix(id, "HOLD"):
			c.mu.Lock()
			c.holding++
			c.mu.Unlock()
			select {
			case <-hold:
			case <-r.Context().Done():
			}
			c.mu.Lock()
			c.holding--
			c.mu.Unlock()
		case strings.HasPrefix(id, "BATCH"), strings.HasPrefix(id, "NF"):
			wait = time.After(time.Duration(50+rand.IntN(300)) * time.Millisecond)
		}
		if wait != nil {
			select {
			case <-wait:
			case <-r.Context().Done():
				return
			}
		}
		if strings.HasPrefix(id, "NF") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><body><h1 data-id="%s">Item %s</h1></body></html>`, id, id)
	})
	if c.logs, err = os.Create(filepath.Join(dir, "serve.log")); err != nil {
		return nil, err
	}
	for i := range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		addr := ln.Addr().String()
		ln.Close()
		c.nodes = append(c.nodes, &node{n: i + 1, addr: addr, base: "http://" + addr})
	}
	return c, nil
}

func (c *cluster) addrs() []string {
	var a []string
	for _, n := range c.nodes {
		a = append(a, n.addr)
	}
	return a
}

// asa runs an asa command against the cluster's database and returns its output.
func (c *cluster) asa(args ...string) (string, error) {
	out, err := exec.Command(c.bin, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("asa %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// newKey creates a key in a workspace of the plan (created if new) and returns it.
func (c *cluster) newKey(workspace string, planArgs ...string) (string, error) {
	args := append([]string{"keys", "create", "--db", c.dsn, "--workspace", workspace, "--create-workspace"}, planArgs...)
	out, err := c.asa(args...)
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// start runs node n's asa serve and waits until it answers /healthz.
func (c *cluster) start(ctx context.Context, n *node) error {
	args := []string{"serve", "--addr", n.addr, "--db", c.dsn, "--redis", c.redis, "--sitedefs", filepath.Join(c.dir, "sitedefs"),
		"--farm", c.farm.Addr(), "--farm-ca", c.caFile, "--allow-private-network", "--log-format", "json",
		// A SIGKILLed node's items are taken over 2 s after their last renewal; a small worker
		// budget keeps the batch running long enough for the kills to land mid-run.
		"--batch-lease", "2s", "--batch-concurrency", "8"}
	cmd := exec.Command(c.bin, args...)
	n.starts++
	fmt.Fprintf(c.logs, "==== node %d start %d\n", n.n, n.starts)
	cmd.Stdout, cmd.Stderr = prefixed(c.logs, n.n), prefixed(c.logs, n.n)
	if err := cmd.Start(); err != nil {
		return err
	}
	n.cmd, n.exited = cmd, make(chan error, 1)
	go func() { n.exited <- cmd.Wait() }()
	for {
		if resp, err := c.client.Get(n.base + "/healthz"); err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case err := <-n.exited:
			n.cmd = nil
			return fmt.Errorf("node %d exited: %v (see %s)", n.n, err, c.logs.Name())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func (c *cluster) startAll(ctx context.Context) error {
	// The schema first, by one command, so that the nodes start on a database that has it (the
	// nodes would also agree among themselves: migrations run under an advisory lock).
	if _, err := c.asa("keys", "list", "--db", c.dsn); err != nil {
		return err
	}
	for _, n := range c.nodes {
		if err := c.start(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// kill SIGKILLs node n and waits until it is gone.
func (c *cluster) kill(n *node) {
	_ = n.cmd.Process.Signal(syscall.SIGKILL)
	<-n.exited
	n.cmd = nil
	fmt.Fprintf(c.logs, "==== node %d SIGKILL\n", n.n)
}

// stopAll stops every node gracefully (SIGTERM).
func (c *cluster) stopAll() error {
	var errs []string
	for _, n := range c.nodes {
		if n.cmd == nil {
			continue
		}
		_ = n.cmd.Process.Signal(syscall.SIGTERM)
		if err := <-n.exited; err != nil {
			errs = append(errs, fmt.Sprintf("node %d: graceful stop: %v", n.n, err))
		}
		n.cmd = nil
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

func (c *cluster) close() {
	for _, n := range c.nodes {
		if n.cmd != nil {
			_ = n.cmd.Process.Kill()
			<-n.exited
		}
	}
	c.mu.Lock()
	select {
	case <-c.hold:
	default:
		close(c.hold)
	}
	c.mu.Unlock()
	c.farm.Close()
	c.logs.Close()
}

// get sends GET path with the key to a node and returns the status and the response's headers.
func (c *cluster) get(ctx context.Context, n *node, path, key string) (int, http.Header, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.base+path, nil)
	if err != nil {
		return 0, nil, "", err
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(body), nil
}

// prefixed writes a node's log lines to the shared log, each marked with the node.
func prefixed(w io.Writer, n int) io.Writer {
	return &prefixWriter{w: w, p: fmt.Sprintf("[node %d] ", n)}
}

type prefixWriter struct {
	w   io.Writer
	p   string
	mid bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for _, ch := range b {
		if !p.mid {
			out = append(out, p.p...)
			p.mid = true
		}
		out = append(out, ch)
		if ch == '\n' {
			p.mid = false
		}
	}
	_, err := p.w.Write(out)
	return len(b), err
}
