package funcs

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"
)

// normSpace collapses every whitespace run (NBSP, thin and ideographic spaces, line breaks) to
// one space and trims. Invisible marks (ZWSP, LRM/RLM, soft hyphen, BOM) are removed rather than
// turned into spaces: Amazon puts LRM/RLM inside labels ("Publisher ‏ : ‎ Sony") and a ZWSP
// inside a word is not a word break.
func normSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case isInvisible(r):
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// blockTags become line breaks in stripTags, so that "<li>a</li><li>b</li>" gives two lines and
// not "ab".
var blockTags = map[string]bool{
	"br": true, "p": true, "div": true, "li": true, "ul": true, "ol": true, "tr": true, "td": true,
	"th": true, "table": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true,
	"h6": true, "section": true, "article": true, "header": true, "footer": true, "blockquote": true,
	"pre": true, "hr": true, "dd": true, "dt": true, "dl": true, "figure": true, "figcaption": true,
}

// stripTags removes tags, comments and the content of script, style and template elements, turns
// block elements and <br> into line breaks, unescapes entities and trims. It does not build a DOM, so
// it also works on fragments and broken markup; a '<' not starting a tag ("a < b") is kept.
func stripTags(s string) string { return strings.TrimSpace(html.UnescapeString(stripMarkup(s, false))) }

// stripMarkup is stripTags before its entities are unescaped. With layout, the text's own
// whitespace is a space and only the markup breaks lines, as in a browser: a block element or <br>
// is \n, a paragraph (p) U+2029 (see blockText).
func stripMarkup(s string, layout bool) string {
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		lt := strings.IndexByte(s[i:], '<')
		if lt < 0 {
			writeText(&b, s[i:], layout)
			break
		}
		writeText(&b, s[i:i+lt], layout)
		i += lt
		rest := s[i:]
		if strings.HasPrefix(rest, "<!--") {
			end := strings.Index(rest[4:], "-->")
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		if len(rest) < 2 || !(isASCIILetter(rest[1]) || rest[1] == '/' || rest[1] == '!' || rest[1] == '?') {
			b.WriteByte('<')
			i++
			continue
		}
		end := tagEnd(rest)
		if end < 0 {
			// An unclosed tag at the end is cut markup, not text.
			break
		}
		name, closing := tagName(rest[:end])
		i += end
		switch {
		case layout && name == "p":
			b.WriteRune('\u2029')
		case blockTags[name]:
			b.WriteByte('\n')
		}
		if !closing && (name == "script" || name == "style" || name == "template" || name == "noscript") {
			// Raw text: skip to the matching close tag.
			stop := indexFold(s[i:], "</"+name)
			if stop < 0 {
				break // the rest is raw text
			}
			i += stop
		}
	}
	return b.String()
}

// writeText writes a run of text between tags; with layout, its line breaks and tabs are spaces.
func writeText(b *strings.Builder, t string, layout bool) {
	if !layout || !strings.ContainsAny(t, "\n\r\t\f") {
		b.WriteString(t)
		return
	}
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case '\n', '\r', '\t', '\f':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
}

// blockText is the text of an HTML fragment as a browser lays it out, where stripTags keeps the
// markup's own line breaks and none between paragraphs: a post's text (facebook's <p> paragraphs
// and <br> lines) reads as its author wrote it. The text's whitespace is collapsed, <br> and block
// elements end a line, a paragraph (p) is set off by a blank line; each line is trimmed and empty
// ones dropped. Entities, scripts and comments are treated as stripTags treats them.
func blockText(s string) string {
	raw := html.UnescapeString(stripMarkup(s, true))
	var out strings.Builder
	out.Grow(len(raw))
	for para := range strings.SplitSeq(raw, "\u2029") {
		first := true
		for line := range strings.SplitSeq(para, "\n") {
			if line = normSpace(line); line == "" {
				continue
			}
			switch {
			case !first:
				out.WriteByte('\n')
			case out.Len() > 0:
				out.WriteString("\n\n")
			}
			out.WriteString(line)
			first = false
		}
	}
	return out.String()
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// tagEnd returns the index just after the '>' that closes the tag at the start of s, skipping
// quoted attribute values, or -1.
func tagEnd(s string) int {
	var quote byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		}
	}
	return -1
}

func tagName(tag string) (name string, closing bool) {
	tag = tag[1:]
	if strings.HasPrefix(tag, "/") {
		closing = true
		tag = tag[1:]
	}
	end := 0
	for end < len(tag) && (isASCIILetter(tag[end]) || (tag[end] >= '0' && tag[end] <= '9') || tag[end] == '-') {
		end++
	}
	return strings.ToLower(tag[:end]), closing
}

func indexFold(s, sub string) int {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if strings.EqualFold(s[i:i+n], sub) {
			return i
		}
	}
	return -1
}

func htmlUnescape(s string) string { return html.UnescapeString(s) }

// truncate cuts s to at most n characters (runes, so a multi-byte character is never split).
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// splitLines splits on every line terminator (\n, \r\n, \r, U+2028, U+2029) and keeps the
// non-empty trimmed lines.
func splitLines(s string) []string {
	lines := strings.FieldsFunc(s, func(r rune) bool {
		return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085'
	})
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if l = strings.TrimFunc(l, func(r rune) bool { return unicode.IsSpace(r) || isInvisible(r) }); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// between returns the text after the first start and before the next end. An empty start means
// the beginning, an empty end the end of s.
func between(s, start, end string) (string, bool) {
	i := 0
	if start != "" {
		k := strings.Index(s, start)
		if k < 0 {
			return "", false
		}
		i = k + len(start)
	}
	if end == "" {
		return s[i:], true
	}
	k := strings.Index(s[i:], end)
	if k < 0 {
		return "", false
	}
	return s[i : i+k], true
}
