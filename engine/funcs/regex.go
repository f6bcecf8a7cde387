package funcs

import (
	"container/list"
	"fmt"
	"regexp"
	"sync"

	"github.com/expr-lang/expr/ast"
)

// regexCacheSize bounds the compiled patterns a Set keeps. Patterns are nearly always literals
// in sitedefs, so a few hundred cover every loaded site; the bound only matters when patterns
// are built from data, which must not grow memory without limit.
const regexCacheSize = 512

// regexCache is a small LRU of compiled patterns (and of compile errors, so that a bad pattern
// built at run time is not recompiled on every call).
type regexCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front is most recently used; values are *regexEntry
	byKey map[string]*list.Element
}

type regexEntry struct {
	pattern string
	re      *regexp.Regexp
	err     error
}

func newRegexCache(max int) *regexCache {
	return &regexCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *regexCache) get(pattern string) (*regexp.Regexp, error) {
	c.mu.Lock()
	if el, ok := c.byKey[pattern]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*regexEntry)
		c.mu.Unlock()
		return e.re, e.err
	}
	c.mu.Unlock()

	// Compile outside the lock: two goroutines may compile the same pattern once each, which is
	// cheaper than serialising every compilation.
	re, err := regexp.Compile(pattern)
	if err != nil {
		err = fmt.Errorf("invalid regular expression %q: %w", pattern, err)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[pattern]; ok {
		e := el.Value.(*regexEntry)
		return e.re, e.err
	}
	c.byKey[pattern] = c.order.PushFront(&regexEntry{pattern: pattern, re: re, err: err})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.byKey, old.Value.(*regexEntry).pattern)
	}
	return re, err
}

func (c *regexCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// ValidatePattern compiles p as the regular-expression functions (reFind, reFindAll, reMatch,
// reReplace) will, and keeps it in the Set's cache. The engine calls it at load time for literal
// patterns (see CheckPatterns) so that a typo fails the sitedef check instead of every request.
func (s *Set) ValidatePattern(p string) error {
	_, err := s.re.get(p)
	return err
}

// regexFuncs are the functions whose second argument is a pattern.
var regexFuncs = map[string]bool{"reFind": true, "reFindAll": true, "reMatch": true, "reReplace": true}

// PatternError is an invalid literal pattern found by CheckPatterns.
type PatternError struct {
	Func    string // the function called, e.g. "reFind"
	Pattern string
	From    int // byte offset of the pattern literal in the expression source
	Err     error
}

func (e *PatternError) Error() string {
	return fmt.Sprintf("%s: %v", e.Func, e.Err)
}

func (e *PatternError) Unwrap() error { return e.Err }

// CheckPatterns validates every pattern given as a string literal to reFind, reFindAll, reMatch
// or reReplace in a compiled expression (pass program.Node()) and returns the first invalid one
// as a *PatternError. Patterns computed at run time cannot be checked here; an invalid one makes
// that call fail with an error when it runs.
func (s *Set) CheckPatterns(node ast.Node) error {
	var first error
	ast.Walk(&node, patternVisitor(func(call *ast.CallNode) {
		if first != nil {
			return
		}
		id, ok := call.Callee.(*ast.IdentifierNode)
		if !ok || !regexFuncs[id.Value] || len(call.Arguments) < 2 {
			return
		}
		lit, ok := call.Arguments[1].(*ast.StringNode)
		if !ok {
			return
		}
		if err := s.ValidatePattern(lit.Value); err != nil {
			first = &PatternError{Func: id.Value, Pattern: lit.Value, From: lit.Location().From, Err: err}
		}
	}))
	return first
}

type patternVisitor func(*ast.CallNode)

func (v patternVisitor) Visit(n *ast.Node) {
	if c, ok := (*n).(*ast.CallNode); ok {
		v(c)
	}
}

// firstGroup returns the first capture group that took part in the match, or the whole match
// when the pattern has no groups. "First that took part" makes alternations such as
// `id=(\d+)|"id":"(\d+)"` work as one expects.
func firstGroup(s string, m []int) string {
	if len(m) == 2 {
		return s[m[0]:m[1]]
	}
	for i := 2; i+1 < len(m); i += 2 {
		if m[i] >= 0 {
			return s[m[i]:m[i+1]]
		}
	}
	return ""
}

func (s *Set) reFind(str, pattern string) (string, bool, error) {
	re, err := s.re.get(pattern)
	if err != nil {
		return "", false, err
	}
	m := re.FindStringSubmatchIndex(str)
	if m == nil {
		return "", false, nil
	}
	return firstGroup(str, m), true, nil
}

func (s *Set) reFindAll(str, pattern string) ([]any, error) {
	re, err := s.re.get(pattern)
	if err != nil {
		return nil, err
	}
	ms := re.FindAllStringSubmatchIndex(str, -1)
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = firstGroup(str, m)
	}
	return out, nil
}

func (s *Set) reMatch(str, pattern string) (bool, error) {
	re, err := s.re.get(pattern)
	if err != nil {
		return false, err
	}
	return re.MatchString(str), nil
}

func (s *Set) reReplace(str, pattern, repl string) (string, error) {
	re, err := s.re.get(pattern)
	if err != nil {
		return "", err
	}
	return re.ReplaceAllString(str, repl), nil
}
