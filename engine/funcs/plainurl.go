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
		for i++; i < len(s) && s[i] != '?'; i++ {
			c := s[i]
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
			if !isPlainPathByte(c) {
				return false
			}
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
	// The query is kept verbatim by url.Parse and String.
	for i++; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '#' {
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

// isPlainPathByte reports whether net/url leaves c in a path as it is (unreserved, or a
// sub-delimiter it does not escape in paths); '%' is not one (see PlainAbsURL for escapes).
func isPlainPathByte(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
		return true
	}
	switch c {
	case '-', '_', '.', '~', '$', '&', '+', ',', ';', '=', ':', '@':
		return true
	}
	return false
}

func isDotSegment(seg string) bool { return seg == "." || seg == ".." }
