package api

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"
)

// The pages' templates and the assets they load, embedded: no CDN, no build step.
//
//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

var (
	pagesOnce sync.Once
	pages     map[string]*template.Template
)

// mustParsePages parses every page with the layout; an embedded template that does not parse is a
// bug caught by any test that starts a server.
func mustParsePages() map[string]*template.Template {
	pagesOnce.Do(func() {
		shared := []string{"templates/layout.html", "templates/chart.html"}
		base := template.Must(template.New("").ParseFS(templateFS, shared...))
		names, err := fs.Glob(templateFS, "templates/*.html")
		if err != nil {
			panic(err)
		}
		pages = map[string]*template.Template{}
		for _, n := range names {
			name := strings.TrimSuffix(path.Base(n), ".html")
			if name == "layout" || name == "chart" {
				continue
			}
			pages[name] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, n))
		}
	})
	return pages
}

func renderPage(c echo.Context, status int, page string, v *view) error {
	t, ok := mustParsePages()[page]
	if !ok {
		return fmt.Errorf("no page template %q", page)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// assetHandler serves /assets/* from the embedded files.
func assetHandler() http.Handler {
	sub, err := fs.Sub(assetFS, "assets")
	if err != nil {
		panic(err)
	}
	fsrv := http.StripPrefix("/assets/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fsrv.ServeHTTP(w, r)
	})
}
