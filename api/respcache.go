package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"asa/engine/errcode"
	"asa/store"
)

// ParamMaxAge asks for a stored response no older than this many seconds (issue 19, item 2).
const ParamMaxAge = "max_age"

// MaxMaxAge is the largest max_age: 30 days. Entries older than that are never asked for, and are
// dropped from the store.
const MaxMaxAge = 30 * 24 * 3600

// CacheHitCost is the credits of a response answered from the cache.
const CacheHitCost = 1

// The headers of a request that gave max_age.
const (
	// HeaderCache is hit when the response comes from the cache, miss when it was fetched.
	HeaderCache = "Asa-Cache"
	// HeaderFetchedAt is when the response's page was fetched (RFC 3339, UTC).
	HeaderFetchedAt = "Asa-Fetched-At"
)

// Default bounds of the response cache (Config.CacheMaxEntry, CacheMaxTotal).
const (
	DefaultCacheMaxEntry = 1 << 20
	DefaultCacheMaxTotal = 256 << 20
)

// ResponseCache keeps successful responses per workspace; *store.DB implements it.
type ResponseCache interface {
	CachedResponse(ctx context.Context, workspaceID int64, key string) (store.CachedResponse, bool, error)
	StoreResponse(ctx context.Context, r store.CachedResponse, lim store.CacheLimits) error
}

// cacheMeta is what a hit repeats besides the body: the headers of the response that was stored.
type cacheMeta struct {
	Version      string `json:"v"`
	SourceStatus int    `json:"status,omitempty"`
	ResolvedURL  string `json:"url,omitempty"`
	Case         string `json:"case,omitempty"`
}

// cacheReq is a request's use of the cache: whether it gave max_age, and its key.
type cacheReq struct {
	on     bool
	maxAge int
	key    string
}

// takeMaxAge removes max_age from q and validates it: a whole number of seconds from 0 to MaxMaxAge,
// given once.
func takeMaxAge(q url.Values) (cacheReq, *errcode.Error) {
	vals, ok := q[ParamMaxAge]
	if !ok {
		return cacheReq{}, nil
	}
	delete(q, ParamMaxAge)
	bad := func(format string, args ...any) *errcode.Error {
		return &errcode.Error{Code: errcode.InvalidParams, Message: fmt.Sprintf(format, args...), Params: []string{ParamMaxAge}}
	}
	if len(vals) != 1 {
		return cacheReq{}, bad("%s: given %d times; give it once", ParamMaxAge, len(vals))
	}
	v := vals[0]
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > MaxMaxAge || strings.TrimSpace(v) != v || strings.HasPrefix(v, "+") {
		return cacheReq{}, bad("%s: %q is not a whole number of seconds from 0 to %d", ParamMaxAge, v, MaxMaxAge)
	}
	return cacheReq{on: true, maxAge: n}, nil
}

// cacheKey derives an entry's key from what decides the answer: the endpoint and its version, the
// key's mode and sandbox case, and the normalised parameters (validated, defaults applied, keys
// sorted by encoding/json). api_key, max_age and sandbox_case are never among them.
func cacheKey(endpoint, version string, test bool, sandboxCase string, params any) (string, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%t\n%s\n", endpoint, version, test, sandboxCase)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// cacheLookup answers a request that gave max_age > 0 from the cache when an entry no older than
// max_age exists: the stored body and headers, billed CacheHitCost to a live key (its own charge,
// under the request's id). It reports whether it answered; on a miss it sets Asa-Cache: miss.
// A store that cannot be read is a miss: the cache never fails a request that could be fetched.
func (s *Server) cacheLookup(c echo.Context, p Principal, endpoint string, cr cacheReq, start time.Time, cost *int) ([]byte, *errcode.Error) {
	h := c.Response().Header()
	h.Set(HeaderCache, "miss")
	if s.deps.Cache == nil || cr.maxAge == 0 {
		s.metrics.cache("miss")
		return nil, nil
	}
	ctx := c.Request().Context()
	got, ok, err := s.deps.Cache.CachedResponse(ctx, p.WorkspaceID, cr.key)
	if err != nil {
		s.log.WarnContext(ctx, "reading the response cache", "request_id", requestID(c), "err", err)
	}
	now := s.now()
	if !ok || err != nil || now.Sub(got.FetchedAt) > time.Duration(cr.maxAge)*time.Second {
		s.metrics.cache("miss")
		return nil, nil
	}
	var meta cacheMeta
	_ = json.Unmarshal(got.Meta, &meta)
	if !p.Test {
		if cerr := s.chargeSuccess(ctx, c, p, endpoint, CacheHitCost, 0, start); cerr != nil {
			return nil, cerr
		}
		*cost = CacheHitCost
	} else {
		s.logRequest(c, p, endpoint, 200, "", 0, start)
	}
	s.metrics.cache("hit")
	h.Set(HeaderCache, "hit")
	h.Set(HeaderFetchedAt, got.FetchedAt.UTC().Format(time.RFC3339))
	if meta.Version != "" {
		h.Set(HeaderExtractorVersion, meta.Version)
	}
	setFetchHeaders(c, 0, meta.SourceStatus, meta.ResolvedURL)
	if meta.Case != "" {
		h.Set(HeaderSandboxCase, meta.Case)
	}
	h.Set(HeaderCost, strconv.Itoa(*cost))
	return got.Body, nil
}

// cacheStore keeps a fetched success of a request that gave max_age (0 included: it refreshes the
// entry) and sets Asa-Fetched-At. A body over the entry cap is not kept; a store failure is logged,
// never the request's.
func (s *Server) cacheStore(c echo.Context, p Principal, endpoint string, cr cacheReq, fetched time.Time, meta cacheMeta, body []byte) {
	c.Response().Header().Set(HeaderFetchedAt, fetched.UTC().Format(time.RFC3339))
	if s.deps.Cache == nil || len(body) > s.cfg.CacheMaxEntry {
		return
	}
	mb, _ := json.Marshal(meta)
	err := s.deps.Cache.StoreResponse(context.WithoutCancel(c.Request().Context()), store.CachedResponse{
		WorkspaceID: p.WorkspaceID, Key: cr.key, Endpoint: endpoint, Meta: mb, Body: body, FetchedAt: fetched,
	}, store.CacheLimits{MaxEntry: s.cfg.CacheMaxEntry, MaxTotal: s.cfg.CacheMaxTotal, MaxAge: MaxMaxAge * time.Second})
	if err != nil {
		s.log.WarnContext(c.Request().Context(), "storing a response in the cache", "request_id", requestID(c), "err", err)
	}
}
