package api

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// A request refused before any fetch (a bad or revoked key, a limit, spent credits, bad
// parameters) costs the server microseconds, so a client can send thousands a second; one log
// line each would make the log the bottleneck and bury everything else. Refusals are logged per
// group (key or client address, endpoint, status, code): the first of a group is logged as any
// request is, the rest of its window are counted, and one "requests refused" line gives their
// count when the window has passed (at the next refusal of any group) or when the server stops.
// The refusals table keeps the exact counts per key and minute (store/requestlog.go); this bounds
// the lines, not what is recorded.

// refusalWindow is how long a group's repeats are counted before their summary line.
const refusalWindow = time.Minute

// maxRefusalGroups bounds the groups kept: past it, new groups share one (client "other"), so
// refusals from many addresses or keys cannot grow the map without bound.
const maxRefusalGroups = 4096

type refusalGroup struct {
	key      string // the key's short prefix, "" when the request had no valid key
	client   string // the connection's address, for requests without a valid key
	endpoint string
	status   int
	code     string
}

type refusalTally struct {
	start     time.Time
	repeats   int
	firstRepl string // the request id of the first repeat not logged on its own
}

type refusalLog struct {
	log *slog.Logger
	now func() time.Time

	mu        sync.Mutex
	groups    map[refusalGroup]*refusalTally
	lastSweep time.Time
}

func newRefusalLog(log *slog.Logger, now func() time.Time) *refusalLog {
	return &refusalLog{log: log, now: now, groups: map[refusalGroup]*refusalTally{}}
}

// note logs a refused request: with attrs, as a "request" line, when it is the first of its group
// in the window; else it is counted for the group's summary.
func (r *refusalLog) note(ctx context.Context, g refusalGroup, requestID string, attrs ...any) {
	now := r.now()
	r.mu.Lock()
	due := r.sweepLocked(now, false)
	t := r.groups[g]
	if t == nil && len(r.groups) >= maxRefusalGroups {
		g = refusalGroup{client: "other", endpoint: g.endpoint, status: g.status, code: g.code}
		t = r.groups[g]
	}
	if t != nil && now.Sub(t.start) >= refusalWindow {
		// its window has passed: its summary now, and this one starts the next window
		if t.repeats > 0 {
			due = append(due, refusalSummary{g: g, t: *t, until: now})
		}
		delete(r.groups, g)
		t = nil
	}
	first := t == nil
	if first {
		r.groups[g] = &refusalTally{start: now}
	} else {
		if t.repeats == 0 {
			t.firstRepl = requestID
		}
		t.repeats++
	}
	r.mu.Unlock()
	r.emit(ctx, due)
	if first {
		r.log.InfoContext(ctx, "request", attrs...)
	}
}

// flush writes every pending summary (the server is stopping).
func (r *refusalLog) flush(ctx context.Context) {
	r.mu.Lock()
	due := r.sweepLocked(r.now(), true)
	r.mu.Unlock()
	r.emit(ctx, due)
}

type refusalSummary struct {
	g     refusalGroup
	t     refusalTally
	until time.Time
}

// sweepLocked removes the groups whose window has passed (all of them with all) and returns the
// summaries to write. It runs at most once a window unless all is set, so a refusal costs a map
// lookup, not a scan of every group.
func (r *refusalLog) sweepLocked(now time.Time, all bool) []refusalSummary {
	if !all && now.Sub(r.lastSweep) < refusalWindow {
		return nil
	}
	r.lastSweep = now
	var out []refusalSummary
	for g, t := range r.groups {
		if all || now.Sub(t.start) >= refusalWindow {
			if t.repeats > 0 {
				out = append(out, refusalSummary{g: g, t: *t, until: now})
			}
			delete(r.groups, g)
		}
	}
	return out
}

func (r *refusalLog) emit(ctx context.Context, due []refusalSummary) {
	for _, s := range due {
		attrs := []any{"endpoint", s.g.endpoint, "status", s.g.status, "error", s.g.code, "count", s.t.repeats,
			"since", s.t.start.UTC().Format(time.RFC3339), "until", s.until.UTC().Format(time.RFC3339),
			"first_request_id", s.t.firstRepl}
		if s.g.key != "" {
			attrs = append([]any{"key", s.g.key}, attrs...)
		} else {
			attrs = append([]any{"client", s.g.client}, attrs...)
		}
		r.log.InfoContext(ctx, "requests refused", attrs...)
	}
}

// logRequestLine writes a request's log line; a request answered with an error before any fetch
// (refused) goes through the refusal log, whose lines are bounded. p is the zero Principal when
// the request had no valid key: the group is then the connection's address.
func (s *Server) logRequestLine(c echo.Context, p Principal, endpoint string, status int, code string, refused bool, attrs ...any) {
	ctx := c.Request().Context()
	attrs = append([]any{"request_id", requestID(c), "key", p.Short, "endpoint", endpoint, "status", status, "error", code}, attrs...)
	if !refused {
		s.log.InfoContext(ctx, "request", attrs...)
		return
	}
	g := refusalGroup{key: p.Short, endpoint: endpoint, status: status, code: code}
	if p.Short == "" {
		g.client = clientIP(c.Request())
		attrs = append(attrs, "client", g.client)
	}
	s.refusals.note(ctx, g, requestID(c), attrs...)
}
