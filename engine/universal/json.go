package universal

import (
	"bytes"
	"encoding/json"
)

// MarshalJSON writes the result with its keys in a fixed order per mode (docs/api.md):
//
//	auto      url, resolved_url, title, text, links, metadata {description, author, published}, structured
//	auto      url, resolved_url, data                     (a JSON target)
//	html      url, resolved_url, status, html
//	text      url, resolved_url, text
//	markdown  url, resolved_url, markdown
//
// Every mode ends with extracted, the fields of the request's extract_rules, when it gave some.
// A string the page does not give is null. HTML characters are not escaped (<, > and & stay as
// they are).
func (r *Result) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.b.Grow(256 + len(r.HTML) + len(r.Text) + len(r.Markdown) + 96*len(r.Links))
	w.b.WriteByte('{')
	w.field("url", nullable(r.URL))
	w.field("resolved_url", nullable(r.ResolvedURL))
	switch {
	case r.Mode == HTML:
		w.field("status", r.Status)
		w.field("html", r.HTML)
	case r.Mode == Text:
		w.field("text", nullable(r.Text))
	case r.Mode == Markdown:
		w.field("markdown", nullable(r.Markdown))
	case r.IsData:
		if r.rawData != nil {
			w.raw("data", r.rawData)
		} else {
			w.field("data", r.Data)
		}
	default:
		w.field("title", nullable(r.Title))
		w.field("text", nullable(r.Text))
		links := r.Links
		if links == nil {
			links = []Link{}
		}
		w.field("links", links)
		var m objWriter
		m.b.WriteByte('{')
		m.field("description", nullable(r.Metadata.Description))
		m.field("author", nullable(r.Metadata.Author))
		m.field("published", nullable(r.Metadata.Published))
		m.b.WriteByte('}')
		if m.err != nil {
			return nil, m.err
		}
		w.raw("metadata", m.b.Bytes())
		st := r.Structured
		if st == nil {
			st = &Structured{}
		}
		w.field("structured", st)
	}
	if r.Extracted != nil {
		w.raw("extracted", r.Extracted)
	}
	w.b.WriteByte('}')
	if w.err != nil {
		return nil, w.err
	}
	return w.b.Bytes(), nil
}

// nullable is nil (JSON null) for "".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

type objWriter struct {
	b   bytes.Buffer
	n   int
	err error
}

func (w *objWriter) key(k string) {
	if w.n > 0 {
		w.b.WriteByte(',')
	}
	w.n++
	w.b.WriteByte('"')
	w.b.WriteString(k) // our own keys: plain ASCII
	w.b.WriteString(`":`)
}

func (w *objWriter) field(k string, v any) {
	w.key(k)
	enc := json.NewEncoder(&w.b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil && w.err == nil {
		w.err = err
	}
	// Encode ends with a newline.
	if b := w.b.Bytes(); len(b) > 0 && b[len(b)-1] == '\n' {
		w.b.Truncate(len(b) - 1)
	}
}

func (w *objWriter) raw(k string, v []byte) {
	w.key(k)
	w.b.Write(v)
}
