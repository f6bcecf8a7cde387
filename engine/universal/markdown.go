package universal

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// toMarkdown renders the main content as CommonMark with GitHub tables: headings, paragraphs,
// nested lists, links, images, emphasis, code spans and blocks, block quotes, rules and tables.
// Tables used for layout (one column, or tables inside tables) are rendered as their content.
func toMarkdown(n *html.Node) string {
	m := &mdRenderer{}
	m.blocks(n, 0)
	m.flush()
	return strings.Join(m.out, "\n\n")
}

// maxMDDepth bounds the recursion of nested block elements (the parser allows 512 levels).
const maxMDDepth = 100

type mdRenderer struct {
	out []string        // finished blocks
	inl strings.Builder // the paragraph being built from inline content
}

// flush ends the current paragraph.
func (m *mdRenderer) flush() {
	t := tidyInline(m.inl.String())
	m.inl.Reset()
	if t != "" {
		m.out = append(m.out, escapeBlockStart(t))
	}
}

func (m *mdRenderer) add(block string) {
	m.flush()
	if block = strings.TrimRight(block, " \n"); strings.TrimSpace(block) != "" {
		m.out = append(m.out, block)
	}
}

// blocks renders the children of n.
func (m *mdRenderer) blocks(n *html.Node, depth int) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		m.node(c, depth)
	}
}

func (m *mdRenderer) node(c *html.Node, depth int) {
	switch c.Type {
	case html.TextNode:
		m.inl.WriteString(escapeText(collapseRun(c.Data)))
		return
	case html.ElementNode:
	default:
		return
	}
	if depth > maxMDDepth {
		m.inl.WriteString(escapeText(collapseRun(nodeText(c))))
		return
	}
	switch c.DataAtom {
	case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Head, atom.Button, atom.Input, atom.Select, atom.Textarea, atom.Svg:
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		level := int(c.Data[1] - '0')
		if t := tidyInline(inline(c, depth)); t != "" {
			m.add(strings.Repeat("#", level) + " " + t)
		}
	case atom.P:
		m.flush()
		m.blocks(c, depth+1)
		m.flush()
	case atom.Ul, atom.Ol, atom.Menu:
		m.add(mdList(c, depth))
	case atom.Table:
		if md, ok := table(c, depth); ok {
			m.add(md)
		} else {
			m.flush()
			m.blocks(c, depth+1)
			m.flush()
		}
	case atom.Pre:
		m.add(codeBlock(c))
	case atom.Blockquote:
		sub := toMarkdownDepth(c, depth+1)
		if sub != "" {
			lines := strings.Split(sub, "\n")
			for i, l := range lines {
				lines[i] = strings.TrimRight("> "+l, " ")
			}
			m.add(strings.Join(lines, "\n"))
		}
	case atom.Hr:
		m.add("---")
	case atom.Br:
		m.inl.WriteString("\\\n")
	case atom.Dl:
		m.flush()
		for d := c.FirstChild; d != nil; d = d.NextSibling {
			if d.Type != html.ElementNode {
				continue
			}
			t := tidyInline(inline(d, depth))
			if t == "" {
				continue
			}
			if d.DataAtom == atom.Dt {
				m.add("**" + t + "**")
			} else {
				m.add(": " + t)
			}
		}
	case atom.A, atom.Strong, atom.B, atom.Em, atom.I, atom.Code, atom.Kbd, atom.Samp, atom.Img, atom.Del, atom.S, atom.Strike:
		if hasBlockChild(c) {
			m.blocks(c, depth+1)
			return
		}
		m.inl.WriteString(inlineElement(c, depth))
	default:
		if isBlockElement(c) {
			m.flush()
			m.blocks(c, depth+1)
			m.flush()
			return
		}
		m.blocks(c, depth+1) // span, sup, time, ... : their content flows in the paragraph
	}
}

func toMarkdownDepth(n *html.Node, depth int) string {
	m := &mdRenderer{}
	m.blocks(n, depth)
	m.flush()
	return strings.Join(m.out, "\n\n")
}

// inline renders n's content as one line of inline Markdown.
func inline(n *html.Node, depth int) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			b.WriteString(escapeText(collapseRun(c.Data)))
		case html.ElementNode:
			switch c.DataAtom {
			case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Button, atom.Svg:
			case atom.Br:
				b.WriteByte(' ')
			default:
				if depth > maxMDDepth {
					b.WriteString(escapeText(collapseRun(nodeText(c))))
					continue
				}
				if isBlockElement(c) {
					b.WriteByte(' ')
				}
				b.WriteString(inlineElement(c, depth+1))
				if isBlockElement(c) {
					b.WriteByte(' ')
				}
			}
		}
	}
	return b.String()
}

// inlineElement renders one inline element: links, images, emphasis and code; other elements as
// their content.
func inlineElement(c *html.Node, depth int) string {
	wrap := func(mark string) string {
		t := inline(c, depth)
		inner := strings.TrimSpace(t)
		if inner == "" {
			return t
		}
		// Keep the spaces outside the markers: "** bold**" is not emphasis.
		lead := t[:len(t)-len(strings.TrimLeft(t, " "))]
		trail := t[len(strings.TrimRight(t, " ")):]
		return lead + mark + inner + mark + trail
	}
	switch c.DataAtom {
	case atom.A:
		t := tidyInline(inline(c, depth))
		href := strings.TrimSpace(attr(c, "href"))
		if t == "" || !(strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://") || strings.HasPrefix(href, "mailto:")) {
			return " " + t + " "
		}
		return " [" + t + "](" + escapeURL(href) + ") "
	case atom.Img:
		src := strings.TrimSpace(attr(c, "src"))
		if !(strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://")) {
			return ""
		}
		return " ![" + escapeText(clean(attr(c, "alt"))) + "](" + escapeURL(src) + ") "
	case atom.Strong, atom.B:
		return wrap("**")
	case atom.Em, atom.I:
		return wrap("_")
	case atom.Del, atom.S, atom.Strike:
		return wrap("~~")
	case atom.Code, atom.Kbd, atom.Samp:
		t := clean(nodeText(c))
		if t == "" {
			return ""
		}
		fence := "`"
		for strings.Contains(t, fence) {
			fence += "`"
		}
		if strings.HasPrefix(t, "`") || strings.HasSuffix(t, "`") {
			t = " " + t + " "
		}
		return fence + t + fence
	}
	return inline(c, depth)
}

// mdList renders a <ul> or <ol>: one item a line, nested lists indented under their item.
func mdList(n *html.Node, depth int) string {
	ordered := n.DataAtom == atom.Ol
	num := 1
	if s, err := strconv.Atoi(strings.TrimSpace(attr(n, "start"))); ordered && err == nil && s >= 0 && s < 1e9 {
		num = s
	}
	var items []string
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode {
			continue
		}
		if li.DataAtom == atom.Ul || li.DataAtom == atom.Ol { // a list directly inside a list
			if sub := mdList(li, depth+1); sub != "" {
				items = append(items, indent(sub, "  "))
			}
			continue
		}
		body := toMarkdownDepth(li, depth+1)
		if body == "" {
			continue
		}
		marker := "- "
		if ordered {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		// Paragraphs inside one item stay together: a tight list.
		body = strings.ReplaceAll(body, "\n\n", "\n")
		items = append(items, marker+indent(body, strings.Repeat(" ", len(marker)))[len(marker):])
	}
	return strings.Join(items, "\n")
}

// indent prefixes every line but blank ones.
func indent(s, pre string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "\n")
}

// table renders a data table as a GitHub table; ok is false for layout tables (one column, one
// row, or a table inside), which the caller renders as content.
func table(t *html.Node, depth int) (string, bool) {
	var rows [][]string
	header := false
	var walk func(n *html.Node) bool
	walk = func(n *html.Node) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.DataAtom {
			case atom.Thead, atom.Tbody, atom.Tfoot:
				if !walk(c) {
					return false
				}
			case atom.Tr:
				var row []string
				allTH := true
				for cell := c.FirstChild; cell != nil; cell = cell.NextSibling {
					if cell.Type != html.ElementNode || (cell.DataAtom != atom.Td && cell.DataAtom != atom.Th) {
						continue
					}
					if containsTag(cell, atom.Table) {
						return false
					}
					if cell.DataAtom != atom.Th {
						allTH = false
					}
					txt := strings.ReplaceAll(tidyInline(inline(cell, depth+1)), "|", "\\|")
					row = append(row, txt)
					if span, err := strconv.Atoi(attr(cell, "colspan")); err == nil && span > 1 && span <= 20 {
						for range span - 1 {
							row = append(row, "")
						}
					}
				}
				if len(rows) == 0 && allTH && len(row) > 0 {
					header = true
				}
				if len(row) > 0 {
					rows = append(rows, row)
				}
			case atom.Caption:
			}
		}
		return true
	}
	if !walk(t) || len(rows) < 2 {
		return "", false
	}
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols < 2 {
		return "", false
	}
	var b strings.Builder
	line := func(r []string) {
		b.WriteString("|")
		for i := 0; i < cols; i++ {
			cell := ""
			if i < len(r) {
				cell = r[i]
			}
			b.WriteString(" " + cell + " |")
		}
		b.WriteByte('\n')
	}
	body := rows
	if header {
		line(rows[0])
		body = rows[1:]
	} else {
		line(make([]string, cols))
	}
	b.WriteString("|" + strings.Repeat(" --- |", cols) + "\n")
	for _, r := range body {
		line(r)
	}
	if c := caption(t); c != "" {
		return "**" + c + "**\n\n" + strings.TrimRight(b.String(), "\n"), true
	}
	return strings.TrimRight(b.String(), "\n"), true
}

func caption(t *html.Node) string {
	for c := t.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.DataAtom == atom.Caption {
			return escapeText(clean(nodeText(c)))
		}
	}
	return ""
}

// codeBlock renders a <pre> as a fenced block, keeping its text exactly; the language comes from
// a language-xx class on the <pre> or its <code>.
func codeBlock(pre *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
			case html.ElementNode:
				if c.DataAtom == atom.Br {
					b.WriteByte('\n')
					continue
				}
				walk(c)
			}
		}
	}
	walk(pre)
	code := strings.Trim(b.String(), "\n")
	if strings.TrimSpace(code) == "" {
		return ""
	}
	lang := codeLang(pre)
	if c := pre.FirstChild; lang == "" && c != nil && c.Type == html.ElementNode && c.DataAtom == atom.Code {
		lang = codeLang(c)
	}
	fence := "```"
	for strings.Contains(code, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + code + "\n" + fence
}

func codeLang(n *html.Node) string {
	for _, cl := range strings.Fields(attr(n, "class")) {
		for _, p := range []string{"language-", "lang-"} {
			if l, ok := strings.CutPrefix(cl, p); ok && l != "" && !strings.ContainsAny(l, "`") {
				return l
			}
		}
	}
	return ""
}

func containsTag(n *html.Node, a atom.Atom) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (c.DataAtom == a || containsTag(c, a)) {
			return true
		}
	}
	return false
}

func hasBlockChild(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (isBlockElement(c) || hasBlockChild(c)) {
			return true
		}
	}
	return false
}

func isBlockElement(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Address, atom.Article, atom.Aside, atom.Blockquote, atom.Details, atom.Dialog, atom.Dd, atom.Div, atom.Dl, atom.Dt,
		atom.Fieldset, atom.Figcaption, atom.Figure, atom.Footer, atom.Form, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
		atom.Header, atom.Hgroup, atom.Hr, atom.Li, atom.Main, atom.Nav, atom.Ol, atom.P, atom.Pre, atom.Section, atom.Table,
		atom.Ul, atom.Summary, atom.Tr, atom.Td, atom.Th, atom.Tbody, atom.Thead, atom.Tfoot, atom.Caption, atom.Center, atom.Menu:
		return true
	}
	return false
}

// collapseRun turns every run of white space into one space (the ends are kept as one space, so
// words of neighbouring text nodes stay apart).
func collapseRun(s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// tidyInline collapses the spaces that inline pieces leave between them and trims each line.
func tidyInline(s string) string {
	lines := strings.Split(s, "\\\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.Join(strings.Fields(l), " ")
		l = strings.NewReplacer(" ,", ",", " .", ".", "( ", "(", " )", ")").Replace(l)
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\\\n")
}

// escapeText escapes the characters that would start Markdown syntax inside a line. An underscore
// between two letters or digits (snake_case) is left alone.
func escapeText(s string) string {
	if !strings.ContainsAny(s, "\\*_`[]<") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch r {
		case '\\', '*', '`', '[', ']', '<':
			b.WriteByte('\\')
		case '_':
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			next, _ := utf8.DecodeRuneInString(s[i+1:])
			if !(isWordRune(prev) && isWordRune(next)) {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// escapeBlockStart escapes what would make a paragraph a heading, quote, list or rule.
func escapeBlockStart(s string) string {
	switch {
	case strings.HasPrefix(s, "#"), strings.HasPrefix(s, ">"), strings.HasPrefix(s, "- "), strings.HasPrefix(s, "+ "),
		strings.HasPrefix(s, "---"), strings.HasPrefix(s, "==="):
		return "\\" + s
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' ' {
		return s[:i] + "\\" + s[i:]
	}
	return s
}

// escapeURL keeps a link destination inside its parentheses.
func escapeURL(u string) string {
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(u)
}
