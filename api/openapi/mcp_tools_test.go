package openapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"asa/api"
	"asa/api/mcpserver"
)

// TestMCPToolsOfEveryEndpoint derives the MCP tools from the whole catalogue's document: one per
// endpoint plus universal_get and the batch tools, each schema a JSON Schema that compiles on its
// own (the component schemas it refers to carried under $defs), and no reserved parameter offered.
func TestMCPToolsOfEveryEndpoint(t *testing.T) {
	skipUnderRace(t)
	reg := load(t)
	raw, _ := build(t, reg)
	tools, err := mcpserver.Tools(raw, mcpserver.ToolOptions{Skip: api.ReservedParams})
	if err != nil {
		t.Fatal(err)
	}
	want := len(reg.IDs()) + 3
	if len(tools) != want {
		t.Fatalf("%d tools, want %d (every endpoint, universal_get, batch_submit, batch_get)", len(tools), want)
	}
	c := jsonschema.NewCompiler()
	for i, tool := range tools {
		for which, s := range map[string]json.RawMessage{"input": tool.Input, "output": tool.Output} {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(s)))
			if err != nil {
				t.Fatalf("%s %s schema: %v", tool.Name, which, err)
			}
			url := fmt.Sprintf("mem://%d-%s.json", i, which)
			if err := c.AddResource(url, v); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Compile(url); err != nil {
				t.Errorf("%s %s schema does not compile: %v", tool.Name, which, err)
			}
			var top struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(s, &top); err != nil || top.Type != "object" {
				t.Errorf("%s %s schema is not an object schema: %v", tool.Name, which, err)
			}
			for _, r := range api.ReservedParams {
				if _, ok := top.Properties[r]; ok && which == "input" {
					t.Errorf("%s offers the reserved %s", tool.Name, r)
				}
			}
		}
		if tool.Endpoint != "" && tool.Name != strings.ReplaceAll(tool.Endpoint, ".", "_") {
			t.Errorf("tool %s for %s", tool.Name, tool.Endpoint)
		}
	}
}
