package universal

import "testing"

func TestISODate(t *testing.T) {
	for in, want := range map[string]string{
		"2015-07-24T05:36:09+01:00":       "2015-07-24T05:36:09+01:00",
		"2021-11-01T10:52:50+0100":        "2021-11-01T10:52:50+01:00",
		"2015-03-17T16:27:40.294Z":        "2015-03-17T16:27:40.294Z",
		"2017-11-03 03:01:00.000000":      "2017-11-03T03:01:00",
		"2019-04-28 06:01:07":             "2019-04-28T06:01:07",
		"2015-04-30T07:19:58":             "2015-04-30T07:19:58",
		"2024-03-01":                      "2024-03-01",
		"2024/03/01":                      "2024-03-01",
		"Thu, 22 Dec 2016 10:43:37 -0800": "2016-12-22T10:43:37-08:00",
		"December 22, 2016":               "2016-12-22",
		"1700000000":                      "2023-11-14T22:13:20Z",
		"1700000000123":                   "2023-11-14T22:13:20Z",
		"03/04/2015":                      "", // ambiguous
		"yesterday":                       "",
		"0001-01-01T00:00:00Z":            "",
		"":                                "",
	} {
		if got := isoDate(in); got != want {
			t.Errorf("isoDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripSiteName(t *testing.T) {
	p := &page{meta: map[string]string{"og:site_name": "BBC News"}}
	for in, want := range map[string]string{
		"Obama admits US gun laws are his 'biggest frustration' - BBC News": "Obama admits US gun laws are his 'biggest frustration'",
		"Headline | BBC News":        "Headline",
		"BBC News":                   "BBC News",
		"Spider-Man - Far from Home": "Spider-Man - Far from Home",
		"LWN.net Weekly [BBC News]":  "LWN.net Weekly",
	} {
		if got := p.stripSiteName(in); got != want {
			t.Errorf("stripSiteName(%q) = %q, want %q", in, got, want)
		}
	}
}
