/*!include:re2c "base.re" */

// Original pattern: (?i)byline|author|dateline|writtenby|p-author
// IsBylineNUL reports whether input matches up to its last byte, the terminating null
// the caller appended: the caller builds its input anyway, so the matcher does not copy it.
func IsBylineNUL(input string) bool {
	var cursor, marker int
	limit := len(input) - 1 // limit points at the terminating null
	_ = marker

	for { /*!use:re2c:base_template
		re2c:case-insensitive = 1;

		byline = byline|author|dateline|writtenby|p-author;

		{byline} { return true }
		*        { continue }
		$        { return false }
		*/
	}
}