package funcs

// PlainAbsURL reports whether s is an absolute http(s) URL that net/url gives back unchanged:
// url.Parse, then ResolveReference against any base (an absolute reference ignores it), then
// String is s itself. Most hrefs and image addresses of a list page are such URLs, and each
// round trip through net/url costs two URL structs and several strings for nothing; absURL and
// the engine's url fields answer those with s. The grammar is narrow on purpose (lower-case
// scheme, a host of letters, digits, '.' and '-', a path without dot segments or characters
// net/url would escape, where percent escapes are kept as written, no fragment); anything else
// takes net/url's path, and FuzzPlainAbsURL checks that every string accepted here is net/url's
// fixed point.
func PlainAbsURL(s string) bool {
	var i int
	switch {
	case len(s) > 8 && s[:8] == "https://":
		i = 8
	case len(s) > 7 && s[:7] == "http://":
		i = 7
	default:
		return false
	}
	h := i
	for i < len(s) && isHostByte(s[i]) {
		i++
	}
	if i == h {
		return false
	}
	if i < len(s) && s[i] == '/' {
		seg := i + 1 // start of the current path segment
		for i++; i < len(s); i++ {
			c := s[i]
			if plainPathByte[c] {
				continue
			}
			if c == '/' {
				if isDotSegment(s[seg:i]) {
					return false
				}
				seg = i + 1
				continue
			}
			if c == '%' {
				// An escape is kept as written (net/url keeps a valid raw path), in any case of its
				// hex digits; a '%' that starts none is not plain.
				if i+2 >= len(s) || !isHexDigit(s[i+1]) || !isHexDigit(s[i+2]) {
					return false
				}
				i += 2
				continue
			}
			if c == '?' {
				break
			}
			return false
		}
		if isDotSegment(s[seg:i]) {
			return false
		}
	}
	if i == len(s) {
		return true
	}
	if s[i] != '?' {
		return false
	}
	// The query is kept verbatim by url.Parse and String. Tracking queries run to hundreds of
	// bytes: eight at a time first, while none of them is out of the set.
	for i++; i+8 <= len(s) && plainQueryWord(s[i:i+8]); i += 8 {
	}
	for ; i < len(s); i++ {
		if !plainQueryByte[s[i]] {
			return false
		}
	}
	return true
}

func isHostByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-'
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// plainPathByte holds the bytes net/url leaves in a path as they are (unreserved, or a
// sub-delimiter it does not escape in paths); '%' is not one (see PlainAbsURL for escapes). A
// table rather than comparisons: a card's link is checked byte by byte, twice (absURL and the url
// field), and tracking paths and queries run to hundreds of bytes.
var plainPathByte = byteSet(func(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	switch c {
	case '-', '_', '.', '~', '$', '&', '+', ',', ';', '=', ':', '@':
		return true
	}
	return false
})

// plainQueryByte holds the bytes a query keeps through url.Parse and String: printable ASCII but
// '#', which starts a fragment.
var plainQueryByte = byteSet(func(c byte) bool { return ' ' < c && c < 0x7f && c != '#' })

// plainQueryWord reports whether the first 8 bytes of w are all in plainQueryByte. A byte below
// 0x21 borrows into its high bit when 0x21 is taken from it, one of 0x80 or more has it, and '#'
// and DEL are the zero bytes of w^'#' and w^DEL.
func plainQueryWord(w string) bool {
	_ = w[7]
	x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
	const ones, hi = 0x0101010101010101, 0x8080808080808080
	hash, del := x^('#'*ones), x^(0x7f*ones)
	return ((x-'!'*ones)|x|(hash-ones)&^hash|(del-ones)&^del)&hi == 0
}

func byteSet(in func(byte) bool) (set [256]bool) {
	for c := range 256 {
		set[c] = in(byte(c))
	}
	return set
}

func isDotSegment(seg string) bool { return seg == "." || seg == ".." }
