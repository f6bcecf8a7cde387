package funcs

import (
	"net/url"
	"strings"
	"testing"
)

// netURLRoundTrip is what net/url makes of s taken as an absolute URL: parsed, resolved against
// base when there is one, written back; ok false when it does not parse.
func netURLRoundTrip(s string, base *url.URL) (string, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return "", false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	return u.String(), true
}

var plainURLCases = []struct {
	s     string
	plain bool
}{
	{"https://www.aliexpress.com/item/6-Style/32802190624.html?ws_ab_test=searchweb0_0,searchweb201602_4&btsid=12df&algo_pvid=27-4", true},
	{"https://ae01.alicdn.com/kf/UTB8GbkceOaMiuJk43PTq6ySmXXaI/2017-Little-.jpg_220x220.jpg", true},
	{"http://a.b", true},
	{"https://a.b/", true},
	{"https://a.b?", true},
	{"https://a.b/?", true},
	{"https://a.b//x//", true},
	{"https://A.B/X...Y/...", true},
	{"https://a.b/x;y=1,2:3@4$5&6+7~_", true},
	{"https://a.b/x?q=%zz&r=/../", true},
	{"https://a.b/x?q=a?b", true},
	{"https://", false},
	{"https:///x", false},
	{"HTTPS://a.b/", false},
	{"ftp://a.b/", false},
	{"https://a.b:8080/", false},
	{"https://u@a.b/", false},
	{"https://[::1]/", false},
	{"https://a.b/./x", false},
	{"https://a.b/x/..", false},
	{"https://a.b/x/.", false},
	{"https://a.b/..", false},
	{"https://a.b/%41", true}, // kept as written, though it stands for an unreserved letter
	{"https://www.amazon.de/Darstellung-abweichen-Wei%C3%9F/dp/B00MNV8E0C?psc=1", true},
	{"https://a.b/wei%c3%9f", true},
	{"https://a.b/%2e%2E/x", true}, // not a dot segment to net/url either
	{"https://a.b/%2F%25%00%7e", true},
	{"https://a.b/%zz", false},
	{"https://a.b/%4", false},
	{"https://a.b/x%", false},
	{"https://a.b/%41%", false},
	{"https://a.b/a b", false},
	{"https://a.b/ü", false},
	{"https://a.b/x#f", false},
	{"https://a.b/x?y#f", false},
	{"https://a.b/x?y z", false},
	// Past the query's first eight bytes, which are checked eight at a time.
	{"https://a.b/x?abcdefghijklmnopqrstuvwxyz!$&'()*+,;=:@/?~", true},
	{"https://a.b/x?abcdefghijklmno#pqrstuvwxyz", false},
	{"https://a.b/x?abcdefghijklmno\x7fpqrstuvwxyz", false},
	{"https://a.b/x?abcdefghijklmno\x80pqrstuvwxyz", false},
	{"https://a.b/x?abcdefghijklmnop qrstuvwxyz", false},
	{"https://a.b/x?abcdefghijklmnop\x00", false},
	{"https://a.b/x?abcdefghijklmnopqrstuvw\x1f", false},
	{"https://a.b/x!", false},
	{"https://a.b/x(1)", false},
	{"https://a.b/x'", false},
	{"https://a.b/x*", false},
	{"https://a.b\\x", false},
	{"https://a_b.c/", false},
	{" https://a.b/", false},
}

func TestPlainAbsURL(t *testing.T) {
	base, _ := url.Parse("https://base.example/a/b?c=d")
	for _, c := range plainURLCases {
		if got := PlainAbsURL(c.s); got != c.plain {
			t.Errorf("PlainAbsURL(%q) = %v, want %v", c.s, got, c.plain)
		}
		checkPlain(t, c.s, base)
	}
}

// checkPlain fails when s is taken as plain and net/url does not give it back unchanged.
func checkPlain(t *testing.T, s string, base *url.URL) {
	t.Helper()
	if !PlainAbsURL(s) {
		return
	}
	for _, b := range []*url.URL{nil, base} {
		if got, ok := netURLRoundTrip(s, b); !ok || got != s {
			t.Fatalf("PlainAbsURL(%q) but net/url gives %q, %v (base %v)", s, got, ok, b)
		}
	}
}

// FuzzPlainAbsURL: every string PlainAbsURL accepts is net/url's fixed point.
func FuzzPlainAbsURL(f *testing.F) {
	for _, c := range plainURLCases {
		f.Add(c.s)
	}
	base, _ := url.Parse("http://base.example/a/b?c=d")
	f.Fuzz(func(t *testing.T, s string) {
		checkPlain(t, s, base)
		// The same with an http(s) prefix, so that the fuzzer spends its time past the scheme.
		checkPlain(t, "https://"+s, base)
		checkPlain(t, "http://a.b/"+s, base)
	})
}

// absURLByNetURL is absURLIn without its shortcuts: net/url's parse, resolution and String.
func absURLByNetURL(ref, base string) (string, bool) {
	ref = cleanURL(ref)
	if ref == "" {
		return "", false
	}
	u, err := url.Parse(ref)
	if err != nil {
		return "", false
	}
	if u.Scheme != "" {
		u.Scheme = strings.ToLower(u.Scheme)
		if !isHTTP(u) {
			return "", false
		}
		return u.String(), true
	}
	b := parseBase(base)
	if b == nil {
		if strings.HasPrefix(ref, "//") {
			if u, err := url.Parse("https:" + ref); err == nil && isHTTP(u) {
				return u.String(), true
			}
		}
		return "", false
	}
	r := b.ResolveReference(u)
	if !isHTTP(r) {
		return "", false
	}
	return r.String(), true
}

var absURLBases = []string{"https://www.amazon.de/s?k=katzenfutter", "http://a.b", "https://u:p@a.b/x/y?z",
	"https://A.B:8080/x/", "HTTPS://www.x.com/a/b/../c?d#e", "https://[::1]/", "https://a.b/%41/", ""}

// FuzzAbsURLShortcuts: absURL answers as net/url does, with references from the root (and the
// other shapes it shortcuts) against bases with and without a user, a port or a plain host.
func FuzzAbsURLShortcuts(f *testing.F) {
	for _, s := range []string{"/dp/B0C1?ref=sr_1_1&keywords=k", "/", "/a//b/", "/a/./b", "/a/../b", "/a/..", "/x?",
		"/x#f", "/x%20y", "/ü", "//h.c/x", "/x?q=a?b", "/x y", "/x\\y", "https://a.b/c", "rel/x", "?q", "#f"} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, ref string, bi uint8) {
		base := absURLBases[int(bi)%len(absURLBases)]
		for _, r := range []string{ref, "/" + ref} {
			got, ok := absURLIn(r, base, &Bases{})
			want, wantOK := absURLByNetURL(r, base)
			if got != want || ok != wantOK {
				t.Errorf("absURL(%q, %q) = %q, %v; net/url %q, %v", r, base, got, ok, want, wantOK)
			}
		}
	})
}

// BenchmarkPlainAbsURL is a marketplace card's link: a product path and a long tracking query (the
// shape AliExpress's search cards carry, some 740 bytes), checked once per card by absURL and once
// by the url field's coercion.
func BenchmarkPlainAbsURL(b *testing.B) {
	u := "https://www.example.com/item/Simple-Design-Bell-Star-Heart-Charms-Anklet-Chains-Barefoot-Sandal/32802190624.html?ws_ab_test=" +
		strings.Repeat("searchweb201602_4_10152_10065_", 20) + "&btsid=0a1b2c3d-4e5f&algo_expid=abc-0&algo_pvid=def"
	b.SetBytes(int64(len(u)))
	for b.Loop() {
		if !PlainAbsURL(u) {
			b.Fatal("not plain")
		}
	}
}
