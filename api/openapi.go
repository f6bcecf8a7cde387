package api

import (
	"net/http"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"asa/api/openapi"
)

// registerDocs serves the OpenAPI document generated from the loaded sitedefs, the page that
// renders it (/docs), the catalogue (/catalogue) and the assets they share. d, when not nil, puts
// the signed-in user in the pages' header.
func (s *Server) registerDocs(e *echo.Echo, d *dashboard) {
	e.GET("/api/v1/openapi.json", func(c echo.Context) error {
		doc, err := s.openAPIDocument()
		if err != nil {
			return err // logged and answered as internal_error by the error handler
		}
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.Blob(http.StatusOK, "application/json", doc)
	})
	e.GET("/docs", func(c echo.Context) error {
		return s.webPage(c, d, "docs", &view{Title: "API reference", Nav: "docs"})
	})
	e.GET("/catalogue", func(c echo.Context) error {
		return s.webPage(c, d, "catalogue", &view{Title: "Catalogue", Nav: "catalogue", Data: s.catalogue()})
	})
	e.GET("/assets/*", echo.WrapHandler(assetHandler()))
	e.GET("/", s.home(d))
	s.registerGuides(e, d)
}

// openAPIDoc is the OpenAPI document, built once on first use (the docs route and the MCP tools
// share it).
type openAPIDoc struct {
	once sync.Once
	doc  []byte
	err  error
}

func (s *Server) openAPIDocument() ([]byte, error) {
	s.openapi.once.Do(func() {
		s.openapi.doc, s.openapi.err = openapi.Build(s.deps.Registry, openapi.Options{
			ServerURL:      strings.TrimSuffix(s.cfg.PublicURL, "/"),
			DocsURL:        s.cfg.DocsBaseURL,
			CostPerRequest: CostPerRequest,
			SandboxCases:   s.sandboxCases(),
			MaxUsageDays:   MaxUsageDays,
		})
	})
	return s.openapi.doc, s.openapi.err
}

// webPage renders a public page, with the signed-in user when there is one.
func (s *Server) webPage(c echo.Context, d *dashboard, page string, v *view) error {
	securityHeaders(c.Response().Header())
	if d != nil {
		v.Viewer, _ = d.viewerOf(c)
		v.Dashboard = true
		v.Batches = d.batchPages
		if h := s.health; h != nil {
			v.Health, v.HealthAlerts = true, len(h.last.Load().Alerts)
		}
		if v.Viewer != nil {
			v.CSRF = v.Viewer.CSRF
		}
	}
	return renderPage(c, http.StatusOK, page, v)
}

// sandboxCases lists the sandbox's cases of every endpoint for the OpenAPI document.
func (s *Server) sandboxCases() map[string][]openapi.SandboxCase {
	if s.deps.Sandbox == nil {
		return nil
	}
	out := map[string][]openapi.SandboxCase{}
	for _, id := range append(s.deps.Registry.IDs(), "universal.get") {
		for _, ci := range s.deps.Sandbox.Cases(id) {
			out[id] = append(out[id], openapi.SandboxCase{Name: ci.Name, Summary: ci.Description, Query: ci.Params.Encode(),
				Status: ci.Status, Error: ci.Error, Default: ci.Default})
		}
	}
	return out
}
