package api

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
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
		gz, err := s.openAPIGzip()
		if err != nil {
			return err // logged and answered as internal_error by the error handler
		}
		h := c.Response().Header()
		h.Set("Cache-Control", "no-cache")
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(c.Request().Header) {
			h.Set("Content-Encoding", "gzip")
			return c.Blob(http.StatusOK, "application/json", gz)
		}
		zr, err := gzip.NewReader(bytes.NewReader(gz))
		if err != nil {
			return err
		}
		return c.Stream(http.StatusOK, "application/json", zr)
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
// share it) and kept gzipped: the whole catalogue's is about 10 MB of JSON and 0.6 MB gzipped,
// and asa serve's heap grows to a multiple of what it keeps (GOGC). Clients of the docs route take
// it gzipped (every browser does).
type openAPIDoc struct {
	once sync.Once
	gz   []byte
	err  error
}

func (s *Server) openAPIGzip() ([]byte, error) {
	s.openapi.once.Do(func() {
		doc, err := openapi.Build(s.deps.Registry, openapi.Options{
			ServerURL:      strings.TrimSuffix(s.cfg.PublicURL, "/"),
			DocsURL:        s.cfg.DocsBaseURL,
			CostPerRequest: CostPerRequest,
			SandboxCases:   s.sandboxCases(),
			MaxUsageDays:   MaxUsageDays,
		})
		if err != nil {
			s.openapi.err = err
			return
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(doc); err != nil {
			s.openapi.err = err
			return
		}
		if err := zw.Close(); err != nil {
			s.openapi.err = err
			return
		}
		s.openapi.gz = bytes.Clone(buf.Bytes())
	})
	return s.openapi.gz, s.openapi.err
}

// openAPIDocument is the OpenAPI document, ungzipped.
func (s *Server) openAPIDocument() ([]byte, error) {
	gz, err := s.openAPIGzip()
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// acceptsGzip reports whether a request's Accept-Encoding takes gzip (named or *, without q=0).
func acceptsGzip(h http.Header) bool {
	for _, v := range h.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.TrimSpace(coding)
			if !strings.EqualFold(coding, "gzip") && coding != "*" {
				continue
			}
			if q, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
				if f, err := strconv.ParseFloat(strings.TrimSpace(q), 64); err == nil && f == 0 {
					continue
				}
			}
			return true
		}
	}
	return false
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
