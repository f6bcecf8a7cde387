package universal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/antchfx/xmlquery"
	"golang.org/x/net/html"

	"asa/engine/dom"
	"asa/engine/errcode"
)

// Endpoint is the id of the universal endpoint in logs, usage and fixtures (fixtures/universal/get/).
const Endpoint = "universal.get"

// Version is the extractor version sent as Asa-Extractor-Version (universal@Version). Major: a
// breaking change of the output; minor: a new field or mode; patch: better extraction.
const Version = "1.1.0"

// Mode is the parse parameter.
type Mode string

// The modes. JSON is accepted as an alias of Auto (spec 4.4) and never stored in a Result.
const (
	Auto     Mode = "auto"
	HTML     Mode = "html"
	Text     Mode = "text"
	Markdown Mode = "markdown"
	JSON     Mode = "json"
)

// Modes lists the accepted values of parse, for docs and messages.
var Modes = []Mode{Auto, JSON, HTML, Text, Markdown}

// ParseMode validates a parse parameter: "" is Auto and "json" is an alias of Auto. Anything else is
// invalid_params naming "parse".
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", Auto, JSON:
		return Auto, nil
	case HTML, Text, Markdown:
		return m, nil
	}
	return "", &errcode.Error{Code: errcode.InvalidParams, Params: []string{"parse"},
		Message: fmt.Sprintf("parse must be one of auto, json, html, text, markdown; got %q", s)}
}

// Link is one hyperlink of the page.
type Link struct {
	Text string `json:"text"`
	Href string `json:"href"`
}

// Metadata is the page's description, author and publication time (ISO 8601).
type Metadata struct {
	Description string
	Author      string
	Published   string
}

// Result is one extracted page. Which fields are set, and which keys MarshalJSON writes, depends on
// Mode and on what the target sent (see the package doc).
type Result struct {
	Mode Mode
	// URL is the URL asked for; ResolvedURL the final URL after redirects. Extract sets both to its
	// pageURL; the caller replaces URL with the one the client sent.
	URL         string
	ResolvedURL string
	// Status is the target's HTTP status (parse=html only); Extract leaves it 0 for the caller.
	Status int
	// HTML is the page decoded to UTF-8 (parse=html).
	HTML string
	// Title, Text, Links, Metadata and Structured are parse=auto; Text is also parse=text.
	Title      string
	Text       string
	Links      []Link
	Metadata   Metadata
	Structured *Structured
	// Markdown is parse=markdown.
	Markdown string
	// Data is a JSON target, decoded (parse=auto); IsData says Data is set (it may be JSON null).
	Data   any
	IsData bool
	// Extracted is the JSON object of the request's extract_rules, set by the caller (nil: none).
	Extracted []byte

	rawData []byte // Data as the target wrote it, compacted
}

// kind is what a body is, from its Content-Type and its first bytes.
type kind int

const (
	kindHTML kind = iota
	kindXML
	kindJSON
	kindText
	kindBinary
)

// Extract turns a fetched page into the universal result of mode (Auto, HTML, Text or Markdown;
// JSON is taken as Auto). contentType is the response's Content-Type (it decides the charset and
// the kind of body; an empty or generic one is sniffed); pageURL the final URL, which relative
// links are resolved against.
//
// The body is decoded to UTF-8 and parsed once; the parsed tree is read for links, metadata and
// schema.org entities first, then handed to the main-content extractor, which consumes it.
//
// Errors are *errcode.Error extraction_failed: a PDF, an image or another binary body; a page
// with neither title nor text (parse=auto); no main text (parse=text and markdown).
func Extract(page []byte, contentType, pageURL string, mode Mode) (res *Result, err error) {
	return ExtractWith(page, contentType, pageURL, mode, DefaultExtractor)
}

// ExtractWith is Extract with a chosen main-text extractor: the candidates are measured side by
// side by cmd/evaluniversal.
func ExtractWith(page []byte, contentType, pageURL string, mode Mode, ex Extractor) (res *Result, err error) {
	if mode == JSON || mode == "" {
		mode = Auto
	}
	switch mode {
	case Auto, HTML, Text, Markdown:
	default:
		return nil, &errcode.Error{Code: errcode.InvalidParams, Params: []string{"parse"}, Message: fmt.Sprintf("unknown parse mode %q", mode)}
	}
	defer func() {
		// The extractors are third-party code run on hostile input: a panic is a failed extraction
		// of this page, never a crashed request.
		if r := recover(); r != nil {
			res, err = nil, &errcode.Error{Code: errcode.ExtractionFailed, Message: "the page could not be parsed", Cause: fmt.Errorf("universal: panic: %v", r)}
		}
	}()
	res = &Result{Mode: mode, URL: pageURL, ResolvedURL: pageURL}
	base, _ := url.Parse(pageURL)
	if base != nil && !base.IsAbs() {
		base = nil
	}

	k, label := sniff(page, contentType)
	if k == kindBinary {
		return nil, errcode.New(errcode.ExtractionFailed, "the target sent %s, not a web page: the universal endpoint extracts HTML, XML, JSON and plain text", label)
	}
	body, err := dom.ToUTF8(page, contentType)
	if err != nil {
		return nil, &errcode.Error{Code: errcode.ExtractionFailed, Message: "the page's character encoding could not be decoded", Cause: err}
	}
	if mode == HTML {
		res.HTML = string(body)
		return res, nil
	}
	switch k {
	case kindJSON:
		return extractJSON(res, body)
	case kindText:
		return extractText(res, body)
	case kindXML:
		return extractXML(res, body, ex)
	}
	doc, err := dom.ParseHTML(body)
	if err != nil {
		return nil, &errcode.Error{Code: errcode.ExtractionFailed, Message: "the page could not be parsed as HTML", Cause: err}
	}
	return extractHTML(res, doc, base, ex)
}

// extractHTML fills res from a parsed page; doc is consumed (the main-content extractor prunes it).
func extractHTML(res *Result, doc *html.Node, base *url.URL, ex Extractor) (*Result, error) {
	var pg *page
	if res.Mode == Auto {
		// Everything read from the whole page, before the content extractor prunes the tree.
		pg = scan(doc, base)
	}
	// The content's links and images resolve as a browser resolves them: against the page's <base
	// href> when it has one (scan reads it for the links of parse=auto too).
	art := mainContent(doc, documentBase(doc, base), ex, false)
	switch res.Mode {
	case Text:
		res.Text = art.text()
		if res.Text == "" {
			return nil, errcode.New(errcode.ExtractionFailed, "no text was found on the page")
		}
	case Markdown:
		res.Markdown = art.markdown()
		if res.Markdown == "" {
			return nil, errcode.New(errcode.ExtractionFailed, "no text was found on the page")
		}
	case Auto:
		res.Text = art.text()
		res.Links = pg.links
		res.Title = pg.title(art)
		res.Metadata = pg.metadata(art)
		res.Structured = pg.structured()
		if res.Title == "" && res.Text == "" {
			return nil, errcode.New(errcode.ExtractionFailed, "the page has neither a title nor text")
		}
	}
	return res, nil
}

// extractJSON answers a JSON target: parsed under data for parse=auto, passed through as text
// for text and markdown.
func extractJSON(res *Result, body []byte) (*Result, error) {
	if res.Mode != Auto {
		return extractText(res, body)
	}
	v, err := dom.DecodeJSON(body)
	if err != nil {
		return nil, &errcode.Error{Code: errcode.ExtractionFailed, Message: "the target's JSON could not be decoded", Cause: err}
	}
	res.Data, res.IsData = v, true
	// The target's own bytes keep its key order; a body with an anti-XSSI prefix is re-encoded.
	var buf bytes.Buffer
	if trimmed := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))); json.Valid(trimmed) && json.Compact(&buf, trimmed) == nil {
		res.rawData = buf.Bytes()
	}
	return res, nil
}

// extractText passes a plain-text body through.
func extractText(res *Result, body []byte) (*Result, error) {
	t := strings.TrimSpace(strings.ToValidUTF8(string(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))), "\uFFFD"))
	if t == "" {
		return nil, errcode.New(errcode.ExtractionFailed, "the page is empty")
	}
	switch res.Mode {
	case Markdown:
		res.Markdown = t
	default:
		res.Text = t
		res.Links = []Link{}
		res.Structured = &Structured{}
	}
	return res, nil
}

// extractXML reads a feed or another XML document: its first title and its text.
func extractXML(res *Result, body []byte, ex Extractor) (*Result, error) {
	doc, err := dom.ParseXML(body)
	if err != nil {
		// Not well-formed: read it as HTML, which never fails.
		hdoc, herr := dom.ParseHTML(body)
		if herr != nil {
			return nil, &errcode.Error{Code: errcode.ExtractionFailed, Message: "the page could not be parsed", Cause: err}
		}
		return extractHTML(res, hdoc, nil, ex)
	}
	text := dom.Text(dom.Navigator(doc))
	title := ""
	if t := xmlquery.FindOne(doc, "//*[local-name()='title']"); t != nil {
		title = dom.Text(xmlquery.CreateXPathNavigator(t))
	}
	switch res.Mode {
	case Markdown:
		res.Markdown = text
	default:
		res.Text = text
	}
	if res.Mode == Auto {
		res.Title, res.Links, res.Structured = title, []Link{}, &Structured{}
	}
	if title == "" && text == "" {
		return nil, errcode.New(errcode.ExtractionFailed, "the document has neither a title nor text")
	}
	return res, nil
}

// sniff classifies a body by its Content-Type, falling back on its first bytes when the type is
// missing or generic. The label names what was refused, for the error message.
func sniff(body []byte, contentType string) (kind, string) {
	mt, _, _ := mime.ParseMediaType(contentType)
	mt = strings.ToLower(mt)
	head := body
	if len(head) > 1024 {
		head = head[:1024]
	}
	if bytes.HasPrefix(head, []byte("%PDF-")) || mt == "application/pdf" {
		return kindBinary, "a PDF document"
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return kindHTML, ""
	case mt == "application/json" || mt == "text/json" || strings.HasSuffix(mt, "+json"):
		return kindJSON, ""
	case mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml"):
		if looksHTML(head) {
			return kindHTML, ""
		}
		return kindXML, ""
	case strings.HasPrefix(mt, "image/"):
		return kindBinary, "an image (" + mt + ")"
	case strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		return kindBinary, "a media file (" + mt + ")"
	case strings.HasPrefix(mt, "font/"), mt == "application/zip", mt == "application/gzip", mt == "application/wasm",
		strings.HasPrefix(mt, "application/vnd."), strings.HasPrefix(mt, "application/x-") && !strings.HasPrefix(mt, "application/x-javascript"),
		mt == "application/msword", mt == "application/rtf", mt == "application/postscript":
		return kindBinary, "a binary file (" + mt + ")"
	case mt == "text/plain" || mt == "":
		// Generic: decide by content (servers label HTML and JSON as text/plain often enough).
	case strings.HasPrefix(mt, "text/"), mt == "application/javascript", mt == "application/ecmascript":
		return kindText, ""
	}
	// No type, a generic one (text/plain, application/octet-stream) or an unknown application/*.
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case looksHTML(head):
		return kindHTML, ""
	case len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))):
		return kindJSON, ""
	case bytes.HasPrefix(trimmed, []byte("<?xml")):
		return kindXML, ""
	}
	detected := http.DetectContentType(head)
	if strings.HasPrefix(detected, "text/") && isText(head) {
		return kindText, ""
	}
	if mt == "text/plain" && isText(head) {
		return kindText, ""
	}
	if detected == "application/octet-stream" || !isText(head) {
		if mt != "" && mt != "application/octet-stream" {
			return kindBinary, "a binary file (" + mt + ")"
		}
		return kindBinary, "a binary file (" + detected + ")"
	}
	return kindBinary, "a file of type " + detected
}

// looksHTML reports an HTML document by its first tags, as browsers sniff.
func looksHTML(head []byte) bool {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	if len(h) == 0 || h[0] != '<' {
		return false
	}
	l := bytes.ToLower(h)
	for _, p := range []string{"<!doctype html", "<html", "<head", "<body", "<title", "<script", "<!--", "<div", "<p>", "<p ", "<meta", "<h1", "<table", "<a ", "<br", "<iframe", "<style", "<b>", "<font"} {
		if bytes.HasPrefix(l, []byte(p)) {
			return true
		}
	}
	return false
}

// isText reports a body that is text in some encoding: no NUL bytes and few control characters.
// (UTF-16 without a BOM is not text here; with a BOM dom.ToUTF8 decodes it.)
func isText(head []byte) bool {
	if len(head) >= 2 && (head[0] == 0xFE && head[1] == 0xFF || head[0] == 0xFF && head[1] == 0xFE) {
		return true
	}
	ctl := 0
	for _, b := range head {
		if b == 0 {
			return false
		}
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != 0x1B {
			ctl++
		}
	}
	// Invalid UTF-8 is still text in a legacy charset: only NULs and control characters mark binary.
	return ctl*20 <= len(head)
}
