package xpatheval

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestLiteralIndex(t *testing.T) {
	tests := []struct{ needle, hay string }{
		{"abc", "xxabcxx"}, {"abc", "abc"}, {"abc", "ab"}, {"Zq", "zqZqZ"}, {"\"currentAsin\"", `{"a":1,"currentAsin":"B0"}`},
		{"aaa", "aaaaa"}, {"/ref=cs_503_", strings.Repeat("<a href=\"/ref=cs_5\">", 50) + "/ref=cs_503_x"}, {"x", ""},
		// a body full of the literal's rarest byte in HTML: the search goes on by another byte
		// (regexfast's rechoosing), from the first place not yet ruled out
		{"qVz", strings.Repeat("V", 20000) + "qV" + strings.Repeat("xV", 500) + "qVz"},
		{"qVz", strings.Repeat("aV", 10000) + "qVq"},
	}
	for _, tt := range tests {
		if got, want := NewLiteral(tt.needle).Index([]byte(tt.hay)), bytes.Index([]byte(tt.hay), []byte(tt.needle)); got != want {
			t.Errorf("index(%q in %q) = %d, want %d", tt.needle, tt.hay, got, want)
		}
	}
}

func FuzzLiteralIndex(f *testing.F) {
	f.Add("abc", "xxabcxx")
	f.Add("Type the", "<p>Type the characters")
	f.Fuzz(func(t *testing.T, needle, hay string) {
		if needle == "" {
			return
		}
		if got, want := NewLiteral(needle).Index([]byte(hay)), bytes.Index([]byte(hay), []byte(needle)); got != want {
			t.Fatalf("index(%q in %q) = %d, want %d", needle, hay, got, want)
		}
	})
}

func FuzzRareString(f *testing.F) {
	f.Add("s-video", "a-section s-video-player")
	f.Add("vse-player", "vse-playe")
	f.Add("", "x")
	f.Add("zz", "azzz")
	f.Fuzz(func(t *testing.T, needle, hay string) {
		if got, want := newRareString(needle).in(hay), strings.Contains(hay, needle); got != want {
			t.Fatalf("in(%q in %q) = %v, want %v", needle, hay, got, want)
		}
		if got, want := newRareString(needle).inBytes([]byte(hay)), strings.Contains(hay, needle); got != want {
			t.Fatalf("inBytes(%q in %q) = %v, want %v", needle, hay, got, want)
		}
	})
}

func TestBodyRegexpAgreesWithRegexp(t *testing.T) {
	body := []byte(`<script>var a = {"x":1}; "currentAsin" : "B01GOH7PKA", "currentAsin":"B000000000"</script>`)
	for _, p := range []string{`"currentAsin"\s*:\s*"([A-Z0-9]{10})"`, `(?i)"CURRENTASIN"\s*:\s*"(\w+)"`, `nothere(\d)`, `a|b`} {
		re := regexp.MustCompile(p)
		br := NewBodyRegexp(re)
		if got, want := br.FindSubmatch(body), re.FindSubmatch(body); !equalMatches(got, want) {
			t.Errorf("%s: got %q want %q", p, got, want)
		}
		if br.Match(body) != re.Match(body) {
			t.Errorf("%s: match differs", p)
		}
		if got, want := len(br.FindAllSubmatch(body, 10)), len(re.FindAllSubmatch(body, 10)); got != want {
			t.Errorf("%s: findAll %d, want %d", p, got, want)
		}
	}
}

func equalMatches(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
