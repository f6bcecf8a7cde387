package universal

import (
	"regexp"
	"strconv"
	"strings"
)

// isoDuration normalises a recipe time to an ISO 8601 duration: days, hours, minutes and seconds,
// zero parts left out ("PT1H30M", "P1DT2H", "PT0M"). It reads ISO forms written loosely ("P0DT1H25M",
// "PT3900S", "PT0D4H45M" with the days after the T, "PT1.5H") and times in words in several
// languages ("35 minuti", "1 hr 20 mins", "1 Std. 30 Min.", "2 heures"); a bare number is minutes.
// "" when s holds no time ("PTNaNM", "Prep Time (approx.)").
func isoDuration(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 100 {
		return ""
	}
	var secs float64
	found := false
	if isoLike.MatchString(s) {
		afterT := false
		for _, m := range isoPart.FindAllStringSubmatchIndex(s, -1) {
			// a T before this part makes M minutes, not months
			if strings.ContainsAny(strings.ToUpper(s[:m[0]]), "T") {
				afterT = true
			}
			f, err := strconv.ParseFloat(strings.ReplaceAll(s[m[2]:m[3]], ",", "."), 64)
			if err != nil {
				continue
			}
			found = true
			switch strings.ToUpper(s[m[4]:m[5]]) {
			case "W":
				secs += f * 7 * 86400
			case "D":
				secs += f * 86400
			case "H":
				secs += f * 3600
			case "M":
				if afterT {
					secs += f * 60
				} else {
					secs += f * 30 * 86400
				}
			case "S":
				secs += f
			}
		}
	} else {
		for _, m := range wordPart.FindAllStringSubmatch(strings.ToLower(s), -1) {
			f, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", "."), 64)
			if err != nil {
				continue
			}
			found = true
			switch u := m[2]; {
			case strings.HasPrefix(u, "d") || strings.HasPrefix(u, "g") || strings.HasPrefix(u, "j") || strings.HasPrefix(u, "t"):
				secs += f * 86400 // day, días, giorni, jours, Tage
			case strings.HasPrefix(u, "h") || strings.HasPrefix(u, "o") || strings.HasPrefix(u, "std") || strings.HasPrefix(u, "u"):
				secs += f * 3600 // hour, hr, h, ora, ore, Std, Stunde, uur
			case strings.HasPrefix(u, "s"):
				secs += f // s, sec, seconds, secondi
			default:
				secs += f * 60 // min, minutes, minuti, minutos, Minuten, m
			}
		}
		if !found {
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				secs, found = f*60, true
			}
		}
	}
	if !found || secs < 0 || secs > 365*86400 {
		return ""
	}
	total := int64(secs + 0.5)
	d, h, m, sec := total/86400, total%86400/3600, total%3600/60, total%60
	var b strings.Builder
	b.WriteByte('P')
	if d > 0 {
		b.WriteString(strconv.FormatInt(d, 10) + "D")
	}
	if h > 0 || m > 0 || sec > 0 || d == 0 {
		b.WriteByte('T')
		if h > 0 {
			b.WriteString(strconv.FormatInt(h, 10) + "H")
		}
		if m > 0 || (h == 0 && sec == 0) {
			b.WriteString(strconv.FormatInt(m, 10) + "M")
		}
		if sec > 0 {
			b.WriteString(strconv.FormatInt(sec, 10) + "S")
		}
	}
	return b.String()
}

var (
	isoLike  = regexp.MustCompile(`(?i)^P[0-9T]`)
	isoPart  = regexp.MustCompile(`(?i)(\d+(?:[.,]\d+)?)([WDHMS])`)
	wordPart = regexp.MustCompile(`(\d+(?:[.,]\d+)?)\s*(days?|días?|dias?|giorni|giorno|jours?|tage?n?|hours?|hrs?|h|ore|ora|horas?|heures?|std\.?|stunden?|uur|minutes?|mins?|minuti|minuto|minutos|minuten|m|seconds?|secs?|secondi|s)\b`)
)

// ingredients is the recipe's ingredient lines, cleaned, with doubled parentheses made single
// ("1 cup ((240 ml))" as some plugins write an optional note inside their own parentheses).
func ingredients(v any) []string {
	out := texts(v)
	for i, s := range out {
		for strings.Contains(s, "((") || strings.Contains(s, "))") {
			s = strings.ReplaceAll(strings.ReplaceAll(s, "((", "("), "))", ")")
		}
		out[i] = strings.ReplaceAll(strings.ReplaceAll(s, "( ", "("), " )", ")")
	}
	return out
}
