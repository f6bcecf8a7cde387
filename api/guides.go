package api

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
)

// guide is one page of docs/*.md rendered to HTML.
type guide struct {
	Name  string // api.md
	Title string // its first heading
	HTML  template.HTML
	raw   []byte
}

// guides renders the Markdown pages of fsys, each on its first request and once: the pages are the
// project's own (embedded), so their inline HTML (the <a id="error-..."> anchors docs_url points at)
// is kept. Headings get ids from their text as well. Rendering at start kept every page (endpoints.md
// alone is megabytes) in the live heap, which asa serve's heap grows to a multiple of (GOGC).
func guides(fsys fs.FS) (map[string]func() (*guide, error), error) {
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, err
	}
	out := make(map[string]func() (*guide, error), len(names))
	for _, name := range names {
		out[name] = sync.OnceValues(func() (*guide, error) { return renderGuide(fsys, name) })
	}
	return out, nil
}

// renderGuide renders the page name of fsys.
func renderGuide(fsys fs.FS, name string) (*guide, error) {
	src, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
		goldmark.WithRendererOptions(html.WithUnsafe()),
	)
	doc := md.Parser().Parse(text.NewReader(src))
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, src, doc); err != nil {
		return nil, fmt.Errorf("rendering %s: %w", name, err)
	}
	title := strings.TrimSuffix(name, ".md")
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering && h.Level == 1 {
			title = string(headingText(h, src))
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return &guide{Name: name, Title: title, HTML: template.HTML(buf.String()), raw: src}, nil //nolint:gosec // our own embedded docs
}

func headingText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
			continue
		}
		b.Write(headingText(c, src))
	}
	return b.Bytes()
}

// registerGuides serves /docs/<page>.md rendered in the site's layout (docs_url links land on the
// right anchor), and the Markdown itself with ?raw=1.
func (s *Server) registerGuides(e *echo.Echo, d *dashboard) {
	if s.deps.Docs == nil {
		return
	}
	pages, err := guides(s.deps.Docs)
	e.GET("/docs/:page", func(c echo.Context) error {
		if err != nil {
			return err // logged and answered as internal_error by the error handler
		}
		render := pages[path.Base(c.Param("page"))]
		if render == nil {
			return echo.NewHTTPError(http.StatusNotFound)
		}
		g, err := render()
		if err != nil {
			return err
		}
		if c.QueryParam("raw") != "" {
			securityHeaders(c.Response().Header())
			return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", g.raw)
		}
		return s.webPage(c, d, "guide", &view{Title: g.Title, Nav: "docs", Data: g})
	})
}

// home serves GET /: where a newcomer goes next (dashboard, docs, catalogue, the OpenAPI document).
func (s *Server) home(d *dashboard) echo.HandlerFunc {
	type link struct{ Href, Label, Note string }
	return func(c echo.Context) error {
		var links []link
		if d != nil {
			links = append(links, link{"/dashboard", "Dashboard", "sign up or in: API keys, usage, batches"})
		}
		links = append(links, link{"/docs", "API reference", "every endpoint and parameter, from the OpenAPI document"})
		if s.deps.Docs != nil {
			guides, _ := fs.Glob(s.deps.Docs, "*.md")
			sort.Strings(guides)
			for _, g := range []string{"api.md", "endpoints.md"} {
				if i := sort.SearchStrings(guides, g); i < len(guides) && guides[i] == g {
					links = append(links, link{"/docs/" + g, "docs/" + g, map[string]string{
						"api.md":       "authentication, headers, limits, billing, every error code",
						"endpoints.md": "parameters, fields and sandbox cases of every endpoint",
					}[g]})
				}
			}
		}
		links = append(links, link{"/catalogue", "Catalogue", "the sites and endpoints this server answers"},
			link{"/api/v1/openapi.json", "OpenAPI 3.1", "the machine-readable description"})
		return s.webPage(c, d, "home", &view{Title: "Web-scraping API", Data: links})
	}
}
