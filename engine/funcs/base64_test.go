package funcs

import (
	"encoding/base64"
	"testing"
	"unicode/utf8"
)

func TestDecodeBase64(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"eyJhIjogMX0=", `{"a": 1}`, true},
		{"eyJhIjogMX0", `{"a": 1}`, true},
		{"eyJh\nIjog\r\nMX0=\n", `{"a": 1}`, true},                             // wrapped at a fixed width
		{"  eyJhIjogMX0=  ", `{"a": 1}`, true},                                 // inside a script's white space
		{"aHR0cHM6Ly9leGFtcGxlLmNvbS8_cT0x", "https://example.com/?q=1", true}, // URL alphabet
		{"aHR0cHM6Ly9leGFtcGxlLmNvbS8/cT0x", "https://example.com/?q=1", true}, // standard alphabet
		{"Y2Fmw6k=", "café", true},
		{"", "", false},
		{"====", "", false},
		{"not base64!", "", false},
		{"eyJhIjogMX0=x", "", false}, // data after the padding
		{"/9j/4AAQ", "", false},      // a JPEG's first bytes: not text
	} {
		got, ok := decodeBase64(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("decodeBase64(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// Any UTF-8 text encoded with either alphabet, padded or not, decodes back to itself; anything
// else decodes to text or to nothing, never panics.
func FuzzDecodeBase64(f *testing.F) {
	for _, s := range []string{"", "a", "{\"data\":{\"entity\":{}}}", "café", "\x00\xff", "eyJhIjogMX0="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, ok := decodeBase64(s); ok && !utf8.ValidString(got) {
			t.Fatalf("decodeBase64(%q) = %q: not UTF-8", s, got)
		}
		if s == "" || !utf8.ValidString(s) {
			return
		}
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			if got, ok := decodeBase64(enc.EncodeToString([]byte(s))); !ok || got != s {
				t.Fatalf("round trip of %q: got %q, %v", s, got, ok)
			}
		}
	})
}
