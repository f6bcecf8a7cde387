package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"asa/engine/errcode"
)

// net/http answers some requests itself, before any handler runs: a malformed request line or
// header (400), headers over MaxHeaderBytes (431), an unknown transfer encoding (501). It writes
// those as plain text straight to the connection, in one write of a fixed shape, with no hook to
// change them. jsonErrorListener wraps each connection and swaps exactly that write for the API's
// JSON error envelope, so a client parsing errors never meets a body it cannot read.
type jsonErrorListener struct {
	net.Listener
	s *Server
}

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	return &jsonErrorConn{Conn: c, s: l.s}, nil
}

type jsonErrorConn struct {
	net.Conn
	s *Server
}

// goErrorHeaders follows the status line of every answer net/http writes by itself (server.go,
// errorHeaders); our handlers' answers always carry a Date and a length, so they never match.
const goErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

func (c *jsonErrorConn) Write(p []byte) (int, error) {
	status, text, ok := parseGoError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(c.s.rawErrorReply(status, text)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// CloseWrite keeps net/http's half-close after a 431 (it looks for the method on the connection).
func (c *jsonErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// parseGoError recognises one of net/http's own error answers: "HTTP/1.1 NNN Reason[: text]",
// goErrorHeaders, then the body. It returns the status and the body text.
func parseGoError(p []byte) (int, string, bool) {
	const proto = "HTTP/1.1 "
	if len(p) < len(proto)+3 || string(p[:len(proto)]) != proto || (p[len(proto)] != '4' && p[len(proto)] != '5') {
		return 0, "", false
	}
	eol := bytes.IndexByte(p, '\r')
	if eol < 0 || !bytes.HasPrefix(p[eol:], []byte(goErrorHeaders)) {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(p[len(proto) : len(proto)+3]))
	if err != nil {
		return 0, "", false
	}
	return status, string(p[eol+len(goErrorHeaders):]), true
}

// rawErrorReply is a whole HTTP/1.1 response in the error envelope, for status.
func (s *Server) rawErrorReply(status int, text string) []byte {
	code, msg := errcode.InvalidParams, "the request is malformed: its request line or a header cannot be parsed"
	if _, detail, ok := strings.Cut(text, ": "); ok && detail != "" {
		msg = "the request is malformed: " + detail
	}
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		msg = fmt.Sprintf("the request line and headers are larger than %d bytes", s.cfg.MaxHeaderBytes)
	case http.StatusNotImplemented:
		code, msg = errcode.NotImplemented, "the request uses a transfer encoding this server does not implement"
	}
	id := newRequestID()
	s.log.Debug("request refused by net/http", "request_id", id, "status", status, "reason", text)
	body, _ := json.Marshal(errorBody{Error: code, Message: msg, DocsURL: s.docsURL(code), RequestID: id})
	body = append(body, '\n')
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	fmt.Fprintf(&b, "Content-Type: application/json\r\n%s: %s\r\nConnection: close\r\nContent-Length: %d\r\n\r\n", HeaderRequestID, id, len(body))
	b.Write(body)
	return b.Bytes()
}
