package api

import (
	"errors"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"asa/engine/errcode"
)

// bodyLimit caps request bodies at Config.BodyLimit bytes (8 MiB, exactly: echo's own middleware
// reads "8M" as 8,000,000). A declared Content-Length over the cap is refused before the handler
// runs; a chunked body is cut where it passes the cap, and whatever error the handler then returns
// goes out as 413, so both ways of sending too much get the same answer.
func (s *Server) bodyLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.ContentLength > s.cfg.BodyLimit {
			return s.bodyTooLarge(c)
		}
		if req.Body != nil && req.Body != http.NoBody {
			b := &cappedBody{ReadCloser: http.MaxBytesReader(c.Response(), req.Body, s.cfg.BodyLimit)}
			req.Body = b
			c.Set(ctxCappedBody, b)
		}
		return next(c)
	}
}

const ctxCappedBody = "capped_body"

// cappedBody remembers that a read passed the cap.
type cappedBody struct {
	io.ReadCloser
	over bool
}

func (b *cappedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var mbe *http.MaxBytesError
	if err != nil && errors.As(err, &mbe) {
		b.over = true
	}
	return n, err
}

// bodyWasTooLarge is true when the handler's read of the body passed the cap.
func bodyWasTooLarge(c echo.Context) bool {
	b, ok := c.Get(ctxCappedBody).(*cappedBody)
	return ok && b.over
}

func (s *Server) bodyTooLarge(c echo.Context) error {
	return s.writeErrorStatus(c, errcode.New(errcode.InvalidParams, "the request body is larger than %d bytes (8 MiB)", s.cfg.BodyLimit), http.StatusRequestEntityTooLarge)
}
