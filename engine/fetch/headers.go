package fetch

import (
	"net/http"
	"net/textproto"
	"regexp"
	"strings"
)

// ChromeVersion is the major version of the desktop Chrome the default headers imitate.
const ChromeVersion = "144"

// DefaultUserAgent is a current desktop Chrome on Windows.
const DefaultUserAgent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" + ChromeVersion + ".0.0.0 Safari/537.36"

// DefaultAcceptLanguage is sent when the request sets no Accept-Language.
const DefaultAcceptLanguage = "en-US,en;q=0.9"

// browserHeaders are the defaults of a top-level navigation in desktop Chrome. The request's own
// headers override them one by one (a sitedef's Accept-Language, Accept, ...). The client hints
// (sec-ch-ua*) follow the User-Agent: its Chrome version and platform, none for a non-Chromium UA.
func browserHeaders(ua string) http.Header {
	h := http.Header{}
	h.Set("User-Agent", ua)
	h.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7")
	h.Set("Accept-Language", DefaultAcceptLanguage)
	h.Set("Accept-Encoding", AcceptEncoding)
	h.Set("Upgrade-Insecure-Requests", "1")
	if m := chromeMajor.FindStringSubmatch(ua); m != nil {
		h.Set("Sec-Ch-Ua", `"Not)A;Brand";v="8", "Chromium";v="`+m[1]+`", "Google Chrome";v="`+m[1]+`"`)
		mobile := "?0"
		if strings.Contains(ua, "Mobile") {
			mobile = "?1"
		}
		h.Set("Sec-Ch-Ua-Mobile", mobile)
		platform := "Windows"
		switch {
		case strings.Contains(ua, "Android"):
			platform = "Android"
		case strings.Contains(ua, "Macintosh"):
			platform = "macOS"
		case strings.Contains(ua, "Linux"):
			platform = "Linux"
		}
		h.Set("Sec-Ch-Ua-Platform", `"`+platform+`"`)
	}
	h.Set("Sec-Fetch-Site", "none")
	h.Set("Sec-Fetch-Mode", "navigate")
	h.Set("Sec-Fetch-User", "?1")
	h.Set("Sec-Fetch-Dest", "document")
	return h
}

var chromeMajor = regexp.MustCompile(`Chrome/(\d+)\.`)

// ForbiddenHeader reports whether a request header is never sent to a target: hop-by-hop and
// framing headers, proxy and forwarding headers, and the cloud metadata request headers. Fetch and Do
// drop them silently; the API should refuse them in user input with invalid_params.
func ForbiddenHeader(name string) bool {
	k := textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name))
	switch k {
	case "Host", "Connection", "Keep-Alive", "Transfer-Encoding", "Te", "Trailer", "Upgrade",
		"Content-Length", "Forwarded", "Via", "Metadata-Flavor", "Metadata", "X-Google-Metadata-Request":
		return true
	}
	for _, p := range []string{"Proxy-", "X-Forwarded-", "X-Aws-Ec2-Metadata-Token", "X-Asa-"} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// mergeHeaders returns defaults overridden by own, without forbidden headers.
func mergeHeaders(defaults, own http.Header) http.Header {
	h := http.Header{}
	for k, v := range defaults {
		h[k] = append([]string(nil), v...)
	}
	for k, v := range own {
		if ForbiddenHeader(k) {
			continue
		}
		h[textproto.CanonicalMIMEHeaderKey(k)] = append([]string(nil), v...)
	}
	return h
}
