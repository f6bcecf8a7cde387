package api

import (
	"bytes"
	"testing"
)

// FuzzParseItem: a batch item is untrusted JSON. parseItem never panics; an item it accepts is
// stored in a form it reads back to the same parameters (extract_rules given as an object included),
// and the stored form never holds api_key.
func FuzzParseItem(f *testing.F) {
	for _, s := range []string{`{"query":"B0TEST1234","domain":"de"}`, `{"url":"https://a.example/","extract_rules":{"t":"//title"}}`,
		`{"extract_rules":"{\"t\": \"//h1\"}","api_key":"asa_live_x"}`, `{"extract_rules":null,"pages":2}`, `{"extract_rules":[1]}`,
		`{"a":{"b":1}}`, `{"extract_rules": {"a": {"fields": {"b": "./x"}}} , "x": true}`, `[]`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		q, stored, _, err := parseItem(raw)
		if err != nil {
			return
		}
		if bytes.Contains(stored, []byte(`"api_key"`)) {
			t.Fatalf("api_key stored: %s", stored)
		}
		again, stored2, _, err := parseItem(stored)
		if err != nil {
			t.Fatalf("stored form %s does not read back: %v", stored, err)
		}
		if !bytes.Equal(stored, stored2) || len(again) != len(q) {
			t.Fatalf("read back differs: %s then %s; %v then %v", stored, stored2, q, again)
		}
		for k, v := range q {
			if again.Get(k) != v[0] {
				t.Fatalf("%s: %q then %q", k, v[0], again.Get(k))
			}
		}
	})
}
