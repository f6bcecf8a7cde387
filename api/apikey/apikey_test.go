package apikey

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

// Golden keys computed outside Go (Python zlib.crc32 and a base62 encoder), so the format is pinned
// by an independent implementation rather than by this package agreeing with itself.
const (
	goldenLive = "asa_live_AbCdEfGhIjKlMnOpQrStUvWxYz01232LCeXs"
	goldenTest = "asa_test_AbCdEfGhIjKlMnOpQrStUvWxYz01232kwFln"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		err   error
		test  bool
		short string
	}{
		{"live", goldenLive, nil, false, "AbCdEfGhIjKl"},
		{"sandbox", goldenTest, nil, true, "AbCdEfGhIjKl"},
		{"empty", "", ErrMalformed, false, ""},
		{"prefix only", "asa_live_", ErrMalformed, false, ""},
		{"truncated", goldenLive[:Len-1], ErrMalformed, false, ""},
		{"one extra", goldenLive + "0", ErrMalformed, false, ""},
		{"unknown prefix", "asa_prod_" + goldenLive[9:], ErrMalformed, false, ""},
		{"upper-case prefix", "ASA_LIVE_" + goldenLive[9:], ErrMalformed, false, ""},
		{"stripe prefix", "sk_live_" + goldenLive[8:], ErrMalformed, false, ""},
		{"hyphen in body", goldenLive[:20] + "-" + goldenLive[21:], ErrMalformed, false, ""},
		{"space in body", goldenLive[:20] + " " + goldenLive[21:], ErrMalformed, false, ""},
		{"unicode same byte length", goldenLive[:20] + "é" + goldenLive[22:], ErrMalformed, false, ""},
		{"live body under test prefix", "asa_test_" + goldenLive[9:], ErrChecksum, false, ""},
		{"one random char changed", goldenLive[:15] + "Z" + goldenLive[16:], ErrChecksum, false, ""},
		{"checksum char changed", goldenLive[:Len-1] + "t", ErrChecksum, false, ""},
		{"two chars swapped", goldenLive[:9] + "bA" + goldenLive[11:], ErrChecksum, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := Parse(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Parse(%q) error = %v, want %v", tt.in, err, tt.err)
			}
			if err != nil {
				if k != (Key{}) {
					t.Fatalf("Parse returned a non-zero Key with error %v", err)
				}
				// Sentinels, unwrapped: an error can never carry the input into a log line.
				if err != ErrMalformed && err != ErrChecksum { //nolint:errorlint // identity is the point
					t.Fatalf("error %v is not a bare sentinel", err)
				}
				return
			}
			if k.String() != tt.in || k.Test() != tt.test || k.Short() != tt.short {
				t.Fatalf("got String=%q Test=%v Short=%q", k.String(), k.Test(), k.Short())
			}
		})
	}
}

func TestGenerateParses(t *testing.T) {
	seen := map[string]bool{}
	for i := range 2000 {
		test := i%2 == 1
		k, err := Generate(test)
		if err != nil {
			t.Fatal(err)
		}
		s := k.String()
		if len(s) != Len {
			t.Fatalf("len(%q) = %d, want %d", s, len(s), Len)
		}
		want := LivePrefix
		if test {
			want = TestPrefix
		}
		if !strings.HasPrefix(s, want) || k.Test() != test {
			t.Fatalf("key %q: want prefix %q, Test()=%v", k.Short(), want, k.Test())
		}
		p, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(Generate()) = %v", err)
		}
		if p != k {
			t.Fatal("Parse(Generate()) returned a different key")
		}
		if seen[s] || seen[k.Short()] {
			t.Fatal("duplicate key or short prefix")
		}
		seen[s], seen[k.Short()] = true, true
	}
}

// TestGenerateUniform is a coarse check that rejection sampling is wired in: with 30 000 characters
// every symbol expects ~484 hits; a plain b%62 would give the first 8 symbols ~25% more than the rest.
func TestGenerateUniform(t *testing.T) {
	counts := map[byte]int{}
	for range 1000 {
		k, err := Generate(false)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []byte(k.String()[9 : 9+30]) {
			counts[c]++
		}
	}
	if len(counts) != 62 {
		t.Fatalf("saw %d distinct symbols, want 62", len(counts))
	}
	var low, high int // first 8 symbols against the other 54, per symbol
	for i := range 62 {
		if i < 8 {
			low += counts[alphabet[i]]
		} else {
			high += counts[alphabet[i]]
		}
	}
	ratio := (float64(low) / 8) / (float64(high) / 54)
	if ratio > 1.12 || ratio < 0.88 {
		t.Fatalf("first 8 symbols drawn %.2fx as often as the rest", ratio)
	}
}

func TestHash(t *testing.T) {
	k, err := Parse(goldenLive)
	if err != nil {
		t.Fatal(err)
	}
	// sha256 of goldenLive, from `printf %s KEY | sha256sum`.
	const want = "904a61407f855d5a0d55c62bea26657b017c551b079dec7861a9d8a461da5567"
	if got := k.HashHex(); got != want {
		t.Fatalf("HashHex = %s, want %s", got, want)
	}
	h := k.Hash()
	if fmt.Sprintf("%x", h[:]) != want {
		t.Fatal("Hash and HashHex disagree")
	}
}

func TestNeverLogged(t *testing.T) {
	k, err := Generate(false)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		slog.New(h).Info("auth", "key", k, slog.Any("any", k), slog.Group("g", "key", k))
	}
	fmt.Fprintf(&buf, "%#v", k)
	fmt.Fprintf(&buf, "%#v", struct{ K Key }{k})
	secret := k.String()[9+ShortLen:]
	if bytes.Contains(buf.Bytes(), []byte(secret)) {
		t.Fatalf("log output contains the secret part of the key:\n%s", buf.String())
	}
	if !bytes.Contains(buf.Bytes(), []byte(k.Short())) {
		t.Fatalf("log output lacks the short prefix:\n%s", buf.String())
	}
}

func TestZeroKey(t *testing.T) {
	var k Key
	if k.Short() != "" || k.Test() || k.String() != "" {
		t.Fatal("zero Key should be empty")
	}
	if v := k.LogValue(); v.String() != "" {
		t.Fatalf("zero Key logs %q", v.String())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		goldenLive, goldenTest,
		goldenLive[:Len-1], goldenLive[:9], "",
		goldenLive[:Len-1] + "t",
		goldenLive[:20] + "é" + goldenLive[22:],
		"asa_live_" + strings.Repeat("ü", 18),
		"asa_test_\x00" + goldenTest[10:],
		strings.Repeat("z", Len),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrChecksum) {
				t.Fatalf("unexpected error type %v", err)
			}
			if k != (Key{}) {
				t.Fatal("non-zero Key with an error")
			}
			return
		}
		if k.String() != s || len(s) != Len || len(k.Short()) != ShortLen {
			t.Fatalf("accepted %q with String %q Short %q", s, k.String(), k.Short())
		}
		if k.Test() != strings.HasPrefix(s, TestPrefix) {
			t.Fatal("Test() disagrees with the prefix")
		}
		// A key that parses must survive a round trip through its own checksum: changing any one
		// character of the random part must be caught.
		b := []byte(s)
		b[9] = alphabet[(strings.IndexByte(alphabet, b[9])+1)%62]
		if _, err := Parse(string(b)); !errors.Is(err, ErrChecksum) {
			t.Fatalf("single-character change accepted: %v", err)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(goldenLive); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseHash(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		k, err := Parse(goldenLive)
		if err != nil {
			b.Fatal(err)
		}
		_ = k.Hash()
	}
}
