package funcs

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Dates come as machine formats (JSON-LD, APIs, HTTP headers) or as text in the page's language
// ("13. März 2024", "13 de marzo de 2024", "2024年3月13日"). Machine formats are tried with fixed
// layouts; text goes through a small tokenizer that knows month names in the storefront
// languages, so adding a locale means adding words, not layouts.

// dateLayouts are tried in order on the whole trimmed string; hasTime says whether the layout
// carries a time of day.
var dateLayouts = []struct {
	layout  string
	hasTime bool
}{
	{time.RFC3339Nano, true},
	{"2006-01-02T15:04:05Z0700", true},
	{"2006-01-02T15:04:05.999999999Z0700", true},
	{"2006-01-02T15:04:05.999999999", true},
	{"2006-01-02T15:04Z07:00", true},
	{"2006-01-02T15:04", true},
	{"2006-01-02 15:04:05Z07:00", true},
	{"2006-01-02 15:04:05 Z0700", true},
	{"2006-01-02 15:04:05 MST", true},
	{"2006-01-02 15:04:05.999999999", true},
	{"2006-01-02 15:04", true},
	{time.RFC1123Z, true},
	{time.RFC1123, true},
	{"Mon, 2 Jan 2006 15:04:05 -0700", true},
	{"Mon, 2 Jan 2006 15:04:05 MST", true},
	{"2 Jan 2006 15:04:05 -0700", true},
	{time.RFC850, true},
	{time.RFC822Z, true},
	{time.RFC822, true},
	{time.ANSIC, true},
	{time.UnixDate, true},
	{time.RubyDate, true},
	{"2006-01-02", false},
}

// monthNames maps lower-case month names and abbreviations in the storefront languages (en, de,
// fr, es, it, pt, nl, pl, sv, da/no, tr, ru, uk, cs, hu, ro, ar; nominative and genitive forms)
// to 1-12.
var monthNames = func() map[string]time.Month {
	lists := [][]string{
		{"january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"},
		{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"},
		{"januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember"},
		{"jän", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sept", "okt", "nov", "dez"},
		{"jänner", "feber", "mrz", "", "", "", "", "", "", "", "", ""},
		{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
		{"janv", "févr", "", "avr", "", "", "juil", "aout", "", "", "", "déc"},
		{"", "fév", "", "", "", "", "", "", "", "", "", "dec"},
		{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
		{"ene", "", "", "abr", "", "", "", "ago", "setiembre", "", "", "dic"},
		{"gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre"},
		{"gen", "", "", "", "mag", "giu", "lug", "", "set", "ott", "", ""},
		{"janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"},
		{"", "fev", "", "", "", "", "", "", "", "out", "", ""},
		{"januari", "februari", "maart", "april", "mei", "juni", "juli", "augustus", "september", "oktober", "november", "december"},
		{"", "", "mrt", "", "", "", "", "", "", "", "", ""},
		{"stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia", "września", "października", "listopada", "grudnia"},
		{"styczeń", "luty", "marzec", "kwiecień", "maj", "czerwiec", "lipiec", "sierpień", "wrzesień", "październik", "listopad", "grudzień"},
		{"sty", "lut", "", "kwi", "", "cze", "lip", "sie", "wrz", "paź", "lis", "gru"},
		{"januari", "februari", "mars", "april", "maj", "juni", "juli", "augusti", "september", "oktober", "november", "december"},
		{"januar", "februar", "marts", "april", "maj", "juni", "juli", "august", "september", "oktober", "november", "december"},
		{"ocak", "şubat", "mart", "nisan", "mayıs", "haziran", "temmuz", "ağustos", "eylül", "ekim", "kasım", "aralık"},
		{"oca", "şub", "", "nis", "", "haz", "tem", "ağu", "eyl", "eki", "kas", "ara"},
		{"января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"},
		{"январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь", "октябрь", "ноябрь", "декабрь"},
		{"янв", "фев", "мар", "апр", "", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"},
		{"január", "február", "március", "április", "május", "június", "július", "augusztus", "szeptember", "október", "november", "december"},
		{"", "febr", "márc", "ápr", "máj", "jún", "júl", "", "szept", "", "", ""},
		{"ledna", "února", "března", "dubna", "května", "června", "července", "srpna", "září", "října", "listopadu", "prosince"},
		{"leden", "únor", "březen", "duben", "květen", "červen", "červenec", "srpen", "", "říjen", "listopad", "prosinec"},
		{"ianuarie", "februarie", "martie", "aprilie", "mai", "iunie", "iulie", "august", "septembrie", "octombrie", "noiembrie", "decembrie"},
		{"січня", "лютого", "березня", "квітня", "травня", "червня", "липня", "серпня", "вересня", "жовтня", "листопада", "грудня"},
		{"يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر", "ديسمبر"},
		{"", "", "", "ابريل", "", "يونيه", "يوليه", "اغسطس", "", "اكتوبر", "", ""},
	}
	m := map[string]time.Month{}
	for _, l := range lists {
		for i, w := range l {
			if w != "" {
				m[w] = time.Month(i + 1)
			}
		}
	}
	return m
}()

// fillerWords sit between the parts of a written date and are skipped.
var fillerWords = map[string]bool{
	"de": true, "del": true, "of": true, "the": true, "den": true, "le": true, "el": true, "di": true,
	"van": true, "vom": true, "г": true, "года": true, "on": true,
	"st": true, "nd": true, "rd": true, "th": true, "er": true, "º": true, "ª": true,
}

type dtok struct {
	kind byte // 'n' number, 'w' word, 'p' punctuation, 'y' 年/년, 'm' 月/월, 'd' 日/일
	s    string
	n    int
}

func tokenizeDate(s string) []dtok {
	var out []dtok
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case isDigit(r):
			j := i
			for j < len(rs) && isDigit(rs[j]) {
				j++
			}
			n, _ := strconv.Atoi(string(rs[i:min(j, i+9)]))
			out = append(out, dtok{kind: 'n', s: string(rs[i:j]), n: n})
			i = j
		case r == '年' || r == '년':
			out = append(out, dtok{kind: 'y'})
			i++
		case r == '月' || r == '월':
			out = append(out, dtok{kind: 'm'})
			i++
		case r == '日' || r == '일':
			out = append(out, dtok{kind: 'd'})
			i++
		case unicode.IsLetter(r):
			j := i
			for j < len(rs) && unicode.IsLetter(rs[j]) && !strings.ContainsRune("年월日년月일", rs[j]) {
				j++
			}
			out = append(out, dtok{kind: 'w', s: strings.ToLower(string(rs[i:j]))})
			i = j
		case unicode.IsSpace(r) || isInvisible(r):
			i++
		default:
			out = append(out, dtok{kind: 'p', s: string(r)})
			i++
		}
	}
	return out
}

type dateOrder int

const (
	orderMDY dateOrder = iota // US "03/13/2024"
	orderDMY
)

// slashOrder returns the day/month order a locale uses for numeric dates with '/', which is the
// ambiguous separator ("03/04/2024"); dates with '.' or '-' are day-first everywhere but ISO.
func slashOrder(locale string) dateOrder {
	l := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(locale), "-", "_"))
	if l == "" {
		return orderMDY
	}
	switch l {
	case "en_us", "en_ph", "es_us", "en_ca", "en":
		return orderMDY
	}
	return orderDMY
}

func validDate(y, m, d int) bool {
	if y < 1 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31 {
		return false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	return t.Day() == d
}

func year2(n int, digits int) int {
	if digits == 2 {
		if n < 70 {
			return 2000 + n
		}
		return 1900 + n
	}
	return n
}

// parseTextDate finds the first date written in s.
func parseTextDate(s string, order dateOrder, loc *time.Location) (time.Time, bool, bool) {
	toks := tokenizeDate(s)
	// Drop filler and ordinal suffixes ("13th", "1er", "13 de marzo de 2024") and the '.' and
	// ',' that follow numbers and abbreviations, so that patterns can be written plainly.
	var t []dtok
	for _, k := range toks {
		if k.kind == 'w' && fillerWords[k.s] {
			continue
		}
		if k.kind == 'p' && (k.s == "," || k.s == ".") && len(t) > 0 && (t[len(t)-1].kind == 'w' || t[len(t)-1].kind == 'n') {
			// Keep '.' between numbers: it is the separator of "13.03.2024".
			if k.s == "." && t[len(t)-1].kind == 'n' {
				t = append(t, k)
			}
			continue
		}
		t = append(t, k)
	}
	num := func(i int) bool { return i < len(t) && t[i].kind == 'n' }
	month := func(i int) (time.Month, bool) {
		if i >= len(t) || t[i].kind != 'w' {
			return 0, false
		}
		m, ok := monthNames[t[i].s]
		return m, ok
	}
	isYear := func(i int) bool { return num(i) && len(t[i].s) == 4 }
	isDay := func(i int) bool { return num(i) && len(t[i].s) <= 2 }
	dot := func(i int) bool { return i < len(t) && t[i].kind == 'p' && t[i].s == "." }

	for i := range t {
		var y, d int
		var m time.Month
		next := -1
		switch {
		// 2024年3月13日, 2024년 3월 13일
		case isYear(i) && i+5 < len(t) && t[i+1].kind == 'y' && num(i+2) && t[i+3].kind == 'm' && num(i+4) && t[i+5].kind == 'd':
			y, m, d, next = t[i].n, time.Month(t[i+2].n), t[i+4].n, i+6
		// 13 March 2024, 13. März 2024
		case isDay(i):
			j := i + 1
			if dot(j) {
				j++
			}
			if mm, ok := month(j); ok && isYear(j+1) {
				y, m, d, next = t[j+1].n, mm, t[i].n, j+2
				break
			}
			// 13.03.2024, 13/03/2024, 03/13/24, 13-03-2024
			if j := i + 1; j+3 < len(t) && t[j].kind == 'p' && num(j+1) && len(t[j+1].s) <= 2 && t[j+2].kind == 'p' && t[j+2].s == t[j].s && num(j+3) && (len(t[j+3].s) == 4 || len(t[j+3].s) == 2) {
				sep := t[j].s
				if sep != "." && sep != "/" && sep != "-" {
					break
				}
				a, b := t[i].n, t[j+1].n
				y = year2(t[j+3].n, len(t[j+3].s))
				dayFirst := sep != "/" || order == orderDMY
				if a > 12 {
					dayFirst = true
				} else if b > 12 {
					dayFirst = false
				}
				if dayFirst {
					d, m = a, time.Month(b)
				} else {
					d, m = b, time.Month(a)
				}
				next = j + 4
			}
		// 2024-03-13 and 2024/03/13 inside text; 2024. 3. 13. (Korean)
		case isYear(i) && i+4 < len(t) && t[i+1].kind == 'p' && num(i+2) && t[i+3].kind == 'p' && t[i+3].s == t[i+1].s && num(i+4):
			if s := t[i+1].s; s == "-" || s == "/" || s == "." {
				y, m, d, next = t[i].n, time.Month(t[i+2].n), t[i+4].n, i+5
			}
		// 2024. március 13. (Hungarian), 2024 March 13
		case isYear(i):
			j := i + 1
			if dot(j) {
				j++
			}
			if mm, ok := month(j); ok && isDay(j+1) {
				y, m, d, next = t[i].n, mm, t[j+1].n, j+2
			}
		default:
			// March 13, 2024; Mar 13 2024
			if mm, ok := month(i); ok && isDay(i+1) {
				j := i + 2
				if dot(j) {
					j++
				}
				if isYear(j) {
					y, m, d, next = t[j].n, mm, t[i+1].n, j+1
				}
			}
		}
		if next < 0 || !validDate(y, int(m), d) {
			continue
		}
		date := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		if tt, ok := parseClock(t[next:], date, loc); ok {
			return tt, true, true
		}
		return date, false, true
	}
	return time.Time{}, false, false
}

// clockWords may stand between a date and its time ("13 March 2024 at 10:00", "um 10:00 Uhr").
var clockWords = map[string]bool{"at": true, "um": true, "à": true, "a": true, "las": true, "às": true,
	"alle": true, "om": true, "o": true, "kl": true, "t": true, "saat": true, "в": true}

// parseClock reads "10:00", "10:00:05", "3:04 PM", optionally followed by a zone (Z, UTC, GMT,
// +01:00, a North American zone name: EST, PDT ...) at the start of t, and applies it to date; a
// clock without a zone is read in loc.
func parseClock(t []dtok, date time.Time, loc *time.Location) (time.Time, bool) {
	i := 0
	for i < len(t) && (t[i].kind == 'w' && clockWords[t[i].s] || t[i].kind == 'p' && (t[i].s == "," || t[i].s == "-")) {
		i++
	}
	if i+2 >= len(t) || t[i].kind != 'n' || len(t[i].s) > 2 || t[i+1].kind != 'p' || t[i+1].s != ":" || t[i+2].kind != 'n' || len(t[i+2].s) != 2 {
		return time.Time{}, false
	}
	h, mi, sec := t[i].n, t[i+2].n, 0
	i += 3
	if i+1 < len(t) && t[i].kind == 'p' && t[i].s == ":" && t[i+1].kind == 'n' && len(t[i+1].s) == 2 {
		sec = t[i+1].n
		i += 2
		// fractional seconds are dropped: the output has second precision.
		if i+1 < len(t) && t[i].kind == 'p' && (t[i].s == "." || t[i].s == ",") && t[i+1].kind == 'n' {
			i += 2
		}
	}
	if i < len(t) && t[i].kind == 'w' {
		switch strings.ReplaceAll(t[i].s, ".", "") {
		case "pm", "p":
			if h < 12 {
				h += 12
			}
			i++
		case "am", "a":
			if h == 12 {
				h = 0
			}
			i++
		}
		// "p.m." reaches here as the words "p" and "m".
		if i < len(t) && t[i].kind == 'w' && t[i].s == "m" && (t[i-1].s == "p" || t[i-1].s == "a") {
			i++
		}
	}
	if h > 23 || mi > 59 || sec > 60 {
		return time.Time{}, false
	}
	offset, zoned := 0, false
	if i < len(t) {
		switch {
		case t[i].kind == 'w' && (t[i].s == "z" || t[i].s == "utc" || t[i].s == "gmt"):
			zoned = true
			i++
			if i < len(t) && t[i].kind == 'p' && (t[i].s == "+" || t[i].s == "-") {
				offset = zoneOffset(t[i:])
			}
		case t[i].kind == 'p' && (t[i].s == "+" || t[i].s == "-"):
			zoned = true
			offset = zoneOffset(t[i:])
		case t[i].kind == 'w':
			// "3:37 PM EST", "15:37:00 EDT", "14:05 CET"
			if m, ok := zoneNames[strings.ToUpper(t[i].s)]; ok {
				zoned, offset = true, m*60
			}
		}
	}
	if !zoned {
		return time.Date(date.Year(), date.Month(), date.Day(), h, mi, sec, 0, loc), true
	}
	// the text's own offset: the same instant, shown as the text gives it where the answer keeps
	// offsets (see parseDateIn)
	return time.Date(date.Year(), date.Month(), date.Day(), h, mi, sec, 0, time.FixedZone("", offset)), true
}

// zoneOffset reads "+01:00", "+0100", "+1" at the start of t, in seconds east of UTC.
func zoneOffset(t []dtok) int {
	if len(t) < 2 || t[1].kind != 'n' {
		return 0
	}
	sign := 1
	if t[0].s == "-" {
		sign = -1
	}
	h, m := t[1].n, 0
	switch len(t[1].s) {
	case 4:
		h, m = t[1].n/100, t[1].n%100
	case 1, 2:
		if len(t) >= 4 && t[2].s == ":" && t[3].kind == 'n' {
			m = t[3].n
		}
	default:
		return 0
	}
	if h > 14 || m > 59 {
		return 0
	}
	return sign * (h*3600 + m*60)
}

// unixTime reads a Unix timestamp. Values too large to be seconds are taken as milliseconds or
// microseconds (YouTube and many JSON APIs use both): 1e11 seconds is the year 5138.
func unixTime(f float64) (time.Time, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return time.Time{}, false
	}
	switch a := math.Abs(f); {
	case a >= 1e14:
		f /= 1e6
	case a >= 1e11:
		f /= 1e3
	}
	if f < -62135596800 || f > 253402300799 { // years 1 to 9999
		return time.Time{}, false
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
}

var localeLike = regexp.MustCompile(`^[a-zA-Z]{2,3}(?:[_-][a-zA-Z0-9]{2,4})?$`)

// parseDate returns the date in s as "2006-01-02" or, when s has a time of day, as RFC 3339 in
// UTC. hint is a Go layout ("02.01.2006"), a strftime layout ("%d.%m.%Y"), a locale for the
// order of numeric dates ("en_GB": 03/04/2024 is 3 April), or "".
// Text longer than MaxDateText has no date.
func parseDate(s, hint string) (string, bool) {
	return parseDateIn(s, hint, time.UTC)
}

// parseDateIn is parseDate reading a time of day written without a zone in loc (a site's own
// time zone) instead of UTC; with a loc other than UTC, the answer keeps the offset the time was
// read in.
func parseDateIn(s, hint string, loc *time.Location) (string, bool) {
	if len(s) > MaxDateText {
		return "", false
	}
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	var t time.Time
	var hasTime, ok bool
	switch {
	case hint != "" && !localeLike.MatchString(hint):
		layout := hint
		if strings.Contains(hint, "%") {
			layout = strftimeToGo(hint)
		}
		var err error
		t, err = time.ParseInLocation(layout, s, loc)
		if err != nil {
			return "", false
		}
		hasTime, ok = layoutHasTime(layout), true
	default:
		t, hasTime, ok = parseAnyDate(s, slashOrder(hint), loc)
	}
	if !ok {
		return "", false
	}
	if hasTime && loc != time.UTC {
		// A site's own zone: the time keeps the offset it was read in (the text's own, else the
		// zone's), so that the answer shows the page's clock as well as the instant.
		return formatLocal(t)
	}
	return formatDate(t, hasTime)
}

// formatLocal is t in RFC 3339 with its own offset.
func formatLocal(t time.Time) (string, bool) {
	if t.Year() < 1 || t.Year() > 9999 {
		return "", false
	}
	return t.Format(time.RFC3339), true
}

func formatDate(t time.Time, hasTime bool) (string, bool) {
	if hasTime {
		t = t.UTC()
	}
	if t.Year() < 1 || t.Year() > 9999 {
		return "", false
	}
	if hasTime {
		return t.Format(time.RFC3339), true
	}
	return t.Format("2006-01-02"), true
}

func parseAnyDate(s string, order dateOrder, loc *time.Location) (time.Time, bool, bool) {
	for _, l := range dateLayouts {
		if t, err := time.ParseInLocation(l.layout, s, loc); err == nil {
			return namedZone(t, l.layout), l.hasTime, true
		}
	}
	if allDigits(s) {
		switch len(s) {
		case 8: // 20240313, as in yt-dlp's upload_date
			y, _ := strconv.Atoi(s[:4])
			m, _ := strconv.Atoi(s[4:6])
			d, _ := strconv.Atoi(s[6:])
			if validDate(y, m, d) {
				return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), false, true
			}
			return time.Time{}, false, false
		case 9, 10, 13, 16:
			n, _ := strconv.ParseFloat(s, 64)
			t, ok := unixTime(n)
			return t, true, ok
		}
		return time.Time{}, false, false
	}
	return parseTextDate(s, order, loc)
}

// zoneNames are the zone abbreviations pages print in dates ("Mon Aug 03 12:45:00 EDT 2015",
// "14:05 CET"), in minutes east of UTC: North America's, and the ones of Europe, Asia and Oceania
// that name one zone. An abbreviation of two zones in news pages (IST: India, Ireland and Israel;
// AST: Atlantic and Arabia) is not among them, so that its time is read in the site's zone like a
// time without one rather than at a guessed offset. Go reads a zone name it does not know as UTC
// with that name, which read "9:21am IST" five and a half hours late.
var zoneNames = map[string]int{
	"EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360, "PST": -480, "PDT": -420,
	"AKST": -540, "AKDT": -480, "HST": -600,
	"WET": 0, "WEST": 60, "BST": 60, "CET": 60, "CEST": 120, "MEZ": 60, "MESZ": 120, "EET": 120, "EEST": 180, "MSK": 180,
	"JST": 540, "KST": 540, "HKT": 480, "SGT": 480, "AWST": 480, "ACST": 570, "ACDT": 630, "AEST": 600, "AEDT": 660,
	"NZST": 720, "NZDT": 780,
}

// namedZone gives t, parsed with a layout that names its zone, the offset of a zone name of
// zoneNames that Go read as UTC.
func namedZone(t time.Time, layout string) time.Time {
	if !strings.Contains(layout, "MST") {
		return t
	}
	name, off := t.Zone()
	m, ok := zoneNames[name]
	if !ok || off != 0 {
		return t
	}
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.FixedZone(name, m*60))
}

func allDigits(s string) bool {
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

func layoutHasTime(layout string) bool {
	return strings.Contains(layout, "15") || strings.Contains(layout, "04") || strings.Contains(layout, "PM") || strings.Contains(layout, "pm")
}

// strftimeToGo converts the strftime directives people know from Python and yt-dlp.
func strftimeToGo(f string) string {
	repl := map[byte]string{
		'Y': "2006", 'y': "06", 'm': "01", 'd': "02", 'e': "_2", 'H': "15", 'I': "03", 'M': "04",
		'S': "05", 'p': "PM", 'b': "Jan", 'h': "Jan", 'B': "January", 'a': "Mon", 'A': "Monday",
		'z': "-0700", 'Z': "MST", 'j': "002", 'f': "000000", '%': "%",
	}
	noPad := map[byte]string{'d': "2", 'm': "1", 'H': "15", 'I': "3", 'M': "4", 'S': "5", 'j': "__2"}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		if f[i] == '-' && i+1 < len(f) {
			if r, ok := noPad[f[i+1]]; ok {
				b.WriteString(r)
				i++
				continue
			}
		}
		if r, ok := repl[f[i]]; ok {
			b.WriteString(r)
		} else {
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}

// Duration parsing.

var (
	isoDuration   = regexp.MustCompile(`^(-)?P(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$`)
	clockDuration = regexp.MustCompile(`^(-)?(\d+):(\d{1,2})(?::(\d{1,2}))?(?:[.,](\d+))?$`)
	unitDuration  = regexp.MustCompile(`(\d+(?:[.,]\d+)?)\s*(\pL+)`)
)

// durationUnits maps unit words in the storefront languages to seconds.
var durationUnits = func() map[string]float64 {
	m := map[string]float64{}
	add := func(sec float64, words string) {
		for _, w := range strings.Fields(words) {
			m[w] = sec
		}
	}
	add(0.001, "ms msec millisecond milliseconds")
	add(1, `s sec secs second seconds sek sekunde sekunden seg segundo segundos seconde secondes
		secondo secondi seconden sekund sekundy sekundę sekunder sn saniye с сек секунд секунда секунды
		ثانية ثواني 秒 초`)
	add(60, `m min mins minute minutes minuten minuto minutos minuti minuut minut minuty minutę
		minutter minuter dk dakika мин минут минута минуты دقيقة دقائق 分 分钟 분`)
	add(3600, `h hr hrs hour hours std stunde stunden heure heures ora ore hora horas uur godz
		godzina godziny godzin timme timmar time timer tim t saat sa ч час часа часов ساعة ساعات 時間 小时 時 시간`)
	add(86400, `d day days tag tage tagen jour jours giorno giorni día días dia dias dag dagen dagar
		dzień dni gün д день дня дней يوم أيام 日 天 일`)
	add(604800, "w wk wks week weeks woche wochen semaine semaines settimana settimane semana semanas")
	return m
}()

// parseDuration returns the length of s in seconds: ISO 8601 ("PT1H2M3S"), clock ("1:02:03",
// "2:05"), or numbers with units ("1h 2m 3s", "90s", "2 Std. 5 Min.", "1時間2分"). Text longer
// than MaxDurationText has no duration.
func parseDuration(s string) (float64, bool) {
	if len(s) > MaxDurationText {
		return 0, false
	}
	s = strings.TrimSpace(normSpace(s))
	if s == "" {
		return 0, false
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, !math.IsInf(f, 0) && !math.IsNaN(f)
	}
	num := func(v string) float64 {
		f, _ := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64)
		return f
	}
	if m := isoDuration.FindStringSubmatch(strings.ToUpper(s)); m != nil && s != "P" && !strings.HasSuffix(strings.ToUpper(s), "T") {
		// Years and months have no fixed length; 365 and 30 days are the usual approximation.
		total := num(m[2])*365*86400 + num(m[3])*30*86400 + num(m[4])*7*86400 + num(m[5])*86400 +
			num(m[6])*3600 + num(m[7])*60 + num(m[8])
		if m[1] == "-" {
			total = -total
		}
		return total, true
	}
	if m := clockDuration.FindStringSubmatch(s); m != nil {
		a, b := num(m[2]), num(m[3])
		var total float64
		if m[4] != "" {
			if b > 59 || num(m[4]) > 59 {
				return 0, false
			}
			total = a*3600 + b*60 + num(m[4])
		} else {
			if b > 59 {
				return 0, false
			}
			total = a*60 + b
		}
		if m[5] != "" {
			total += num("0." + m[5])
		}
		if m[1] == "-" {
			total = -total
		}
		return total, true
	}
	var total float64
	found := false
	for _, m := range unitDuration.FindAllStringSubmatch(s, -1) {
		if sec, ok := durationUnits[strings.ToLower(m[2])]; ok {
			total += num(m[1]) * sec
			found = true
		}
	}
	if !found || math.IsInf(total, 0) {
		return 0, false
	}
	return total, true
}
