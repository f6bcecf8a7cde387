package api

import (
	"container/list"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"asa/engine"
	"asa/engine/errcode"
)

// ParamExtractRules is universal/get's parameter of extraction rules: a JSON object of fields in
// sitedef syntax, whose values come back under extracted.
const ParamExtractRules = "extract_rules"

// rulesCacheSize bounds the compiled rule sets kept: a client repeating its rules (the usual case)
// compiles them once, and a client sending new rules every time evicts only the oldest.
const rulesCacheSize = 256

// rulesCache keeps compiled rule sets, and the problems of refused ones, by the hash of their
// bytes: least recently used first out.
type rulesCache struct {
	lim engine.RuleLimits
	max int

	mu    sync.Mutex
	order *list.List // of *rulesEntry, most recent first
	byKey map[string]*list.Element
	// compiled counts compilations (cache misses), on /metrics.
	compiled *atomic.Uint64
}

type rulesEntry struct {
	key   string
	rules *engine.RuleSet
	err   *errcode.Error
}

func newRulesCache(max int, compiled *atomic.Uint64) *rulesCache {
	return &rulesCache{lim: engine.DefaultRuleLimits(), max: max, order: list.New(), byKey: map[string]*list.Element{}, compiled: compiled}
}

// get returns the compiled rule set of raw, compiling it on a miss, or the invalid_params error
// that lists its problems.
func (c *rulesCache) get(raw string) (*engine.RuleSet, *errcode.Error) {
	if len(raw) > c.lim.Bytes {
		// Refused before hashing or caching: the limit is the first thing checked.
		return nil, rulesError([]errcode.Problem{{Message: fmt.Sprintf("the rule set is %d bytes, over the limit of %d", len(raw), c.lim.Bytes)}})
	}
	key := engine.RuleHash([]byte(raw))
	c.mu.Lock()
	if el, ok := c.byKey[key]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*rulesEntry)
		c.mu.Unlock()
		return e.rules, e.err
	}
	c.mu.Unlock()
	c.compiled.Add(1)
	// Compiled outside the lock: two requests with the same new rules may both compile, which is
	// cheaper than making every request wait for one compilation.
	rs, probs := engine.CompileRules([]byte(raw), c.lim)
	e := &rulesEntry{key: key, rules: rs}
	if len(probs) > 0 {
		e.err = rulesError(probs)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.order.MoveToFront(el)
		return e.rules, e.err
	}
	c.byKey[key] = c.order.PushFront(e)
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*rulesEntry).key)
	}
	return e.rules, e.err
}

// rulesError is the 400 of a refused rule set: the first problem in the message, every problem
// (up to 20) with its path under errors.
func rulesError(probs []errcode.Problem) *errcode.Error {
	first := probs[0]
	where := ParamExtractRules
	if first.Path != "" {
		where += " at " + first.Path
	}
	msg := fmt.Sprintf("%s: %s", where, first.Message)
	if n := len(probs) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more: see errors)", n)
	}
	return &errcode.Error{Code: errcode.InvalidParams, Message: strings.TrimSpace(msg), Params: []string{ParamExtractRules}, Problems: probs}
}
