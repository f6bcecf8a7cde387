package api

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"asa/engine/errcode"
)

// keyOf returns the API key a request carries: the api_key parameter, the X-API-Key header and an
// Authorization header of the Bearer scheme are all accepted, and any of them given twice, or two
// of them with different values, is a 400 (which one did the client mean?). An Authorization
// header of another scheme is not ours (a proxy in front may use Basic) and is ignored.
func keyOf(query []string, h http.Header) (string, *errcode.Error) {
	if len(query) > 1 {
		return "", &errcode.Error{Code: errcode.InvalidParams, Message: "api_key given more than once", Params: []string{"api_key"}}
	}
	if len(h.Values("X-API-Key")) > 1 {
		return "", &errcode.Error{Code: errcode.InvalidParams, Message: "the X-API-Key header is given more than once", Params: []string{"api_key"}}
	}
	var bearer []string
	for _, v := range h.Values("Authorization") {
		if tok, ok := bearerToken(v); ok {
			bearer = append(bearer, tok)
		}
	}
	if len(bearer) > 1 {
		return "", &errcode.Error{Code: errcode.InvalidParams, Message: "more than one Authorization: Bearer header", Params: []string{"api_key"}}
	}
	var found []string
	if len(query) == 1 && query[0] != "" {
		found = append(found, query[0])
	}
	if v := strings.TrimSpace(h.Get("X-API-Key")); v != "" {
		found = append(found, v)
	}
	found = append(found, bearer...)
	for _, k := range found[min(1, len(found)):] {
		if k != found[0] {
			return "", &errcode.Error{Code: errcode.InvalidParams, Message: "the api_key parameter, the X-API-Key header and the Authorization header carry different keys; send one", Params: []string{"api_key"}}
		}
	}
	if len(found) == 0 {
		return "", nil
	}
	return found[0], nil
}

// bearerMatches compares the token of an "Authorization: Bearer" value in constant time (hashes
// first, so the length does not leak either).
func bearerMatches(header, token string) bool {
	got, ok := bearerToken(header)
	if !ok {
		return false
	}
	a, b := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// bearerToken returns the token of an Authorization header of the Bearer scheme (RFC 6750; the
// scheme name is case-insensitive).
func bearerToken(header string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}
