package engine

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// oldCoerceURL is coerce's url kind before the plain-URL shortcut.
func oldCoerceURL(v any, base *url.URL) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, fmt.Errorf("want a URL, got %T", v)
	}
	s = strings.TrimSpace(s)
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("bad URL %q", short(s))
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("not an http(s) URL: %q", short(s))
	}
	return u.String(), nil
}

var coerceURLSeeds = []string{
	"https://www.aliexpress.com/item/6-Style/32802190624.html?ws_ab_test=searchweb0_0&btsid=1",
	" https://a.b/x\n", "https://a.b/./x", "HTTPS://a.b/", "https://a.b/%41", "/rel/x", "//a.b/x",
	"javascript:void(0)", "https://a.b:8080/x?y#z", "", "%zz", "http://a.b",
}

func checkCoerceURL(t *testing.T, s string) {
	t.Helper()
	for _, b := range []string{"", "https://base.example/a/b?c=d", "http://x.y"} {
		var base *url.URL
		if b != "" {
			base, _ = url.Parse(b)
		}
		want, wantErr := oldCoerceURL(s, base)
		got, err := coerce(s, kURL, 0, base)
		if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("coerce(%q, url, base %q) = %v, %v; the old code %v, %v", s, b, got, err, want, wantErr)
		}
	}
}

func TestCoerceURLIsTheOld(t *testing.T) {
	for _, s := range coerceURLSeeds {
		checkCoerceURL(t, s)
	}
}

func FuzzCoerceURL(f *testing.F) {
	for _, s := range coerceURLSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCoerceURL(t, s)
		checkCoerceURL(t, "https://"+s)
	})
}
