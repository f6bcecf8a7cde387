package dom

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// prescanLen is how much of the body is searched for a <meta> or <?xml?> charset declaration.
const prescanLen = 1024

var bomUTF8 = []byte{0xEF, 0xBB, 0xBF}

// ToUTF8 converts a body to UTF-8 using, in order: a byte order mark, the charset parameter of
// contentType, an XML declaration's encoding or a <meta charset> / <meta http-equiv> in the first
// 1024 bytes, and finally a UTF-8 validity check with a windows-1252 fallback.
//
// When the body is already UTF-8 the input slice itself is returned (a UTF-8 BOM is cut off by
// re-slicing): nothing is copied or allocated. Corrections for mislabelled pages, the usual
// state of the web:
//
//   - a body declared in a legacy ASCII-compatible charset (windows-1251, gb2312, ISO-8859-1 ...)
//     that is valid UTF-8 and contains non-ASCII bytes is taken as UTF-8: legacy text is almost
//     never valid UTF-8 by accident, whereas pages re-saved as UTF-8 keep their old <meta>;
//   - a body declared (or guessed) as UTF-8 that is not valid UTF-8 is decoded as windows-1252 when
//     its invalid sequences outnumber its valid multi-byte ones (a Latin-1 page), else its invalid
//     bytes become U+FFFD (a UTF-8 page with a few stray bytes);
//   - a header naming UTF-16 (without BOM) is ignored for a body without NUL bytes, and a <meta>
//     naming UTF-16 means UTF-8, as WHATWG says.
//
// The error is non-nil only if a decoder fails, which the WHATWG decoders used here do not do.
func ToUTF8(body []byte, contentType string) ([]byte, error) {
	if len(body) == 0 {
		return body, nil
	}
	// 1. Byte order mark.
	switch {
	case bytes.HasPrefix(body, bomUTF8):
		return utf8Body(body[len(bomUTF8):], utf8.Valid(body[len(bomUTF8):]))
	case len(body) >= 2 && body[0] == 0xFE && body[1] == 0xFF:
		return decode(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), body[2:])
	case len(body) >= 2 && body[0] == 0xFF && body[1] == 0xFE:
		return decode(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), body[2:])
	}
	valid := utf8.Valid(body)
	// 2. The Content-Type header.
	if label := extractCharset(contentType); label != "" {
		if enc, name := lookup(label); enc != nil {
			return convert(body, enc, name, true, valid)
		}
	}
	// 3. A declaration inside the document. None can change a UTF-8 body (see convert) except an
	// ISO-2022-JP one, which is 7-bit with escape sequences: skip the prescan for the others.
	if !valid || bytes.IndexByte(body, 0x1B) >= 0 {
		head := body
		if len(head) > prescanLen {
			head = head[:prescanLen]
		}
		if enc, name := prescan(head); enc != nil {
			return convert(body, enc, name, false, valid)
		}
	}
	// 4. No declaration: UTF-8 if it is, else windows-1252.
	return utf8Body(body, valid)
}

// lookup resolves a WHATWG encoding label. The "replacement" encoding (labels of encodings that are
// unsafe to decode, such as ISO-2022-KR) is treated as an unknown label: the next step decides.
func lookup(label string) (encoding.Encoding, string) {
	if l := strings.TrimSpace(label); asciiEqualFold(l, "utf-8") || asciiEqualFold(l, "utf8") {
		return encoding.Nop, "utf-8" // the common case, without charset.Lookup's allocation
	}
	enc, name := charset.Lookup(label)
	if enc == nil || name == "replacement" {
		return nil, ""
	}
	return enc, name
}

// convert decodes body declared as name. fromHeader tells a transport-level declaration from one
// found inside the document, where WHATWG maps UTF-16 to UTF-8 and x-user-defined to windows-1252.
// valid tells whether body is valid UTF-8.
func convert(body []byte, enc encoding.Encoding, name string, fromHeader, valid bool) ([]byte, error) {
	switch name {
	case "utf-8":
		return utf8Body(body, valid)
	case "utf-16be", "utf-16le":
		// Inside the document the label is a lie (the document could be read as ASCII); in a
		// header it is believed unless the body has no NUL byte, which UTF-16 markup always has.
		if !fromHeader || bytes.IndexByte(body, 0) < 0 {
			return utf8Body(body, valid)
		}
		return decode(enc, body)
	case "x-user-defined":
		if !fromHeader {
			enc = charmap.Windows1252
		}
	}
	// The other encodings are ASCII-compatible: a pure-ASCII body decodes to itself (ISO-2022-JP
	// only without escape sequences), and a valid UTF-8 body with non-ASCII bytes was mislabelled.
	if valid && (name != "iso-2022-jp" || bytes.IndexByte(body, 0x1B) < 0) {
		return body, nil
	}
	return decode(enc, body)
}

// utf8Body returns body if it is valid UTF-8, else the best repair (see ToUTF8).
func utf8Body(body []byte, valid bool) ([]byte, error) {
	if valid {
		return body, nil
	}
	if mostlyUTF8(body) {
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), nil
	}
	return decode(charmap.Windows1252, body)
}

func decode(enc encoding.Encoding, body []byte) ([]byte, error) {
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// mostlyUTF8 reports whether the valid multi-byte sequences of b outnumber its invalid bytes.
func mostlyUTF8(b []byte) bool {
	good, bad := 0, 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			bad++
		} else {
			good++
		}
		i += n
	}
	return good > bad
}

// prescan looks for an encoding declared inside the document: the encoding of an XML declaration
// at the very start, else the first <meta charset> or <meta http-equiv="content-type"
// content="...; charset=..."> (the WHATWG prescan, run with the x/net/html tokenizer so that
// comments and script text are skipped).
func prescan(head []byte) (encoding.Encoding, string) {
	if bytes.HasPrefix(head, []byte("<?xml")) {
		end := bytes.Index(head, []byte("?>"))
		if end > 0 {
			if label := xmlDeclEncoding(head[:end]); label != "" {
				if enc, name := lookup(label); enc != nil {
					return enc, name
				}
			}
		}
	}
	z := html.NewTokenizer(bytes.NewReader(head))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return nil, ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tag, hasAttr := z.TagName()
			if string(tag) != "meta" {
				continue
			}
			var (
				gotPragma, seenCharset, seenContent bool
				fromCharset, fromContent            string
			)
			for hasAttr {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				switch string(key) {
				case "http-equiv":
					gotPragma = gotPragma || asciiEqualFold(string(val), "content-type")
				case "charset":
					if !seenCharset {
						seenCharset, fromCharset = true, string(val)
					}
				case "content":
					if !seenContent {
						seenContent, fromContent = true, extractCharset(string(val))
					}
				}
			}
			label := fromCharset
			if !seenCharset {
				if !gotPragma || fromContent == "" {
					continue
				}
				label = fromContent
			}
			if enc, name := lookup(label); enc != nil {
				return enc, name
			}
		}
	}
}

// xmlDeclEncoding returns the encoding pseudo-attribute of an XML declaration (without the "?>").
func xmlDeclEncoding(decl []byte) string {
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return ""
	}
	s := bytes.TrimLeft(decl[i+len("encoding"):], " \t\r\n")
	if len(s) == 0 || s[0] != '=' {
		return ""
	}
	s = bytes.TrimLeft(s[1:], " \t\r\n")
	if len(s) == 0 || (s[0] != '"' && s[0] != '\'') {
		return ""
	}
	end := bytes.IndexByte(s[1:], s[0])
	if end < 0 {
		return ""
	}
	return string(s[1 : 1+end])
}

// extractCharset is the WHATWG "extract a character encoding from a meta element" algorithm, also
// used on Content-Type header values: the value after the first "charset" followed by "=".
func extractCharset(s string) string {
	for {
		i := indexFoldASCII(s, "charset")
		if i < 0 {
			return ""
		}
		s = trimLeftHTMLSpace(s[i+len("charset"):])
		if s == "" || s[0] != '=' {
			continue
		}
		s = trimLeftHTMLSpace(s[1:])
		if s == "" {
			return ""
		}
		if q := s[0]; q == '"' || q == '\'' {
			for j := 1; j < len(s); j++ {
				if s[j] == q {
					return s[1:j]
				}
			}
			return ""
		}
		for j := 0; j < len(s); j++ {
			switch s[j] {
			case ' ', '\t', '\n', '\f', '\r', ';':
				return s[:j]
			}
		}
		return s
	}
}

func trimLeftHTMLSpace(s string) string {
	for len(s) > 0 {
		switch s[0] {
		case ' ', '\t', '\n', '\f', '\r':
			s = s[1:]
		default:
			return s
		}
	}
	return s
}

// indexFoldASCII is strings.Index, case-insensitive for ASCII letters; sub must be lower case.
func indexFoldASCII(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if asciiEqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// asciiEqualFold compares s with the lower-case ASCII string lower, ignoring ASCII case.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
