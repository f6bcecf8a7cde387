package engine

import (
	"strings"

	"asa/engine/sitedef"

	"golang.org/x/net/publicsuffix"
)

// registrableDomains maps the registrable domain (public suffix plus one label) of each of a site's
// hosts to its domain, the default domain first, then in the order the site lists them. Publishers
// serve their pages from more hosts than a site lists (edition.cnn.com beside www.cnn.com,
// widerimage.reuters.com, <blog>.tumblr.com, gma.yahoo.com): a URL on another host of the same
// registrable domain is the site's, read on that domain. The public suffix list has the private
// suffixes too, so two blogs of github.io or blogspot.com are two registrable domains, not one.
func registrableDomains(s *sitedef.Site) map[string]string {
	out := map[string]string{}
	add := func(k string, dm *sitedef.Domain) {
		if r := registrable(dm.Host); r != "" {
			if _, taken := out[r]; !taken {
				out[r] = k
			}
		}
	}
	if dm := s.Domains.Get(s.DefaultDomain); dm != nil {
		add(s.DefaultDomain, dm)
	}
	s.Domains.Each(add)
	return out
}

// registrable is a host's registrable domain, lower-cased, or "" for a host that has none (an IP
// address, a bare public suffix, a single label).
func registrable(host string) string {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "" || strings.Trim(h, "0123456789.") == "" || strings.Contains(h, ":") {
		return ""
	}
	r, err := publicsuffix.EffectiveTLDPlusOne(h)
	if err != nil {
		return ""
	}
	return r
}
