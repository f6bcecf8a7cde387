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
	var drop []int           // start and end of each run of whitespace dropped
	prev, run := byte(0), -1 // the last byte outside whitespace; where the current run began
	outsideLiterals(src, func(i, _ int) bool {
		c := src[i]
		if isXMLSpace(c) {
			if run < 0 {
				run = i
			}
			return true
		}
		if run >= 0 && prev != 0 && (c == '[' || c == '/' && prev == ']') {
			drop = append(drop, run, i)
		}
		prev, run = c, -1
		return true
	})
	if drop == nil {
		return src
	}
	var b strings.Builder
	b.Grow(len(src))
	from := 0
	for k := 0; k < len(drop); k += 2 {
		b.WriteString(src[from:drop[k]])
		from = drop[k+1]
	}
	b.WriteString(src[from:])
	return b.String()
}
