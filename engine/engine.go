// Package engine compiles sitedefs into plans and runs them: parameters are validated, steps fetched
// through a Fetcher, responses checked against rules, and fields extracted into JSON. It owns no
// network, storage or HTTP serving: callers hand it a Fetcher, and map its *errcode.Error at their edge.
package engine

import (
	"context"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"

	"asa/engine/dom"
	"asa/engine/funcs"
	"asa/engine/xpatheval"
)

// Request is one outbound request a plan asks for.
type Request struct {
	// Step is the step id; Page is the 1-based index of the page in a paginated run.
	Step    string
	Page    int
	Method  string
	URL     string
	Header  http.Header
	Body    []byte
	Timeout time.Duration
	// Parse is how the step reads the response (html, json, xml, text): a fetcher that can render
	// pages renders only html steps.
	Parse string
	// Render is set when the sitedef step needs the page rendered (render: true), WaitFor its CSS
	// selector. A fetcher without a browser ignores both.
	Render  bool
	WaitFor string
}

// MaxWaitFor bounds a wait_for CSS selector (sitedef step field and request parameter).
const MaxWaitFor = 512

// Response is what a Fetcher got back.
type Response struct {
	Status int
	// URL is the final URL after redirects.
	URL    string
	Header http.Header
	Body   []byte
	// Attempts is how many attempts the fetcher made (transport retries count).
	Attempts int
}

// Fetcher performs requests. Implementations: the live fetch client, fixture replay, the sandbox.
type Fetcher interface {
	Fetch(ctx context.Context, req *Request) (*Response, error)
}

// FetcherFunc adapts a function to Fetcher.
type FetcherFunc func(ctx context.Context, req *Request) (*Response, error)

// Fetch calls f.
func (f FetcherFunc) Fetch(ctx context.Context, req *Request) (*Response, error) { return f(ctx, req) }

// Engine holds what every plan shares: the expression function set.
type Engine struct {
	funcs *funcs.Set
	// exprConf is the expression compiler's configuration without an environment: the function
	// table, the builtins left after disabling some, the node cap. It is built once and only read.
	exprConf *conf.Config
	// programs caches compiled expressions by source, result kind and what the source reads of its
	// environment (exprEnvKey): the sites of a family repeat their base's expressions, and a
	// program is immutable, so one compile serves all.
	progMu   sync.Mutex
	programs map[string]*vm.Program
	// directs holds each program's direct form, built once however many plans share the program
	// (a direct form keeps no state of its own: its scratch is the run's frame).
	directs map[*vm.Program]direct
	// projs interns the plans' source projections (see internProjection).
	projMu sync.Mutex
	projs  map[string]*dom.Projection
	// xpaths compiles each XPath source once for every plan, index plans included (each plan
	// records the keys they need in its own Want).
	xpaths xpatheval.Cache
	// regexps compiles each regular expression once for every plan: the sites of a family, and the
	// endpoints of a site, repeat their parameters' patterns and url_pattern. A Regexp is safe for
	// concurrent use.
	regexMu sync.Mutex
	regexps map[string]*regexp.Regexp
	// verifyDirect is Plan.verifyDirect for the plans compiled (tests).
	verifyDirect bool
	// noProject decodes every source whole (tests: see projectSources).
	noProject bool
	// eager builds every HTML tree when its step is parsed (tests: see planLazyTree).
	eager bool
}

// regexp compiles src, or returns the Regexp an earlier plan compiled from it.
func (e *Engine) regexp(src string) (*regexp.Regexp, error) {
	e.regexMu.Lock()
	defer e.regexMu.Unlock()
	if re := e.regexps[src]; re != nil {
		return re, nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	if e.regexps == nil {
		e.regexps = map[string]*regexp.Regexp{}
	}
	e.regexps[src] = re
	return re, nil
}

// New returns an Engine.
func New() *Engine {
	fs := funcs.New()
	// expr.Compile applies its options to a fresh configuration on every call: with our hundred
	// functions that was half of loading the catalogue (thousands of expressions). The options are
	// applied here once, and each compile copies the finished tables (compiling only reads them).
	c := conf.CreateNew()
	for _, op := range append(append([]expr.Option{expr.DisableBuiltin("now"), expr.MaxNodes(5000)}, memberOptions()...), fs.Options()...) {
		op(c)
	}
	for name := range c.Disabled {
		delete(c.Builtins, name)
	}
	c.Disabled = nil
	return &Engine{funcs: fs, exprConf: c, programs: map[string]*vm.Program{}}
}

// compileExpr compiles code in env, as a boolean when asBool. A failure is not cached: the compiler
// reports it where the expression is written.
// envKey is envKey(env).
func (e *Engine) compileExpr(code string, env types.Map, envKey string, asBool bool) (*vm.Program, error) {
	kind := "v"
	if asBool {
		kind = "b"
	}
	key := kind + exprEnvKey(code, env, envKey) + "\x00" + code
	e.progMu.Lock()
	p, ok := e.programs[key]
	e.progMu.Unlock()
	if ok {
		return p, nil
	}
	opts := []expr.Option{func(c *conf.Config) {
		// The shared tables; compiling only reads them.
		*c = *e.exprConf
		c.NtCache = nature.Cache{}
	}, expr.Env(env), expr.Patch(memberPatch{env})}
	if _, ok := env[funcs.FindsVar]; ok {
		opts = append(opts, expr.Patch(funcs.FindsPatch{}))
	}
	if _, ok := env[funcs.BasesVar]; ok {
		opts = append(opts, expr.Patch(funcs.BasesPatch{}))
	}
	if asBool {
		opts = append(opts, expr.AsBool())
	}
	p, err := expr.Compile(code, opts...)
	if err != nil {
		return nil, err
	}
	e.progMu.Lock()
	e.programs[key] = p
	e.progMu.Unlock()
	return p, nil
}

// direct is p's direct form (nil: p runs on the VM), built on p's first use.
func (e *Engine) direct(p *vm.Program) direct {
	if p == nil {
		return nil
	}
	e.progMu.Lock()
	d, ok := e.directs[p]
	e.progMu.Unlock()
	if ok {
		return d
	}
	d = compileDirect(p, e.exprConf)
	e.progMu.Lock()
	if e.directs == nil {
		e.directs = map[*vm.Program]direct{}
	}
	if prev, ok := e.directs[p]; ok {
		d = prev // another plan built it meanwhile: keep one
	} else {
		e.directs[p] = d
	}
	e.progMu.Unlock()
	return d
}

// envKey is a canonical form of an expression environment's types.
func envKey(env types.Map) string {
	var b strings.Builder
	writeEnvKey(&b, env)
	return b.String()
}

// writeEnvKey writes a canonical form of an expression environment's types: map keys sorted.
func writeEnvKey(b *strings.Builder, t types.Type) {
	m, ok := t.(types.Map)
	if !ok {
		b.WriteString(t.String())
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b.WriteByte('{')
	for _, k := range keys {
		b.WriteString(k)
		b.WriteByte(':')
		writeEnvKey(b, m[k])
		b.WriteByte(',')
	}
	b.WriteByte('}')
}

// Funcs returns the expression function set, for docs.
func (e *Engine) Funcs() *funcs.Set { return e.funcs }
