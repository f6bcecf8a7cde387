package xpatheval

import "strings"

// groupsAsSteps rewrites, inside predicates, a group of one relative step filtered by a number,
// (.//x[p])[n] or (./x)[n], as the step on its axis, descendant::x[p][n] or child::x[n]: the same
// nodes by XPath's rules, since both count in document order from the context node. antchfx keeps
// a group filter's position between the context nodes of a predicate, so //div[(.//span)[1] = 'b']
// saw only the first div's spans; the axis step is counted afresh for each context. A group at the
// top level is evaluated once and is left as written, and so is any group that is not one step (a
// path, a union, an attribute): no shorter form means the same. So is (X)[last()]: antchfx's last()
// on a descendant step is wrong where the nodes have different parents (descendant::span[last()]
// gives the first parent's last span), so the rewrite would trade one wrong answer for another.
func groupsAsSteps(src string) string {
	if !strings.Contains(src, "(") {
		return src
	}
	var b strings.Builder
	depth := 0 // brackets open around i: a group is rewritten only inside a predicate
	var quote byte
	last := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '(' && depth > 0 && strings.HasPrefix(strings.TrimLeft(src[i+1:], " "), "./"):
			// only a group that opens with ./ is looked at to its end, so that a run of other
			// parentheses costs one pass
			end := matching(src, i)
			if end < 0 {
				return src
			}
			after := strings.TrimLeft(src[end+1:], " ")
			if !numberFilter(after) {
				continue
			}
			step, axis := strings.TrimSpace(src[i+1:end]), ""
			switch {
			case strings.HasPrefix(step, ".//"):
				step, axis = step[3:], "descendant::"
			case strings.HasPrefix(step, "./"):
				step, axis = step[2:], "child::"
			default:
				continue
			}
			if step == "" || step[0] == '@' || step[0] == '/' || step[0] == '.' || strings.Contains(step, "::") ||
				len(splitOutside(step, "/")) > 1 || len(splitOutside(step, "|")) > 1 {
				continue
			}
			b.WriteString(src[last:i])
			b.WriteString(axis)
			b.WriteString(groupsAsSteps(step))               // the step's own predicates
			last = end + 1 + (len(src[end+1:]) - len(after)) // drop the spaces before the filter
			i = last - 1
		}
	}
	if last == 0 {
		return src
	}
	b.WriteString(src[last:])
	return b.String()
}

// numberFilter reports whether s opens with a filter [N], N a whole number.
func numberFilter(s string) bool {
	if len(s) < 3 || s[0] != '[' {
		return false
	}
	i := 1
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 1 && i < len(s) && s[i] == ']'
}
