// Copyright 2010 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package htmlparse

import (
	"bytes"
	"io"
	"strings"
	"unsafe"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// A tokenType is the type of a token.
type tokenType uint32

const (
	// errorToken means that an error occurred during tokenization.
	errorToken tokenType = iota
	// textToken means a text node.
	textToken
	// A startTagToken looks like <a>.
	startTagToken
	// An endTagToken looks like </a>.
	endTagToken
	// A selfClosingTagToken tag looks like <br/>.
	selfClosingTagToken
	// A commentToken looks like <!--x-->.
	commentToken
	// A doctypeToken looks like <!DOCTYPE x>
	doctypeToken
)

// A token is upstream's Token: Data is unescaped, and for tags lower-cased, with DataAtom its atom.
type token struct {
	Type     tokenType
	DataAtom atom.Atom
	Data     string
	Attr     []html.Attribute
}

// span is a range of bytes in the input. The start is inclusive, the end is exclusive.
type span struct {
	start, end int
}

// dedupMapAt is the attribute count of one tag from which duplicate keys are found with a map
// rather than by comparing with every earlier key: small tags stay allocation-free, and a tag with
// a hostile number of attributes stays linear.
const dedupMapAt = 16

// A tokenizer is upstream's Tokenizer working on the whole input at once instead of an io.Reader:
// raw.end is a position in src, and running out of src is upstream's io.EOF. Every state
// transition is upstream's; where upstream reads byte by byte through states that only move
// forward until one particular byte (text up to '<', script data up to '<', a quoted attribute
// value up to its quote, a comment's body up to '-'), this one jumps there with an index search.
type tokenizer struct {
	// src is the input; body is the same bytes, for the look-ups that take a []byte.
	src  string
	body []byte
	// tt is the tokenType of the current token.
	tt tokenType
	// err is the first error encountered during tokenization: only ever io.EOF.
	err error
	// src[raw.start:raw.end] holds the raw bytes of the current token.
	raw span
	// src[data.start:data.end] holds the raw bytes of the current token's data:
	// a text token's text, a tag token's tag name, etc.
	data span
	// pendingAttr is the attribute key and value currently being tokenized.
	// When complete, pendingAttr is pushed onto attr.
	pendingAttr [2]span
	attr        [][2]span
	// attrNames holds the lower-cased keys of attr once it has dedupMapAt of them.
	attrNames map[string]bool
	// rawTag is the "script" in "</script>" that closes the next token. If
	// non-empty, the subsequent call to Next will return a raw or RCDATA text
	// token: one that treats "<p>" as text instead of an element.
	// rawTag's contents are lower-cased.
	rawTag string
	// textIsRaw is whether the current text token's data is not escaped.
	textIsRaw bool
	// convertNUL is whether NUL bytes in the current token's data should
	// be converted into \ufffd replacement characters.
	convertNUL bool
	// allowCDATA is whether CDATA sections are allowed in the current context.
	allowCDATA bool
	// attrSlab is what is left of the current slab of attributes, attrSlabSize the size it was
	// made with.
	attrSlab     []html.Attribute
	attrSlabSize int
	// scratch is reused to rewrite the data that needs it (CR LF, NUL, entities, upper case).
	scratch []byte
}

// initString makes the tokenizer read s, whose bytes it never writes: node strings are substrings
// of s instead of a copy each.
func (z *tokenizer) initString(s string) {
	z.src = s
	z.body = unsafe.Slice(unsafe.StringData(s), len(s))
}

// AllowCDATA sets whether or not the tokenizer recognizes <![CDATA[foo]]> as
// the text "foo". The default value is false, which means to recognize it as
// a bogus comment "<!-- [CDATA[foo]] -->" instead.
func (z *tokenizer) AllowCDATA(allowCDATA bool) {
	z.allowCDATA = allowCDATA
}

// NextIsNotRawText instructs the tokenizer that the next token should not be
// considered as 'raw text'.
func (z *tokenizer) NextIsNotRawText() {
	z.rawTag = ""
}

// Err returns the error associated with the most recent errorToken token.
func (z *tokenizer) Err() error {
	if z.tt != errorToken {
		return nil
	}
	return z.err
}

// readByte returns the next byte from the input, or sets z.err to io.EOF at its end.
// Pre-condition: z.err == nil.
func (z *tokenizer) readByte() byte {
	if z.raw.end >= len(z.src) {
		z.err = io.EOF
		return 0
	}
	x := z.src[z.raw.end]
	z.raw.end++
	return x
}

// skipTo consumes the input up to and including the next byte c and returns true, or consumes
// all of it, sets z.err and returns false: what a loop of readByte until c does.
func (z *tokenizer) skipTo(c byte) bool {
	i := strings.IndexByte(z.src[z.raw.end:], c)
	if i < 0 {
		z.raw.end = len(z.src)
		z.err = io.EOF
		return false
	}
	z.raw.end += i + 1
	return true
}

// skipToEither is skipTo for the first of two bytes; it returns the byte found.
func (z *tokenizer) skipToEither(c1, c2 byte) (byte, bool) {
	s := z.src[z.raw.end:]
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == c1 || c == c2 {
			z.raw.end += i + 1
			return c, true
		}
	}
	z.raw.end = len(z.src)
	z.err = io.EOF
	return 0, false
}

// skipWhiteSpace skips past any white space.
func (z *tokenizer) skipWhiteSpace() {
	if z.err != nil {
		return
	}
	s, i := z.src, z.raw.end
	for i < len(s) && isSpace[s[i]] {
		i++
	}
	z.raw.end = i
	if i == len(s) {
		z.err = io.EOF
	}
}

// readRawOrRCDATA reads until the next "</foo>", where "foo" is z.rawTag and
// is typically something like "script" or "textarea".
func (z *tokenizer) readRawOrRCDATA() {
	if z.rawTag == "script" {
		z.readScript()
		z.textIsRaw = true
		z.rawTag = ""
		return
	}
	// Upstream reads up to a '<', and reconsumes the byte after it unless it is '/': the
	// same as looking for the next "</".
	for {
		i := strings.Index(z.src[z.raw.end:], "</")
		if i < 0 {
			z.raw.end = len(z.src)
			z.err = io.EOF
			break
		}
		z.raw.end += i + 2
		if z.readRawEndTag() || z.err != nil {
			break
		}
	}
	z.data.end = z.raw.end
	// A textarea's or title's RCDATA can contain escaped entities.
	z.textIsRaw = z.rawTag != "textarea" && z.rawTag != "title"
	z.rawTag = ""
}

// readRawEndTag attempts to read a tag like "</foo>", where "foo" is z.rawTag.
// If it succeeds, it backs up the input position to reconsume the tag and
// returns true. Otherwise it returns false. The opening "</" has already been
// consumed.
func (z *tokenizer) readRawEndTag() bool {
	for i := 0; i < len(z.rawTag); i++ {
		c := z.readByte()
		if z.err != nil {
			return false
		}
		if c != z.rawTag[i] && c != z.rawTag[i]-('a'-'A') {
			z.raw.end--
			return false
		}
	}
	c := z.readByte()
	if z.err != nil {
		return false
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		// The 3 is 2 for the leading "</" plus 1 for the trailing character c.
		z.raw.end -= 3 + len(z.rawTag)
		return true
	}
	z.raw.end--
	return false
}

// readScript reads until the next </script> tag, following the byzantine
// rules for escaping/hiding the closing tag.
func (z *tokenizer) readScript() {
	defer func() {
		z.data.end = z.raw.end
	}()
	var c byte
	var ok bool

scriptData:
	// Only '<' leaves this state.
	if !z.skipTo('<') {
		return
	}
	goto scriptDataLessThanSign

scriptDataLessThanSign:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '/':
		goto scriptDataEndTagOpen
	case '!':
		goto scriptDataEscapeStart
	}
	z.raw.end--
	goto scriptData

scriptDataEndTagOpen:
	if z.readRawEndTag() || z.err != nil {
		return
	}
	goto scriptData

scriptDataEscapeStart:
	c = z.readByte()
	if z.err != nil {
		return
	}
	if c == '-' {
		goto scriptDataEscapeStartDash
	}
	z.raw.end--
	goto scriptData

scriptDataEscapeStartDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	if c == '-' {
		goto scriptDataEscapedDashDash
	}
	z.raw.end--
	goto scriptData

scriptDataEscaped:
	// Only '-' and '<' leave this state.
	if c, ok = z.skipToEither('-', '<'); !ok {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	}
	goto scriptDataEscaped

scriptDataEscapedDashDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataEscapedDashDash
	case '<':
		goto scriptDataEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataEscaped

scriptDataEscapedLessThanSign:
	c = z.readByte()
	if z.err != nil {
		return
	}
	if c == '/' {
		goto scriptDataEscapedEndTagOpen
	}
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		goto scriptDataDoubleEscapeStart
	}
	z.raw.end--
	goto scriptData

scriptDataEscapedEndTagOpen:
	if z.readRawEndTag() || z.err != nil {
		return
	}
	goto scriptDataEscaped

scriptDataDoubleEscapeStart:
	z.raw.end--
	for i := 0; i < len("script"); i++ {
		c = z.readByte()
		if z.err != nil {
			return
		}
		if c != "script"[i] && c != "SCRIPT"[i] {
			z.raw.end--
			goto scriptDataEscaped
		}
	}
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		goto scriptDataDoubleEscaped
	}
	z.raw.end--
	goto scriptDataEscaped

scriptDataDoubleEscaped:
	// Only '-' and '<' leave this state.
	if c, ok = z.skipToEither('-', '<'); !ok {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedDashDash:
	c = z.readByte()
	if z.err != nil {
		return
	}
	switch c {
	case '-':
		goto scriptDataDoubleEscapedDashDash
	case '<':
		goto scriptDataDoubleEscapedLessThanSign
	case '>':
		goto scriptData
	}
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapedLessThanSign:
	c = z.readByte()
	if z.err != nil {
		return
	}
	if c == '/' {
		goto scriptDataDoubleEscapeEnd
	}
	z.raw.end--
	goto scriptDataDoubleEscaped

scriptDataDoubleEscapeEnd:
	if z.readRawEndTag() {
		z.raw.end += len("</script>")
		goto scriptDataEscaped
	}
	if z.err != nil {
		return
	}
	goto scriptDataDoubleEscaped
}

// readComment reads the next comment token starting with "<!--". The opening
// "<!--" has already been consumed.
func (z *tokenizer) readComment() {
	z.data.start = z.raw.end
	defer func() {
		if z.data.end < z.data.start {
			// It's a comment with no data, like <!-->.
			z.data.end = z.data.start
		}
	}()

	var dashCount int
	beginning := true
	for {
		var c byte
		if dashCount == 0 && !beginning {
			// With no dash pending and past the beginning, every byte but '-' leaves the state
			// as it is.
			if !z.skipTo('-') {
				z.data.end = z.calculateAbruptCommentDataEnd()
				return
			}
			c = '-'
		} else {
			c = z.readByte()
			if z.err != nil {
				z.data.end = z.calculateAbruptCommentDataEnd()
				return
			}
		}
		switch c {
		case '-':
			dashCount++
			continue
		case '>':
			if dashCount >= 2 || beginning {
				z.data.end = z.raw.end - len("-->")
				return
			}
		case '!':
			if dashCount >= 2 {
				c = z.readByte()
				if z.err != nil {
					z.data.end = z.calculateAbruptCommentDataEnd()
					return
				} else if c == '>' {
					z.data.end = z.raw.end - len("--!>")
					return
				} else if c == '-' {
					dashCount = 1
					beginning = false
					continue
				}
			}
		}
		dashCount = 0
		beginning = false
	}
}

func (z *tokenizer) calculateAbruptCommentDataEnd() int {
	raw := z.src[z.raw.start:z.raw.end]
	const prefixLen = len("<!--")
	if len(raw) >= prefixLen {
		raw = raw[prefixLen:]
		if strings.HasSuffix(raw, "--!") {
			return z.raw.end - 3
		} else if strings.HasSuffix(raw, "--") {
			return z.raw.end - 2
		} else if strings.HasSuffix(raw, "-") {
			return z.raw.end - 1
		}
	}
	return z.raw.end
}

// readUntilCloseAngle reads until the next ">".
func (z *tokenizer) readUntilCloseAngle() {
	z.data.start = z.raw.end
	if !z.skipTo('>') {
		z.data.end = z.raw.end
		return
	}
	z.data.end = z.raw.end - len(">")
}

// readMarkupDeclaration reads the next token starting with "<!". It might be
// a "<!--comment-->", a "<!DOCTYPE foo>", a "<![CDATA[section]]>" or
// "<!a bogus comment". The opening "<!" has already been consumed.
func (z *tokenizer) readMarkupDeclaration() tokenType {
	z.data.start = z.raw.end
	var c [2]byte
	for i := 0; i < 2; i++ {
		c[i] = z.readByte()
		if z.err != nil {
			// bogus comment
			z.data.end = z.raw.end
			if i == 1 && c[0] == '>' {
				z.data.end--
			}
			return commentToken
		}
	}
	if c[0] == '-' && c[1] == '-' {
		z.readComment()
		return commentToken
	}
	z.raw.end -= 2
	if z.readDoctype() {
		return doctypeToken
	}
	if z.allowCDATA && z.readCDATA() {
		z.convertNUL = true
		return textToken
	}
	// It's a bogus comment.
	z.readUntilCloseAngle()
	return commentToken
}

// readDoctype attempts to read a doctype declaration and returns true if
// successful. The opening "<!" has already been consumed.
func (z *tokenizer) readDoctype() bool {
	const s = "DOCTYPE"
	for i := 0; i < len(s); i++ {
		c := z.readByte()
		if z.err != nil {
			// Back up to read the fragment of "DOCTYPE" again, reset
			// z.err to signal EOF on the next call
			z.raw.end = z.data.start
			z.err = nil
			return false
		}
		if c != s[i] && c != s[i]+('a'-'A') {
			// Back up to read the fragment of "DOCTYPE" again.
			z.raw.end = z.data.start
			return false
		}
	}
	if z.skipWhiteSpace(); z.err != nil {
		z.data.start = z.raw.end
		z.data.end = z.raw.end
		return true
	}
	z.readUntilCloseAngle()
	return true
}

// readCDATA attempts to read a CDATA section and returns true if
// successful. The opening "<!" has already been consumed.
func (z *tokenizer) readCDATA() bool {
	const s = "[CDATA["
	for i := 0; i < len(s); i++ {
		c := z.readByte()
		if z.err != nil {
			// Back up to read the fragment of "[CDATA[" again, reset
			// z.err to signal EOF on the next call
			z.raw.end = z.data.start
			z.err = nil
			return false
		}
		if c != s[i] {
			// Back up to read the fragment of "[CDATA[" again.
			z.raw.end = z.data.start
			return false
		}
	}
	z.data.start = z.raw.end
	brackets := 0
	for {
		c := z.readByte()
		if z.err != nil {
			z.data.end = z.raw.end
			return true
		}
		switch c {
		case ']':
			brackets++
		case '>':
			if brackets >= 2 {
				z.data.end = z.raw.end - len("]]>")
				return true
			}
			brackets = 0
		default:
			brackets = 0
		}
	}
}

// rawTagOf returns the lower-cased name of the current start tag if it starts raw text, or "".
func (z *tokenizer) rawTagOf() string {
	name := z.src[z.data.start:z.data.end]
	var want string
	switch len(name) {
	case 3:
		want = "xmp"
	case 5:
		switch name[0] | 0x20 {
		case 's':
			want = "style"
		case 't':
			want = "title"
		}
	case 6:
		switch name[0] | 0x20 {
		case 'i':
			want = "iframe"
		case 's':
			want = "script"
		}
	case 7:
		want = "noembed"
	case 8:
		switch name[0] | 0x20 {
		case 'n':
			if len(name) > 2 && name[2]|0x20 == 'f' {
				want = "noframes"
			} else {
				want = "noscript"
			}
		case 't':
			want = "textarea"
		}
	case 9:
		want = "plaintext"
	}
	if want != "" && asciiLowerEqual(name, want) {
		return want
	}
	return ""
}

// asciiLowerEqual reports whether s lower-cased (ASCII letters only, as upstream's lower) is lower.
func asciiLowerEqual(s, lower string) bool {
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

// readStartTag reads the next start tag token. The opening "<a" has already
// been consumed, where 'a' means anything in [A-Za-z].
func (z *tokenizer) readStartTag() tokenType {
	z.readTag(true)
	if z.err != nil {
		return errorToken
	}
	// Several tags flag the tokenizer's next token as raw.
	if raw := z.rawTagOf(); raw != "" {
		z.rawTag = raw
	}
	// Look for a self-closing token (e.g. <br/>), taking care that the last character of an
	// unquoted attribute value (<p a=/>) is not the solidus.
	nAttrs := len(z.attr)
	if z.err == nil && z.src[z.raw.end-2] == '/' && (nAttrs == 0 || z.raw.end-2 != z.attr[nAttrs-1][1].end-1) {
		return selfClosingTagToken
	}
	return startTagToken
}

// readTag reads the next tag token and its attributes. If saveAttr, those
// attributes are saved in z.attr, otherwise z.attr is set to an empty slice.
// The opening "<a" or "</a" has already been consumed, where 'a' means anything
// in [A-Za-z].
func (z *tokenizer) readTag(saveAttr bool) {
	z.attr = z.attr[:0]
	if z.attrNames != nil {
		clear(z.attrNames)
	}
	// Read the tag name and attribute key/value pairs.
	z.readTagName()
	if z.skipWhiteSpace(); z.err != nil {
		return
	}
	for {
		c := z.readByte()
		if z.err != nil || c == '>' {
			break
		}
		z.raw.end--
		z.readTagAttrKey()
		z.readTagAttrVal()
		// Save pendingAttr if saveAttr and that attribute has a non-empty key, and the key hasn't been seen before.
		if saveAttr && z.pendingAttr[0].start != z.pendingAttr[0].end && !z.seenAttr() {
			z.attr = append(z.attr, z.pendingAttr)
		}
		if z.skipWhiteSpace(); z.err != nil {
			break
		}
	}
}

// seenAttr reports whether the pending attribute's key, lower-cased, is the key of an attribute
// already saved for this tag, and remembers it when the map is in use.
func (z *tokenizer) seenAttr() bool {
	key := z.src[z.pendingAttr[0].start:z.pendingAttr[0].end]
	if len(z.attr) < dedupMapAt {
		for _, a := range z.attr {
			if asciiFoldEqual(z.src[a[0].start:a[0].end], key) {
				return true
			}
		}
		return false
	}
	if z.attrNames == nil {
		z.attrNames = make(map[string]bool)
	}
	if len(z.attrNames) == 0 {
		for _, a := range z.attr {
			z.attrNames[asciiLower(z.src[a[0].start:a[0].end])] = true
		}
	}
	k := asciiLower(key)
	if z.attrNames[k] {
		return true
	}
	z.attrNames[k] = true
	return false
}

// asciiFoldEqual reports whether a and b are equal once ASCII upper case is lowered.
func asciiFoldEqual(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if 'A' <= ca && ca <= 'Z' {
			ca += 'a' - 'A'
		}
		if 'A' <= cb && cb <= 'Z' {
			cb += 'a' - 'A'
		}
		if ca != cb {
			return false
		}
	}
	return true
}

// asciiLower returns s with ASCII upper case lowered, as upstream's lower.
func asciiLower(s string) string {
	return string(lower([]byte(s)))
}

// Byte classes of the loops of tag names, attribute keys and unquoted attribute values, which
// upstream runs through readByte and a switch per byte.
var (
	// endsTagName: white space, '/' and '>'.
	endsTagName [256]bool
	// endsAttrKey: white space, '/', '>' and '='.
	endsAttrKey [256]bool
	// endsUnquotedVal: white space and '>'.
	endsUnquotedVal [256]bool
	// isSpace: upstream's white space.
	isSpace [256]bool
)

func init() {
	for _, c := range []byte(" \n\r\t\f") {
		endsTagName[c], endsAttrKey[c], endsUnquotedVal[c], isSpace[c] = true, true, true, true
	}
	endsTagName['/'], endsTagName['>'] = true, true
	endsAttrKey['/'], endsAttrKey['>'], endsAttrKey['='] = true, true, true
	endsUnquotedVal['>'] = true
}

// readTagName sets z.data to the "div" in "<div k=v>". The reader (z.raw.end)
// is positioned such that the first byte of the tag name (the "d" in "<div")
// has already been consumed.
func (z *tokenizer) readTagName() {
	z.data.start = z.raw.end - 1
	s, i := z.src, z.raw.end
	for i < len(s) && !endsTagName[s[i]] {
		i++
	}
	switch {
	case i == len(s):
		z.raw.end = i
		z.err = io.EOF
		z.data.end = i
	case isSpace[s[i]]:
		// The white space is consumed.
		z.raw.end = i + 1
		z.data.end = i
	default:
		// '/' and '>' are reconsumed.
		z.raw.end = i
		z.data.end = i
	}
}

// readTagAttrKey sets z.pendingAttr[0] to the "k" in "<div k=v>".
// Precondition: z.err == nil.
func (z *tokenizer) readTagAttrKey() {
	z.pendingAttr[0].start = z.raw.end
	s, i := z.src, z.raw.end
	if i < len(s) && s[i] == '=' {
		// WHATWG 13.2.5.32, if we see an equals sign before the attribute name
		// begins, we treat it as a character in the attribute name and continue.
		i++
	}
	for i < len(s) && !endsAttrKey[s[i]] {
		i++
	}
	// WHATWG 13.2.5.33 Attribute name state: the byte that ends the name is reconsumed in the
	// after attribute name state (to support the / character).
	z.raw.end = i
	z.pendingAttr[0].end = i
	if i == len(s) {
		z.err = io.EOF
	}
}

// readTagAttrVal sets z.pendingAttr[1] to the "v" in "<div k=v>".
func (z *tokenizer) readTagAttrVal() {
	z.pendingAttr[1].start = z.raw.end
	z.pendingAttr[1].end = z.raw.end
	if z.skipWhiteSpace(); z.err != nil {
		return
	}
	c := z.readByte()
	if z.err != nil {
		return
	}
	if c == '/' {
		// WHATWG 13.2.5.34 After attribute name state
		// U+002F SOLIDUS (/) - Switch to the self-closing start tag state.
		return
	}
	if c != '=' {
		z.raw.end--
		return
	}
	if z.skipWhiteSpace(); z.err != nil {
		return
	}
	quote := z.readByte()
	if z.err != nil {
		return
	}
	switch quote {
	case '>':
		z.raw.end--
		return

	case '\'', '"':
		z.pendingAttr[1].start = z.raw.end
		if !z.skipTo(quote) {
			z.pendingAttr[1].end = z.raw.end
			return
		}
		z.pendingAttr[1].end = z.raw.end - 1

	default:
		z.pendingAttr[1].start = z.raw.end - 1
		s, i := z.src, z.raw.end
		for i < len(s) && !endsUnquotedVal[s[i]] {
			i++
		}
		switch {
		case i == len(s):
			z.raw.end = i
			z.err = io.EOF
		case s[i] == '>':
			// Reconsumed.
			z.raw.end = i
		default:
			// The white space is consumed.
			z.raw.end = i + 1
		}
		z.pendingAttr[1].end = i
	}
}

// Next scans the next token and returns its type.
func (z *tokenizer) Next() tokenType {
	z.raw.start = z.raw.end
	z.data.start = z.raw.end
	z.data.end = z.raw.end
	if z.err != nil {
		z.tt = errorToken
		return z.tt
	}
	if z.rawTag != "" {
		if z.rawTag == "plaintext" {
			// Read everything up to EOF.
			z.raw.end = len(z.src)
			z.err = io.EOF
			z.data.end = z.raw.end
			z.textIsRaw = true
		} else {
			z.readRawOrRCDATA()
		}
		if z.data.end > z.data.start {
			z.tt = textToken
			z.convertNUL = true
			return z.tt
		}
	}
	z.textIsRaw = false
	z.convertNUL = false

loop:
	for {
		// Text runs up to a '<'.
		if !z.skipTo('<') {
			break loop
		}

		// Check if the '<' we have just read is part of a tag, comment
		// or doctype. If not, it's part of the accumulated text token.
		c := z.readByte()
		if z.err != nil {
			break loop
		}
		var tokenType tokenType
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
			tokenType = startTagToken
		case c == '/':
			tokenType = endTagToken
		case c == '!' || c == '?':
			// We use commentToken to mean any of "<!--actual comments-->",
			// "<!DOCTYPE declarations>" and "<?xml processing instructions?>".
			tokenType = commentToken
		default:
			// Reconsume the current character.
			z.raw.end--
			continue
		}

		// We have a non-text token, but we might have accumulated some text
		// before that. If so, we return the text first, and return the non-
		// text token on the subsequent call to Next.
		if x := z.raw.end - len("<a"); z.raw.start < x {
			z.raw.end = x
			z.data.end = x
			z.tt = textToken
			return z.tt
		}
		switch tokenType {
		case startTagToken:
			z.tt = z.readStartTag()
			return z.tt
		case endTagToken:
			c = z.readByte()
			if z.err != nil {
				break loop
			}
			if c == '>' {
				// "</>" does not generate a token at all. Generate an empty comment
				// to allow passthrough clients to pick up the data using Raw.
				// Reset the tokenizer state and start again.
				z.tt = commentToken
				return z.tt
			}
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				z.readTag(false)
				if z.err != nil {
					z.tt = errorToken
				} else {
					z.tt = endTagToken
				}
				return z.tt
			}
			z.raw.end--
			z.readUntilCloseAngle()
			z.tt = commentToken
			return z.tt
		case commentToken:
			if c == '!' {
				z.tt = z.readMarkupDeclaration()
				return z.tt
			}
			z.raw.end--
			z.readUntilCloseAngle()
			z.tt = commentToken
			return z.tt
		}
	}
	if z.raw.start < z.raw.end {
		z.data.end = z.raw.end
		z.tt = textToken
		return z.tt
	}
	z.tt = errorToken
	return z.tt
}

// convertNewlines converts "\r" and "\r\n" in s to "\n".
// The conversion happens in place, but the resulting slice may be shorter.
func convertNewlines(s []byte) []byte {
	for i, c := range s {
		if c != '\r' {
			continue
		}

		src := i + 1
		if src >= len(s) || s[src] != '\n' {
			s[i] = '\n'
			continue
		}

		dst := i
		for src < len(s) {
			if s[src] == '\r' {
				if src+1 < len(s) && s[src+1] == '\n' {
					src++
				}
				s[dst] = '\n'
			} else {
				s[dst] = s[src]
			}
			src++
			dst++
		}
		return s[:dst]
	}
	return s
}

var (
	nul         = []byte("\x00")
	replacement = []byte("\ufffd")
)

// text returns upstream's Text() of a text, comment or doctype token as a string: the data with
// CR LF and CR turned into LF, NUL into U+FFFD in raw text and comments, and entities unescaped
// unless the text is raw. It is a substring of the input unless one of those changed something.
func (z *tokenizer) text() string {
	s := z.src[z.data.start:z.data.end]
	hasCR := strings.IndexByte(s, '\r') >= 0
	hasNUL := (z.convertNUL || z.tt == commentToken) && strings.IndexByte(s, 0) >= 0
	hasAmp := !z.textIsRaw && strings.IndexByte(s, '&') >= 0
	if !hasCR && !hasNUL && !hasAmp {
		return s
	}
	b := append(z.scratch[:0], s...)
	if hasCR {
		b = convertNewlines(b)
	}
	if hasNUL {
		b = bytes.ReplaceAll(b, nul, replacement)
	}
	if hasAmp {
		b = unescape(b, false)
	}
	z.scratch = b[:0]
	if string(b) == s {
		return s
	}
	return string(b)
}

// tagName returns upstream's atom and Data for the current tag: the name lower-cased, NUL as
// U+FFFD, the atom's own string for a known tag.
func (z *tokenizer) tagName() (atom.Atom, string) {
	name := z.body[z.data.start:z.data.end]
	clean := true
	for _, c := range name {
		if 'A' <= c && c <= 'Z' || c == 0 {
			clean = false
			break
		}
	}
	if clean {
		if a := atom.Lookup(name); a != 0 {
			return a, a.String()
		}
		return 0, z.src[z.data.start:z.data.end]
	}
	b := append(z.scratch[:0], name...)
	if bytes.IndexByte(b, 0) >= 0 {
		b = bytes.ReplaceAll(b, nul, replacement)
	}
	b = lower(b)
	z.scratch = b[:0]
	if a := atom.Lookup(b); a != 0 {
		return a, a.String()
	}
	return 0, string(b)
}

// attrKey returns upstream's key of an attribute: lower-cased, NUL as U+FFFD.
func (z *tokenizer) attrKey(sp span) string {
	key := z.body[sp.start:sp.end]
	for _, c := range key {
		if 'A' <= c && c <= 'Z' || c == 0 {
			b := append(z.scratch[:0], key...)
			if bytes.IndexByte(b, 0) >= 0 {
				b = bytes.ReplaceAll(b, nul, replacement)
			}
			b = lower(b)
			z.scratch = b[:0]
			return atom.String(b)
		}
	}
	return z.src[sp.start:sp.end]
}

// attrVal returns upstream's value of an attribute: NUL as U+FFFD, newlines converted,
// entities unescaped as in an attribute.
func (z *tokenizer) attrVal(sp span) string {
	s := z.src[sp.start:sp.end]
	hasCR := strings.IndexByte(s, '\r') >= 0
	hasNUL := strings.IndexByte(s, 0) >= 0
	hasAmp := strings.IndexByte(s, '&') >= 0
	if !hasCR && !hasNUL && !hasAmp {
		return s
	}
	b := append(z.scratch[:0], s...)
	if hasNUL {
		b = bytes.ReplaceAll(b, nul, replacement)
	}
	if hasCR {
		b = convertNewlines(b)
	}
	if hasAmp {
		b = unescape(b, true)
	}
	z.scratch = b[:0]
	if string(b) == s {
		return s
	}
	return string(b)
}

// newAttrs returns a slice of n attributes from the current slab, its capacity its length so
// that an append to it never writes into the slab.
func (z *tokenizer) newAttrs(n int) []html.Attribute {
	if len(z.attrSlab) < n {
		size := max(16, min(2*z.attrSlabSize, attrSlabMax))
		z.attrSlabSize = size
		z.attrSlab = make([]html.Attribute, max(size, n))
	}
	a := z.attrSlab[:n:n]
	z.attrSlab = z.attrSlab[n:]
	return a
}

// copyAttrs is upstream's clone of a node's attributes: a new slice, never nil.
func (z *tokenizer) copyAttrs(attr []html.Attribute) []html.Attribute {
	if len(attr) == 0 {
		return make([]html.Attribute, 0)
	}
	a := z.newAttrs(len(attr))
	copy(a, attr)
	return a
}

// token sets *t to the current token, field by field (see newNode): upstream's Token, its
// strings sharing the input's copy where they can.
func (z *tokenizer) token(t *token) {
	t.Type = z.tt
	t.DataAtom = 0
	t.Data = ""
	t.Attr = nil
	switch z.tt {
	case textToken, commentToken, doctypeToken:
		t.Data = z.text()
	case startTagToken, selfClosingTagToken, endTagToken:
		if z.data.start < z.data.end {
			t.DataAtom, t.Data = z.tagName()
			if z.tt != endTagToken && len(z.attr) > 0 {
				t.Attr = z.newAttrs(len(z.attr))
				for i, x := range z.attr {
					t.Attr[i] = html.Attribute{Key: z.attrKey(x[0]), Val: z.attrVal(x[1])}
				}
			}
		}
	}
}
