package funcs

import (
	"container/list"
	"fmt"
	"reflect"
	"regexp"
	"sync"

	"asa/engine/regexfast"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/conf"
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
	re      *regexfast.Regexp
	err     error
}

func newRegexCache(max int) *regexCache {
	return &regexCache{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

// get returns the compiled pattern, prepared by regexfast for long inputs (a pattern cut by lazy
// wildcards, `(?s)<article.*?</article>`, or reFindAll's word count over a whole article): the
// regexp package would run it on its NFA across whole pages.
func (c *regexCache) get(pattern string) (*regexfast.Regexp, error) {
	if len(pattern) > MaxPattern {
		// Not cached: the cache would hold the pattern, and a refusal costs nothing to repeat.
		return nil, fmt.Errorf("regular expression of %d bytes: longer than %d", len(pattern), MaxPattern)
	}
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
	std, err := regexp.Compile(pattern)
	var re *regexfast.Regexp
	if err != nil {
		err = fmt.Errorf("invalid regular expression %q: %w", pattern, err)
	} else {
		re = regexfast.New(std)
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
// reReplace) will, and keeps it in the Set's cache. Patterns written as string literals in
// expressions are already checked when the expression compiles (see patternPatch); this is for
// patterns that come from elsewhere in a sitedef.
func (s *Set) ValidatePattern(p string) error {
	_, err := s.re.get(p)
	return err
}

// regexFuncs are the functions whose second argument is a pattern.
var regexFuncs = map[string]bool{"reFind": true, "reFindAll": true, "reMatch": true, "reReplace": true}

// patternPatch makes an invalid literal pattern a compile error, so that a typo fails the
// sitedef check at load instead of every request. A patcher cannot return errors, so it points
// the call at a function registered for this compilation only, whose compile-time validation
// reports the pattern's error at the call's position. Patterns computed at run time fail when
// the call runs.
type patternPatch struct {
	set    *Set
	config *conf.Config // this compilation's configuration
	n      int
}

func (p *patternPatch) Visit(n *ast.Node) {
	call, ok := (*n).(*ast.CallNode)
	if !ok || len(call.Arguments) < 2 {
		return
	}
	id, ok := call.Callee.(*ast.IdentifierNode)
	if !ok || !regexFuncs[id.Value] {
		return
	}
	lit, ok := call.Arguments[1].(*ast.StringNode)
	if !ok {
		return
	}
	err := p.set.ValidatePattern(lit.Value)
	if err == nil {
		return
	}
	p.n++
	name := fmt.Sprintf("$%s#%d", id.Value, p.n)
	fn := id.Value
	p.config.Functions[name] = &builtin.Function{
		Name: fn,
		Func: func(...any) (any, error) { return nil, fmt.Errorf("%s: %w", fn, err) },
		Validate: func([]reflect.Type) (reflect.Type, error) {
			return anyType, fmt.Errorf("%s: %w", fn, err)
		},
	}
	callee := &ast.IdentifierNode{Value: name}
	callee.SetLocation(id.Location())
	// A new node, not an edited one: the checker has already typed the old call (reMatch as
	// bool) and would trust that type instead of checking the call again.
	ast.Patch(n, &ast.CallNode{Callee: callee, Arguments: call.Arguments})
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
	return regexfast.FindAllFunc(re, str, func(t string, m []int) any { return firstGroup(t, m) }), nil
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
