// Package engine compiles sitedefs into plans and runs them: parameters are validated, steps fetched
// through a Fetcher, responses checked against rules, and fields extracted into JSON. It owns no
// network, storage or HTTP serving: callers hand it a Fetcher, and map its *errcode.Error at their edge.
package engine

import (
	"context"
	"net/http"
	"time"

	"github.com/expr-lang/expr"

	"asa/engine/funcs"
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
	opts  []expr.Option
}

// New returns an Engine.
func New() *Engine {
	fs := funcs.New()
	opts := append([]expr.Option{
		expr.DisableBuiltin("now"),
		expr.MaxNodes(5000),
	}, fs.Options()...)
	return &Engine{funcs: fs, opts: opts}
}

// Funcs returns the expression function set, for docs.
func (e *Engine) Funcs() *funcs.Set { return e.funcs }
