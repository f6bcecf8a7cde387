package funcs

// Input caps of the value parsers. A value a page shows (a price, a count, a number, a date, a
// duration) is short; text longer than its cap is not one such value but a whole block someone
// passed by mistake, or an attack. It is refused (nil) by a length check before any other work,
// so each parser's work is bounded by its cap whatever the input: linear by construction, with no
// need to trust the scanners behind the check to stay linear on hostile text. The caps are
// several times the longest real value: the longest price text of the fixtures and the corpus,
// a price box with list price, saving and unit price, is under 200 bytes; the longest date, a
// "Reviewed in the United Kingdom on 13 March 2024"-style sentence with a weekday and a time,
// under 100.
//
// The text functions (normSpace, stripTags, blockText, splitLines, between, truncate, unescapeHTML,
// unescapeCSS), the URL
// functions and the data functions take whole texts and documents by design; each is one pass (or
// a bounded number of passes) over its input instead. Regular expressions are RE2: their work is
// the text's length times the pattern's, and MaxPattern bounds the pattern (a pattern can be
// built from page data at run time), so it is linear in the text.
const (
	// MaxNumberText caps parseNumber, parsePrice, parseCurrency, parseCount, parseInt, digits,
	// toInt, toFloat and fromUnix on text (bytes).
	MaxNumberText = 1024
	// MaxDateText caps parseDate on text (bytes).
	MaxDateText = 512
	// MaxDurationText caps parseDuration on text (bytes).
	MaxDurationText = 256
	// MaxPattern caps the patterns of reFind, reFindAll, reMatch and reReplace (bytes): a longer
	// one is an error, at load for a literal, at run time for a computed one. The longest pattern
	// of the shipped sitedefs is under 200 bytes.
	MaxPattern = 4096
)
