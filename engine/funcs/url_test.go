package funcs

import "testing"

func TestAbsURL(t *testing.T) {
	for _, c := range []struct{ ref, base, want string }{
		{"/dp/B01GOH7PKA?th=1", "https://www.amazon.de/s?k=x", "https://www.amazon.de/dp/B01GOH7PKA?th=1"},
		{"dp/X", "https://www.amazon.de/s/ref=x", "https://www.amazon.de/s/dp/X"},
		{"../b?x=1", "https://example.com/a/c/d", "https://example.com/a/b?x=1"},
		{"?page=2", "https://example.com/list?page=1", "https://example.com/list?page=2"},
		{"#reviews", "https://example.com/p", "https://example.com/p#reviews"},
		{"//m.media-amazon.com/images/I/a.jpg", "https://www.amazon.com/", "https://m.media-amazon.com/images/I/a.jpg"},
		{"//m.media-amazon.com/images/I/a.jpg", "http://www.amazon.com/", "http://m.media-amazon.com/images/I/a.jpg"},
		{"//m.media-amazon.com/images/I/a.jpg", "", "https://m.media-amazon.com/images/I/a.jpg"},
		{"https://other.com/x", "https://example.com/", "https://other.com/x"},
		{"HTTPS://Other.com/x", "", "https://Other.com/x"},
		{"https://other.com/x", "", "https://other.com/x"},
		{"  /x\n/y  ", "https://example.com/", "https://example.com/x/y"},
		{"/a b", "https://example.com/", "https://example.com/a%20b"},
		{"javascript:void(0)", "https://example.com/", ""},
		{"JavaScript:alert(1)", "https://example.com/", ""},
		{"data:image/png;base64,AAAA", "https://example.com/", ""},
		{"mailto:a@b.c", "https://example.com/", ""},
		{"tel:+123", "https://example.com/", ""},
		{"ftp://example.com/f", "https://example.com/", ""},
		{"", "https://example.com/", ""},
		{"/x", "", ""},
		{"/x", "not a url", ""},
		{"/x", "/relative/base", ""},
		{"http://", "", ""},
		{"http://[::1", "", ""},
	} {
		got, ok := absURL(c.ref, c.base)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("absURL(%q, %q) = %q, %v; want %q", c.ref, c.base, got, ok, c.want)
		}
	}
}

func TestURLParts(t *testing.T) {
	for _, c := range []struct {
		fn        string
		u, arg    string
		want      string
		wantFound bool
	}{
		{"param", "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s", "v", "dQw4w9WgXcQ", true},
		{"param", "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s", "t", "42s", true},
		{"param", "/search?q=caf%C3%A9+au+lait", "q", "café au lait", true},
		{"param", "/search?q=x&empty=", "empty", "", true},
		{"param", "/search?q=x", "page", "", false},
		{"param", "/search?q=x#page=2", "page", "", false},
		{"param", "https://x.com/%zz?id=7", "id", "7", true},
		{"param", "no query", "q", "", false},
		{"host", "https://WWW.Amazon.de:443/dp/X", "", "www.amazon.de", true},
		{"host", "//cdn.example.com/a.js", "", "cdn.example.com", true},
		{"host", "https://[::1]:8080/", "", "::1", true},
		{"host", "/dp/X", "", "", false},
		{"host", "www.amazon.de/dp/X", "", "", false},
		{"path", "https://www.amazon.de/dp/B01GOH7PKA?th=1", "", "/dp/B01GOH7PKA", true},
		{"path", "https://example.com", "", "/", true},
		{"path", "/caf%C3%A9/x", "", "/café/x", true},
		{"path", "mailto:a@b.c", "", "", false},
	} {
		var got string
		var ok bool
		switch c.fn {
		case "param":
			got, ok = urlParam(c.u, c.arg)
		case "host":
			got, ok = urlHost(c.u)
		case "path":
			got, ok = urlPath(c.u)
		}
		if got != c.want || ok != c.wantFound {
			t.Errorf("url%s(%q, %q) = %q, %v; want %q, %v", c.fn, c.u, c.arg, got, ok, c.want, c.wantFound)
		}
	}
}

func TestUnwrapURL(t *testing.T) {
	for in, want := range map[string]string{
		"/url?q=https://example.com/page%3Fa%3D1&sa=U&ved=2ah":                                        "https://example.com/page?a=1",
		"https://www.google.com/url?sa=t&url=https%3A%2F%2Fexample.com%2F&usg=x":                      "https://example.com/",
		"https://www.google.de/url?q=https://example.de/&sa=U":                                        "https://example.de/",
		"/url?q=/search%3Fq%3Dx":                                                                      "/search?q=x",
		"/imgres?imgurl=https://example.com/a.jpg&imgrefurl=https://example.com/":                     "https://example.com/a.jpg",
		"https://www.googleadservices.com/pagead/aclk?sa=L&adurl=https://shop.example/p":              "https://shop.example/p",
		"https://www.youtube.com/redirect?event=video_description&q=https%3A%2F%2Fexample.com":        "https://example.com",
		"https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.com%2F&h=AT0":                           "https://example.com/",
		"https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2F&rut=abc":                         "https://example.com/",
		"https://www.bing.com/ck/a?!&&p=abc&u=a1aHR0cHM6Ly9leGFtcGxlLmNvbS8&ntb=1":                    "https://example.com/",
		"https://r.search.yahoo.com/_ylt=A/RV=2/RE=1/RO=10/RU=https%3a%2f%2fexample.com%2f/RK=2/RS=x": "https://example.com/",
		"http://srd.yahoo.com/S=2766679:WS1/R=1/K=shoes/*-http://www.example.com/shoes.html":          "http://www.example.com/shoes.html",
		"http://rds.yahoo.com/_ylt=A0g/SIG=12/EXP=1/**http%3a//www.example.com/a%3fb=1%26c=2":         "http://www.example.com/a?b=1&c=2",
		"http://rds.yahoo.com/S=1/**https%3A//example.com/%7Euser/":                                   "https://example.com/~user/",
		"http://srd.yahoo.com/S=1/*http://example.com/a%20b":                                          "http://example.com/a%20b",
		"http://srd.yahoo.com/S=1/*-ftp://example.com/":                                               "http://srd.yahoo.com/S=1/*-ftp://example.com/",
		"https://news.yahoo.com/some-story-123.html":                                                  "https://news.yahoo.com/some-story-123.html",
		"https://out.reddit.com/t3_x?url=https%3A%2F%2Fexample.com%2F&token=y":                        "https://example.com/",
		"/sspa/click?ie=UTF8&spc=x&url=%2Fdp%2FB01GOH7PKA%2Fref%3Dsr_1":                               "/dp/B01GOH7PKA/ref=sr_1",
		"https://example.com/redirect?url=https%3A%2F%2Ftarget.com%2F":                                "https://target.com/",
		// Bing's ad redirector: the base64url of the %-escaped target, with or without "a1".
		"https://www.bing.com/aclick?ld=e3f&u=aHR0cHMlM2ElMmYlMmZzaG9wLmV4YW1wbGUlMmZwJTNmYSUzZDE&rlid=9": "https://shop.example/p?a=1",
		"https://www.bing.com/aclick?ld=e3f&u=a1aHR0cHMlM2ElMmYlMmZzaG9wLmV4YW1wbGUlMmZw":                 "https://shop.example/p",
		"https://www.bing.com/aclk?ld=e3f&u=aHR0cHMlM2ElMmYlMmZzaG9wLmV4YW1wbGUlMmZw":                     "https://shop.example/p",
		"https://www.bing.com/click?ld=e3f&u=aHR0cHMlM2ElMmYlMmZzaG9wLmV4YW1wbGUlMmZw":                    "https://shop.example/p",
		// Google's ad redirector: the landing page in adurl, about 2008-2010 in q=; a q= that is no URL is no target.
		"https://www.google.com/aclk?sa=l&ai=x&adurl=https%3A%2F%2Fshop.example%2Fp": "https://shop.example/p",
		"/aclk?sa=L&ai=x&num=1&q=http://www.keyboards.example/&usg=y":                "http://www.keyboards.example/",
		"/aclk?sa=L&ai=x&q=pizza&adurl=":                                             "/aclk?sa=L&ai=x&q=pizza&adurl=",
		// Until about 2018 the target itself, %-escaped; Bing Rebates' shop links (2020-2021).
		"https://www.bing.com/aclick?ld=d3&u=http%3a%2f%2fwww.shop.example%2fp%3fa%3d1&rlid=9":                           "http://www.shop.example/p?a=1",
		"https://www.bing.com/rebates/welcome?url=https%3a%2f%2fwww.shop.example%2fp&murl=https%3a%2f%2faff.example%2fc": "https://www.shop.example/p",
		"https://www.bing.com/rebates/welcome?url=javascript%3aalert(1)":                                                 "https://www.bing.com/rebates/welcome?url=javascript%3aalert(1)",
		// Nested wrappers.
		"https://duckduckgo.com/y.js?ad_provider=bingv7aa&u3=https%3A%2F%2Fwww.bing.com%2Faclick%3Fld%3De3f%26u%3DaHR0cHMlM2ElMmYlMmZzaG9wLmV4YW1wbGUlMmZw":                 "https://shop.example/p",
		"https://r.search.yahoo.com/cbclk2/dWU9/RV=2/RE=1/RO=10/RU=https%3a%2f%2fwww.bing.com%2faclick%3fld%3de3f%26u%3daHR0cHMlM2ElMmYlMmZzaG9wLmV4YW1wbGUlMmZw/RK=2/RS=x": "https://shop.example/p",
		"https://www.google.com/url?q=https%3A%2F%2Fwww.youtube.com%2Fredirect%3Fq%3Dhttps%253A%252F%252Fexample.com":                                                       "https://example.com",
		// Not redirectors, or targets that are not links.
		"https://example.com/":                                     "https://example.com/",
		"https://www.google.com/search?q=https://x":                "https://www.google.com/search?q=https://x",
		"https://example.com/redirect?url=javascript:alert(1)":     "https://example.com/redirect?url=javascript:alert(1)",
		"/url?q=javascript:alert(1)":                               "/url?q=javascript:alert(1)",
		"https://www.bing.com/ck/a?u=a1!!!":                        "https://www.bing.com/ck/a?u=a1!!!",
		"https://www.bing.com/aclick?ld=x&u=!!!&rlid=y":            "https://www.bing.com/aclick?ld=x&u=!!!&rlid=y",
		"https://www.bing.com/aclick?ld=x":                         "https://www.bing.com/aclick?ld=x",
		"https://duckduckgo.com/y.js?ad_domain=x&u3=ftp%3A%2F%2Fx": "https://duckduckgo.com/y.js?ad_domain=x&u3=ftp%3A%2F%2Fx",
		"": "",
	} {
		if got := unwrapURL(in); got != want {
			t.Errorf("unwrapURL(%q) = %q, want %q", in, got, want)
		}
	}
}
