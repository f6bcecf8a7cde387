package sitedef

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// yaml.v3 reports a syntax error with a line only, and often the line where the enclosing mapping
// starts rather than the one at fault. Nearly every such error in a sitedef is an expression, XPath or
// pattern written unquoted where YAML gives its characters a meaning (": ", "?" and "," inside { },
// a leading quote or bracket that does not cover the whole value). syntaxError finds that value on or
// after the line yaml.v3 names and says how to quote it.

// syntaxSuspect is a value that YAML cannot read as the author meant.
type syntaxSuspect struct {
	line, col int    // 1-based; col counts characters
	why       string // what YAML did with the value
	key       string // the key the value belongs to, when there is one
	value     string // the value as written, for the quoted suggestion
}

func (s *syntaxSuspect) message(yamlMsg string) string {
	fix := quoteYAML(s.value)
	if s.key != "" {
		fix = s.key + ": " + fix
	}
	return fmt.Sprintf("invalid YAML (%s): %s; quote the whole value: %s", yamlMsg, s.why, fix)
}

// quoteYAML single-quotes v, YAML's quoting in which only the quote itself needs escaping.
func quoteYAML(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

var (
	yamlLineRe = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)
	// nextKeyRe finds where the next entry of a flow mapping starts.
	nextKeyRe = regexp.MustCompile(`^,\s*[A-Za-z_][\w-]*:\s`)
)

// syntaxError turns yaml.v3's message for a syntax error into a line, a column and a message.
func syntaxError(data []byte, msg string) (line, col int, out string) {
	msg = strings.TrimPrefix(msg, "yaml: ")
	line = 1
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	if msg == "" {
		msg = "syntax error"
	}
	line = max(line, 1)
	if s := findSuspect(string(data), line); s != nil {
		return s.line, s.col, s.message(msg)
	}
	if strings.Contains(msg, "tab character") {
		// YAML indents with spaces only; point at the first tab that indents a line.
		for i, l := range strings.SplitAfter(string(data), "\n") {
			if i+1 >= line {
				if t := strings.IndexByte(l, '\t'); t >= 0 && strings.TrimLeft(l[:t], " ") == "" {
					return i + 1, t + 1, "invalid YAML: " + msg + "; indent with spaces"
				}
			}
		}
	}
	return line, 1, "invalid YAML: " + msg
}

// findSuspect scans the block-style lines from `from` on for the first value YAML cannot read as
// written. Block scalars (| and >) and comments are skipped. The scan is one pass over the bytes.
func findSuspect(src string, from int) *syntaxSuspect {
	lines := strings.Split(src, "\n")
	blockIndent := -1
	for i, raw := range lines {
		text := strings.TrimRight(raw, "\r")
		trimmed := strings.TrimLeft(text, " ")
		indent := len(text) - len(trimmed)
		if blockIndent >= 0 {
			if trimmed == "" || indent > blockIndent {
				continue
			}
			blockIndent = -1
		}
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		pos := indent
		for strings.HasPrefix(text[pos:], "- ") {
			pos += 2
			for pos < len(text) && text[pos] == ' ' {
				pos++
			}
		}
		key, vstart := splitKey(text, pos)
		value := stripComment(text[vstart:])
		if value == "" {
			continue
		}
		if value[0] == '|' || value[0] == '>' {
			blockIndent = indent
			continue
		}
		if i+1 < from {
			continue
		}
		// A suspect counts only if YAML refuses its line on its own: `{expr: max(a, b)}` is valid YAML
		// (the decoder reports what it became), and the error is further on.
		if s := checkValue(text, vstart, value, key); s != nil && !validYAML(text[pos:]) {
			s.line = i + 1
			return s
		}
	}
	return nil
}

func validYAML(line string) bool {
	var v any
	return yaml.Unmarshal([]byte(line), &v) == nil
}

// splitKey finds a block mapping key at text[pos:]: the key and where its value starts. Without a key
// (a list item, a continuation line) the value starts at pos.
func splitKey(text string, pos int) (string, int) {
	rest := text[pos:]
	if rest == "" || strings.ContainsRune(`"'[{`, rune(rest[0])) {
		return "", pos
	}
	for i := 0; i < len(rest); i++ {
		switch {
		case rest[i] == '#' && i > 0 && rest[i-1] == ' ':
			return "", pos
		case rest[i] == ':' && (i+1 == len(rest) || rest[i+1] == ' '):
			v := pos + i + 1
			for v < len(text) && text[v] == ' ' {
				v++
			}
			return strings.TrimSpace(rest[:i]), v
		}
	}
	return "", pos
}

// stripComment drops a trailing " # comment" outside quotes and trailing spaces.
func stripComment(v string) string {
	var quote byte
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			if i == 0 || strings.IndexByte(" [{,:", v[i-1]) >= 0 {
				quote = c
			}
		case c == '#' && i > 0 && v[i-1] == ' ':
			return strings.TrimRight(v[:i], " ")
		}
	}
	return strings.TrimRight(v, " ")
}

// column converts a byte offset of text to a 1-based character column.
func column(text string, off int) int { return utf8.RuneCountInString(text[:off]) + 1 }

// checkValue looks at one block value, starting at text[vstart:].
func checkValue(text string, vstart int, value, key string) *syntaxSuspect {
	at := func(off int, why string) *syntaxSuspect {
		return &syntaxSuspect{col: column(text, vstart+off), why: why, key: key, value: value}
	}
	switch c := value[0]; c {
	case '"', '\'':
		end := closingQuote(value, 0)
		if end < 0 {
			return nil
		}
		if rest := strings.TrimSpace(value[end+1:]); rest != "" {
			return at(end+1, fmt.Sprintf("the value starts with a quoted string and goes on after it (%q), but YAML takes a quoted value whole", rest))
		}
	case '[', '{':
		end, s := checkFlow(value, 0)
		if s != nil {
			s.col = column(text, vstart+s.col)
			return s
		}
		if end > 0 && end+1 < len(value) && strings.TrimSpace(value[end+1:]) != "" {
			return at(end+1, fmt.Sprintf("the value starts with %q and goes on after its closing %q, but YAML reads %s as a whole list or mapping", c, value[end], string(c)+"..."+string(value[end])))
		}
	case '@', '`':
		return at(0, fmt.Sprintf("%q cannot start an unquoted YAML value", c))
	case '*', '&', '!':
		return at(0, fmt.Sprintf("YAML reads a leading %q as %s", c, map[byte]string{'*': "an alias", '&': "an anchor", '!': "a tag"}[c]))
	case '%':
		return at(0, `"%" cannot start an unquoted YAML value`)
	default:
		if i := strings.Index(value, ": "); i >= 0 {
			return at(i, `the value holds ": " unquoted, which YAML reads as the start of a nested key`)
		}
		if strings.HasSuffix(value, ":") {
			return at(len(value)-1, `the value ends with ":" unquoted, which YAML reads as a nested key`)
		}
	}
	return nil
}

// closingQuote returns the index of the quote closing the string opened at v[start], or -1.
func closingQuote(v string, start int) int {
	q := v[start]
	for i := start + 1; i < len(v); i++ {
		switch {
		case q == '"' && v[i] == '\\':
			i++
		case v[i] == q && q == '\'' && i+1 < len(v) && v[i+1] == '\'':
			i++
		case v[i] == q:
			return i
		}
	}
	return -1
}

// checkFlow walks the flow collection opened at v[start] ({ or [) and returns the index of its closing
// bracket (-1 when it does not close on this line) or the first unquoted value inside it that YAML
// splits or refuses: in flow style "?", ",", brackets and ": " end or break a plain value. The
// suspect's col is a byte offset into v, for the caller to convert.
func checkFlow(v string, start int) (int, *syntaxSuspect) {
	open := v[start]
	closeB := byte('}')
	if open == '[' {
		closeB = ']'
	}
	i := start + 1
	for i < len(v) {
		for i < len(v) && (v[i] == ' ' || v[i] == ',') {
			i++
		}
		if i >= len(v) {
			return -1, nil
		}
		if v[i] == closeB {
			return i, nil
		}
		key := ""
		if open == '{' {
			// A key: plain up to ":", or quoted.
			j := i
			if v[j] == '"' || v[j] == '\'' {
				if e := closingQuote(v, j); e >= 0 {
					j = e + 1
				}
			}
			k := strings.IndexByte(v[j:], ':')
			if k < 0 {
				return -1, nil
			}
			key = strings.TrimSpace(v[i : j+k])
			i = j + k + 1
			for i < len(v) && v[i] == ' ' {
				i++
			}
		}
		if i >= len(v) {
			return -1, nil
		}
		switch v[i] {
		case '"', '\'':
			e := closingQuote(v, i)
			if e < 0 {
				return -1, nil
			}
			j := e + 1
			for j < len(v) && v[j] == ' ' {
				j++
			}
			if j < len(v) && v[j] != ',' && v[j] != closeB {
				return -1, &syntaxSuspect{col: j, key: key, value: flowValue(v, i, closeB),
					why: "a value inside " + string(open) + " " + string(closeB) + " starts with a quoted string and goes on after it, but YAML takes a quoted value whole"}
			}
			i = j
		case '[', '{':
			e, s := checkFlow(v, i)
			if s != nil || e < 0 {
				return -1, s
			}
			i = e + 1
		default:
			j := i
		scan:
			for ; j < len(v); j++ {
				c := v[j]
				why := ""
				switch {
				case c == closeB:
					break scan
				case c == ',':
					if open == '[' || nextKeyRe.MatchString(v[j:]) || strings.HasPrefix(strings.TrimLeft(v[j+1:], " "), "}") {
						break scan
					}
					why = `a value inside { } holds "," unquoted, where YAML ends the value`
				case c == '?':
					why = fmt.Sprintf("a value inside %c %c holds \"?\" unquoted, which YAML does not allow there", open, closeB)
				case c == '[' || c == '{' || c == ']' || c == '}':
					why = fmt.Sprintf("a value inside %c %c holds %q unquoted, which YAML reads as a bracket of its own", open, closeB, c)
				case c == ':' && j+1 < len(v) && v[j+1] == ' ':
					why = fmt.Sprintf("a value inside %c %c holds \": \" unquoted, which YAML reads as the start of a key", open, closeB)
				case c == '#' && v[j-1] == ' ':
					why = `a value holds " #" unquoted, where YAML starts a comment`
				}
				if why != "" {
					return -1, &syntaxSuspect{col: j, key: key, value: flowValue(v, i, closeB), why: why}
				}
			}
			i = j
		}
	}
	return -1, nil
}

// flowValue guesses how far the value starting at v[i] was meant to go: to the next "key:" of the
// mapping, else to the closing bracket at the end of the line.
func flowValue(v string, i int, closeB byte) string {
	for j := i; j < len(v); j++ {
		if v[j] == ',' && nextKeyRe.MatchString(v[j:]) {
			return strings.TrimSpace(v[i:j])
		}
	}
	end := strings.LastIndexByte(v, closeB)
	if end <= i {
		end = len(v)
	}
	return strings.TrimSpace(v[i:end])
}
