package xpatheval

import (
	"strconv"
	"strings"
)

// movedContext finds a function call in src whose later arguments antchfx/xpath evaluates from the
// wrong node: a predicate in an argument leaves the evaluation's context on the last node it tested
// (its filter moves the shared navigator there and does not move it back), and every argument after
// it is then read from that node. concat(td[1], ' ', td[2]) gives the first cell and nothing after
// it. It returns the call as written, or "" when src has none: a predicate in the last argument, or
// only literals after it, is harmless.
func movedContext(src string) string {
	found := ""
	outsideLiterals(src, func(i, depth int) bool {
		if src[i] != '(' || i == 0 {
			return true
		}
		start := i
		for start > 0 && isNameByte(src[start-1]) {
			start--
		}
		if start == i {
			return true // a group, not a call
		}
		end := matching(src, i)
		if end < 0 {
			return false
		}
		args := splitTop(src[i+1:end], ',')
		for k := 0; k < len(args)-1; k++ {
			if !hasPredicate(args[k]) {
				continue
			}
			for _, later := range args[k+1:] {
				if !isLiteralArg(later) {
					found = src[start : end+1]
					return false
				}
			}
		}
		return true
	})
	return found
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// hasPredicate reports whether an XPath fragment has a [predicate] outside its literals.
func hasPredicate(s string) bool {
	has := false
	outsideLiterals(s, func(i, _ int) bool {
		has = s[i] == '['
		return !has
	})
	return has
}

// isLiteralArg reports whether a function argument is a string or number literal.
func isLiteralArg(s string) bool {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] && !strings.ContainsRune(s[1:len(s)-1], rune(s[0])) {
		return true
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
