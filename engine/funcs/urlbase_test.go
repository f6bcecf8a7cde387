package funcs

import (
	"net/url"
	"strings"
	"testing"
)

// oldAbsURL is absURL as it was before the run's Bases: the base parsed on every call.
func oldAbsURL(ref, base string) (string, bool) {
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
	b, err := url.Parse(cleanURL(base))
	if err != nil || !isHTTP(b) {
		b = nil
	}
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

var absURLSeeds = [][2]string{
	{"/dp/B01GOH7PKA?th=1", "https://www.amazon.de/s?k=x"},
	{"dp/X", "https://www.amazon.de/s/ref=x"},
	{"../b?x=1", "https://example.com/a/c/d"},
	{"../../../../x", "https://example.com/a/"},
	{"?page=2", "https://example.com/list?page=1"},
	{"", "https://example.com/list?page=1#frag"},
	{"#reviews", "https://example.com/p?q=1"},
	{"//m.media-amazon.com/images/I/a.jpg", "https://www.amazon.com/"},
	{"//m.media-amazon.com/a.jpg", ""},
	{"//[::1", ""},
	{"https://other.com/x", "https://example.com/"},
	{"HTTPS://Other.com/x", "%zz"},
	{"  /x\n/y  ", " https://example.com/\t"},
	{"/a b", "https://user:pw@example.com:8080/"},
	{"/%zz", "https://example.com/"},
	{"x%2Fy/./z", "https://example.com/a%2Fb/c"},
	{"javascript:void(0)", "https://example.com/"},
	{"/x", "HTTP://EXAMPLE.com"},
	{"/x", "https:opaque"},
	{"/x", "https://"},
	{"/x", "not a url"},
	{"/x", "/relative/base"},
	{"/ü?ä=ö#€", "https://bücher.example/ä"},
	{"\u00a0/x\u200b", "https://example.com/"},
	{";a", "https://example.com/b;c?d"},
	{"//www.aliexpress.com/item/x/32802190624.html?ws_ab_test=a_0,b_4&btsid=12df", "http://www.aliexpress.com/"},
	{"//www.aliexpress.com/item/x/32802190624.html?ws_ab_test=a_0,b_4&btsid=12df", "https://www.aliexpress.com/"},
	{"//www.aliexpress.com/item/x/32802190624.html?ws_ab_test=a_0,b_4&btsid=12df", "ftp://x/"},
	{"//a.b/x/../y", "https://example.com/"},
	{"//a.b:81/y", ""},
	{"//", "https://example.com/"},
	{"///x", "https://example.com/"},
	{"https://a.b/c?d", "https://example.com/"},
	{"http://a.b", ""},
}

func TestAbsURLIsTheOld(t *testing.T) {
	bs := NewBases()
	for _, c := range absURLSeeds {
		want, wantOK := oldAbsURL(c[0], c[1])
		for _, b := range []*Bases{nil, NewBases(), bs} {
			if got, ok := absURLIn(c[0], c[1], b); got != want || ok != wantOK {
				t.Errorf("absURLIn(%q, %q) = %q, %v; the old code %q, %v", c[0], c[1], got, ok, want, wantOK)
			}
		}
	}
}

// FuzzAbsURL: with the run's Bases remembering a base (the same or another), absURL answers what
// parsing the base on every call answered.
func FuzzAbsURL(f *testing.F) {
	for _, c := range absURLSeeds {
		f.Add(c[0], c[1], "https://example.com/a/b?c=d")
	}
	f.Fuzz(func(t *testing.T, ref, base, other string) {
		bs := NewBases()
		for _, b := range []string{base, other, other, base, base} {
			want, wantOK := oldAbsURL(ref, b)
			if got, ok := absURLIn(ref, b, bs); got != want || ok != wantOK {
				t.Fatalf("absURLIn(%q, %q) = %q, %v; the old code %q, %v", ref, b, got, ok, want, wantOK)
			}
		}
	})
}

// TestAbsURLAbsoluteSkipsBase: an absolute ref, the usual case, leaves the base unparsed.
func TestAbsURLAbsoluteSkipsBase(t *testing.T) {
	bs := NewBases()
	for _, ref := range []string{"https://example.com/x", "HTTP://a.b/", "javascript:void(0)", "mailto:a@b.c"} {
		absURLIn(ref, "https://base.example/", bs)
		if bs.done {
			t.Fatalf("absURLIn(%q, ...) parsed the base", ref)
		}
	}
	absURLIn("/x", "https://base.example/", bs)
	if !bs.done || bs.u == nil {
		t.Fatal("a relative ref did not parse the base")
	}
}
