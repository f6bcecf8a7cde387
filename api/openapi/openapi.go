// Package openapi generates the OpenAPI 3.1 description of the API from the loaded sitedefs: one
// operation per endpoint with its parameters (types, enums, defaults, examples), the response shape
// from its fields and their types, the headers and the error responses of docs/api.md, plus the
// universal fetch and the batch endpoints of the spec (4.4, 4.6, 4.7) and the batch webhook (6).
//
// It needs the registry (and, optionally, the sandbox's fixture cases for the sandbox_case parameter):
// the server serves the document at /api/v1/openapi.json and /docs
// renders it.
package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"asa/engine/errcode"
	"asa/engine/registry"
	"asa/engine/sitedef"
)

// universalEndpoint is the id of GET /api/v1/universal/get, which no sitedef describes.
const universalEndpoint = "universal.get"

// Version is the interface version of spec 9.
const Version = "1.0.0"

// Options are what the document cannot learn from the registry.
type Options struct {
	// ServerURL is the base URL clients use (the servers entry); "" gives a relative "/".
	ServerURL string
	// DocsURL is the API reference whose #error-<code> anchors the error responses link to; default
	// "/docs/api.md".
	DocsURL string
	// CostPerRequest is the credits of one standard request (5).
	CostPerRequest int
	// MaxBatchItems bounds a batch (1000).
	MaxBatchItems int
	// MaxUsageDays bounds a usage report's range (366).
	MaxUsageDays int
	// SandboxCases are the fixture cases answering sandbox keys, by endpoint id: they become the
	// sandbox_case parameter's values and examples.
	SandboxCases map[string][]SandboxCase
}

// SandboxCase is one fixture case of the sandbox (design decision 16).
type SandboxCase struct {
	Name    string
	Summary string
	// Query is the case's parameters as a query string.
	Query string
	// Status is the HTTP status the case answers, Error its error code ("" for 200).
	Status int
	Error  string
	// Default answers requests that match no case.
	Default bool
}

// Build returns the document as indented JSON. The output depends only on the registry and the
// options, so it is built once and served as bytes.
func Build(reg *registry.Registry, opt Options) ([]byte, error) {
	if opt.DocsURL == "" {
		opt.DocsURL = "/docs/api.md"
	}
	if opt.CostPerRequest == 0 {
		opt.CostPerRequest = 5
	}
	if opt.MaxUsageDays == 0 {
		opt.MaxUsageDays = 366
	}
	if opt.MaxBatchItems == 0 {
		opt.MaxBatchItems = 1000
	}
	g := &gen{reg: reg, opt: opt, schemas: obj{}}
	doc := g.document()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding the OpenAPI document: %w", err)
	}
	return b.Bytes(), nil
}

// obj is a JSON object that keeps its keys in the order they were added: parameters and fields come
// out in the order the sitedef author wrote them.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSON(&b, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeJSON writes the document's tree in one pass. Letting encoding/json call MarshalJSON on each
// nested obj re-validated every level's output at every level above it: a cost that grew with the
// nesting, and most of the document's build time.
func writeJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case obj:
		b.WriteByte('{')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e.k); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := writeJSON(b, e.v); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		enc := json.NewEncoder(b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	return nil
}

// set adds or replaces key.
func (o *obj) set(k string, v any) {
	for i := range *o {
		if (*o)[i].k == k {
			(*o)[i].v = v
			return
		}
	}
	*o = append(*o, kv{k, v})
}

func (o obj) get(k string) any {
	for _, e := range o {
		if e.k == k {
			return e.v
		}
	}
	return nil
}

type gen struct {
	reg     *registry.Registry
	opt     Options
	schemas obj
}

func ref(name string) obj { return obj{{"$ref", "#/components/schemas/" + name}} }

func (g *gen) document() obj {
	paths := obj{}
	var tags []any
	for _, slug := range g.reg.Sites() {
		site := g.reg.Site(slug)
		desc := site.Name
		if site.Summary != "" {
			desc += ": " + site.Summary
		}
		tags = append(tags, obj{{"name", slug}, {"description", desc + " (" + site.Category + ", extractor " + slug + "@" + site.Version + ")"}})
	}
	for _, id := range g.reg.IDs() {
		site, resource, _ := strings.Cut(id, ".")
		paths.set("/api/v1/"+site+"/"+resource, obj{{"get", g.endpointOperation(id)}})
	}
	tags = append(tags,
		obj{{"name", "universal"}, {"description", "Fetch any public URL and get it back as extracted JSON, HTML or text."}},
		obj{{"name", "batch"}, {"description", "Run many requests of one endpoint in the background; poll, or get a signed webhook when the batch ends."}},
		obj{{"name", "account"}, {"description", "The caller's plan, limits, credits and usage; free."}})
	paths.set("/api/v1/universal/get", obj{{"get", g.universalOperation()}})
	paths.set("/api/v1/{site}/batch", obj{{"post", g.createBatchOperation()}})
	paths.set("/api/v1/{site}/batch/{batch_id}", obj{{"get", g.pollBatchOperation()}})
	g.commonSchemas()
	g.accountPaths(&paths)

	server := g.opt.ServerURL
	if server == "" {
		server = "/"
	}
	return obj{
		{"openapi", "3.1.0"},
		{"info", obj{
			{"title", "asa web-scraping API"},
			{"version", Version},
			{"description", g.infoDescription()},
		}},
		{"servers", []any{obj{{"url", server}}}},
		{"security", []any{obj{{"api_key", []any{}}}, obj{{"api_key_header", []any{}}}, obj{{"bearer", []any{}}}}},
		{"tags", tags},
		{"paths", paths},
		{"webhooks", obj{{"batch.completed", g.webhook()}}},
		{"components", obj{
			{"securitySchemes", obj{
				{"api_key", obj{{"type", "apiKey"}, {"in", "query"}, {"name", "api_key"},
					{"description", "The key as the api_key query parameter (the contract). asa_live_ keys fetch real pages and are billed; asa_test_ (sandbox) keys are answered from fixture pages, never billed."}}},
				{"api_key_header", obj{{"type", "apiKey"}, {"in", "header"}, {"name", "X-API-Key"},
					{"description", "The same key in a header, which keeps it out of URL logs. Different keys in two places is 400 invalid_params."}}},
				{"bearer", obj{{"type", "http"}, {"scheme", "bearer"},
					{"description", "The same key as Authorization: Bearer <key>. Different keys in two places is 400 invalid_params."}}},
			}},
			{"headers", g.headers()},
			{"schemas", g.schemas},
		}},
		{"externalDocs", obj{{"description", "The API reference: authentication, limits, billing and every error code"}, {"url", g.opt.DocsURL}}},
	}
}

func (g *gen) infoDescription() string {
	return fmt.Sprintf("Structured JSON from third-party pages: `GET /api/v1/{site}/{resource}` with the key in "+
		"`api_key`. Every endpoint below is generated from the site definitions this server loaded, with "+
		"its extractor version in `x-asa-extractor-version`.\n\n"+
		"Billing: %d credits per successful request (%d x pages for a paginated search); every non-2xx and "+
		"every sandbox request costs 0. Errors are JSON bodies `{error, message, docs_url, request_id}` "+
		"described in [the API reference](%s).", g.opt.CostPerRequest, g.opt.CostPerRequest, g.opt.DocsURL)
}

// headers are the Asa-* response headers of docs/api.md.
func (g *gen) headers() obj {
	h := func(desc string, schema obj) obj { return obj{{"description", desc}, {"schema", schema}} }
	str := obj{{"type", "string"}}
	integer := obj{{"type", "integer"}, {"minimum", 0}}
	return obj{
		{"Asa-Request-Id", h("The id to quote when reporting a problem; also request_id in error bodies.", str)},
		{"Asa-Cost", h(fmt.Sprintf("Credits charged: %d per request (%d x pages for a paginated search), 1 for an answer from the response cache (max_age), 0 on any non-2xx and for sandbox keys.", g.opt.CostPerRequest, g.opt.CostPerRequest), integer)},
		{"Asa-Extractor-Version", h("<site>@<semver> of the site definition that answered.", str)},
		{"Asa-Resolved-Url", h("The final target URL after redirects.", obj{{"type", "string"}, {"format", "uri"}})},
		{"Asa-Source-Status", h("The target's raw HTTP status.", integer)},
		{"Asa-Attempts", h("Internal attempts, retries included.", integer)},
		{"Asa-Concurrency", h("<in flight>/<allowed> for the key.", str)},
		{"Asa-Rps", h("<admitted in the last second>/<sustained ceiling> for the key.", str)},
		{"Retry-After", h("Seconds to wait before retrying: computed from every limit that refuses, so a request sent exactly that much later is admitted unless another request of the key took the room first.", integer)},
		{"RateLimit-Policy", h(`The key's limits as IETF quota policies (draft-ietf-httpapi-ratelimit-headers): "concurrency";q=<in flight>;qu="concurrent-requests", "sustained";q=<RPS>;w=1, "burst";q=<window ceiling>;w=3.`, str)},
		{"RateLimit", h(`What each policy has left now: "concurrency";r=<free slots>, "sustained";r=<tokens, at most RPS>;t=<seconds>, "burst";r=<room in the last 3 s>;t=<seconds>. With r=0, t is the wait until that policy admits one more.`, str)},
		{"Asa-Sandbox-Case", h("Sandbox keys only: the name of the fixture case that answered (see the sandbox_case parameter).", str)},
		{"Asa-Cache", h("Requests that gave max_age only: hit when the answer is a stored response (1 credit), miss when it was fetched.", obj{{"type", "string"}, {"enum", []any{"hit", "miss"}}})},
		{"Asa-Fetched-At", h("Requests that gave max_age only: when the answer's page was fetched (RFC 3339, UTC); on a hit, the stored response's time.", obj{{"type", "string"}, {"format", "date-time"}})},
	}
}

// maxAgeParam is max_age, which every endpoint takes.
func maxAgeParam() obj {
	return obj{{"name", "max_age"}, {"in", "query"},
		{"description", "Answer from a stored successful response of the same endpoint and parameters (this workspace's, this key mode's) fetched at most this many seconds ago, for 1 credit, without fetching (Asa-Cache: hit); otherwise fetch as usual and store the success (Asa-Cache: miss). 0 always fetches and refreshes the stored response. A whole number from 0 to 2592000 (30 days); anything else is 400 invalid_params. Not accepted in batch items."},
		{"schema", obj{{"type", "integer"}, {"minimum", 0}, {"maximum", 2592000}}}, {"example", 3600}}
}

// sandboxCaseParam describes sandbox_case for an endpoint with sandbox cases: every case is a value
// of its enum and an example, with the status it answers.
func (g *gen) sandboxCaseParam(id string) obj {
	cases := g.opt.SandboxCases[id]
	if len(cases) == 0 {
		return nil
	}
	enum := make([]any, len(cases))
	examples := obj{}
	def := ""
	for i, c := range cases {
		enum[i] = c.Name
		answer := "200"
		if c.Error != "" {
			answer = fmt.Sprintf("%d %s", c.Status, c.Error)
		}
		if c.Default {
			def = c.Name
		}
		summary := answer + ": " + c.Summary
		if c.Query != "" {
			summary = answer + " (" + c.Query + "): " + c.Summary
		}
		examples.set(c.Name, obj{{"summary", summary}, {"value", c.Name}})
	}
	desc := "Sandbox keys only (400 invalid_params with a live key): answer from this fixture case, whatever the other " +
		"parameters (which must still be valid). Without it, the case whose parameters match the request answers, else the " +
		"closest success case, else `" + def + "`; the Asa-Sandbox-Case header names the case. Every error of the endpoint " +
		"has a case."
	return obj{{"name", "sandbox_case"}, {"in", "query"}, {"description", desc},
		{"schema", obj{{"type", "string"}, {"enum", enum}}}, {"examples", examples}}
}

func hdr(name string) obj { return obj{{"$ref", "#/components/headers/" + name}} }

// endpointOperation describes GET /api/v1/<site>/<resource>.
func (g *gen) endpointOperation(id string) obj {
	plan := g.reg.Plan(id)
	ep := plan.Endpoint
	site := plan.Site
	var params []any
	ep.Params.Each(func(name string, p *sitedef.Param) {
		params = append(params, g.parameter(site, name, p))
	})
	if sc := g.sandboxCaseParam(id); sc != nil {
		params = append(params, sc)
	}
	params = append(params, maxAgeParam())
	params = append(params, browserParams()...)
	desc := ep.Description
	if ep.Paginate != nil {
		desc = appendPara(desc, fmt.Sprintf("Paginated: `pages` consecutive pages are fetched and their `%s` concatenated; each page costs %d credits.", ep.Paginate.Items, g.opt.CostPerRequest))
	}
	var rules []string
	for _, c := range ep.Constraints {
		switch {
		case c.Message != "":
			rules = append(rules, "- "+c.Message)
		case len(c.OneOf) > 0:
			rules = append(rules, "- exactly one of "+strings.Join(c.OneOf, ", "))
		}
	}
	if len(rules) > 0 {
		desc = appendPara(desc, "Parameter rules (400 invalid_params otherwise):\n"+strings.Join(rules, "\n"))
	}
	schemaName := id
	g.schemas.set(schemaName, g.outputSchema(id, ep))

	// Error responses: what every scrape can answer (a target's 404 is product_not_found on every
	// endpoint), plus the codes this endpoint's rules produce.
	codes502 := []errcode.Code{errcode.TargetUnreachable, errcode.ExtractionFailed}
	for _, c := range plan.RuleCodes() {
		switch c {
		case errcode.IDMismatch, errcode.GenericGalleryPage:
			codes502 = append(codes502, c)
		}
	}
	responses := obj{{"200", obj{
		{"description", ep.Summary},
		{"headers", obj{
			{"Asa-Request-Id", hdr("Asa-Request-Id")},
			{"Asa-Cost", hdr("Asa-Cost")},
			{"Asa-Extractor-Version", hdr("Asa-Extractor-Version")},
			{"Asa-Resolved-Url", hdr("Asa-Resolved-Url")},
			{"Asa-Source-Status", hdr("Asa-Source-Status")},
			{"Asa-Attempts", hdr("Asa-Attempts")},
			{"Asa-Concurrency", hdr("Asa-Concurrency")},
			{"Asa-Rps", hdr("Asa-Rps")},
			{"Asa-Sandbox-Case", hdr("Asa-Sandbox-Case")},
			{"Asa-Cache", hdr("Asa-Cache")},
			{"Asa-Fetched-At", hdr("Asa-Fetched-At")},
			{"RateLimit-Policy", hdr("RateLimit-Policy")},
			{"RateLimit", hdr("RateLimit")},
		}},
		{"content", obj{{"application/json", obj{{"schema", ref(schemaName)}}}}},
	}}}
	g.addRequestErrors(&responses)
	g.addErrors(&responses, errcode.InsufficientCredits)
	g.addErrors(&responses, errcode.ProductNotFound)
	g.addServingErrors(&responses)
	g.addErrors(&responses, errcode.NotImplemented)
	g.addErrors(&responses, codes502...)
	return obj{
		{"tags", []any{site.Site}},
		{"summary", ep.Summary},
		{"description", desc},
		{"operationId", strings.ReplaceAll(id, ".", "_")},
		{"parameters", params},
		{"responses", responses},
		{"x-asa-endpoint", id},
		{"x-asa-extractor-version", plan.Version},
		{"x-asa-category", site.Category},
	}
}

func appendPara(s, p string) string {
	if s == "" {
		return p
	}
	return s + "\n\n" + p
}

// parameter describes one query parameter from its sitedef declaration.
func (g *gen) parameter(site *sitedef.Site, name string, p *sitedef.Param) obj {
	schema := obj{}
	desc := p.Description
	switch p.Type {
	case "int":
		schema.set("type", "integer")
		if p.Min != nil {
			schema.set("minimum", *p.Min)
		}
		if p.Max != nil {
			schema.set("maximum", *p.Max)
		}
	case "bool":
		schema.set("type", "boolean")
	case "enum":
		schema.set("type", "string")
		values := p.Values
		if p.ValuesFrom == "domains" {
			values = site.Domains.Keys
			if p.Default == nil && site.DefaultDomain != "" {
				schema.set("default", site.DefaultDomain)
			}
		}
		enum := make([]any, len(values))
		for i, v := range values {
			enum[i] = v
		}
		schema.set("enum", enum)
	case "url":
		schema.set("type", "string")
		schema.set("format", "uri")
	default: // string
		schema.set("type", "string")
		if p.Min != nil {
			schema.set("minLength", *p.Min)
		}
		if p.Max != nil {
			schema.set("maxLength", *p.Max)
		}
		// The pattern holds after normalization (trimming, case) and a URL may stand in for the
		// value, so it is only a schema constraint when neither applies; otherwise it is told.
		switch {
		case p.Pattern != "" && p.Normalize == "" && p.URLPattern == "" && !strings.Contains(p.Pattern, "(?"):
			schema.set("pattern", "^(?:"+p.Pattern+")$")
		case p.Pattern != "":
			desc = appendPara(desc, "Format: `"+p.Pattern+"` (after normalization).")
		}
	}
	if p.URLPattern != "" {
		desc = appendPara(desc, "A full URL of the site is accepted instead; the parameters it names are taken from it.")
	}
	if p.Default != nil {
		schema.set("default", p.Default)
	}
	if p.Example != nil {
		schema.set("examples", []any{p.Example})
	}
	out := obj{{"name", name}, {"in", "query"}}
	if desc != "" {
		out.set("description", desc)
	}
	if p.Required {
		out.set("required", true)
	}
	out.set("schema", schema)
	if p.Example != nil {
		out.set("example", p.Example)
	}
	return out
}

// outputSchema is the JSON Schema of an endpoint's answer, from its fields. A field a page does not
// show is null; a required field is never null (the request fails with extraction_failed instead);
// a field with a when condition may be absent.
func (g *gen) outputSchema(id string, ep *sitedef.Endpoint) obj {
	s := g.objectSchema(id, &ep.Fields, true, nil)
	s = append(obj{{"title", id}, {"description", ep.Summary}}, s...)
	return s
}

// listCtx names the enclosing list<object> item schema, for recursive fields.
type listCtx struct {
	name string
	used bool
}

func (g *gen) objectSchema(path string, fields *sitedef.Map[sitedef.Field], top bool, list *listCtx) obj {
	props := obj{}
	var required []any
	fields.Each(func(name string, f *sitedef.Field) {
		if f.Hidden {
			return
		}
		props.set(name, g.fieldSchema(path+"."+name, f, top, list))
		if f.When == "" {
			required = append(required, name)
		}
	})
	s := obj{{"type", "object"}, {"properties", props}}
	if len(required) > 0 {
		s.set("required", required)
	}
	return s
}

var scalarTypes = map[string]obj{
	"string": {{"type", "string"}},
	"int":    {{"type", "integer"}},
	"float":  {{"type", "number"}},
	"bool":   {{"type", "boolean"}},
	"url":    {{"type", "string"}, {"format", "uri"}},
	"any":    {},
}

func fieldType(f *sitedef.Field) string {
	if f.Type != "" {
		return f.Type
	}
	if f.Fields.Len() > 0 {
		return "object"
	}
	return "string"
}

// nullable widens a schema's type with null.
func nullable(s obj) obj {
	out := append(obj{}, s...)
	switch t := out.get("type").(type) {
	case string:
		out.set("type", []any{t, "null"})
	case nil:
		if out.get("$ref") != nil {
			return obj{{"anyOf", []any{s, obj{{"type", "null"}}}}}
		}
	}
	return out
}

func (g *gen) fieldSchema(path string, f *sitedef.Field, top bool, list *listCtx) obj {
	t := fieldType(f)
	var s obj
	switch {
	case strings.HasPrefix(t, "list<"):
		elem := strings.TrimSuffix(strings.TrimPrefix(t, "list<"), ">")
		var items obj
		switch {
		case elem == "object" && f.Recurse && list != nil:
			list.used = true
			items = ref(list.name)
		case elem == "object" && f.Fields.Len() > 0:
			ctx := &listCtx{name: path}
			items = g.objectSchema(path, &f.Fields, false, ctx)
			if ctx.used {
				g.schemas.set(path, items)
				items = ref(path)
			}
		case elem == "object":
			items = obj{{"type", "object"}}
		default:
			items = append(obj{}, scalarTypes[elem]...)
		}
		s = obj{{"type", "array"}, {"items", items}}
	case t == "object":
		if f.Fields.Len() > 0 {
			s = g.objectSchema(path, &f.Fields, false, list)
		} else {
			s = obj{{"type", "object"}, {"additionalProperties", obj{}}}
		}
	default:
		s = append(obj{}, scalarTypes[t]...)
	}
	if f.Description != "" {
		s = append(obj{{"description", f.Description}}, s...)
	}
	if !f.Required && t != "any" {
		s = nullable(s)
	}
	return s
}

// addErrors adds the error response of codes that share one status.
func (g *gen) addErrors(responses *obj, codes ...errcode.Code) {
	info, _ := errcode.Lookup(codes[0])
	status := fmt.Sprint(info.Status)
	var lines []string
	enum := make([]any, 0, len(codes))
	for _, c := range codes {
		ci, _ := errcode.Lookup(c)
		lines = append(lines, fmt.Sprintf("[`%s`](%s#error-%s): %s", c, g.opt.DocsURL, strings.ReplaceAll(string(c), "_", "-"), ci.Summary))
		enum = append(enum, string(c))
	}
	headers := obj{{"Asa-Request-Id", hdr("Asa-Request-Id")}, {"Asa-Cost", hdr("Asa-Cost")}}
	if info.Status == 429 || info.Status == 503 {
		headers.set("Retry-After", hdr("Retry-After"))
		headers.set("RateLimit-Policy", hdr("RateLimit-Policy"))
		headers.set("RateLimit", hdr("RateLimit"))
	}
	resp := obj{
		{"description", strings.Join(lines, "\n\n")},
		{"headers", headers},
		{"content", obj{{"application/json", obj{{"schema", obj{
			{"allOf", []any{ref("Error"), obj{{"properties", obj{{"error", obj{{"enum", enum}}}}}}}},
		}}}}}},
	}
	responses.set(status, resp)
}

// addRequestErrors adds the refusals every operation leads with: a parameter that is wrong, a key
// that is missing, unknown or revoked.
func (g *gen) addRequestErrors(responses *obj) {
	g.addErrors(responses, errcode.InvalidParams)
	g.addErrors(responses, errcode.Unauthorized, errcode.Revoked)
}

// addServingErrors adds what any admitted request can meet after the operation's own errors: the
// key's rate limit, a failure of ours, a store that is down.
func (g *gen) addServingErrors(responses *obj) {
	g.addErrors(responses, errcode.RateLimited)
	g.addErrors(responses, errcode.InternalError)
	g.addErrors(responses, errcode.ServiceUnavailable)
}

// commonSchemas are the error envelope, the universal results and the batch records.
func (g *gen) commonSchemas() {
	var codes []any
	for _, c := range errcode.All() {
		if c != errcode.Blocked {
			codes = append(codes, string(c))
		}
	}
	str := obj{{"type", "string"}}
	nstr := obj{{"type", []any{"string", "null"}}}
	ts := obj{{"type", "string"}, {"format", "date-time"}}
	nts := obj{{"type", []any{"string", "null"}}, {"format", "date-time"}}
	integer := obj{{"type", "integer"}, {"minimum", 0}}
	g.schemas.set("Error", obj{
		{"type", "object"},
		{"description", "The error envelope of every non-2xx answer (spec 7)."},
		{"properties", obj{
			{"error", obj{{"type", "string"}, {"enum", codes}}},
			{"message", str},
			{"docs_url", obj{{"type", "string"}, {"format", "uri"}}},
			{"request_id", str},
			{"retryable", obj{{"type", "boolean"}, {"description", "false on product_not_found."}}},
			{"params", obj{{"type", "array"}, {"items", str}, {"description", "The parameters at fault (invalid_params, not_implemented); at most 20, sorted, the message counting the rest."}}},
			{"detail", obj{{"type", "string"}, {"description", "target_unreachable: blocked, timeout, connection, status, forbidden, too_large, too_many_redirects, encoding."}}},
			{"errors", obj{{"type", "array"}, {"description", "invalid_params of extract_rules: every problem (at most 20), each at its path in the rules (products.fields.name.xpath; empty for the whole rule set)."},
				{"items", obj{{"type", "object"}, {"properties", obj{{"path", str}, {"message", str}}}, {"required", []any{"path", "message"}}}}}},
		}},
		{"required", []any{"error", "message", "docs_url", "request_id"}},
	})

	// Universal fetch results by parse mode (spec 2.4; engine/universal).
	uurl := obj{{"type", []any{"string", "null"}}, {"format", "uri"}}
	universal := func(desc string, props obj, required ...any) obj {
		all := append(obj{{"url", uurl}, {"resolved_url", uurl}}, props...)
		all = append(all, kv{"extracted", obj{{"type", "object"}, {"description", "The fields of extract_rules, in the rules' order; present only when the request gave extract_rules."}}})
		return obj{{"type", "object"}, {"description", desc}, {"properties", all}, {"required", append([]any{"url", "resolved_url"}, required...)}}
	}
	g.schemas.set("UniversalAuto", universal("parse=auto (and its alias json) on a web page: its title, main text, links, metadata and schema.org entities.", obj{
		{"title", nstr},
		{"text", nstr},
		{"links", obj{{"type", "array"}, {"items", obj{{"type", "object"}, {"properties", obj{{"text", str}, {"href", str}}}}}}},
		{"metadata", obj{{"type", "object"}, {"properties", obj{{"description", nstr}, {"author", nstr}, {"published", nstr}}}}},
		{"structured", obj{{"type", "object"}, {"description", "schema.org entities found on the page (product, article, recipe, job_posting, event, organization, breadcrumbs), each present only when found."}}},
	}, "title", "text", "links", "metadata"))
	g.schemas.set("UniversalData", universal("parse=auto on a JSON document: the document itself.", obj{
		{"data", obj{{"description", "The target's JSON, as sent."}}},
	}, "data"))
	g.schemas.set("UniversalHTML", universal("parse=html: the page as fetched, whatever its status.", obj{
		{"status", obj{{"type", "integer"}, {"description", "The target's HTTP status."}}},
		{"html", str},
	}, "status", "html"))
	g.schemas.set("UniversalText", universal("parse=text: the page's main text without boilerplate.", obj{{"text", nstr}}, "text"))
	g.schemas.set("UniversalMarkdown", universal("parse=markdown: the page's main content as Markdown.", obj{{"markdown", nstr}}, "markdown"))

	endpoints := []any{}
	for _, id := range g.reg.IDs() {
		endpoints = append(endpoints, id)
	}
	endpoints = append(endpoints, "universal.get")
	g.schemas.set("BatchCreate", obj{
		{"type", "object"},
		{"description", "A batch of requests to one endpoint (spec 4.6)."},
		{"properties", obj{
			{"endpoint", obj{{"type", "string"}, {"enum", endpoints}, {"description", "site.resource of the endpoint every item calls."}}},
			{"items", obj{{"type", "array"}, {"minItems", 1}, {"maxItems", g.opt.MaxBatchItems},
				{"items", obj{{"type", "object"}, {"additionalProperties", obj{{"type", []any{"string", "integer", "number", "boolean", "object"}}}}}},
				{"description", "Each item has the shape of the endpoint's query parameters; a universal.get item's extract_rules may be the rules' JSON object itself."}}},
			{"webhook_url", obj{{"type", "string"}, {"format", "uri"}, {"description", "A public https URL; the batch record is POSTed there, signed, when every item is done."}}},
		}},
		{"required", []any{"endpoint", "items"}},
		{"example", obj{{"endpoint", "amazon.product"}, {"items", []any{obj{{"query", "B01GOH7PKA"}}, obj{{"query", "B07FZ8S74R"}, {"domain", "co.uk"}}}}}},
	})
	status := obj{{"type", "string"}, {"enum", []any{"pending", "running", "complete", "failed"}}}
	g.schemas.set("BatchCreated", obj{
		{"type", "object"},
		{"description", "The creation response (spec 2.6)."},
		{"properties", obj{
			{"id", obj{{"type", "string"}, {"format", "uuid"}}},
			{"status", status},
			{"endpoint", str},
			{"total_count", integer},
			{"created_at", ts},
			{"webhook_signature_secret", obj{{"type", []any{"string", "null"}}, {"description", "Returned only here: the HMAC-SHA256 key of the webhook's X-ASA-Signature."}}},
			{"poll_url", str},
		}},
		{"required", []any{"id", "status", "total_count", "created_at", "poll_url"}},
	})
	g.schemas.set("BatchResult", obj{
		{"type", "object"},
		{"description", "One finished item."},
		{"properties", obj{
			{"index", integer},
			{"input", obj{{"type", "object"}, {"description", "The submitted item."}}},
			{"status", obj{{"type", "string"}, {"enum", []any{"ok", "failed"}}}},
			{"http_status", obj{{"type", "integer"}}},
			{"error", obj{{"type", "string"}, {"description", "The error code of a failed item."}}},
			{"data", obj{{"description", "The full answer of the sync endpoint: its JSON on success, the error body on failure."}}},
			{"duration_ms", integer},
			{"credits_charged", integer},
		}},
		{"required", []any{"input", "status", "http_status", "data", "duration_ms", "credits_charged"}},
	})
	g.schemas.set("Batch", obj{
		{"type", "object"},
		{"description", "The batch record (spec 2.6): the poll response and the webhook body."},
		{"properties", obj{
			{"id", obj{{"type", "string"}, {"format", "uuid"}}},
			{"status", status},
			{"endpoint", str},
			{"total_count", integer},
			{"processed_count", integer},
			{"success_count", integer},
			{"failure_count", integer},
			{"credits_charged", integer},
			{"created_at", ts},
			{"started_at", nts},
			{"completed_at", nts},
			{"webhook_url", nstr},
			{"webhook_delivery_status", obj{{"type", []any{"string", "null"}}, {"enum", []any{"pending", "delivered", "retrying", "failed", nil}}}},
			{"webhook_last_error", nstr},
			{"webhook_delivered_at", nts},
			{"poll_url", str},
			{"results_offset", integer},
			{"results_limit", integer},
			{"results_next_offset", obj{{"type", []any{"integer", "null"}}}},
			{"results", obj{{"type", "array"}, {"items", ref("BatchResult")}}},
		}},
		{"required", []any{"id", "status", "endpoint", "total_count", "processed_count", "success_count", "failure_count", "credits_charged", "created_at", "started_at", "completed_at", "results"}},
	})
}

func (g *gen) universalOperation() obj {
	q := func(name, desc string, required bool, schema obj, example any) obj {
		o := obj{{"name", name}, {"in", "query"}, {"description", desc}}
		if required {
			o.set("required", true)
		}
		o.set("schema", schema)
		if example != nil {
			o.set("example", example)
		}
		return o
	}
	responses := obj{{"200", obj{
		{"description", "The page, by parse mode."},
		{"headers", obj{{"Asa-Request-Id", hdr("Asa-Request-Id")}, {"Asa-Cost", hdr("Asa-Cost")}, {"Asa-Resolved-Url", hdr("Asa-Resolved-Url")},
			{"Asa-Source-Status", hdr("Asa-Source-Status")}, {"Asa-Attempts", hdr("Asa-Attempts")}, {"Asa-Concurrency", hdr("Asa-Concurrency")},
			{"Asa-Rps", hdr("Asa-Rps")}, {"RateLimit-Policy", hdr("RateLimit-Policy")}, {"RateLimit", hdr("RateLimit")}, {"Asa-Sandbox-Case", hdr("Asa-Sandbox-Case")},
			{"Asa-Cache", hdr("Asa-Cache")}, {"Asa-Fetched-At", hdr("Asa-Fetched-At")}}},
		{"content", obj{{"application/json", obj{{"schema", obj{{"anyOf", []any{ref("UniversalAuto"), ref("UniversalData"), ref("UniversalHTML"), ref("UniversalText"), ref("UniversalMarkdown")}}}}}},
			{"image/png", obj{{"schema", obj{{"type", "string"}, {"contentMediaType", "image/png"}}}}}}},
	}}}
	g.addRequestErrors(&responses)
	g.addErrors(&responses, errcode.InsufficientCredits)
	g.addErrors(&responses, errcode.ProductNotFound)
	g.addServingErrors(&responses)
	g.addErrors(&responses, errcode.NotImplemented)
	g.addErrors(&responses, errcode.TargetUnreachable, errcode.ExtractionFailed)
	params := []any{
		q("url", "The page to fetch, URL-encoded when it contains &, ? or spaces.", true, obj{{"type", "string"}, {"format", "uri"}}, "https://example.com/"),
		q("parse", "What to return: auto (and its alias json) extracts title, main text, links, metadata and schema.org entities (a JSON document comes back as data); html returns the page; text its main text; markdown its main content as Markdown; screenshot the rendered page as a PNG (image/png; needs a server with a browser, else 501 not_implemented, and a live key; +10 credits for the rendering and +10 for the screenshot).", false,
			obj{{"type", "string"}, {"enum", []any{"auto", "json", "html", "text", "markdown", "screenshot"}}, {"default", "auto"}}, nil),
		q("country", "Two-letter country code of a configured egress; the service chooses when absent.", false,
			obj{{"type", "string"}, {"pattern", "^[A-Za-z]{2}$"}}, nil),
		q("extract_rules", "Your own fields, as a JSON object in sitedef syntax (URL-encoded): each field an XPath string, or an object with xpath, expr, regex or const, type, transform, post, default, required, select (fallbacks) and fields (objects and list<object>). "+
			"The values come back under extracted, in this order. At most 16384 bytes, 100 fields, 4 levels, 1000 items a list, 5 selectors a field, XPaths of 512 bytes, expressions of 1024, regular expressions of 256; "+
			"no absolute path inside a predicate, no following:: or preceding:: axis. A rule set that breaks a rule is 400 invalid_params listing each problem under errors with its path. See docs/api.md.", false,
			obj{{"type", "string"}, {"contentMediaType", "application/json"}}, `{"title":"//h1","price":{"xpath":"//span[@class='price']","type":"float","transform":"parsePrice(value)"}}`),
		maxAgeParam(),
	}
	if sc := g.sandboxCaseParam(universalEndpoint); sc != nil {
		params = append(params, sc)
	}
	params = append(params, browserParams()...)
	return obj{
		{"tags", []any{"universal"}},
		{"summary", "Fetch any public URL as extracted JSON, HTML or text."},
		{"description", fmt.Sprintf("Public http(s) URLs only: private, loopback, link-local and metadata addresses are refused when the connection is made (502 target_unreachable, detail forbidden). %d credits on success.", g.opt.CostPerRequest)},
		{"operationId", "universal_get"},
		{"parameters", params},
		{"responses", responses},
		{"x-asa-endpoint", "universal.get"},
	}
}

// browserParams are the rendering parameters of every scrape endpoint (docs/api.md#rendering-and-screenshots).
func browserParams() []any {
	p := func(name, desc string, schema obj) any {
		return obj{{"name", name}, {"in", "query"}, {"description", desc}, {"schema", schema}}
	}
	const where = " Served where the server runs a headless browser (asa serve --browser); elsewhere 501 not_implemented naming it."
	return []any{
		p("render_js", "Load the page in a headless browser and extract from the DOM its scripts produced: +10 credits per page rendered, on success only. The browser's every connection goes through the same SSRF guard and proxies as a plain fetch."+where,
			obj{{"type", "boolean"}, {"default", false}}),
		p("screenshot", "Add a PNG of the rendered page, base64 under the key screenshot (implies rendering): +10 credits on top of the rendering's 10."+where,
			obj{{"type", "boolean"}, {"default", false}}),
		p("full_page", "With screenshot=true: the whole page (at most 16,384 px tall) rather than the 1280x800 viewport."+where,
			obj{{"type", "boolean"}, {"default", false}}),
		p("wait_for", "With rendering: a CSS selector; the page is read as soon as it matches instead of when its network is idle. A selector the browser rejects is 400 invalid_params."+where,
			obj{{"type", "string"}, {"maxLength", 512}}),
	}
}

func (g *gen) sitePathParam() obj {
	sites := []any{}
	for _, s := range g.reg.Sites() {
		sites = append(sites, s)
	}
	sites = append(sites, "universal")
	return obj{{"name", "site"}, {"in", "path"}, {"required", true},
		{"description", "The site of the batch's endpoint."},
		{"schema", obj{{"type", "string"}, {"enum", sites}}}}
}

func (g *gen) createBatchOperation() obj {
	responses := obj{{"201", obj{
		{"description", "Accepted: the batch is pending. With an Idempotency-Key seen before, the first batch is answered again (200, Idempotent-Replayed: true)."},
		{"headers", obj{{"Asa-Request-Id", hdr("Asa-Request-Id")}}},
		{"content", obj{{"application/json", obj{{"schema", ref("BatchCreated")}}}}},
	}}, {"200", obj{
		{"description", "A replay of an earlier creation with the same Idempotency-Key."},
		{"content", obj{{"application/json", obj{{"schema", ref("BatchCreated")}}}}},
	}}}
	g.addRequestErrors(&responses)
	g.addErrors(&responses, errcode.InsufficientCredits)
	g.addErrors(&responses, errcode.NotFound)
	g.addErrors(&responses, errcode.Conflict)
	g.addErrors(&responses, errcode.UnsupportedMedia)
	g.addServingErrors(&responses)
	return obj{
		{"tags", []any{"batch"}},
		{"summary", "Create a batch"},
		{"description", fmt.Sprintf("Runs 1 to %d requests of one endpoint in the background through the same pipeline as the sync endpoints (validation, billing, retries). Each successful item costs what the same sync request costs; failed items cost 0. Poll the batch, or pass webhook_url to be called when every item is done.", g.opt.MaxBatchItems)},
		{"operationId", "create_batch"},
		{"parameters", []any{
			g.sitePathParam(),
			obj{{"name", "Idempotency-Key"}, {"in", "header"}, {"description", "Repeating a creation with the same key, from a key of the same workspace and mode (live or sandbox), returns the same batch; another body under the same key is 409 conflict."},
				{"schema", obj{{"type", "string"}, {"maxLength", 255}}}},
		}},
		{"requestBody", obj{{"required", true}, {"content", obj{{"application/json", obj{{"schema", ref("BatchCreate")}}}}}}},
		{"responses", responses},
	}
}

func (g *gen) pollBatchOperation() obj {
	responses := obj{{"200", obj{
		{"description", "The batch record with the results of finished items in [offset, offset+limit)."},
		{"headers", obj{{"Asa-Request-Id", hdr("Asa-Request-Id")}}},
		{"content", obj{{"application/json", obj{{"schema", ref("Batch")}}}}},
	}}}
	g.addRequestErrors(&responses)
	g.addErrors(&responses, errcode.NotFound)
	g.addServingErrors(&responses)
	return obj{
		{"tags", []any{"batch"}},
		{"summary", "Poll a batch"},
		{"description", "Another workspace's batch is 404 not_found, as is an unknown id."},
		{"operationId", "get_batch"},
		{"parameters", []any{
			g.sitePathParam(),
			obj{{"name", "batch_id"}, {"in", "path"}, {"required", true}, {"schema", obj{{"type", "string"}, {"format", "uuid"}}}},
			obj{{"name", "offset"}, {"in", "query"}, {"description", "First result index."}, {"schema", obj{{"type", "integer"}, {"minimum", 0}, {"default", 0}}}},
			obj{{"name", "limit"}, {"in", "query"}, {"description", "Most results returned."}, {"schema", obj{{"type", "integer"}, {"minimum", 1}, {"maximum", g.opt.MaxBatchItems}, {"default", 100}}}},
		}},
		{"responses", responses},
	}
}

// webhook is the batch.completed call of spec 6.
func (g *gen) webhook() obj {
	return obj{{"post", obj{
		{"summary", "batch.completed"},
		{"description", "Sent when every item of a batch with a webhook_url is done. Verify X-ASA-Signature (`sha256=` + lowercase hex HMAC-SHA256 of the raw body keyed by webhook_signature_secret) in constant time. A non-2xx answer is retried after 1 min, 2 min, 5 min, 15 min and 1 h."},
		{"operationId", "batch_completed"},
		{"parameters", []any{
			obj{{"name", "X-ASA-Batch-Id"}, {"in", "header"}, {"required", true}, {"schema", obj{{"type", "string"}}}},
			obj{{"name", "X-ASA-Event"}, {"in", "header"}, {"required", true}, {"schema", obj{{"type", "string"}, {"const", "batch.completed"}}}},
			obj{{"name", "X-ASA-Signature"}, {"in", "header"}, {"required", true}, {"description", "sha256=<lowercase hex HMAC-SHA256>"}, {"schema", obj{{"type", "string"}, {"pattern", "^sha256=[0-9a-f]{64}$"}}}},
		}},
		{"requestBody", obj{{"required", true}, {"content", obj{{"application/json", obj{{"schema", ref("Batch")}}}}}}},
		{"responses", obj{{"2XX", obj{{"description", "Delivered."}}}}},
		{"security", []any{}},
	}}}
}
