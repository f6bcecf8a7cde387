package api

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"asa/engine"
	"asa/engine/errcode"
	"asa/store"
)

// Extractor health (docs/operations.md#extractor-health): the top complaint of scraping-API users
// is silent breakage, a selector that stops matching and leaves a field empty in 200 answers. Every
// live run is counted in memory per hour, endpoint and sitedef version (the fill of each field of a
// success, the error code of a failure) and added to the store's hourly rows about once a minute, so
// the rows of many nodes add up. An evaluation compares the last hour or two with the 7 days
// before, and raises an alert (a log line, a metric, a dashboard banner) when a field's fill rate
// falls or an endpoint's extraction_failed share rises.

// HealthStore is what extractor health needs from the store; *store.DB implements it.
type HealthStore interface {
	AddExtractorHealth(ctx context.Context, fills []store.FillRow, outcomes []store.OutcomeRow) error
	ExtractorHealth(ctx context.Context, q store.HealthQuery) ([]store.FillRow, []store.OutcomeRow, error)
	PurgeExtractorHealth(ctx context.Context, before time.Time) (int64, error)
}

// HealthConfig configures extractor health. Zero values take the defaults.
type HealthConfig struct {
	// Store keeps the hourly rows; nil leaves extractor health out.
	Store HealthStore
	// FlushEvery is how often RunHealth adds this node's counts to the store and evaluates the
	// alerts (default 1 minute).
	FlushEvery time.Duration
	// FillDrop is the fall of a field's fill rate below its 7-day level that raises an alert
	// (default 0.20: 20 points).
	FillDrop float64
	// FailShare is the share of an endpoint's runs ending in extraction_failed above which an
	// alert is raised (default 0.05).
	FailShare float64
	// MinResponses is the fewest responses showing a field, in the recent window and in the
	// baseline each, for its fill rate to be judged (default 30); MinRuns the fewest runs of an
	// endpoint in the recent window for its extraction_failed share to be judged (default 50).
	MinResponses int64
	MinRuns      int64
}

// Defaults of HealthConfig, documented in docs/operations.md.
const (
	DefaultHealthFlushEvery   = time.Minute
	DefaultHealthFillDrop     = 0.20
	DefaultHealthFailShare    = 0.05
	DefaultHealthMinResponses = 30
	DefaultHealthMinRuns      = 50
	// healthBaseline is the level a field's recent fill rate is compared with: the 7 days before
	// the recent window.
	healthBaseline = 7 * 24 * time.Hour
)

func (c *HealthConfig) defaults() {
	if c.FlushEvery <= 0 {
		c.FlushEvery = DefaultHealthFlushEvery
	}
	if c.FillDrop <= 0 {
		c.FillDrop = DefaultHealthFillDrop
	}
	if c.FailShare <= 0 {
		c.FailShare = DefaultHealthFailShare
	}
	if c.MinResponses <= 0 {
		c.MinResponses = DefaultHealthMinResponses
	}
	if c.MinRuns <= 0 {
		c.MinRuns = DefaultHealthMinRuns
	}
}

// Alert kinds.
const (
	alertFillDrop         = "fill_drop"
	alertExtractionFailed = "extraction_failed"
)

// outcomeOK is the outcome code of a success, in the store ("") and on /metrics ("ok").
const outcomeOK = ""

type healthBucketKey struct {
	hour              int64 // Unix time / 3600
	endpoint, version string
}

// healthBucket is one hour of one endpoint version on this node, not yet in the store.
type healthBucket struct {
	fills    []engine.FillCount // by the endpoint's fill fields
	outcomes map[string]int64
}

// fieldHealth is one field's recent fill rate and its 7-day level.
type fieldHealth struct {
	Field                   string
	Recent, Baseline        float64
	RecentN, BaselineN      int64 // responses that could show the field
	HasRecent, HasBaseline  bool
	Judged, Alert           bool // Judged: both windows have MinResponses
	RecentText, BaseText    string
	DeltaText               string
	recentFill, baseFill    int64
	recentItems, baseItemsN int64
}

// endpointHealth is one endpoint's state at the last evaluation.
type endpointHealth struct {
	Endpoint  string
	Fields    []fieldHealth
	Runs      int64            // runs in the recent window
	Outcomes  map[string]int64 // by code, "" for a success
	Failed    float64          // extraction_failed share of Runs
	Alerts    []healthAlert
	fieldsIdx map[string]int
}

// healthAlert is one firing alert.
type healthAlert struct {
	Kind     string
	Endpoint string
	Field    string // "" for extraction_failed
	Recent   float64
	Baseline float64 // the 7-day fill rate, or the threshold for extraction_failed
	Samples  int64
	Since    time.Time
}

func (a healthAlert) key() string { return a.Kind + "\x00" + a.Endpoint + "\x00" + a.Field }

// Message is the alert as the dashboard banner says it.
func (a healthAlert) Message() string {
	if a.Kind == alertExtractionFailed {
		return fmt.Sprintf("%s: %s of %d recent runs ended in extraction_failed (above %s)", a.Endpoint, pct(a.Recent), a.Samples, pct(a.Baseline))
	}
	return fmt.Sprintf("%s: %s is filled in %s of %d recent responses, against %s over the 7 days before", a.Endpoint, a.Field, pct(a.Recent), a.Samples, pct(a.Baseline))
}

func pct(f float64) string { return fmt.Sprintf("%.0f%%", f*100) }

// healthSnapshot is the last evaluation.
type healthSnapshot struct {
	At        time.Time
	Endpoints map[string]*endpointHealth
	Alerts    []healthAlert // kind, endpoint, field order
}

type healthMonitor struct {
	cfg    HealthConfig
	log    *slog.Logger
	now    func() time.Time
	fields map[string][]engine.FillField // by endpoint id; read-only after newHealthMonitor

	mu      sync.Mutex
	pending map[healthBucketKey]*healthBucket

	evalMu   sync.Mutex
	last     atomic.Pointer[healthSnapshot]
	firing   map[string]healthAlert
	baseHour int64
	baseFill map[[2]string]store.FillRow // (endpoint, field) -> the 7 days before the recent window
	raised   atomic.Uint64
	flushErr atomic.Uint64
}

func newHealthMonitor(cfg HealthConfig, plans map[string]*engine.Plan, log *slog.Logger, now func() time.Time) *healthMonitor {
	cfg.defaults()
	m := &healthMonitor{cfg: cfg, log: log, now: now, fields: map[string][]engine.FillField{},
		pending: map[healthBucketKey]*healthBucket{}, firing: map[string]healthAlert{}}
	for id, p := range plans {
		m.fields[id] = p.FillFields()
	}
	m.last.Store(&healthSnapshot{Endpoints: map[string]*endpointHealth{}})
	return m
}

func (m *healthMonitor) bucket(plan *engine.Plan) *healthBucket {
	k := healthBucketKey{hour: m.now().Unix() / 3600, endpoint: plan.ID, version: plan.Version}
	b := m.pending[k]
	if b == nil {
		b = &healthBucket{fills: make([]engine.FillCount, len(m.fields[plan.ID])), outcomes: map[string]int64{}}
		m.pending[k] = b
	}
	return b
}

// success counts a live run that succeeded with data.
func (m *healthMonitor) success(plan *engine.Plan, data map[string]any) {
	if m == nil {
		return
	}
	counts := engine.Fill(m.fields[plan.ID], data)
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.bucket(plan)
	for i, c := range counts {
		b.fills[i].Responses += c.Responses
		b.fills[i].Items += c.Items
		b.fills[i].Filled += c.Filled
	}
	b.outcomes[outcomeOK]++
}

// failure counts a live run that ended with an error code.
func (m *healthMonitor) failure(plan *engine.Plan, code errcode.Code) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.bucket(plan).outcomes[string(code)]++
}

// clientCode is the code a client sees for a run's error: a block is target_unreachable (design
// decision 7).
func clientCode(c errcode.Code) errcode.Code {
	if c == errcode.Blocked {
		return errcode.TargetUnreachable
	}
	return c
}

// flush adds what this node counted to the store. When the store refuses, the counts go back to be
// added at the next flush (hours older than the retention are let go).
func (m *healthMonitor) flush(ctx context.Context) error {
	m.mu.Lock()
	batch := m.pending
	m.pending = map[healthBucketKey]*healthBucket{}
	m.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	var fills []store.FillRow
	var outs []store.OutcomeRow
	for _, k := range slices.SortedFunc(maps.Keys(batch), func(a, b healthBucketKey) int {
		if a.hour != b.hour {
			return int(a.hour - b.hour)
		}
		if a.endpoint != b.endpoint {
			return compareStrings(a.endpoint, b.endpoint)
		}
		return compareStrings(a.version, b.version)
	}) {
		b := batch[k]
		hour := time.Unix(k.hour*3600, 0).UTC()
		for i, c := range b.fills {
			if c.Responses == 0 {
				continue
			}
			fills = append(fills, store.FillRow{Hour: hour, Endpoint: k.endpoint, Version: k.version, Field: m.fields[k.endpoint][i].Path,
				Responses: c.Responses, Items: c.Items, Filled: c.Filled})
		}
		for _, code := range slices.Sorted(maps.Keys(b.outcomes)) {
			outs = append(outs, store.OutcomeRow{Hour: hour, Endpoint: k.endpoint, Version: k.version, Code: code, Count: b.outcomes[code]})
		}
	}
	err := m.cfg.Store.AddExtractorHealth(context.WithoutCancel(ctx), fills, outs)
	if err == nil {
		return nil
	}
	m.flushErr.Add(1)
	oldest := m.now().Add(-store.HealthRetention).Unix() / 3600
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, b := range batch {
		if k.hour < oldest {
			continue
		}
		have := m.pending[k]
		if have == nil {
			m.pending[k] = b
			continue
		}
		for i, c := range b.fills {
			have.fills[i].Responses += c.Responses
			have.fills[i].Items += c.Items
			have.fills[i].Filled += c.Filled
		}
		for code, n := range b.outcomes {
			have.outcomes[code] += n
		}
	}
	return err
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// evaluate flushes this node's counts, reads every node's from the store and updates the alerts:
// a new alert is logged at warning level, a resolved one at info level.
func (m *healthMonitor) evaluate(ctx context.Context) (*healthSnapshot, error) {
	m.evalMu.Lock()
	defer m.evalMu.Unlock()
	if err := m.flush(ctx); err != nil {
		m.log.WarnContext(ctx, "extractor health: adding counts to the store", "err", err)
	}
	now := m.now().UTC()
	h := now.Unix() / 3600
	// The recent window is the current hour and the one before it: 60 to 120 minutes of traffic,
	// never a nearly empty hour just begun.
	recentFrom := time.Unix((h-1)*3600, 0)
	recentTo := time.Unix((h+1)*3600, 0)
	fills, outs, err := m.cfg.Store.ExtractorHealth(ctx, store.HealthQuery{From: recentFrom, To: recentTo})
	if err != nil {
		return m.last.Load(), err
	}
	if m.baseFill == nil || m.baseHour != h {
		// The baseline's hours are over: read once an hour.
		base, _, err := m.cfg.Store.ExtractorHealth(ctx, store.HealthQuery{From: recentFrom.Add(-healthBaseline), To: recentFrom})
		if err != nil {
			return m.last.Load(), err
		}
		m.baseFill = map[[2]string]store.FillRow{}
		for _, r := range base {
			m.baseFill[[2]string{r.Endpoint, r.Field}] = r
		}
		m.baseHour = h
	}
	snap := &healthSnapshot{At: now, Endpoints: map[string]*endpointHealth{}}
	ep := func(id string) *endpointHealth {
		e := snap.Endpoints[id]
		if e == nil {
			e = &endpointHealth{Endpoint: id, Outcomes: map[string]int64{}, fieldsIdx: map[string]int{}}
			snap.Endpoints[id] = e
		}
		return e
	}
	for _, r := range fills {
		e := ep(r.Endpoint)
		e.fieldsIdx[r.Field] = len(e.Fields)
		e.Fields = append(e.Fields, fieldHealth{Field: r.Field, RecentN: r.Responses, HasRecent: r.Items > 0,
			recentFill: r.Filled, recentItems: r.Items})
	}
	for k, r := range m.baseFill {
		e := ep(k[0])
		i, ok := e.fieldsIdx[k[1]]
		if !ok {
			i = len(e.Fields)
			e.fieldsIdx[k[1]] = i
			e.Fields = append(e.Fields, fieldHealth{Field: k[1]})
		}
		f := &e.Fields[i]
		f.BaselineN, f.HasBaseline, f.baseFill, f.baseItemsN = r.Responses, r.Items > 0, r.Filled, r.Items
	}
	for _, r := range outs {
		e := ep(r.Endpoint)
		e.Outcomes[r.Code] += r.Count
		e.Runs += r.Count
	}
	var alerts []healthAlert
	for _, e := range snap.Endpoints {
		order := map[string]int{}
		for i, f := range m.fields[e.Endpoint] {
			order[f.Path] = i
		}
		for i := range e.Fields {
			f := &e.Fields[i]
			if f.HasRecent {
				f.Recent = float64(f.recentFill) / float64(f.recentItems)
				f.RecentText = pct(f.Recent)
			}
			if f.HasBaseline {
				f.Baseline = float64(f.baseFill) / float64(f.baseItemsN)
				f.BaseText = pct(f.Baseline)
			}
			f.Judged = f.HasRecent && f.HasBaseline && f.RecentN >= m.cfg.MinResponses && f.BaselineN >= m.cfg.MinResponses
			if f.HasRecent && f.HasBaseline {
				f.DeltaText = fmt.Sprintf("%+.0f", (f.Recent-f.Baseline)*100)
			}
			if f.Judged && f.Baseline-f.Recent > m.cfg.FillDrop {
				f.Alert = true
				e.Alerts = append(e.Alerts, healthAlert{Kind: alertFillDrop, Endpoint: e.Endpoint, Field: f.Field,
					Recent: f.Recent, Baseline: f.Baseline, Samples: f.RecentN})
			}
		}
		sort.SliceStable(e.Fields, func(i, j int) bool {
			oi, iok := order[e.Fields[i].Field]
			oj, jok := order[e.Fields[j].Field]
			if iok != jok {
				return iok
			}
			if oi != oj {
				return oi < oj
			}
			return e.Fields[i].Field < e.Fields[j].Field
		})
		if e.Runs > 0 {
			e.Failed = float64(e.Outcomes[string(errcode.ExtractionFailed)]) / float64(e.Runs)
		}
		if e.Runs >= m.cfg.MinRuns && e.Failed > m.cfg.FailShare {
			e.Alerts = append(e.Alerts, healthAlert{Kind: alertExtractionFailed, Endpoint: e.Endpoint,
				Recent: e.Failed, Baseline: m.cfg.FailShare, Samples: e.Runs})
		}
		alerts = append(alerts, e.Alerts...)
	}
	sort.Slice(alerts, func(i, j int) bool { return alerts[i].key() < alerts[j].key() })
	firing := map[string]healthAlert{}
	for i, a := range alerts {
		if was, ok := m.firing[a.key()]; ok {
			alerts[i].Since = was.Since
		} else {
			alerts[i].Since = now
			m.raised.Add(1)
			m.log.WarnContext(ctx, "extractor health alert", "kind", a.Kind, "endpoint", a.Endpoint, "field", a.Field,
				"recent", round3(a.Recent), "baseline", round3(a.Baseline), "samples", a.Samples, "message", a.Message())
		}
		firing[a.key()] = alerts[i]
	}
	for k, a := range m.firing {
		if _, ok := firing[k]; !ok {
			m.log.InfoContext(ctx, "extractor health alert resolved", "kind", a.Kind, "endpoint", a.Endpoint, "field", a.Field,
				"since", a.Since.Format(time.RFC3339))
		}
	}
	m.firing = firing
	snap.Alerts = alerts
	m.last.Store(snap)
	return snap, nil
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }

// current evaluates now; on a store failure it logs and returns the last evaluation.
func (m *healthMonitor) current(ctx context.Context) *healthSnapshot {
	snap, err := m.evaluate(ctx)
	if err != nil {
		m.log.WarnContext(ctx, "extractor health: evaluating", "err", err)
	}
	return snap
}

// run flushes and evaluates every FlushEvery and purges rows past the retention once an hour,
// until ctx is done; then it flushes a last time.
func (m *healthMonitor) run(ctx context.Context) error {
	t := time.NewTicker(m.cfg.FlushEvery)
	defer t.Stop()
	var lastPurge int64
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := m.flush(fctx); err != nil {
				m.log.Error("extractor health: counts lost at shutdown", "err", err)
			}
			return nil
		case <-t.C:
		}
		m.current(ctx)
		if h := m.now().Unix() / 3600; h != lastPurge {
			if _, err := m.cfg.Store.PurgeExtractorHealth(ctx, m.now().Add(-store.HealthRetention)); err != nil {
				m.log.WarnContext(ctx, "extractor health: purging old rows", "err", err)
			} else {
				lastPurge = h
			}
		}
	}
}

// RunHealth keeps extractor health (HealthConfig) until ctx is done: this node's counts are added
// to the store and the alerts evaluated every FlushEvery. Without a HealthConfig.Store it returns
// at once.
func (s *Server) RunHealth(ctx context.Context) error {
	if s.health == nil {
		return nil
	}
	return s.health.run(ctx)
}

// writeMetrics writes the extractor health series of snap (docs/operations.md lists them).
func (m *healthMonitor) writeMetrics(w io.Writer, snap *healthSnapshot) {
	ids := slices.Sorted(maps.Keys(snap.Endpoints))
	fmt.Fprintln(w, "# HELP asa_extractor_fill_ratio Share of recent live successes (list items for list[].field) where the field has a value, all nodes.")
	fmt.Fprintln(w, "# TYPE asa_extractor_fill_ratio gauge")
	for _, id := range ids {
		for _, f := range snap.Endpoints[id].Fields {
			if f.HasRecent {
				fmt.Fprintf(w, "asa_extractor_fill_ratio{endpoint=%q,field=%q} %g\n", id, f.Field, round3(f.Recent))
			}
		}
	}
	fmt.Fprintln(w, "# HELP asa_extractor_fill_ratio_7d The same share over the 7 days before the recent window.")
	fmt.Fprintln(w, "# TYPE asa_extractor_fill_ratio_7d gauge")
	for _, id := range ids {
		for _, f := range snap.Endpoints[id].Fields {
			if f.HasBaseline && f.HasRecent {
				fmt.Fprintf(w, "asa_extractor_fill_ratio_7d{endpoint=%q,field=%q} %g\n", id, f.Field, round3(f.Baseline))
			}
		}
	}
	fmt.Fprintln(w, "# HELP asa_extractor_runs Live runs in the recent window (the current and the previous hour), all nodes.")
	fmt.Fprintln(w, "# TYPE asa_extractor_runs gauge")
	for _, id := range ids {
		if e := snap.Endpoints[id]; e.Runs > 0 {
			fmt.Fprintf(w, "asa_extractor_runs{endpoint=%q} %d\n", id, e.Runs)
		}
	}
	fmt.Fprintln(w, "# HELP asa_extractor_outcome_ratio Share of the recent live runs by outcome (ok or the error code).")
	fmt.Fprintln(w, "# TYPE asa_extractor_outcome_ratio gauge")
	for _, id := range ids {
		e := snap.Endpoints[id]
		for _, code := range slices.Sorted(maps.Keys(e.Outcomes)) {
			name := code
			if code == outcomeOK {
				name = "ok"
			}
			fmt.Fprintf(w, "asa_extractor_outcome_ratio{endpoint=%q,code=%q} %g\n", id, name, round3(float64(e.Outcomes[code])/float64(e.Runs)))
		}
	}
	fmt.Fprintln(w, "# HELP asa_extractor_health_alert 1 for each firing extractor health alert (kind fill_drop or extraction_failed).")
	fmt.Fprintln(w, "# TYPE asa_extractor_health_alert gauge")
	for _, a := range snap.Alerts {
		fmt.Fprintf(w, "asa_extractor_health_alert{endpoint=%q,field=%q,kind=%q} 1\n", a.Endpoint, a.Field, a.Kind)
	}
	fmt.Fprintln(w, "# HELP asa_extractor_health_alerts_raised_total Extractor health alerts raised by this node.")
	fmt.Fprintln(w, "# TYPE asa_extractor_health_alerts_raised_total counter")
	fmt.Fprintf(w, "asa_extractor_health_alerts_raised_total %d\n", m.raised.Load())
	fmt.Fprintln(w, "# HELP asa_extractor_health_flush_failures_total Failed additions of this node's counts to the store (retried).")
	fmt.Fprintln(w, "# TYPE asa_extractor_health_flush_failures_total counter")
	fmt.Fprintf(w, "asa_extractor_health_flush_failures_total %d\n", m.flushErr.Load())
}
