package api

import (
	"errors"
	"strconv"

	"github.com/labstack/echo/v4"

	"asa/engine/errcode"
	"asa/store"
)

// ErrUnavailable is returned (wrapped) by an Authenticator or a Ledger whose store cannot do the
// work now: locked by another process, disk full, an I/O error. It is not a bug: the request gets
// 503 service_unavailable with Retry-After, and nothing was charged.
var ErrUnavailable = errors.New("store unavailable")

// RetryAfterUnavailable is the Retry-After of a 503 service_unavailable: about what a store needs
// to come back from a lock held by another process or an operator freeing disk space, and long
// enough that retrying clients do not keep a failing store busy.
const RetryAfterUnavailable = 5

// storeError maps an error of the Authenticator, the Ledger or the store itself (batches, the
// dashboard) to what the client sees: service_unavailable when the store is unavailable, else
// internal_error. writeError logs the cause of a 503.
func storeError(err error) *errcode.Error {
	if unavailable(err) {
		return &errcode.Error{Code: errcode.ServiceUnavailable, Message: "the service cannot record requests right now; nothing was charged", Cause: err}
	}
	return &errcode.Error{Code: errcode.InternalError, Cause: err}
}

func unavailable(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, store.ErrUnavailable)
}

// unavailableHeaders sets Retry-After on a 503 and logs its cause with the request id (the cause
// names request ids and SQLite's message, never a key).
func (s *Server) unavailableHeaders(c echo.Context, e *errcode.Error) {
	c.Response().Header().Set("Retry-After", strconv.Itoa(RetryAfterUnavailable))
	s.log.WarnContext(c.Request().Context(), "service unavailable", "request_id", requestID(c), "path", c.Request().URL.Path, "err", e.Cause)
}
