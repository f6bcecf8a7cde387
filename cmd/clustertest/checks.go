package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"asa/api"
	"asa/cmd/internal/batchledger"
	"asa/store"
)

// The free plan's limits (store.PlanLimits(store.PlanFree)), which rate and concurrency test.
const (
	freeRPS         = 2
	freeBurst       = 10
	freeConcurrency = 10
)

// rate hammers a free key at three times its sustained rate, round robin over the nodes, for d,
// and compares what was admitted with what one node may admit over the same span: the burst plus
// the sustained rate times the span (the token bucket), never more than the burst in any 3 s.
func (c *cluster) rate(ctx context.Context, d time.Duration) error {
	key, err := c.newKey("rate", "--plan", "free")
	if err != nil {
		return err
	}
	const offered = 3 * freeRPS
	type answer struct {
		node, status, rps int
		sent, done        time.Time
	}
	var mu sync.Mutex
	var answers []answer
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Second / offered)
	defer tick.Stop()
	start := time.Now()
	for i := 0; time.Since(start) < d; i++ {
		n := c.nodes[i%3]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent := time.Now()
			status, h, _, err := c.get(ctx, n, fmt.Sprintf("/api/v1/cluster/item?query=FAST%05d", i), key)
			if err != nil {
				status = 0
			}
			rps, _ := strconv.Atoi(strings.SplitN(h.Get("Asa-Rps"), "/", 2)[0])
			mu.Lock()
			answers = append(answers, answer{node: n.n, status: status, rps: rps, sent: sent, done: time.Now()})
			mu.Unlock()
		}()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	wg.Wait()
	var admitted, refused, other, maxRPS int
	perNode := map[int]int{}
	var sent []time.Time
	first, last := answers[0].sent, answers[0].done
	for _, a := range answers {
		if a.sent.Before(first) {
			first = a.sent
		}
		if a.done.After(last) {
			last = a.done
		}
		switch a.status {
		case http.StatusOK:
			admitted++
			perNode[a.node]++
			sent = append(sent, a.sent)
			maxRPS = max(maxRPS, a.rps)
		case http.StatusTooManyRequests:
			refused++
		default:
			other++
		}
	}
	// Every admission happened between the first request's sending and the last answer's arrival.
	span := last.Sub(first)
	ceiling := freeBurst + int(math.Floor(freeRPS*span.Seconds()))
	// The most admitted within any 3 s, by the clients' send times (an approximation of the
	// limiter's: a request's sending and its admission are apart by the loopback's latency).
	slices.SortFunc(sent, func(a, b time.Time) int { return a.Compare(b) })
	window := 0
	for i := range sent {
		j := i
		for j < len(sent) && sent[j].Sub(sent[i]) < 3*time.Second {
			j++
		}
		window = max(window, j-i)
	}
	fmt.Printf("clustertest: rate: %d requests in %.1f s (%d RPS offered, 3x the key's %d RPS) over 3 nodes: %d admitted (node 1: %d, node 2: %d, node 3: %d), %d refused 429, %d other\n",
		len(answers), span.Seconds(), offered, freeRPS, admitted, perNode[1], perNode[2], perNode[3], refused, other)
	fmt.Printf("clustertest: rate: one node's ceiling over %.1f s is %d (burst %d + %d RPS x %.1f s); admitted %d = %.0f%% of it; three nodes limiting alone would have admitted up to %d; most admitted in any 3 s: %d (ceiling %d); highest Asa-Rps %d/%d\n",
		span.Seconds(), ceiling, freeBurst, freeRPS, span.Seconds(), admitted, 100*float64(admitted)/float64(ceiling), min(len(answers), 3*ceiling), window, freeBurst, maxRPS, freeRPS)
	switch {
	case other > 0:
		return fmt.Errorf("%d answers neither 200 nor 429", other)
	case admitted > ceiling:
		return fmt.Errorf("admitted %d, more than one node's ceiling %d", admitted, ceiling)
	case admitted < ceiling/2:
		return fmt.Errorf("admitted only %d of a ceiling of %d: the limits refuse what they should admit", admitted, ceiling)
	}
	return nil
}

// concurrency holds ten requests of a free key at the farm, spread over the three nodes, waits
// until the burst window and the bucket would admit again, and asks every node for an 11th: each
// must refuse it for concurrency. The held requests' Asa-Concurrency must count every node's.
func (c *cluster) concurrency(ctx context.Context) error {
	key, err := c.newKey("concurrency", "--plan", "free")
	if err != nil {
		return err
	}
	type held struct {
		status int
		conc   string
		err    error
	}
	results := make(chan held, freeConcurrency)
	for i := range freeConcurrency {
		go func() {
			status, h, body, err := c.get(ctx, c.nodes[i%3], fmt.Sprintf("/api/v1/cluster/item?query=HOLD%02d", i), key)
			if err == nil && status != http.StatusOK {
				err = fmt.Errorf("held request %d: %d %s", i, status, body)
			}
			results <- held{status, h.Get("Asa-Concurrency"), err}
		}()
	}
	release := func() {
		c.mu.Lock()
		select {
		case <-c.hold:
		default:
			close(c.hold)
		}
		c.mu.Unlock()
	}
	defer release()
	for {
		c.mu.Lock()
		n := c.holding
		c.mu.Unlock()
		if n == freeConcurrency {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case r := <-results:
			return fmt.Errorf("a held request came back early: %d %v", r.status, r.err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	// 3.5 s on, the burst window is empty and the bucket holds 7 tokens: only the slots are full.
	time.Sleep(3500 * time.Millisecond)
	var refusals []string
	for _, n := range c.nodes {
		status, _, body, err := c.get(ctx, n, "/api/v1/cluster/item?query=ELEVENTH", key)
		if err != nil {
			return err
		}
		if status != http.StatusTooManyRequests || !strings.Contains(body, "concurrency limit") {
			return fmt.Errorf("node %d admitted an 11th request with 10 in flight elsewhere: %d %s", n.n, status, body)
		}
		refusals = append(refusals, fmt.Sprintf("node %d: 429", n.n))
	}
	release()
	var concs []string
	for range freeConcurrency {
		r := <-results
		if r.err != nil {
			return r.err
		}
		concs = append(concs, r.conc)
	}
	slices.SortFunc(concs, func(a, b string) int {
		x, _ := strconv.Atoi(strings.Split(a, "/")[0])
		y, _ := strconv.Atoi(strings.Split(b, "/")[0])
		return x - y
	})
	fmt.Printf("clustertest: concurrency: 10 requests held on 3 nodes (Asa-Concurrency at admission: %s); an 11th, with the rate limits clear: %s (concurrency limit)\n",
		strings.Join(concs, " "), strings.Join(refusals, ", "))
	if concs[len(concs)-1] != fmt.Sprintf("%d/%d", freeConcurrency, freeConcurrency) {
		return fmt.Errorf("no held request saw %d/%d in flight: the header does not count every node's", freeConcurrency, freeConcurrency)
	}
	// The slots are free again once the held requests are answered.
	status, _, body, err := c.get(ctx, c.nodes[0], "/api/v1/cluster/item?query=AFTER", key)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("after the held requests ended: %d %s", status, body)
	}
	return nil
}

var (
	csrfRe   = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	formIDRe = regexp.MustCompile(`name="form_id" value="([^"]+)"`)
	newKeyRe = regexp.MustCompile(`data-testid="new-key">(asa_live_[A-Za-z0-9]{36})<`)
)

// dashForm GETs page on base for its CSRF token (and the generate-key form's single-use id), then
// POSTs v with them to path, as a browser submitting the page's form; it returns the status and body.
func dashForm(browser *http.Client, base, path, page string, v url.Values) (int, string, error) {
	resp, err := browser.Get(base + page)
	if err != nil {
		return 0, "", err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfRe.FindSubmatch(b)
	if m == nil {
		return 0, "", fmt.Errorf("no CSRF token on %s: %d", page, resp.StatusCode)
	}
	v.Set("csrf_token", string(m[1]))
	// The generate-key form carries a single-use id as well; a form without one is refused 403.
	if m := formIDRe.FindSubmatch(b); m != nil {
		v.Set("form_id", string(m[1]))
	}
	resp, err = browser.PostForm(base+path, v)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ = io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), nil
}

// newBrowser is a client keeping cookies and not following redirects, as the dashboard's forms
// expect.
func newBrowser() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// signInLimit signs up on node 1's dashboard, fails to sign in five times (the default
// sign_in_per_email) spread over the three nodes, and requires every node to refuse the right
// password with 429: the nodes count the failures together in Redis, where each alone would have
// seen one or two.
func (c *cluster) signInLimit(ctx context.Context) error {
	const email, password = "limits@example.com", "correct horse battery"
	if status, body, err := dashForm(newBrowser(), c.nodes[0].base, "/dashboard/signup", "/dashboard/signup", url.Values{"email": {email},
		"password": {password}, "password_confirm": {password}}); err != nil || status != http.StatusSeeOther {
		return fmt.Errorf("sign-up: %d %v %.300s", status, err, body)
	}
	signIn := func(n *node, pw string) (int, error) {
		status, _, err := dashForm(newBrowser(), n.base, "/dashboard/signin", "/dashboard/signin", url.Values{"email": {email}, "password": {pw}})
		return status, err
	}
	for i := range 5 {
		n := c.nodes[i%len(c.nodes)]
		if status, err := signIn(n, "wrong password"); err != nil || status != http.StatusUnauthorized {
			return fmt.Errorf("failed sign-in %d on node %d: %d %v", i+1, n.n, status, err)
		}
	}
	var got []string
	for _, n := range c.nodes {
		status, err := signIn(n, password)
		if err != nil {
			return err
		}
		got = append(got, fmt.Sprintf("node %d: %d", n.n, status))
		if status != http.StatusTooManyRequests {
			return fmt.Errorf("after 5 failures over 3 nodes the right password got %s; want 429 everywhere", strings.Join(got, ", "))
		}
	}
	fmt.Printf("clustertest: sign-in limit: 5 failed sign-ins spread over 3 nodes (2, 2, 1), then the right password refused by every node (%s)\n", strings.Join(got, ", "))
	return nil
}

// revocation signs up on node 1's dashboard, creates a live key, uses it on every node (each
// caches it), revokes it on node 1's dashboard and times how long nodes 2 and 3 take to refuse it
// with 401 revoked.
func (c *cluster) revocation(ctx context.Context) error {
	browser := newBrowser()
	base := c.nodes[0].base
	form := func(path string, page string, v url.Values) (int, string, error) {
		return dashForm(browser, base, path, page, v)
	}
	if status, body, err := form("/dashboard/signup", "/dashboard/signup", url.Values{"email": {"ops@example.com"},
		"password": {"correct horse battery"}, "password_confirm": {"correct horse battery"}}); err != nil || status != http.StatusSeeOther {
		return fmt.Errorf("sign-up: %d %v %.300s", status, err, body)
	}
	status, body, err := form("/dashboard/keys", "/dashboard/keys", url.Values{"mode": {"live"}})
	m := newKeyRe.FindStringSubmatch(body)
	if err != nil || status != http.StatusOK || m == nil {
		return fmt.Errorf("creating a key: %d %v", status, err)
	}
	key := m[1]
	short := key[len("asa_live_") : len("asa_live_")+12]
	for _, n := range c.nodes {
		if status, _, body, err := c.get(ctx, n, "/api/v1/cluster/item?query=REV", key); err != nil || status != http.StatusOK {
			return fmt.Errorf("node %d before the revocation: %d %v %s", n.n, status, err, body)
		}
	}
	if status, body, err := form("/dashboard/keys/"+short+"/revoke", "/dashboard/keys", url.Values{}); err != nil || status != http.StatusSeeOther {
		return fmt.Errorf("revoking: %d %v %.300s", status, err, body)
	}
	revoked := time.Now()
	took := make([]time.Duration, len(c.nodes))
	var wg sync.WaitGroup
	errs := make(chan error, len(c.nodes))
	for i, n := range c.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				status, _, body, err := c.get(ctx, n, "/api/v1/cluster/item?query=REV", key)
				if err != nil {
					errs <- err
					return
				}
				if status == http.StatusUnauthorized && strings.Contains(body, `"revoked"`) {
					took[i] = time.Since(revoked)
					return
				}
				if time.Since(revoked) > 10*time.Second {
					errs <- fmt.Errorf("node %d still answers %d 10 s after the revocation", n.n, status)
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	fmt.Printf("clustertest: revocation: key %s revoked on node 1's dashboard; refused 401 revoked by node 1 after %s, node 2 after %s, node 3 after %s (auth caches of 5 s, invalidated through Redis pub/sub)\n",
		short, took[0].Round(time.Millisecond), took[1].Round(time.Millisecond), took[2].Round(time.Millisecond))
	return nil
}

// batchRecord is a poll's answer.
type batchRecord struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	TotalCount     int    `json:"total_count"`
	ProcessedCount int    `json:"processed_count"`
	SuccessCount   int    `json:"success_count"`
	FailureCount   int    `json:"failure_count"`
	CreditsCharged int    `json:"credits_charged"`
	WebhookStatus  string `json:"webhook_delivery_status"`
	Results        []struct {
		Index          int    `json:"index"`
		Status         string `json:"status"`
		Error          string `json:"error"`
		CreditsCharged int    `json:"credits_charged"`
	} `json:"results"`
}

// batch submits one batch to node 1 and SIGKILLs nodes 2 and 3 while its items run (each is
// restarted at once), then checks that every item has one result, every success one charge, and
// that one webhook event arrived.
func (c *cluster) batch(ctx context.Context, items int) error {
	key, err := c.newKey("batch", "--plan", "custom", "--credits", "1000000")
	if err != nil {
		return err
	}
	var mu sync.Mutex
	events := map[string]int{}
	badSigs := 0
	var secret string
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hooks := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		mu.Lock()
		defer mu.Unlock()
		if secret == "" || !api.VerifyWebhookSignature(secret, body, r.Header.Get("X-ASA-Signature")) {
			badSigs++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		events[r.Header.Get("webhook-id")]++
		w.WriteHeader(http.StatusNoContent)
	})}
	go hooks.Serve(ln)
	defer hooks.Close()

	list := make([]map[string]string, items)
	expectOK := 0
	for i := range list {
		id := fmt.Sprintf("BATCH%05d", i)
		if i%20 == 19 {
			id = fmt.Sprintf("NF%05d", i)
		} else {
			expectOK++
		}
		list[i] = map[string]string{"query": id}
	}
	body, _ := json.Marshal(map[string]any{"endpoint": "cluster.item", "items": list, "webhook_url": "http://" + ln.Addr().String() + "/hooks"})
	var created struct {
		ID     string `json:"id"`
		Secret string `json:"webhook_signature_secret"`
		Poll   string `json:"poll_url"`
	}
	mu.Lock() // the secret must be known before the webhook can arrive
	status, resp, err := c.send(ctx, c.nodes[0], http.MethodPost, "/api/v1/cluster/batch", body, key)
	if err == nil && status/100 == 2 {
		err = json.Unmarshal(resp, &created)
	}
	secret = created.Secret
	mu.Unlock()
	if err != nil || status/100 != 2 {
		return fmt.Errorf("submitting the batch: %d %v %.300s", status, err, resp)
	}
	began := time.Now()
	poll := func(n *node, limit int) (batchRecord, error) {
		var r batchRecord
		status, b, err := c.send(ctx, n, http.MethodGet, fmt.Sprintf("%s?limit=%d", created.Poll, limit), nil, key)
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("poll: %d %.300s", status, b)
		}
		if err == nil {
			err = json.Unmarshal(b, &r)
		}
		return r, err
	}
	// Two kills at random moments while items run, each node restarted at once.
	kills := 0
	for _, n := range c.nodes[1:] {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(1000+rand.IntN(1500)) * time.Millisecond):
		}
		r, err := poll(c.nodes[0], 1)
		if err != nil {
			return err
		}
		c.kill(n)
		kills++
		fmt.Printf("clustertest: batch: node %d SIGKILLed at %d/%d items processed; restarting it\n", n.n, r.ProcessedCount, r.TotalCount)
		if r.ProcessedCount == r.TotalCount {
			return errors.New("the batch ended before the kills: nothing was tested")
		}
		if err := c.start(ctx, n); err != nil {
			return err
		}
	}
	var final batchRecord
	for {
		r, err := poll(c.nodes[rand.IntN(3)], 1)
		if err != nil {
			return err
		}
		if r.Status == "complete" && r.WebhookStatus == "delivered" {
			final = r
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("batch at %d/%d, webhook %s: %w", r.ProcessedCount, r.TotalCount, r.WebhookStatus, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	took := time.Since(began)
	var problems []string
	seen := map[int]int{}
	ok, failed := 0, 0
	for offset := 0; offset < items; offset += 1000 {
		status, b, err := c.send(ctx, c.nodes[2], http.MethodGet, fmt.Sprintf("%s?offset=%d&limit=1000", created.Poll, offset), nil, key)
		if err != nil || status != http.StatusOK {
			return fmt.Errorf("results: %d %v", status, err)
		}
		var r batchRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return err
		}
		for _, res := range r.Results {
			seen[res.Index]++
			switch {
			case res.Status == "ok" && res.CreditsCharged == 5:
				ok++
			case res.Status == "failed" && res.Error == "product_not_found" && res.CreditsCharged == 0:
				failed++
			default:
				problems = append(problems, fmt.Sprintf("item %d: %s %s %d credits", res.Index, res.Status, res.Error, res.CreditsCharged))
			}
		}
	}
	for i := range items {
		if seen[i] != 1 {
			problems = append(problems, fmt.Sprintf("item %d has %d results", i, seen[i]))
		}
	}
	db, err := store.Open(ctx, c.dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	st, used, err := batchledger.Read(ctx, db, "batch")
	if err != nil {
		return err
	}
	if ok != expectOK || failed != items-expectOK {
		problems = append(problems, fmt.Sprintf("%d ok and %d failed, want %d and %d", ok, failed, expectOK, items-expectOK))
	}
	if st.Items != items || st.Finished != items || st.OK != ok || st.LedgerRows != ok || st.LedgerCredits != 5*ok || final.CreditsCharged != 5*ok || used != 5*ok {
		problems = append(problems, fmt.Sprintf("ledger %+v, the batch's credits %d, the workspace's %d; want %d charges of 5", st, final.CreditsCharged, used, ok))
	}
	c.mu.Lock()
	refetched := 0
	for i := range items {
		id := fmt.Sprintf("BATCH%05d", i)
		if i%20 == 19 {
			id = fmt.Sprintf("NF%05d", i)
		}
		h := c.hits[id]
		if h < 1 {
			problems = append(problems, fmt.Sprintf("the farm never saw %s", id))
		}
		refetched += max(h-1, 0)
	}
	c.mu.Unlock()
	mu.Lock()
	deliveries := 0
	for _, n := range events {
		deliveries += n
	}
	nEvents, bad := len(events), badSigs
	mu.Unlock()
	if nEvents != 1 || bad > 0 {
		problems = append(problems, fmt.Sprintf("webhook: %d events (want 1), %d bad signatures", nEvents, bad))
	}
	fmt.Printf("clustertest: batch: %d items done in %s with %d SIGKILLs: %d ok, %d failed (404), each item 1 result; %d charges, %d credits = 5 x %d (ledger rows %d, workspace used %d); webhook: %d event, %d deliveries; %d items fetched again after the kills\n",
		items, took.Round(100*time.Millisecond), kills, ok, failed, st.LedgerRows, st.LedgerCredits, ok, st.LedgerRows, used, nEvents, deliveries, refetched)
	if len(problems) > 0 {
		if len(problems) > 10 {
			problems = append(problems[:10], fmt.Sprintf("... and %d more", len(problems)-10))
		}
		return errors.New(strings.Join(problems, "\n  "))
	}
	return nil
}

// send sends one API request with a body to a node.
func (c *cluster) send(ctx context.Context, n *node, method, path string, body []byte, key string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, n.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("X-API-Key", key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	return resp.StatusCode, b, err
}
