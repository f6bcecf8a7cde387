// Package errcode is the closed catalogue of error codes a client can see. Sitedefs only reference these
// codes; statuses and retry semantics live here so that no YAML can invent a code the API cannot map.
package errcode

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Code is an error code of the API (spec section 7) or one of the project's documented additions.
type Code string

// The catalogue. Blocked is internal: it is a retry signal inside the fetcher, and becomes
// TargetUnreachable (detail "blocked") when every attempt was blocked.
const (
	InvalidParams       Code = "invalid_params"
	Unauthorized        Code = "unauthorized"
	Revoked             Code = "revoked"
	InsufficientCredits Code = "insufficient_credits"
	ProductNotFound     Code = "product_not_found"
	NotFound            Code = "not_found"
	MethodNotAllowed    Code = "method_not_allowed"
	RateLimited         Code = "rate_limited"
	NotImplemented      Code = "not_implemented"
	TargetUnreachable   Code = "target_unreachable"
	ExtractionFailed    Code = "extraction_failed"
	IDMismatch          Code = "id_mismatch"
	GenericGalleryPage  Code = "generic_gallery_page"
	Conflict            Code = "conflict"
	UnsupportedMedia    Code = "unsupported_media_type" // a JSON body without Content-Type: application/json
	InternalError       Code = "internal_error"
	ServiceUnavailable  Code = "service_unavailable"
	Blocked             Code = "blocked"
)

// Info describes how a code reaches a client.
type Info struct {
	Status    int
	Retryable bool
	// Sitedef is true for the codes a sitedef rule may name.
	Sitedef bool
	Summary string
}

var catalogue = map[Code]Info{
	InvalidParams:       {400, false, false, "A parameter is missing, malformed or not valid for the site."},
	Unauthorized:        {401, false, false, "The API key is missing, malformed or unknown."},
	Revoked:             {401, false, false, "The API key was revoked."},
	InsufficientCredits: {402, false, false, "The workspace's monthly credit allowance is spent."},
	ProductNotFound:     {404, false, true, "The target says the item does not exist (delisted, malformed or absent in the region)."},
	NotFound:            {404, false, false, "No such endpoint or resource on this API."},
	MethodNotAllowed:    {405, false, false, "The path exists but not for this HTTP method; the Allow header lists the methods it takes."},
	Conflict:            {409, false, false, "The request conflicts with an earlier one (an idempotency key reused with another body)."},
	UnsupportedMedia:    {415, false, false, "The request body must be sent with Content-Type: application/json."},
	RateLimited:         {429, true, false, "The key's concurrency or request-rate ceiling is exceeded; retry after Retry-After seconds."},
	NotImplemented:      {501, false, false, "A parameter this server does not serve was passed (render_js, screenshot, full_page, wait_for without a browser)."},
	TargetUnreachable:   {502, true, true, "The target could not be reached, timed out, or blocked every internal attempt."},
	ExtractionFailed:    {502, false, true, "The target page could not be parsed into the endpoint's required fields."},
	IDMismatch:          {502, false, true, "The requested item redirected to a different item."},
	GenericGalleryPage:  {502, true, true, "The target served a placeholder or listing page instead of the item."},
	InternalError:       {500, true, false, "A bug on our side; it is logged with the request id."},
	ServiceUnavailable:  {503, true, false, "The service cannot record requests right now (its database is locked or full); nothing was charged; retry after Retry-After seconds."},
	Blocked:             {502, true, true, "A captcha or bot wall (retried internally; never sent as such)."},
}

// Lookup returns the catalogue entry of c.
func Lookup(c Code) (Info, bool) {
	i, ok := catalogue[c]
	return i, ok
}

// All returns every code, sorted, for docs and tests.
func All() []Code {
	out := make([]Code, 0, len(catalogue))
	for c := range catalogue {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Status returns the HTTP status of c (500 for an unknown code).
func (c Code) Status() int {
	if i, ok := catalogue[c]; ok {
		return i.Status
	}
	return 500
}

// Error is an error carrying a catalogue code, a client-safe message and the optional body fields of
// spec section 7.
type Error struct {
	Code    Code
	Message string
	// Detail refines target_unreachable: blocked, timeout, connection, status, forbidden (the address
	// is refused by the SSRF guard), too_large, too_many_redirects, encoding.
	Detail string
	// Params names the parameters at fault (invalid_params, not_implemented).
	Params []string
	// Problems lists what is wrong inside one parameter's structured value (extract_rules), each at
	// its path in that value.
	Problems []Problem
	// Cause is kept for logs; it is never shown to a client.
	Cause error
}

// Problem is one mistake at a path inside a parameter's value, such as
// products.fields.name.xpath in extract_rules.
type Problem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	s := string(e.Code)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Cause }

// New returns an *Error with a formatted message.
func New(c Code, format string, args ...any) *Error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// As returns the *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Of returns err's code, InternalError when it carries none.
func Of(err error) Code {
	if e := As(err); e != nil {
		return e.Code
	}
	return InternalError
}

// MaxListed is the most names an error lists (unknown parameters, for one): a request with
// thousands of them gets an answer of bounded size, with a count of the rest.
const MaxListed = 20

// maxListedLen cuts each listed name: a parameter name can be as long as the URL.
const maxListedLen = 64

// Listed sorts names and returns at most MaxListed of them, each cut at 64 bytes, and their text
// for a message: "a, b, c", or "a, b, ... and 30 more".
func Listed(names []string) ([]string, string) {
	names = slices.Clone(names)
	slices.Sort(names)
	shown := names[:min(len(names), MaxListed)]
	for i, n := range shown {
		if len(n) > maxListedLen {
			cut := maxListedLen
			for cut > 0 && !utf8.RuneStart(n[cut]) {
				cut--
			}
			shown[i] = n[:cut] + "..."
		}
	}
	text := strings.Join(shown, ", ")
	if rest := len(names) - len(shown); rest > 0 {
		text += fmt.Sprintf(", ... and %d more", rest)
	}
	return shown, text
}
