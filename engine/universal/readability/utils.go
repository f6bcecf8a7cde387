package readability

import (
	nurl "net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"asa/engine/universal/readability/internal/re2go"
	"github.com/go-shiori/dom"
	"golang.org/x/net/html"
)

// indexOf returns the position of the first occurrence of a
// specified  value in a string array. Returns -1 if the
// value to search for never occurs.
func indexOf(array []string, key string) int {
	for i := range array {
		if array[i] == key {
			return i
		}
	}
	return -1
}

// wordCount returns number of word in str.
func wordCount(str string) int {
	return len(strings.Fields(str))
}

// charCount returns number of char in str.
func charCount(str string) int {
	return utf8.RuneCountInString(str)
}

// normalizeWhitespace trims leading and trailing whitespace and collapses all
// consecutive chains of whitespace as a single space.
func normalizeWhitespace(str string) string {
	return re2go.NormalizeSpaces(strings.TrimSpace(str))
}

// map of ASCII whitespace characters
var asciiSpace = [256]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

// hasContent reports whether a string contains a non-space character.
func hasContent(str string) bool {
	for idx := 0; idx < len(str); idx++ {
		// The indentation of the markup, most of most texts, eight spaces at a time.
		for idx+8 <= len(str) && str[idx:idx+8] == "        " {
			idx += 8
		}
		if idx == len(str) {
			break
		}
		c := str[idx]
		if c >= utf8.RuneSelf {
			// If we run into a non-ASCII byte, fall back to the slower
			// Unicode-aware method on the remaining bytes
			return strings.ContainsFunc(str[idx:], func(r rune) bool {
				return !unicode.IsSpace(r)
			})
		}
		if asciiSpace[c] == 0 {
			return true
		}
	}
	return false
}

// isValidURL checks if URL is valid.
func isValidURL(s string) bool {
	_, err := nurl.ParseRequestURI(s)
	return err == nil
}

// toAbsoluteURI convert uri to absolute path based on base.
// However, if uri is prefixed with hash (#), the uri won't be changed.
func toAbsoluteURI(uri string, base *nurl.URL) string {
	if uri == "" || base == nil {
		return uri
	}

	// If it is hash tag, return as it is
	if strings.HasPrefix(uri, "#") {
		return uri
	}

	// If it is data URI, return as it is
	if strings.HasPrefix(uri, "data:") {
		return uri
	}

	// If it is a protocol-relative URI, fill in the scheme
	if strings.HasPrefix(uri, "//") {
		return base.Scheme + ":" + uri
	}

	// If it is an absolute HTTP(S) URI, return as it is
	if strings.HasPrefix(uri, "https://") || strings.HasPrefix(uri, "http://") {
		return uri
	}

	// If it is already an absolute URL, return as it is
	tmp, err := nurl.ParseRequestURI(uri)
	if err == nil && tmp.Scheme != "" && tmp.Hostname() != "" {
		return uri
	}

	// Otherwise, resolve against base URI.
	tmp, err = nurl.Parse(uri)
	if err != nil {
		return uri
	}

	return base.ResolveReference(tmp).String()
}

// strOr returns the first not empty string in args.
func strOr(args ...string) string {
	for i := range args {
		if args[i] != "" {
			return args[i]
		}
	}
	return ""
}

func sliceToMap(strings ...string) map[string]struct{} {
	result := make(map[string]struct{})
	for _, s := range strings {
		result[s] = struct{}{}
	}
	return result
}

func strFilter(strs []string, filter func(string) bool) []string {
	var result []string
	for _, s := range strs {
		if filter(s) {
			result = append(result, s)
		}
	}
	return result
}

// containsFoldASCII reports whether s contains lower (ASCII lower case letters) in any case. The
// fork tests it before a case-insensitive regular expression that needs lower: a quick no for most
// inputs, exact when lower's letters have no case pairs outside ASCII (not k, nor s: Unicode folds
// them with the Kelvin sign and the long s).
func containsFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for j < len(lower) && s[i+j]|0x20 == lower[j] {
			j++
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// stripCDATA is rxCDATA.ReplaceAllString(s, ""), which a JSON-LD script holding "]]>" anywhere
// paid for with a backtracking search from every byte (its second branch is not anchored at the
// start). The first branch matches only at the start: white space (\s, ASCII's) and
// "<![CDATA[". The second, "]]>" then white space to the end, can only be the last "]]>", and
// never overlaps the first, which holds no ']'.
func stripCDATA(s string) string {
	if rest := strings.TrimLeft(s, " \t\n\f\r"); strings.HasPrefix(rest, "<![CDATA[") {
		s = rest[len("<![CDATA["):]
	}
	if i := strings.LastIndex(s, "]]>"); i >= 0 && strings.TrimLeft(s[i+len("]]>"):], " \t\n\f\r") == "" {
		s = s[:i]
	}
	return s
}

// className is dom.ClassName(node), the class attribute's words joined by one space, without
// splitting and joining a class that is written that way already (most are: ASCII words, one space
// between two). Anything else (other white space, a multi-byte rune, which may be white space to
// strings.Fields) goes to dom.ClassName.
func className(node *html.Node) string {
	c := dom.GetAttribute(node, "class")
	for i := 0; i < len(c); i++ {
		switch b := c[i]; {
		case b >= utf8.RuneSelf, b == ' ' && (i == 0 || i == len(c)-1 || c[i-1] == ' '),
			b != ' ' && asciiSpace[b] != 0:
			return dom.ClassName(node)
		}
	}
	return c
}

// styleMatches is rx.MatchString(style) for rxDisplayNone and rxVisibilityHidden, which match name,
// white space (\s: \t, \n, \f, \r, ' '), ':', white space and value, in any case. Styles of ASCII
// alone are read here (the letters of name and value folded as ASCII); a multi-byte rune may be a
// fold of a letter (ſ of s, K of k) only rx knows of.
func styleMatches(style, name, value string, rx *regexp.Regexp) bool {
	for i := 0; i < len(style); i++ {
		if style[i] >= utf8.RuneSelf {
			return rx.MatchString(style)
		}
	}
	// name starts no other match of itself ("display", "visibility"): the white space after
	// each is read once, and the search stays linear.
	for i := 0; i+len(name) <= len(style); i++ {
		if !hasPrefixFoldASCII(style[i:], name) {
			continue
		}
		j := skipRxSpace(style, i+len(name))
		if j < len(style) && style[j] == ':' && hasPrefixFoldASCII(style[skipRxSpace(style, j+1):], value) {
			return true
		}
	}
	return false
}

// hasPrefixFoldASCII reports whether s starts with lower (ASCII lower-case letters), in any case.
func hasPrefixFoldASCII(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for j := 0; j < len(lower); j++ {
		if s[j]|0x20 != lower[j] {
			return false
		}
	}
	return true
}

// skipRxSpace is the first index from i of s that is not \s (regexp's: \t, \n, \f, \r, ' ').
func skipRxSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	return i
}

// absSrcset is what upstream made of a srcset with rxSrcsetURL, (?i)(\S+)(\s+[\d.]+[xw])?(\s*(?:,|$)):
// every match's URL (group 1) made absolute, groups 2 and 3 kept, where the groups were those of
// the match read again on its own (so a match that ends at a comma within its URL ends the text,
// and the comma is part of the URL made absolute). The regexp package's backtracking over each
// srcset was a third of fixRelativeURIs' time on pages whose images list a dozen sizes; the match
// is decided here at each run of non-space bytes (\s is ASCII: tab, LF, FF, CR, space):
//
//   - the whole run, then spaces, [\d.]+ and x or w, then spaces and a comma or the end; else the
//     whole run, then spaces and a comma or the end (the run being what \S+ takes first);
//   - else the run to its last comma after its first byte, comma included (\S+ giving back bytes
//     until a comma follows, the only way it can end short of a space);
//   - else no match starts in the run (a later start in it has the same end and fewer commas).
func absSrcset(s string, base *nurl.URL) string {
	var b strings.Builder
	done := 0 // s[:done] is written
	for i := 0; i < len(s); {
		if isSrcsetSpace(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && !isSrcsetSpace(s[j]) {
			j++
		}
		url, end := j, srcsetTail(s, j)
		if end < 0 {
			c := strings.LastIndexByte(s[i+1:j], ',')
			if c < 0 {
				i = j
				continue
			}
			url = i + 1 + c + 1
			end = url
		}
		b.WriteString(s[done:i])
		b.WriteString(toAbsoluteURI(s[i:url], base))
		b.WriteString(s[url:end])
		done, i = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// srcsetTail is where rxSrcsetURL's match ends when its group 1 ends at j, before a space or at
// the end of s, or -1 when it cannot end there.
func srcsetTail(s string, j int) int {
	k := j
	for k < len(s) && isSrcsetSpace(s[k]) {
		k++
	}
	// Group 2: the spaces, then every [\d.] (none can be given back: an x or w must follow).
	if k > j {
		d := k
		for d < len(s) && (s[d] >= '0' && s[d] <= '9' || s[d] == '.') {
			d++
		}
		if d > k && d < len(s) && (s[d]|0x20 == 'x' || s[d]|0x20 == 'w') {
			if end := srcsetEnd(s, d+1); end >= 0 {
				return end
			}
		}
	}
	return srcsetEnd(s, j)
}

// srcsetEnd is where group 3 from i ends: spaces, then a comma or the end of s; -1 if neither.
func srcsetEnd(s string, i int) int {
	for i < len(s) && isSrcsetSpace(s[i]) {
		i++
	}
	switch {
	case i == len(s):
		return i
	case s[i] == ',':
		return i + 1
	}
	return -1
}

// isSrcsetSpace is the regexp package's \s.
func isSrcsetSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
