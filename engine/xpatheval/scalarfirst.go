package xpatheval

import (
	"regexp"
	"strings"
)

// scalarFirst rewrites, inside predicates, a comparison of a literal, a number or a function call
// (left) with a location path (right) as the path first, the operator turned round: 'abc' = . as
// . = 'abc', 2 < @n as @n > 2, the same test by XPath's rules. antchfx compares a string on the left
// with only the first node of a path, and as two numbers (//li['abc' = .] and
// //li[translate(., '0123456789', ”) = .] selected nothing, //li[string(.) = .] only the li whose
// text is a number), and a number with the first node only; with the path on the left it tests
// every node, as XPath does. Only what antchfx evaluates is rewritten: the native and index
// evaluators read the XPath as written.
func scalarFirst(src string) string {
	if !strings.Contains(src, "[") || !strings.ContainsAny(src, "=<>") || !closesInOrder(src) {
		return src
	}
	// a predicate's inside is rewritten whole, by predScalarFirst
	return spliceOutside(src, func(i int) (int, string) {
		if src[i] != '[' {
			return -1, ""
		}
		end := matching(src, i) // found: closesInOrder
		return end + 1, "[" + predScalarFirst(src[i+1:end]) + "]"
	})
}

// spliceOutside returns src with the parts at finds it reports replaced: find, called at each byte
// outside literals and past the parts replaced so far, returns the end of a part starting there and
// its replacement, or -1. src itself when nothing is replaced.
func spliceOutside(src string, find func(i int) (end int, repl string)) string {
	var b strings.Builder
	last := 0 // src[:last] is written
	outsideLiterals(src, func(i, _ int) bool {
		if i < last {
			return true
		}
		end, repl := find(i)
		if end < 0 {
			return true
		}
		b.WriteString(src[last:i])
		b.WriteString(repl)
		last = end
		return true
	})
	if last == 0 {
		return src
	}
	b.WriteString(src[last:])
	return b.String()
}

// predScalarFirst rewrites one predicate's terms (split at its top-level or and and).
func predScalarFirst(p string) string {
	for _, word := range []string{"or", "and"} {
		if parts := splitWord(p, word); len(parts) > 1 {
			for i, part := range parts {
				parts[i] = predScalarFirst(part)
			}
			return strings.Join(parts, " "+word+" ")
		}
	}
	at, op := topComparison(p)
	if at < 0 {
		return scalarFirst(p)
	}
	left, right := strings.TrimSpace(p[:at]), strings.TrimSpace(p[at+len(op):])
	if !isScalarOperand(left) || !isPathOperand(right) {
		return scalarFirst(p)
	}
	return scalarFirst(right) + " " + turned[op] + " " + scalarFirst(left)
}

var turned = map[string]string{"=": "=", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}

// topComparison returns where p's first comparison operator outside literals, brackets and
// parentheses is, and which it is; -1 when there is none or more than one (a = b = c is left as is).
func topComparison(p string) (at int, op string) {
	at = -1
	outsideLiterals(p, func(i, depth int) bool {
		c := p[i]
		isOp := c == '=' || c == '<' || c == '>' || c == '!' && i+1 < len(p) && p[i+1] == '='
		if depth > 0 || !isOp || at >= 0 && i == at+len(op)-1 {
			return true // not an operator at the top, or the second byte of the one just read
		}
		if at >= 0 {
			at, op = -1, ""
			return false
		}
		at, op = i, string(c)
		if c != '=' && i+1 < len(p) && p[i+1] == '=' {
			op = p[i : i+2]
		}
		return true
	})
	return at, op
}

// outsideLiterals calls fn with each byte of s that is not inside a literal (a literal's opening
// quote is one of them) and the number of brackets and parentheses open around it, counting the
// byte itself when it opens one; fn returns false to stop. It reports whether every literal it
// walked past was closed.
func outsideLiterals(s string, fn func(i, depth int) bool) (closed bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			continue
		case c == '\'' || c == '"':
			quote = c
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')':
			depth--
		}
		if !fn(i, depth) {
			break
		}
	}
	return quote == 0
}

var (
	scalarNumRe = regexp.MustCompile(`^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$`)
	funcHead    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*\(`)
	nodeTests   = map[string]bool{"text": true, "node": true, "comment": true, "processing-instruction": true, "id": true}
)

// isScalarOperand: a literal, a number or a call of a function that does not return nodes.
func isScalarOperand(s string) bool {
	if _, ok := xpathLiteral(s); ok {
		return true
	}
	if scalarNumRe.MatchString(s) {
		return true
	}
	m := funcHead.FindString(s)
	return m != "" && !nodeTests[m[:len(m)-1]] && matching(s, len(m)-1) == len(s)-1
}

// isPathOperand: a location path alone (., .., @a, //x, text(), a/b[...]), with no operator or
// group at its top level.
func isPathOperand(s string) bool {
	if s == "" || s[0] == '(' || s[0] == '$' || s[0] == '-' || scalarNumRe.MatchString(s) {
		return false
	}
	if m := funcHead.FindString(s); m != "" && !nodeTests[m[:len(m)-1]] || strings.HasPrefix(s, "id(") {
		return false // a function's value, not a path
	}
	if _, ok := xpathLiteral(s); ok {
		return false
	}
	path, depth := true, 0
	outsideLiterals(s, func(i, d int) bool {
		c := s[i]
		depth = d
		path = !(d == 0 && (c == '\'' || c == '"' || isXMLSpace(c) || c == '+' || c == '=' || c == '<' || c == '>' || c == '!' || c == ','))
		return path
	})
	return path && depth == 0
}

// closesInOrder reports whether s's brackets and parentheses outside literals close in the order they
// open, and its literals are closed: what the rewrite reads as a predicate is one then. Other text
// is not an XPath, left to the compiler's error.
func closesInOrder(s string) bool {
	var open []byte
	inOrder := true
	closed := outsideLiterals(s, func(i, _ int) bool {
		switch c := s[i]; c {
		case '[', '(':
			open = append(open, c)
		case ']', ')':
			want := byte('[')
			if c == ')' {
				want = '('
			}
			if len(open) == 0 || open[len(open)-1] != want {
				inOrder = false
				return false
			}
			open = open[:len(open)-1]
		}
		return true
	})
	return inOrder && closed && len(open) == 0
}
