package xpatheval

import "strings"

// tightSpace drops the whitespace, outside string literals, before a predicate's '[' and between a
// ']' and the next '/': where XPath allows it but means nothing. A sitedef's long selectors are
// folded over lines in YAML, and a fold between two predicates (//li[@a]⏎[.//h3]) became a space
// the native and index parsers, which read the written form, did not expect: the whole XPath then
// fell back to antchfx, whose scan of the page cost ebay's product page two thirds of its work.
// Other whitespace is kept: before '/' after an operator word (@a or //x) it separates the two.
func tightSpace(src string) string {
	if !strings.ContainsAny(src, " \t\r\n") {
		return src
	}
	var b strings.Builder
	var quote byte
	prev := byte(0) // the last byte written outside whitespace
	for i := 0; i < len(src); i++ {
		c := src[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			b.WriteByte(c)
			prev = c
			continue
		}
		if isXMLSpace(c) {
			j := i
			for j < len(src) && isXMLSpace(src[j]) {
				j++
			}
			if j < len(src) && (src[j] == '[' || src[j] == '/' && prev == ']') && prev != 0 {
				i = j - 1
				continue
			}
			b.WriteString(src[i:j])
			i = j - 1
			continue
		}
		if c == '\'' || c == '"' {
			quote = c
		}
		b.WriteByte(c)
		prev = c
	}
	return b.String()
}
