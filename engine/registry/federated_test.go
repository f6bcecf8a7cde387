package registry_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"asa/engine"
	"asa/engine/errcode"
	"asa/engine/registry"
	"asa/sitedefs"
)

// TestFederatedInstanceParam: the shipped endpoints that fetch from the instance a client names
// (Mastodon, PeerTube) accept a public host name, in any case or as a URL, and refuse loopback,
// private-use and special-use names, IP addresses, ports and handles with invalid_params before any
// fetch. A status URL names its instance too, and is held to the same rule.
func TestFederatedInstanceParam(t *testing.T) {
	reg, diags := registry.Load(engine.New(), sitedefs.FS)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	endpoints := map[string]url.Values{
		"mastodon.status":         {"query": {"113537165011024733"}},
		"mastodon.timeline":       {"tag": {"caturday"}},
		"mastodon.search":         {"query": {"astrophotography"}},
		"mastodon.account_search": {"query": {"ada"}},
		"peertube.account":        {"query": {"blender"}},
		"peertube.search":         {"query": {"free software"}},
		"peertube.video":          {"query": {"vqod4sE6FgaohqY3EYSRTV"}},
		"peertube.comments":       {"query": {"kkGMgK9ZtnKfYAgnEtQxbv"}},
	}
	tests := []struct {
		instance string
		want     string // the host the request goes to; "" for invalid_params
	}{
		{"fosstodon.org", "fosstodon.org"},
		{"https://Social.Example.org/", "social.example.org"},
		{"localhost", ""},
		{"printer.local", ""},
		{"metadata.google.internal", ""},
		{"router.home.arpa", ""},
		{"127.0.0.1", ""},
		{"10.0.0.8", ""},
		{"mastodon.social:8080", ""},
		{"user@mastodon.social", ""},
	}
	for id, base := range endpoints {
		plan := reg.Plan(id)
		if plan == nil {
			t.Fatalf("no endpoint %s", id)
		}
		for _, tc := range tests {
			t.Run(id+" "+tc.instance, func(t *testing.T) {
				raw := url.Values{"instance": {tc.instance}}
				for k, v := range base {
					raw[k] = v
				}
				params, err := plan.Params(raw)
				if tc.want != "" {
					if err != nil || params["instance"] != tc.want {
						t.Fatalf("instance %v (%v), want %q", params["instance"], err, tc.want)
					}
					return
				}
				var e *errcode.Error
				if !errors.As(err, &e) || e.Code != errcode.InvalidParams || !strings.Contains(e.Message, "instance") {
					t.Fatalf("got %v (%v), want invalid_params about instance", params, err)
				}
			})
		}
	}
	// The instance a status URL names is checked like the parameter.
	for _, u := range []string{"https://mastodon.social/@Gargron/113537165011024733", "https://printer.local/@ada/113537165011024733"} {
		params, err := reg.Plan("mastodon.status").Params(url.Values{"query": {u}})
		if local := strings.Contains(u, ".local/"); local != (err != nil) {
			t.Errorf("%s: %v (%v)", u, params, err)
		}
	}
}
