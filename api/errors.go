package api

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"asa/engine/errcode"
)

// errorBody is the error envelope of spec section 7 and design decision 6.
type errorBody struct {
	Error     errcode.Code `json:"error"`
	Message   string       `json:"message"`
	DocsURL   string       `json:"docs_url"`
	RequestID string       `json:"request_id"`
	Retryable *bool        `json:"retryable,omitempty"`
	Params    []string     `json:"params,omitempty"`
	Detail    string       `json:"detail,omitempty"`
	// Errors lists the problems inside a structured parameter (extract_rules), each at its path.
	Errors []errcode.Problem `json:"errors,omitempty"`
}

// docsURL points at the code's entry in docs/api.md.
func (s *Server) docsURL(c errcode.Code) string {
	return strings.TrimSuffix(s.cfg.DocsBaseURL, "/") + "#error-" + strings.ReplaceAll(string(c), "_", "-")
}

// writeError sends e with its status; internal causes are logged, never sent.
func (s *Server) writeError(c echo.Context, e *errcode.Error) error {
	// A store that cannot take writes is a 503 wherever it was met (unavailable.go).
	if e != nil && e.Code == errcode.InternalError && unavailable(e.Cause) {
		e = storeError(e.Cause)
	}
	if e != nil && e.Code == errcode.ServiceUnavailable {
		s.unavailableHeaders(c, e)
	}

	if e == nil {
		e = &errcode.Error{Code: errcode.InternalError}
	}
	if bodyWasTooLarge(c) {
		// Whatever the handler made of a body cut at the cap, the answer is the cap's.
		return s.bodyTooLarge(c)
	}
	info, ok := errcode.Lookup(e.Code)
	if !ok || e.Code == errcode.Blocked {
		// Blocked never reaches a client: every attempt blocked is target_unreachable/blocked.
		e = &errcode.Error{Code: errcode.TargetUnreachable, Message: e.Message, Detail: "blocked", Cause: e.Cause}
		info, _ = errcode.Lookup(e.Code)
	}
	msg := e.Message
	if msg == "" || e.Code == errcode.InternalError {
		msg = info.Summary
	}
	body := errorBody{Error: e.Code, Message: msg, DocsURL: s.docsURL(e.Code), RequestID: requestID(c), Params: e.Params, Detail: e.Detail, Errors: e.Problems}
	if e.Code == errcode.ProductNotFound {
		f := false
		body.Retryable = &f
	}
	h := c.Response().Header()
	if h.Get(HeaderCost) == "" {
		h.Set(HeaderCost, "0")
	}
	return c.JSON(info.Status, body)
}

// httpErrorHandler turns echo's own errors (unknown route, wrong method, body too large) and anything
// a handler returned into the envelope, so no client ever sees echo's default page or a stack trace.
func (s *Server) httpErrorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var ce *errcode.Error
	var he *echo.HTTPError
	switch {
	case errors.As(err, &ce):
	case errors.As(err, &he):
		switch he.Code {
		case http.StatusNotFound:
			ce = errcode.New(errcode.NotFound, "no such endpoint: %s %s (the endpoints are listed in /docs/api.md)", c.Request().Method, c.Request().URL.Path)
			if hint := s.suggestEndpoint(c.Request().URL.Path); hint != "" {
				ce.Message = fmt.Sprintf("no such endpoint: %s %s; %s", c.Request().Method, c.Request().URL.Path, hint)
			}
		case http.StatusMethodNotAllowed:
			// The router set Allow to the path's methods (OPTIONS is answered for every route).
			allow := c.Response().Header().Get(echo.HeaderAllow)
			if allow == "" {
				allow = http.MethodGet
				c.Response().Header().Set(echo.HeaderAllow, allow)
			}
			ce = errcode.New(errcode.MethodNotAllowed, "%s is not allowed on %s; it takes %s", c.Request().Method, c.Request().URL.Path, allow)
		case http.StatusRequestEntityTooLarge:
			_ = s.bodyTooLarge(c)
			return
		default:
			if he.Code >= 400 && he.Code < 500 {
				ce = errcode.New(errcode.InvalidParams, "%v", he.Message)
			} else {
				ce = &errcode.Error{Code: errcode.InternalError, Cause: err}
			}
		}
	default:
		ce = &errcode.Error{Code: errcode.InternalError, Cause: err}
	}
	if ce.Code == errcode.InternalError && !unavailable(ce.Cause) {
		s.log.ErrorContext(c.Request().Context(), "internal error", "request_id", requestID(c), "path", c.Request().URL.Path, "err", ce.Cause)
	}
	_ = s.writeError(c, ce)
}

// writeErrorStatus sends the envelope with a status other than the code's own (405, 413).
func (s *Server) writeErrorStatus(c echo.Context, e *errcode.Error, status int) error {
	c.Response().Header().Set(HeaderCost, "0")
	return c.JSON(status, errorBody{Error: e.Code, Message: e.Message, DocsURL: s.docsURL(e.Code), RequestID: requestID(c)})
}
