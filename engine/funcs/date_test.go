package funcs

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	cases := []struct{ in, hint, want string }{
		// Machine formats.
		{"2024-03-13", "", "2024-03-13"},
		{"2024-03-13T10:00:00Z", "", "2024-03-13T10:00:00Z"},
		{"2024-03-13T10:00:00.123Z", "", "2024-03-13T10:00:00Z"},
		{"2024-03-13T10:00:00+01:00", "", "2024-03-13T09:00:00Z"},
		{"2024-03-13T10:00:00+0100", "", "2024-03-13T09:00:00Z"},
		{"2024-03-13T10:00:00-07:00", "", "2024-03-13T17:00:00Z"},
		{"2024-03-13T10:00:00", "", "2024-03-13T10:00:00Z"},
		{"2024-03-13T10:00", "", "2024-03-13T10:00:00Z"},
		{"2024-03-13 10:00:00", "", "2024-03-13T10:00:00Z"},
		{"2024-03-13 10:00:00 +0000", "", "2024-03-13T10:00:00Z"},
		{"Wed, 13 Mar 2024 10:00:00 GMT", "", "2024-03-13T10:00:00Z"},
		{"Wed, 13 Mar 2024 10:00:00 +0100", "", "2024-03-13T09:00:00Z"},
		{"Wed, 3 Mar 2024 10:00:00 GMT", "", "2024-03-03T10:00:00Z"},
		{"20240313", "", "2024-03-13"},
		{"1710324000", "", "2024-03-13T10:00:00Z"},
		{"1710324000000", "", "2024-03-13T10:00:00Z"},
		{"  2024-03-13  ", "", "2024-03-13"},
		// Written dates.
		{"Mar 13, 2024", "", "2024-03-13"},
		{"March 13, 2024", "", "2024-03-13"},
		{"Mar 13 2024", "", "2024-03-13"},
		{"Sept. 3, 2024", "", "2024-09-03"},
		{"13 March 2024", "", "2024-03-13"},
		{"13th March 2024", "", "2024-03-13"},
		{"March 1st, 2024", "", "2024-03-01"},
		{"Reviewed in the United States on March 13, 2024", "", "2024-03-13"},
		{"Reviewed in the United Kingdom on 13 March 2024", "", "2024-03-13"},
		{"Rezension aus Deutschland vom 13. März 2024", "", "2024-03-13"},
		{"13. März 2024", "", "2024-03-13"},
		{"13. Mär. 2024", "", "2024-03-13"},
		{"1. Jänner 2024", "", "2024-01-01"},
		{"Commenté en France le 13 mars 2024", "", "2024-03-13"},
		{"1er mars 2024", "", "2024-03-01"},
		{"13 févr. 2024", "", "2024-02-13"},
		{"Recensito in Italia il 13 marzo 2024", "", "2024-03-13"},
		{"Revisado en España el 13 de marzo de 2024", "", "2024-03-13"},
		{"Avaliado no Brasil em 13 de março de 2024", "", "2024-03-13"},
		{"13 de set. de 2024", "", "2024-09-13"},
		{"Beoordeeld in Nederland op 13 maart 2024", "", "2024-03-13"},
		{"Oceniono w Polsce dnia 13 marca 2024", "", "2024-03-13"},
		{"Recenserad i Sverige den 13 mars 2024", "", "2024-03-13"},
		{"13 Mart 2024 tarihinde Türkiye'de değerlendirildi", "", "2024-03-13"},
		{"13 марта 2024 г.", "", "2024-03-13"},
		{"13 مارس 2024", "", "2024-03-13"},
		{"تمت المراجعة في الإمارات العربية المتحدة في 13 مارس 2024", "", "2024-03-13"},
		{"2024年3月13日に日本でレビュー済み", "", "2024-03-13"},
		{"2024年3月13日", "", "2024-03-13"},
		{"2024년 3월 13일", "", "2024-03-13"},
		{"2024. 3. 13.", "", "2024-03-13"},
		{"2024. március 13.", "", "2024-03-13"},
		// Numeric dates.
		{"13.03.2024", "", "2024-03-13"},
		{"13.03.24", "", "2024-03-13"},
		{"13-03-2024", "", "2024-03-13"},
		{"2024/03/13", "", "2024-03-13"},
		{"03/13/2024", "", "2024-03-13"},
		{"13/03/2024", "", "2024-03-13"},
		{"03/04/2024", "", "2024-03-04"},
		{"03/04/2024", "en_US", "2024-03-04"},
		{"03/04/2024", "en_GB", "2024-04-03"},
		{"03/04/2024", "fr-FR", "2024-04-03"},
		{"03/04/2024", "de", "2024-04-03"},
		{"Updated 2024-03-13", "", "2024-03-13"},
		// With a time.
		{"Mar 13, 2024, 2:30 PM", "", "2024-03-13T14:30:00Z"},
		{"Mar 13, 2024 at 2:30 p.m.", "", "2024-03-13T14:30:00Z"},
		{"March 13, 2024 12:05 AM", "", "2024-03-13T00:05:00Z"},
		{"13. März 2024 um 14:30 Uhr", "", "2024-03-13T14:30:00Z"},
		{"13.03.2024 14:30:15", "", "2024-03-13T14:30:15Z"},
		{"13 March 2024 10:00 UTC", "", "2024-03-13T10:00:00Z"},
		{"13 March 2024 10:00 GMT+2", "", "2024-03-13T08:00:00Z"},
		{"13 March 2024 10:00 +05:30", "", "2024-03-13T04:30:00Z"},
		// Layouts.
		{"13/03/2024 14:30", "%d/%m/%Y %H:%M", "2024-03-13T14:30:00Z"},
		{"13.03.2024", "02.01.2006", "2024-03-13"},
		{"3/4/24", "%-m/%-d/%y", "2024-03-04"},
		{"2024-03-13", "02.01.2006", ""}, // a layout is the only format tried
		{"Mar 13 2024", "%b %d %Y", "2024-03-13"},
		// Not dates.
		{"", "", ""},
		{"yesterday", "", ""},
		{"3 days ago", "", ""},
		{"4.5 out of 5 stars", "", ""},
		{"March 2024", "", ""},
		{"31.02.2024", "", ""},
		{"2024-02-30", "", ""},
		{"13 March", "", ""},
		{"12345", "", ""},
		{"99999999999999999999", "", ""},
		{"Version 2.1.3", "", ""},
	}
	for _, c := range cases {
		t.Run(c.hint+"/"+c.in, func(t *testing.T) {
			got, ok := parseDate(c.in, c.hint)
			if got != c.want || ok != (c.want != "") {
				t.Errorf("parseDate(%q, %q) = %q, %v; want %q", c.in, c.hint, got, ok, c.want)
			}
		})
	}
}

// With a zone, a time of day written without one is the site's local time; a written zone or
// offset still wins, and a date alone stays a date.
func TestParseDateInZone(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in, hint string
		loc      *time.Location
		want     string
	}{
		{"December 15, 2016 3:33 PM ET", "", ny, "2016-12-15T15:33:00-05:00"}, // EST, UTC-5
		{"2022-10-17T16:01:26", "", ny, "2022-10-17T16:01:26-04:00"},          // EDT, UTC-4
		{"2022-10-17 16:01", "", ny, "2022-10-17T16:01:00-04:00"},
		{"2022-10-17T16:01:26-04:00", "", tokyo, "2022-10-17T16:01:26-04:00"}, // the written offset wins
		{"2022-10-17T16:01:26Z", "", tokyo, "2022-10-17T16:01:26Z"},
		{"Mar 13, 2024, 2:30 PM GMT", "", tokyo, "2024-03-13T14:30:00Z"},
		{"2019年3月8日 9:30", "", tokyo, "2019-03-08T09:30:00+09:00"},
		{"13/03/2024 14:30", "%d/%m/%Y %H:%M", tokyo, "2024-03-13T14:30:00+09:00"},
		{"2019年3月8日", "", tokyo, "2019-03-08"},
		{"2024-03-13", "", ny, "2024-03-13"},
		{"Mon Aug 03 12:45:00 EDT 2015", "", time.UTC, "2015-08-03T16:45:00Z"}, // a zone name wins
		{"Wed, 09 Mar 2016 10:00:00 PST", "", tokyo, "2016-03-09T10:00:00-08:00"},
		{"Wed, 09 Mar 2016 10:00:00 GMT", "", tokyo, "2016-03-09T10:00:00Z"},
		// a written date's clock with a North American zone name, or an offset: the text's own
		{"Mon, Jan 7 2019 15:37:00 EST", "", time.UTC, "2019-01-07T20:37:00Z"},
		{"January 7, 2019 3:37 PM PDT", "", time.UTC, "2019-01-07T22:37:00Z"},
		{"Mon, Jan 7 2019 15:37:00 EST", "", tokyo, "2019-01-07T15:37:00-05:00"},
		{"13 March 2024 10:00 +01:00", "", tokyo, "2024-03-13T10:00:00+01:00"},
		{"13 March 2024 10:00 UTC", "", ny, "2024-03-13T10:00:00Z"},
		// the zone names of Europe, Asia and Oceania that name one zone, in a layout and in text
		{"Tue, 16 Jul 2019 14:05:00 CEST", "", time.UTC, "2019-07-16T12:05:00Z"},
		{"Tue, 16 Jul 2019 14:05:00 BST", "", tokyo, "2019-07-16T14:05:00+01:00"},
		{"16 July 2019 2:05 pm BST", "", time.UTC, "2019-07-16T13:05:00Z"},
		{"Dec 30, 2014 9:21am WET", "", time.UTC, "2014-12-30T09:21:00Z"},
		{"Dec 30, 2014 9:21am AEDT", "", ny, "2014-12-30T09:21:00+11:00"},
		{"Dec 30, 2014 9:21am ACST", "", time.UTC, "2014-12-29T23:51:00Z"},
		// a name of two zones (IST: India, Ireland, Israel) is no zone: the site's clock
		{"Tue Dec 30, 2014 9:21am IST", "", tokyo, "2014-12-30T09:21:00+09:00"},
	}
	for _, c := range cases {
		got, ok := parseDateIn(c.in, c.hint, c.loc)
		if got != c.want || !ok {
			t.Errorf("parseDateIn(%q, %q, %s) = %q, %v; want %q", c.in, c.hint, c.loc, got, ok, c.want)
		}
	}
}

func TestUnixTime(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "1970-01-01T00:00:00Z"},
		{1710324000, "2024-03-13T10:00:00Z"},
		{1710324000.5, "2024-03-13T10:00:00Z"},
		{1710324000123, "2024-03-13T10:00:00Z"},
		{1710324000123456, "2024-03-13T10:00:00Z"},
		{-86400, "1969-12-31T00:00:00Z"},
	} {
		tm, ok := unixTime(c.in)
		got, _ := formatDate(tm, true)
		if !ok || got != c.want {
			t.Errorf("unixTime(%v) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	for _, bad := range []float64{1e300, -1e300} {
		if _, ok := unixTime(bad); ok {
			t.Errorf("unixTime(%v) accepted", bad)
		}
	}
}

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"PT1H2M3S", 3723, true},
		{"PT4M13S", 253, true},
		{"PT0S", 0, true},
		{"PT1M30.5S", 90.5, true},
		{"P1DT2H", 93600, true},
		{"P0DT0H3M28S", 208, true},
		{"pt5m", 300, true},
		{"P1W", 604800, true},
		{"1:02:03", 3723, true},
		{"2:05", 125, true},
		{"0:59", 59, true},
		{"10:00:00", 36000, true},
		{"1:02:03.5", 3723.5, true},
		{"2:65", 0, false},
		{"90s", 90, true},
		{"90", 90, true},
		{"1.5", 1.5, true},
		{"1h 2m 3s", 3723, true},
		{"1h2m3s", 3723, true},
		{"1h30m", 5400, true},
		{"1 hour, 2 minutes, 3 seconds", 3723, true},
		{"3 minutes, 20 seconds", 200, true},
		{"2 Std. 5 Min.", 7500, true},
		{"10 Min.", 600, true},
		{"1 hora 5 minutos", 3900, true},
		{"1 heure 5 minutes", 3900, true},
		{"1 godz. 5 min", 3900, true},
		{"1 sa 5 dk", 3900, true},
		{"1 ч 5 мин", 3900, true},
		{"1時間2分3秒", 3723, true},
		{"1 시간 2분", 3720, true},
		{"500ms", 0.5, true},
		{"2 days", 172800, true},
		{"1,5 Stunden", 5400, true},
		{"", 0, false},
		{"P", 0, false},
		{"PT", 0, false},
		{"soon", 0, false},
		{"5 apples", 0, false},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, ok := parseDuration(c.in)
			if ok != c.ok || (ok && got != c.want) {
				t.Errorf("parseDuration(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
			}
		})
	}
}

func TestStrftimeToGo(t *testing.T) {
	for in, want := range map[string]string{
		"%Y-%m-%d":           "2006-01-02",
		"%d.%m.%Y %H:%M:%S":  "02.01.2006 15:04:05",
		"%-d/%-m/%y":         "2/1/06",
		"%b %e, %Y %I:%M %p": "Jan _2, 2006 03:04 PM",
		"100%%":              "100%",
		"%Q":                 "%Q",
	} {
		if got := strftimeToGo(in); got != want {
			t.Errorf("strftimeToGo(%q) = %q, want %q", in, got, want)
		}
	}
}
