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
	p := &tagParser{s: src}
	var names []string
	for {
		p.space()
		if !p.lit("//") {
			return nil
		}
		name := p.name()
		if name == "" || strings.ToLower(name) != name {
			return nil
		}
		preds := 0
		for p.peek() == '[' {
			p.i++
			if !p.or() {
				return nil
			}
			p.space()
			if !p.lit("]") {
				return nil
			}
			preds++
		}
		if preds == 0 {
			return nil
		}
		if !containsStr(names, name) {
			names = append(names, name)
		}
		p.space()
		if p.i == len(p.s) {
			return names
		}
		if !p.lit("|") {
			return nil
		}
	}
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

func (p *tagParser) or() bool {
	if !p.and() {
		return false
	}
	for {
		p.space()
		if !p.word("or") {
			return true
		}
		if !p.and() {
			return false
		}
	}
}

func (p *tagParser) and() bool {
	if !p.prim() {
		return false
	}
	for {
		p.space()
		if !p.word("and") {
			return true
		}
		if !p.prim() {
			return false
		}
	}
}

func (p *tagParser) prim() bool {
	p.space()
	switch {
	case p.lit("not("):
		return p.or() && p.close()
	case p.lit("("):
		return p.or() && p.close()
	case p.lit("contains(") || p.lit("starts-with("):
		return p.str() && p.comma() && p.str() && p.close()
	}
	save := p.i
	if p.lit("@") {
		if p.name() == "" {
			return false
		}
		p.space()
		if !strings.HasPrefix(p.s[p.i:], "=") && !strings.HasPrefix(p.s[p.i:], "!=") {
			// the attribute's presence
			return true
		}
		p.i = save
	}
	if !p.str() {
		return false
	}
	p.space()
	if !p.lit("=") && !p.lit("!=") {
		return false
	}
	return p.str()
}

func (p *tagParser) str() bool {
	p.space()
	switch c := p.peek(); {
	case c == '@':
		p.i++
		return p.name() != ""
	case c == '\'' || c == '"':
		j := strings.IndexByte(p.s[p.i+1:], c)
		if j < 0 {
			return false
		}
		p.i += j + 2
		return true
	case p.lit("concat("):
		if !p.str() || !p.comma() || !p.str() {
			return false
		}
		for {
			p.space()
			if p.lit(")") {
				return true
			}
			if !p.comma() || !p.str() {
				return false
			}
		}
	case p.lit("normalize-space("):
		return p.str() && p.close()
	}
	return false
}

func (p *tagParser) comma() bool {
	p.space()
	return p.lit(",")
}

func (p *tagParser) close() bool {
	p.space()
	return p.lit(")")
}
