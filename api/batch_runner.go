package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/fixture"
)

// ItemRunner runs the batch items of one endpoint through the same pipeline as its synchronous
// endpoint. The server has one for every sitedef endpoint; others (universal.get) come in
// Deps.ItemRunners, keyed by endpoint id.
type ItemRunner interface {
	// Check validates an item's parameters before the batch is accepted, as the synchronous endpoint
	// would (api_key and the reserved parameters are already removed). The error is an
	// *errcode.Error, invalid_params naming the parameter and the rule.
	Check(q url.Values) error
	// Run runs one item for p and returns what the synchronous endpoint would have answered. ctx
	// carries the item's deadline.
	Run(ctx context.Context, p Principal, q url.Values) ItemResult
}

// ItemResult is the answer of one item.
type ItemResult struct {
	// Body is the JSON object the synchronous endpoint answers on success.
	Body []byte
	// Units is the number of billable requests of a success (pages of a paginated search; 1 when 0).
	Units int
	// Err is the error of a failed item; its code gives the item's http_status.
	Err *errcode.Error
	// Warnings is what a successful run left out (see Server.logWarnings).
	Warnings []string
}

// planRunner runs a sitedef endpoint's items: the synchronous handler's pipeline without the HTTP
// around it (parameters, sandbox or live fetcher, Plan.Run, ordered JSON).
type planRunner struct {
	s    *Server
	plan *engine.Plan
}

// Check validates an item as the synchronous endpoint would. A sandbox_case must name a case of
// the endpoint (a live key's item naming one is refused before, by parseBatch).
func (r planRunner) Check(q url.Values) error {
	q, caseName := withoutSandboxCase(q)
	ps, err := r.plan.Params(q)
	if err != nil || caseName == "" || r.s.deps.Sandbox == nil {
		return err
	}
	_, err = r.s.deps.Sandbox.Resolve(r.plan, ps, caseName)
	return err
}

func (r planRunner) Run(ctx context.Context, p Principal, q url.Values) ItemResult {
	s, plan := r.s, r.plan
	q, caseName := withoutSandboxCase(q)
	params, err := plan.Params(q)
	if err != nil {
		return ItemResult{Err: asErrcode(err)}
	}
	params, fetcher, _, ferr := s.fetcherFor(plan, params, p.Test, caseName)
	if ferr != nil {
		return ItemResult{Err: ferr}
	}
	res, err := plan.Run(ctx, params, fetcher)
	if err != nil {
		var re *engine.RunError
		if errors.As(err, &re) {
			if re.Err.Code == errcode.ExtractionFailed {
				s.metrics.extractionFailed(plan.ID)
			}
			if !p.Test {
				s.health.failure(plan, clientCode(re.Err.Code))
			}
			return ItemResult{Err: re.Err}
		}
		if !p.Test {
			s.health.failure(plan, errcode.InternalError)
		}
		return ItemResult{Err: &errcode.Error{Code: errcode.InternalError, Cause: err}}
	}
	if !p.Test {
		s.health.success(plan, res.Data)
	}
	body, err := res.MarshalJSON()
	if err != nil {
		return ItemResult{Err: &errcode.Error{Code: errcode.InternalError, Cause: err}}
	}
	return ItemResult{Body: body, Units: max(res.Units, 1), Warnings: res.Warnings}
}

// universalRunner runs universal.get items: the universal endpoint's own check and run.
type universalRunner struct{ s *Server }

func (r universalRunner) Check(q url.Values) error {
	q, caseName := withoutSandboxCase(q)
	if _, e := r.s.checkUniversal(q); e != nil {
		return e
	}
	if caseName != "" {
		sb, err := universalSandbox()
		if err != nil {
			return err
		}
		if _, e := sb.resolve("", caseName); e != nil {
			return e
		}
	}
	return nil
}

func (r universalRunner) Run(ctx context.Context, p Principal, q url.Values) ItemResult {
	q, caseName := withoutSandboxCase(q)
	req, e := r.s.checkUniversal(q)
	if e != nil {
		return ItemResult{Err: e}
	}
	req.SandboxCase = caseName
	out, e := r.s.runUniversal(ctx, req, p.Test)
	if e != nil {
		return ItemResult{Err: e}
	}
	return ItemResult{Body: out.Body, Units: 1}
}

// withoutSandboxCase returns an item's parameters without sandbox_case, and its value. An empty
// value is kept as a parameter, so that validation names it.
func withoutSandboxCase(q url.Values) (url.Values, string) {
	v := q.Get(fixture.CaseParam)
	if v == "" {
		return q, ""
	}
	out := make(url.Values, len(q))
	for k, vs := range q {
		if k != fixture.CaseParam {
			out[k] = vs
		}
	}
	return out, v
}

func asErrcode(err error) *errcode.Error {
	if e := errcode.As(err); e != nil {
		return e
	}
	return &errcode.Error{Code: errcode.InternalError, Cause: err}
}

// clientError maps an error to what a client sees: blocked is target_unreachable/blocked, and an
// unknown code is internal_error (the rules of writeError).
func clientError(e *errcode.Error) *errcode.Error {
	if e == nil {
		return &errcode.Error{Code: errcode.InternalError}
	}
	if _, ok := errcode.Lookup(e.Code); !ok || e.Code == errcode.Blocked {
		return &errcode.Error{Code: errcode.TargetUnreachable, Message: e.Message, Detail: "blocked", Cause: e.Cause}
	}
	return e
}

// errorJSON is the error envelope of a failed item, as the synchronous endpoint would send it, with
// the item's id as request_id.
func (s *Server) errorJSON(e *errcode.Error, requestID string) (int, []byte) {
	e = clientError(e)
	info, _ := errcode.Lookup(e.Code)
	msg := e.Message
	if msg == "" || e.Code == errcode.InternalError {
		msg = info.Summary
	}
	body := errorBody{Error: e.Code, Message: msg, DocsURL: s.docsURL(e.Code), RequestID: requestID, Params: e.Params, Detail: e.Detail, Errors: e.Problems}
	if e.Code == errcode.ProductNotFound {
		f := false
		body.Retryable = &f
	}
	b, err := marshalNoEscape(body)
	if err != nil {
		return http.StatusInternalServerError, []byte(`{"error":"internal_error"}`)
	}
	return info.Status, b
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// parseItem reads one submitted item: a JSON object of string, number, boolean or null values (the
// query parameters of the synchronous endpoint). It returns the parameters, the item as stored and
// shown back (the same keys in the same order, api_key removed: a key never lands in a batch record
// or a webhook), and the names of reserved parameters it carries. null means absent.
func parseItem(raw json.RawMessage) (q url.Values, stored []byte, reserved []string, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, nil, errors.New("is not valid JSON")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, nil, errors.New("must be an object of parameters")
	}
	q = url.Values{}
	seen := map[string]bool{}
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, nil, errors.New("is not valid JSON")
		}
		k := kt.(string)
		if seen[k] {
			return nil, nil, nil, fmt.Errorf("%s: given twice", k)
		}
		seen[k] = true
		var v string
		var enc []byte
		if k == ParamExtractRules {
			// The rules are a JSON object; given as a string (as in a query), they are that object's text.
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, nil, nil, errors.New("is not valid JSON")
			}
			var compact bytes.Buffer
			_ = json.Compact(&compact, raw)
			switch compact.Bytes()[0] {
			case '{':
				v, enc = compact.String(), compact.Bytes()
			case '"':
				_ = json.Unmarshal(raw, &v)
				enc = compact.Bytes()
			case 'n':
				enc = []byte("null")
			default:
				return nil, nil, nil, fmt.Errorf("%s: must be a JSON object of fields", k)
			}
			if out.Len() > 1 {
				out.WriteByte(',')
			}
			out.WriteString(`"` + k + `":`)
			out.Write(enc)
			if enc[0] != 'n' {
				q.Set(k, v)
			}
			continue
		}
		vt, err := dec.Token()
		if err != nil {
			return nil, nil, nil, errors.New("is not valid JSON")
		}
		switch x := vt.(type) {
		case string:
			v = x
			enc, _ = marshalNoEscape(x)
		case json.Number:
			v = x.String()
			enc = []byte(v)
		case bool:
			v = fmt.Sprint(x)
			enc = []byte(v)
		case nil:
			enc = []byte("null")
		default:
			return nil, nil, nil, fmt.Errorf("%s: must be a string, a number or a boolean", k)
		}
		if k == "api_key" {
			continue
		}
		if isReserved(k) {
			reserved = append(reserved, k)
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		kb, _ := marshalNoEscape(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(enc)
		if vt != nil {
			q.Set(k, v)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, nil, errors.New("is not valid JSON")
	}
	out.WriteByte('}')
	return q, out.Bytes(), reserved, nil
}

// itemValues turns a stored item back into query parameters.
func itemValues(stored []byte) (url.Values, error) {
	q, _, _, err := parseItem(stored)
	return q, err
}

// prefixParams names parameters of item i: items[3].query.
func prefixParams(i int, params []string) []string {
	out := make([]string, len(params))
	for j, p := range params {
		out[j] = fmt.Sprintf("items[%d].%s", i, p)
	}
	if len(out) == 0 {
		out = []string{fmt.Sprintf("items[%d]", i)}
	}
	return out
}

func itemError(i int, e *errcode.Error) *errcode.Error {
	msg := e.Message
	if msg == "" {
		msg = string(e.Code)
	}
	return &errcode.Error{Code: e.Code, Message: fmt.Sprintf("items[%d]: %s", i, strings.TrimSpace(msg)), Params: prefixParams(i, e.Params), Problems: e.Problems, Cause: e.Cause}
}
