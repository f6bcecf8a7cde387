package universal

import (
	"net/url"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"golang.org/x/net/html"
)

// article is the main content of a page as the content extractor found it, with the byline and
// dates it saw. The extractor is readeck's go-readability (a port of Mozilla's Readability.js),
// chosen by measurement over go-trafilatura: see docs/api.md and cmd/evaluniversal.
type article struct {
	node      *html.Node
	title     string
	byline    string
	published string
	excerpt   string
	siteName  string
	lang      string
}

// mainContent runs the extractor on doc, which it prunes in place: read everything else first.
func mainContent(doc *html.Node, base *url.URL) *article {
	p := readability.NewParser()
	a, err := p.ParseAndMutate(doc, base)
	if err != nil {
		return &article{}
	}
	out := &article{node: a.Node, title: a.Title(), byline: a.Byline(), excerpt: a.Excerpt(), siteName: a.SiteName(), lang: a.Language()}
	if t, err := a.PublishedTime(); err == nil && !t.IsZero() {
		out.published = t.Format("2006-01-02T15:04:05Z07:00")
	}
	return out
}

// text is the main content as plain text: paragraphs separated by a blank line, lines trimmed.
func (a *article) text() string {
	if a.node == nil {
		return ""
	}
	return tidyText(render.InnerText(a.node))
}

// markdown is the main content as Markdown.
func (a *article) markdown() string {
	if a.node == nil {
		return ""
	}
	return toMarkdown(a.node)
}

// tidyText trims every line, drops blank lines at the ends and keeps at most one blank line in a row.
func tidyText(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var b strings.Builder
	b.Grow(len(s))
	blank := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\u00a0")
		if strings.TrimSpace(l) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			if blank > 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		blank = 0
		b.WriteString(strings.TrimLeft(l, " \t\u00a0"))
	}
	return b.String()
}
