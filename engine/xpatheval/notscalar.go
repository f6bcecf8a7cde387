package xpatheval

import "strings"

// scalarFns are the XPath functions whose answer is a string or a number.
var scalarFns = []string{
	"normalize-space", "string-length", "string", "concat", "substring-before", "substring-after",
	"substring", "translate", "count", "sum", "number", "round", "floor", "ceiling", "name",
	"local-name", "lower-case", "upper-case",
}

// notScalar rewrites not(F(...)), F a function answering a string or a number, as
// not(boolean(F(...))). XPath's not() takes its argument's boolean value (an empty string or zero
// is false), but antchfx answers false for not() of any string or number: //a[not(normalize-space(@href))]
// selected no link, even one without an href. boolean() converts as XPath says. Only what antchfx
// evaluates is rewritten.
func notScalar(src string) string {
	if !strings.Contains(src, "not(") || !closesInOrder(src) {
		return src
	}
	return spliceOutside(src, func(i int) (int, string) {
		if !strings.HasPrefix(src[i:], "not(") || i > 0 && (isNameChar(src[i-1]) || src[i-1] == ':') {
			return -1, ""
		}
		end := matching(src, i+3)
		if end < 0 {
			return -1, ""
		}
		arg := strings.TrimSpace(src[i+4 : end])
		inner := notScalar(arg)
		if scalarCall(arg) {
			inner = "boolean(" + inner + ")"
		}
		return end + 1, "not(" + inner + ")"
	})
}

// scalarCall reports whether s is one call of a function of scalarFns, whole.
func scalarCall(s string) bool {
	for _, fn := range scalarFns {
		if strings.HasPrefix(s, fn+"(") {
			return matching(s, len(fn)) == len(s)-1
		}
	}
	return false
}
