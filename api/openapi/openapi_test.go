package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"asa/api"
	"asa/api/openapi"
	"asa/engine"
	"asa/engine/diag"
	"asa/engine/fixture"
	"asa/engine/registry"
	"asa/fixtures"
	"asa/sitedefs"
	"asa/store"
)

var (
	loadOnce  sync.Once
	loadedReg *registry.Registry
	loadDiags diag.List
)

// load compiles the embedded catalogue once for the package's tests (a registry is read-only).
func load(t *testing.T) *registry.Registry {
	t.Helper()
	loadOnce.Do(func() { loadedReg, loadDiags = registry.Load(engine.New(), sitedefs.FS) })
	if loadDiags.HasErrors() {
		t.Fatal(loadDiags)
	}
	return loadedReg
}

func build(t *testing.T, reg *registry.Registry) (raw []byte, doc map[string]any) {
	t.Helper()
	sb, err := fixture.NewSandbox(fixtures.FS, reg)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]openapi.SandboxCase{}
	for _, id := range append(reg.IDs(), "universal.get") {
		for _, ci := range sb.Cases(id) {
			cases[id] = append(cases[id], openapi.SandboxCase{Name: ci.Name, Summary: ci.Description, Query: ci.Params.Encode(),
				Status: ci.Status, Error: ci.Error, Default: ci.Default})
		}
	}
	raw, err = openapi.Build(reg, openapi.Options{ServerURL: "http://127.0.0.1:8080", DocsURL: "http://127.0.0.1:8080/docs/api.md", SandboxCases: cases})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return raw, doc
}

// compiler has the document as a resource, so any of its schemas can be compiled by pointer.
func compiler(t *testing.T, raw []byte) *jsonschema.Compiler {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("https://asa.test/openapi.json", v); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestValidatesAgainstOpenAPI31Schema checks the document against the official OpenAPI 3.1 schema
// (testdata/oas-3.1-schema.json, from the OpenAPI Specification repository), with formats asserted.
func TestValidatesAgainstOpenAPI31Schema(t *testing.T) {
	skipUnderRace(t)
	raw, doc := build(t, load(t))
	schemaJSON, err := os.ReadFile(filepath.Join("testdata", "oas-3.1-schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	sv, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "https://spec.openapis.org/oas/3.1/schema/2022-02-27"
	if err := c.AddResource(id, sv); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the document is not valid OpenAPI 3.1:\n%v", err)
	}
	// And the schema rejects a broken document, so the check above checks something.
	broken := map[string]any{"openapi": "3.1.0", "info": map[string]any{"title": "x"}, "paths": map[string]any{}}
	if err := sch.Validate(broken); err == nil {
		t.Fatal("a document without info.version passed")
	}
	if doc["openapi"] != "3.1.0" || doc["info"].(map[string]any)["version"] != "1.0.0" {
		t.Fatalf("openapi %v, info %v", doc["openapi"], doc["info"])
	}
	// Every schema in components compiles as JSON Schema 2020-12.
	cc := compiler(t, raw)
	for name := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		if _, err := cc.Compile("https://asa.test/openapi.json#/components/schemas/" + jsonPointerEscape(name)); err != nil {
			t.Errorf("schema %s: %v", name, err)
		}
	}
}

func jsonPointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// TestDescribesEverySitedef checks the document against the registry: every endpoint, its
// parameters with types, enums, defaults and examples, its fields, its errors; universal and batch.
func TestDescribesEverySitedef(t *testing.T) {
	reg := load(t)
	raw, doc := build(t, reg)
	again, _ := build(t, reg)
	if !bytes.Equal(raw, again) {
		t.Fatal("two builds differ")
	}
	paths := doc["paths"].(map[string]any)
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, id := range reg.IDs() {
		plan := reg.Plan(id)
		site, resource, _ := strings.Cut(id, ".")
		item, ok := paths["/api/v1/"+site+"/"+resource].(map[string]any)
		if !ok {
			t.Errorf("%s: no path", id)
			continue
		}
		op := item["get"].(map[string]any)
		if op["x-asa-extractor-version"] != plan.Version || op["summary"] != plan.Endpoint.Summary {
			t.Errorf("%s: version %v summary %v", id, op["x-asa-extractor-version"], op["summary"])
		}
		byName := map[string]map[string]any{}
		for _, p := range op["parameters"].([]any) {
			p := p.(map[string]any)
			byName[p["name"].(string)] = p
		}
		for _, name := range plan.Endpoint.Params.Keys {
			sp := plan.Endpoint.Params.Get(name)
			p := byName[name]
			if p == nil {
				t.Errorf("%s: parameter %s missing", id, name)
				continue
			}
			schema := p["schema"].(map[string]any)
			want := map[string]string{"int": "integer", "bool": "boolean", "enum": "string", "url": "string", "string": "string"}[sp.Type]
			if schema["type"] != want {
				t.Errorf("%s %s: type %v, want %s", id, name, schema["type"], want)
			}
			if sp.Required != (p["required"] == true) {
				t.Errorf("%s %s: required %v", id, name, p["required"])
			}
			if sp.Type == "enum" && len(schema["enum"].([]any)) == 0 {
				t.Errorf("%s %s: no enum values", id, name)
			}
			if sp.Default != nil && schema["default"] == nil {
				t.Errorf("%s %s: default %v missing", id, name, sp.Default)
			}
			if sp.Example != nil && p["example"] == nil {
				t.Errorf("%s %s: example %v missing", id, name, sp.Example)
			}
		}
		for _, r := range []string{"render_js", "screenshot"} {
			if byName[r] == nil {
				t.Errorf("%s: reserved %s not described", id, r)
			}
		}
		out, ok := schemas[id].(map[string]any)
		if !ok {
			t.Errorf("%s: no output schema", id)
			continue
		}
		props := out["properties"].(map[string]any)
		for _, name := range plan.Endpoint.Fields.Keys {
			f := plan.Endpoint.Fields.Get(name)
			if _, ok := props[name]; ok == f.Hidden {
				t.Errorf("%s: field %s hidden=%v but described=%v", id, name, f.Hidden, ok)
			}
		}
		responses := op["responses"].(map[string]any)
		for _, status := range []string{"200", "400", "401", "402", "429", "500", "501", "502"} {
			if responses[status] == nil {
				t.Errorf("%s: no %s response", id, status)
			}
		}
		if !strings.Contains(responses["401"].(map[string]any)["description"].(string), "revoked") {
			t.Errorf("%s: 401 does not mention revoked", id)
		}
		for _, c := range plan.RuleCodes() {
			if c == "blocked" {
				continue
			}
			found := false
			for _, r := range responses {
				if strings.Contains(r.(map[string]any)["description"].(string), "`"+string(c)+"`") {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: rule code %s not among the documented errors", id, c)
			}
		}
	}
	amazon := paths["/api/v1/amazon/product"].(map[string]any)["get"].(map[string]any)
	for _, p := range amazon["parameters"].([]any) {
		p := p.(map[string]any)
		if p["name"] == "domain" {
			s := p["schema"].(map[string]any)
			if s["default"] != "com" || !strings.Contains(strings.Trim(strings.ReplaceAll(jsonString(s["enum"]), `"`, ""), "[]"), "co.uk") {
				t.Errorf("amazon.product domain: %v", s)
			}
		}
	}
	for _, p := range []string{"/api/v1/universal/get", "/api/v1/{site}/batch", "/api/v1/{site}/batch/{batch_id}"} {
		if paths[p] == nil {
			t.Errorf("no %s", p)
		}
	}
	if doc["webhooks"].(map[string]any)["batch.completed"] == nil {
		t.Error("no batch.completed webhook")
	}
	checkCacheAndRules(t, reg, doc)
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestExamplesAnsweredBySandbox builds a request from each endpoint's documented examples and sends
// it with a sandbox key, universal.get included: the answer is never a 400, and a 200's body
// matches the documented response schema.
func TestExamplesAnsweredBySandbox(t *testing.T) {
	reg := load(t)
	raw, doc := build(t, reg)
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "asa.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Custom at its top rate: one request per endpoint, back to back, must stay under the limits.
	ws, err := db.CreateWorkspacePlan(ctx, "docs", store.PlanSettings{Plan: store.PlanCustom, MonthlyCredits: 1_000_000, Concurrency: 1000, RPS: 500})
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := db.CreateKey(ctx, ws.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := fixture.NewSandbox(fixtures.FS, reg)
	if err != nil {
		t.Fatal(err)
	}
	backend := api.NewStoreBackend(db, nil)
	srv := api.New(api.Config{}, api.Deps{Registry: reg, Sandbox: sb, Auth: backend, Ledger: backend,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	cc := compiler(t, raw)

	tried := 0
	for path, item := range doc["paths"].(map[string]any) {
		op, ok := item.(map[string]any)["get"].(map[string]any)
		id := strField(op, "x-asa-endpoint")
		if !ok || (reg.Plan(id) == nil && id != "universal.get") {
			continue
		}
		q := url.Values{}
		for _, p := range op["parameters"].([]any) {
			p := p.(map[string]any)
			if ex, ok := p["example"]; ok && p["in"] == "query" {
				q.Set(p["name"].(string), exampleString(ex))
			}
		}
		q.Set("api_key", key.String())
		resp, err := http.Get(hs.URL + path + "?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		tried++
		if resp.StatusCode == http.StatusBadRequest {
			t.Errorf("GET %s?%s: 400 %s", path, q.Encode(), body)
			continue
		}
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d %s (the sandbox answers every endpoint)", path, resp.StatusCode, body)
			continue
		}
		// The documented 200 schema of the operation.
		ptr := "#/paths/" + jsonPointerEscape(path) + "/get/responses/200/content/application~1json/schema"
		sch, err := cc.Compile("https://asa.test/openapi.json" + ptr)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: the sandbox answer does not match the documented schema:\n%v", id, err)
		}
	}
	if tried != len(reg.IDs())+1 {
		t.Fatalf("tried %d endpoints, want the registry's %d and universal.get", tried, len(reg.IDs()))
	}
}

func strField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func exampleString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	default:
		return strings.Trim(jsonString(x), `"`)
	}
}

// checkCacheAndRules: max_age on every endpoint, extract_rules on universal/get, the cache
// headers on every 200, extracted in the universal schemas and the errors list of the envelope.
// TestDescribesEverySitedef calls it on its document (a build costs seconds under -race).
func checkCacheAndRules(t *testing.T, reg *registry.Registry, doc map[string]any) {
	t.Helper()
	paths := doc["paths"].(map[string]any)
	params := func(op map[string]any) map[string]bool {
		out := map[string]bool{}
		for _, p := range op["parameters"].([]any) {
			out[p.(map[string]any)["name"].(string)] = true
		}
		return out
	}
	ops := []string{"/api/v1/universal/get"}
	for _, id := range reg.IDs() {
		site, resource, _ := strings.Cut(id, ".")
		ops = append(ops, "/api/v1/"+site+"/"+resource)
	}
	for _, path := range ops {
		op := paths[path].(map[string]any)["get"].(map[string]any)
		if !params(op)["max_age"] {
			t.Errorf("%s: no max_age", path)
		}
		hs := op["responses"].(map[string]any)["200"].(map[string]any)["headers"].(map[string]any)
		if hs["Asa-Cache"] == nil || hs["Asa-Fetched-At"] == nil {
			t.Errorf("%s: 200 does not list Asa-Cache and Asa-Fetched-At", path)
		}
	}
	if !params(paths["/api/v1/universal/get"].(map[string]any)["get"].(map[string]any))["extract_rules"] {
		t.Error("universal/get: no extract_rules")
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for _, s := range []string{"UniversalAuto", "UniversalData", "UniversalHTML", "UniversalText", "UniversalMarkdown"} {
		if schemas[s].(map[string]any)["properties"].(map[string]any)["extracted"] == nil {
			t.Errorf("%s: no extracted", s)
		}
	}
	if schemas["Error"].(map[string]any)["properties"].(map[string]any)["errors"] == nil {
		t.Error("the error envelope has no errors list")
	}
}
