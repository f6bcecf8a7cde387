package universal

import (
	"strconv"
	"strings"
	"time"

	"github.com/itlightning/dateparse"
)

// Output layouts of isoDate.
const (
	layoutZoned = "2006-01-02T15:04:05.999999999Z07:00"
	layoutLocal = "2006-01-02T15:04:05.999999999"
	layoutDate  = "2006-01-02"
)

var (
	zonedLayouts = []string{time.RFC3339, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04Z07:00", "2006-01-02 15:04:05Z07:00",
		"2006-01-02 15:04:05 Z07:00", "2006-01-02 15:04:05 -0700", "2006-01-02T15:04:05 -0700", "2006-01-02 15:04:05-07",
		"2006-01-02T15:04:05-07", time.RFC1123Z, time.RFC1123, time.RFC850, time.RFC822Z, "Mon, 2 Jan 2006 15:04:05 -0700"}
	localLayouts = []string{"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04"}
	dateLayouts  = []string{"2006-01-02", "2006/01/02", "2006.01.02"}
)

// isoDate normalises a date as pages write it to ISO 8601: "2006-01-02T15:04:05+01:00" when it
// names its zone (the offset and fractional seconds are kept as written),
// "2006-01-02T15:04:05" when it gives a time without a zone, "2006-01-02" for a date alone.
// Unix timestamps (10 or 13 digits) are UTC. Anything unreadable, ambiguous (03/04/2015) or
// outside 1900-2199 gives "".
func isoDate(s string) string {
	s = clean(s)
	if s == "" || len(s) > 64 {
		return ""
	}
	if isDigits(s) && (len(s) == 10 || len(s) == 13) {
		n, _ := strconv.ParseInt(s, 10, 64)
		if len(s) == 13 {
			n /= 1000
		}
		return checkYear(time.Unix(n, 0).UTC(), layoutZoned)
	}
	for _, l := range zonedLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return checkYear(t, layoutZoned)
		}
	}
	for _, l := range localLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return checkYear(t, layoutLocal)
		}
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return checkYear(t, layoutDate)
		}
	}
	layout, err := dateparse.ParseFormat(s, dateparse.SimpleErrorMessages(true))
	if err != nil {
		return ""
	}
	t, err := dateparse.ParseStrict(s, dateparse.SimpleErrorMessages(true))
	if err != nil {
		return ""
	}
	switch {
	case strings.Contains(layout, "Z07") || strings.Contains(layout, "-07") || strings.Contains(layout, "MST"):
		return checkYear(t, layoutZoned)
	case strings.Contains(layout, "15") || strings.Contains(layout, "3:04") || strings.Contains(layout, "03"):
		return checkYear(t, layoutLocal)
	}
	return checkYear(t, layoutDate)
}

func checkYear(t time.Time, layout string) string {
	if y := t.Year(); y < 1900 || y > 2199 {
		return ""
	}
	return t.Format(layout)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
