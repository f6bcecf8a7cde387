package engine

// ReadRulesCounted reads a rule set and says how many JSON tokens it read: refused rule sets are
// refused after little work, which tests count rather than time.
func ReadRulesCounted(data []byte, lim RuleLimits) (tokens int, problem string) {
	_, _, n, p := readRulesCounted(data, lim)
	if p != nil {
		return n, p.Path + ": " + p.Message
	}
	return n, ""
}
