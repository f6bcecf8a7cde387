package xpatheval

import "strings"

// TagTests returns the element names of an XPath every branch of which is //name[p]...[p] with
// predicates that read nothing but the element's own attributes and are true or false (never a
// number, which would be a position), or nil for any other XPath. Such an XPath selects nodes of a
// document exactly when it selects some of a document whose elements are childless copies of
// those of the names with their attributes, in any order: what dom.ScanElementsView gives without
// building the tree. The shape is read by a strict grammar of its own:
//
//	xpath  = branch { "|" branch }
//	branch = "//" name pred { pred }
//	pred   = "[" or "]"
//	or     = and { "or" and }
//	and    = prim { "and" prim }
//	prim   = "not(" or ")" | "(" or ")" | ("contains" | "starts-with") "(" str "," str ")"
//	       | str ("=" | "!=") str | "@" attr
//	str    = "@" attr | literal | "concat(" str "," str { "," str } ")" | "normalize-space(" str ")"
func (s *Expr) TagTests() []string { return tagTests(s.src) }

func tagTests(src string) []string {
	names, _ := tagShape(src)
	return names
}

// A TagLiteral is a string an element an XPath selects has: in an attribute value (the value = 'x',
// contains(@a, 'x') and starts-with(@a, 'x') tests its predicates must pass), or as an attribute's
// name (Name: an @a its predicates require, lower case like the parsed tree's names).
type TagLiteral struct {
	Text string
	Name bool
}

// TagLiterals returns, for an XPath TagTests accepts, literals one of which every element the
// XPath selects has, or nil when some branch requires none: a body in which none of them occurs
// (character references and the case of names aside) has no element the XPath selects.
func (s *Expr) TagLiterals() []TagLiteral {
	names, lits := tagShape(s.src)
	if names == nil {
		return nil
	}
	return lits
}

// tagShape reads src by TagTests' grammar: the element names, and what TagLiterals returns.
func tagShape(src string) (names []string, lits []TagLiteral) {
	p := &tagParser{s: src}
	known := true
	for {
		p.space()
		if !p.lit("//") {
			return nil, nil
		}
		name := p.name()
		if name == "" || strings.ToLower(name) != name {
			return nil, nil
		}
		preds := 0
		var branch need
		for p.peek() == '[' {
			p.i++
			n, ok := p.or()
			if !ok {
				return nil, nil
			}
			p.space()
			if !p.lit("]") {
				return nil, nil
			}
			branch = branch.and(n)
			preds++
		}
		if preds == 0 {
			return nil, nil
		}
		if !containsStr(names, name) {
			names = append(names, name)
		}
		if branch == nil {
			known = false
		}
		lits = append(lits, branch...)
		p.space()
		if p.i == len(p.s) {
			if !known {
				lits = nil
			}
			return names, lits
		}
		if !p.lit("|") {
			return nil, nil
		}
	}
}

// need is what a part of a predicate requires of the elements it accepts: one of its literals;
// nil when nothing is known.
type need []TagLiteral

// and is the need of both parts: either's, the one whose shortest literal is the longer (the
// rarer in a body).
func (n need) and(m need) need {
	if n == nil || m != nil && shortest(m) > shortest(n) {
		return m
	}
	return n
}

// or is the need of one part or the other: the union of both's when both have one.
func (n need) or(m need) need {
	if n == nil || m == nil {
		return nil
	}
	return append(append(need{}, n...), m...)
}

func shortest(n need) int {
	min := -1
	for _, l := range n {
		if min < 0 || len(l.Text) < min {
			min = len(l.Text)
		}
	}
	return min
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// tagParser reads tagTests' grammar; every method returns false (or "") on anything else.
type tagParser struct {
	s string
	i int
}

func (p *tagParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *tagParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// lit consumes t when the input continues with it.
func (p *tagParser) lit(t string) bool {
	if strings.HasPrefix(p.s[p.i:], t) {
		p.i += len(t)
		return true
	}
	return false
}

// name reads an XML-ish name: a letter or '_', then letters, digits, '_', '-' and '.'.
func (p *tagParser) name() string {
	j := p.i
	for j < len(p.s) {
		c := p.s[j]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || j > p.i && ('0' <= c && c <= '9' || c == '-' || c == '.') {
			j++
			continue
		}
		break
	}
	n := p.s[p.i:j]
	p.i = j
	return n
}

// word consumes the keyword w when it is followed by no name character.
func (p *tagParser) word(w string) bool {
	if !strings.HasPrefix(p.s[p.i:], w) {
		return false
	}
	if j := p.i + len(w); j < len(p.s) {
		c := p.s[j]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' {
			return false
		}
	}
	p.i += len(w)
	return true
}

func (p *tagParser) or() (need, bool) {
	n, ok := p.and()
	if !ok {
		return nil, false
	}
	for {
		p.space()
		if !p.word("or") {
			return n, true
		}
		m, ok := p.and()
		if !ok {
			return nil, false
		}
		n = n.or(m)
	}
}

func (p *tagParser) and() (need, bool) {
	n, ok := p.prim()
	if !ok {
		return nil, false
	}
	for {
		p.space()
		if !p.word("and") {
			return n, true
		}
		m, ok := p.prim()
		if !ok {
			return nil, false
		}
		n = n.and(m)
	}
}

func (p *tagParser) prim() (need, bool) {
	p.space()
	switch {
	case p.lit("not("):
		_, ok := p.or()
		return nil, ok && p.close()
	case p.lit("("):
		n, ok := p.or()
		return n, ok && p.close()
	case p.lit("contains(") || p.lit("starts-with("):
		a, ok := p.str()
		if !ok || !p.comma() {
			return nil, false
		}
		b, ok := p.str()
		if !ok || !p.close() {
			return nil, false
		}
		return attrLiteral(a, b), true
	}
	save := p.i
	if p.lit("@") {
		name := p.name()
		if name == "" {
			return nil, false
		}
		p.space()
		if !strings.HasPrefix(p.s[p.i:], "=") && !strings.HasPrefix(p.s[p.i:], "!=") {
			// the attribute's presence (a name in upper case is never in the tree)
			if strings.ToLower(name) != name {
				return nil, true
			}
			return need{{Text: name, Name: true}}, true
		}
		p.i = save
	}
	a, ok := p.str()
	if !ok {
		return nil, false
	}
	p.space()
	eq := p.lit("=")
	if !eq && !p.lit("!=") {
		return nil, false
	}
	b, ok := p.str()
	if !ok {
		return nil, false
	}
	if !eq {
		return nil, true
	}
	if a.attr {
		return attrLiteral(a, b), true
	}
	return attrLiteral(b, a), true
}

// tagStr is a str of the grammar: an attribute, a literal (lit) or anything else.
type tagStr struct {
	attr, literal bool
	lit           string
}

// attrLiteral is the need of a test that an attribute's value contains (or equals, or starts
// with) a literal.
func attrLiteral(a, b tagStr) need {
	if a.attr && b.literal && b.lit != "" {
		return need{{Text: b.lit}}
	}
	return nil
}

func (p *tagParser) str() (tagStr, bool) {
	p.space()
	switch c := p.peek(); {
	case c == '@':
		p.i++
		return tagStr{attr: true}, p.name() != ""
	case c == '\'' || c == '"':
		j := strings.IndexByte(p.s[p.i+1:], c)
		if j < 0 {
			return tagStr{}, false
		}
		lit := p.s[p.i+1 : p.i+1+j]
		p.i += j + 2
		return tagStr{literal: true, lit: lit}, true
	case p.lit("concat("):
		if _, ok := p.str(); !ok || !p.comma() {
			return tagStr{}, false
		}
		if _, ok := p.str(); !ok {
			return tagStr{}, false
		}
		for {
			p.space()
			if p.lit(")") {
				return tagStr{}, true
			}
			if !p.comma() {
				return tagStr{}, false
			}
			if _, ok := p.str(); !ok {
				return tagStr{}, false
			}
		}
	case p.lit("normalize-space("):
		_, ok := p.str()
		return tagStr{}, ok && p.close()
	}
	return tagStr{}, false
}

func (p *tagParser) comma() bool {
	p.space()
	return p.lit(",")
}

func (p *tagParser) close() bool {
	p.space()
	return p.lit(")")
}
