package api

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// FuzzKeyOf: whatever the api_key parameter and the X-API-Key and Authorization headers hold, keyOf
// either refuses with a 400 naming api_key or returns one of the values it was given (or nothing),
// and never a value that another place contradicts.
func FuzzKeyOf(f *testing.F) {
	f.Add("asa_live_x", "", "", "")
	f.Add("", "asa_live_x", "Bearer asa_live_x", "")
	f.Add("a", "b", "bearer c", "Basic d")
	f.Add("", "", "Bearer  ", "BEARER k")
	f.Fuzz(func(t *testing.T, query, header, auth1, auth2 string) {
		var q []string
		if query != "" {
			q = []string{query}
		}
		h := http.Header{}
		if header != "" {
			h.Set("X-API-Key", header)
		}
		for _, a := range []string{auth1, auth2} {
			if a != "" {
				h.Add("Authorization", a)
			}
		}
		key, e := keyOf(q, h)
		if e != nil {
			if e.Code != "invalid_params" || !slices.Equal(e.Params, []string{"api_key"}) {
				t.Fatalf("refusal %v", e)
			}
			return
		}
		if key == "" {
			return
		}
		var given []string
		given = append(given, q...)
		if v := strings.TrimSpace(h.Get("X-API-Key")); v != "" {
			given = append(given, v)
		}
		for _, a := range h.Values("Authorization") {
			if tok, ok := bearerToken(a); ok {
				given = append(given, tok)
			}
		}
		for _, g := range given {
			if g != key {
				t.Fatalf("returned %q though %q was given too", key, g)
			}
		}
	})
}
