package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Request is the API request a tool call becomes.
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
}

// Response is the API's answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Caller runs API requests under a key. Every tool call is one request of the API, so a call goes
// through the same authentication, limits, validation, billing and error mapping as the same
// request over HTTP.
type Caller interface {
	Call(ctx context.Context, who Identity, req Request) (Response, error)
}

// argError is a tool call refused before any request: arguments that are not a JSON object, or a
// batch_get without its batch_id (no request path can be made of it).
type argError struct {
	param, msg string
}

// request turns a call's arguments into the API request.
func (t *Tool) request(args json.RawMessage) (Request, *argError) {
	var m map[string]json.RawMessage
	if len(bytes.TrimSpace(args)) > 0 {
		if err := json.Unmarshal(args, &m); err != nil {
			return Request{}, &argError{"arguments", "the arguments must be a JSON object"}
		}
	}
	switch t.kind {
	case kindBatchSubmit:
		return batchSubmitRequest(m)
	case kindBatchGet:
		var id string
		if err := json.Unmarshal(m["batch_id"], &id); err != nil || id == "" {
			return Request{}, &argError{"batch_id", "batch_id: required, the id batch_submit answered"}
		}
		delete(m, "batch_id")
		// Any site names the poll: the batch is found by id in the key's workspace.
		return Request{Method: http.MethodGet, Path: "/api/v1/universal/batch/" + url.PathEscape(id), Query: queryOf(m)}, nil
	}
	return Request{Method: http.MethodGet, Path: t.path, Query: queryOf(m)}, nil
}

// queryOf makes query parameters of arguments. The API validates them as it does any query:
// strings pass as they are, numbers and booleans as their text, an array as the parameter given
// once per element, an object as its JSON text; null leaves the parameter out.
func queryOf(m map[string]json.RawMessage) url.Values {
	q := url.Values{}
	for k, raw := range m {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err == nil {
			for _, e := range list {
				if v, ok := scalar(e); ok {
					q.Add(k, v)
				}
			}
			continue
		}
		if v, ok := scalar(raw); ok {
			q.Add(k, v)
		}
	}
	return q
}

func scalar(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case 'n':
		return "", false
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return s, true
	case '{', '[':
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.String(), true
		}
		return string(raw), true
	}
	// A model often writes an integer as 2.0: the API's integer parameters take it as 2.
	s := string(raw)
	if strings.ContainsAny(s, ".eE") {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return strconv.FormatInt(int64(f), 10), true
		}
	}
	return s, true
}

// batchSubmitRequest posts the arguments (less idempotency_key, a header) as the batch body to the
// site of its endpoint; what is wrong with the body the API says, as it would over HTTP.
func batchSubmitRequest(m map[string]json.RawMessage) (Request, *argError) {
	h := http.Header{"Content-Type": {"application/json"}}
	if raw, ok := m["idempotency_key"]; ok {
		var k string
		if err := json.Unmarshal(raw, &k); err != nil {
			return Request{}, &argError{"idempotency_key", "idempotency_key: must be a string"}
		}
		h.Set("Idempotency-Key", k)
		delete(m, "idempotency_key")
	}
	var endpoint string
	_ = json.Unmarshal(m["endpoint"], &endpoint)
	site, _, _ := strings.Cut(endpoint, ".")
	if site == "" || strings.IndexFunc(site, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		// No site to post to: the API answers what is wrong with endpoint.
		site = "universal"
	}
	body, err := json.Marshal(m)
	if err != nil {
		return Request{}, &argError{"arguments", "the arguments must be a JSON object"}
	}
	if m == nil {
		body = []byte("{}")
	}
	return Request{Method: http.MethodPost, Path: "/api/v1/" + site + "/batch", Header: h, Body: body}, nil
}

// Handler runs requests in process through the API's own HTTP handler: what an HTTP request would
// meet, it meets, with no network in between.
type Handler struct {
	H http.Handler
}

// Call implements Caller. The request comes from who's RemoteAddr ("stdio" when unset), which the
// API logs for refusals.
func (h Handler) Call(ctx context.Context, who Identity, r Request) (Response, error) {
	u := r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, bytes.NewReader(r.Body))
	if err != nil {
		return Response{}, err
	}
	req.Host = "mcp.local"
	req.RequestURI = u
	req.RemoteAddr = who.RemoteAddr
	if req.RemoteAddr == "" {
		req.RemoteAddr = "stdio"
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	if who.Key != "" {
		req.Header.Set("Authorization", "Bearer "+who.Key)
	}
	rec := &recorder{header: http.Header{}}
	h.H.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return Response{Status: rec.status, Header: rec.header, Body: rec.body.Bytes()}, nil
}

// recorder is the ResponseWriter of an in-process call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

// MaxRemoteBody bounds an answer read from a remote server (a universal_get of a large page in
// parse=html is the largest).
const MaxRemoteBody = 64 << 20

// Remote forwards requests to a running asa server (asa mcp --server URL).
type Remote struct {
	// Base is the server's URL (http://127.0.0.1:8080).
	Base   string
	Client *http.Client
}

// NewRemote returns a Remote with a client whose deadline leaves the server's own request timeout
// (90 s by default) room to answer first.
func NewRemote(base string) Remote {
	return Remote{Base: strings.TrimSuffix(base, "/"), Client: &http.Client{Timeout: 120 * time.Second}}
}

// Call implements Caller.
func (rc Remote) Call(ctx context.Context, who Identity, r Request) (Response, error) {
	u := rc.Base + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, bytes.NewReader(r.Body))
	if err != nil {
		return Response{}, err
	}
	for k, v := range r.Header {
		req.Header[k] = v
	}
	if who.Key != "" {
		req.Header.Set("Authorization", "Bearer "+who.Key)
	}
	resp, err := rc.Client.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxRemoteBody+1))
	if err != nil {
		return Response{}, fmt.Errorf("reading the answer: %w", err)
	}
	if len(body) > MaxRemoteBody {
		return Response{}, errors.New("the answer is larger than 64 MiB")
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// FetchOpenAPI reads the OpenAPI document of a running server, which the tools are derived from.
func (rc Remote) FetchOpenAPI(ctx context.Context) ([]byte, error) {
	resp, err := rc.Call(ctx, Identity{}, Request{Method: http.MethodGet, Path: "/api/v1/openapi.json"})
	if err != nil {
		return nil, err
	}
	if resp.Status != http.StatusOK {
		return nil, fmt.Errorf("GET %s/api/v1/openapi.json answered %d", rc.Base, resp.Status)
	}
	return resp.Body, nil
}
