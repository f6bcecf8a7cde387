/*!include:re2c "base.re" */

// Original pattern: (?i)-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote
// IsUnlikelyCandidatesNUL reports whether input matches up to its last byte, the terminating null
// the caller appended: the caller builds its input anyway, so the matcher does not copy it.
func IsUnlikelyCandidatesNUL(input string) bool {
	var cursor, marker int
	limit := len(input) - 1 // limit points at the terminating null
	_ = marker

	for { /*!use:re2c:base_template
		re2c:case-insensitive = 1;

		unlikely = -ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote;

		{unlikely} { return true }
		*          { continue }
		$          { return false }
		*/
	}
}

// Original pattern: (?i)and|article|body|column|content|main|mathjax|shadow
// MaybeItsACandidateNUL reports whether input matches up to its last byte, the terminating null
// the caller appended: the caller builds its input anyway, so the matcher does not copy it.
func MaybeItsACandidateNUL(input string) bool {
	var cursor, marker int
	limit := len(input) - 1 // limit points at the terminating null
	_ = marker

	for { /*!use:re2c:base_template
		re2c:case-insensitive = 1;

		maybe = and|article|body|column|content|main|mathjax|shadow;

		{maybe} { return true }
		*       { continue }
		$       { return false }
		*/
	}
}
