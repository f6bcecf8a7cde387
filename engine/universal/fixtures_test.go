package universal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"asa/engine"
	"asa/engine/fixture"
	"asa/engine/universal"
)

var update = flag.Bool("update", false, "rewrite the expected.json of the universal fixture cases")

// fixturesDir holds the universal fixture cases the sandbox serves (fixtures/universal/get/<case>/).
const fixturesDir = "../../fixtures"

// TestFixtureCases runs every fixtures/universal/get case as the sandbox answers it (the case's url,
// its recorded page, its parse mode or auto) and compares the output with its expected.json.
func TestFixtureCases(t *testing.T) {
	cases, err := fixture.LoadCasesFS(os.DirFS(fixturesDir))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cases {
		if c.Endpoint != universal.Endpoint {
			continue
		}
		n++
		t.Run(c.Name, func(t *testing.T) {
			u, _ := c.Params["url"].(string)
			mode, err := universal.ParseMode(fixture.Values(c.Params).Get("parse"))
			if err != nil || u == "" {
				t.Fatalf("params: url is required, parse must be valid: %v", err)
			}
			rp, err := c.Replay()
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rp.Fetch(context.Background(), &engine.Request{Step: "page", Page: 1, URL: u})
			if err != nil {
				t.Fatal(err)
			}
			res, err := universal.Extract(resp.Body, resp.Header.Get("Content-Type"), resp.URL, mode)
			if c.Expect.Error != "" {
				if err == nil {
					t.Fatalf("want %s, got a success", c.Expect.Error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res.URL, res.Status = u, resp.Status
			got, err := res.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join(fixturesDir, filepath.FromSlash(c.Dir), c.Expect.Output)
			if *update {
				var buf bytes.Buffer
				_ = json.Indent(&buf, got, "", "  ")
				buf.WriteByte('\n')
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			b, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (create it with go test ./engine/universal -run TestFixtureCases -update)", err)
			}
			var want, have any
			_ = json.Unmarshal(b, &want)
			_ = json.Unmarshal(got, &have)
			for _, d := range fixture.Diff(have, want) {
				t.Error(d)
			}
		})
	}
	if n == 0 {
		t.Fatal("no universal fixture cases under fixtures/universal/get")
	}
}
