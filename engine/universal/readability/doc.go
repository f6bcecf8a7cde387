// Package readability finds the main content of an HTML page: a port of Mozilla's Readability.js.
//
// It is a fork of readeck's go-readability (codeberg.org/readeck/go-readability/v2) at v2.1.3 (MIT
// licence, in LICENSE), itself a fork of go-shiori/go-readability. The algorithm, its flags and
// retries, its regular expressions (the re2go matchers of internal/re2go) and the text rendering of
// render are upstream's; what differs is how it reads the tree, for speed, and nothing it returns:
//
//   - Character counts (getLinkDensity, cleanConditionally, countCharsAndCommas) read each text once
//     into a run (scanText: characters, gaps of white space, commas, leading and trailing space)
//     that each counter adds at once, rather than feeding every rune to up to six counters through
//     an interface.
//   - grabArticle's link densities of the candidates come from one read of the tree per pass
//     (linkMemo, linkdensity.go): upstream walked every candidate's subtree, and the candidates
//     nest five deep. The link terms are summed in upstream's order (float addition does not
//     associate).
//   - The copy of the document at every pass (cloneDocument) allocates its nodes and attributes
//     in one slice each; getElementsByTagName builds one slice without a closure, and
//     getAllNodesWithTag walks the tree once for all its names, not once per name.
//   - A <noscript> without '<' is not parsed (it holds no image); the others are parsed by
//     engine/dom/htmlparse, which gives x/net/html's trees.
//   - The share, display:none and visibility:hidden expressions run only on a text holding the
//     word they need; rxCDATA's replacement is stripCDATA (a trim at each end), only on a
//     JSON-LD script holding a CDATA marker.
//   - Content scores live in a map of the pass (Parser.scores) holding what upstream's
//     data-readability-score attribute would read back (roundScore: its four decimals), unless the
//     page wrote such attributes itself, when they stay attributes, written with strconv rather
//     than fmt (the same strings). The default logger discards without formatting
//     (slog.DiscardHandler), and cleanConditionally gives its per-node logger attributes only
//     when debug lines are written. The candidates' scores are read once for their sort, not at
//     every comparison.
//   - A pass keeps the runs of its texts of 64 bytes or more (runCache; a text node's Data never
//     changes), which the scoring, the link densities and cleanConditionally each read again.
//   - prepArticle lists the tags clean removes in two walks (cleanTags), not ten; className
//     returns a class attribute written with single spaces as it is.
//   - ParseFrom reads a copy of a tree it leaves whole: one copy, which the first pass prunes, a
//     retry pass making a new one (ParseAndMutate's caller copies, then every pass copies again).
//   - Counts stop where they stop deciding: cleanConditionally keeps a node with ten commas or
//     more whatever its other counts, so it counts commas first, up to ten (commasAtLeast); a
//     pass's text length is counted up to CharThresholds (countCharsUpTo); rxAdWords and
//     rxLoadingWords do not run on a text longer than any they match (maxAdWordsLen).
//   - scanText tells multi-byte white space from a list (isSpaceMultiByte), reads runs of
//     kana, Han and Hangul without decoding them (cjkRun) and runs of spaces eight bytes at a
//     time; render.InnerText reads ASCII a byte at a time and CJK runes undecoded (writeWords),
//     held to upstream's by its own equivalence tests.
//   - fixRelativeURIs rewrites a srcset by a scan of its runs of non-space bytes (absSrcset),
//     which decides what rxSrcsetURL matched without the regexp package's backtracking.
//   - The class-and-id strings the re2go matchers read (ended with a null) are written in one
//     buffer of the Parser (nulString) rather than concatenated for every element of every pass;
//     prepArticle's share cleaner joins an element's class and id only for rxShareElements, where
//     one of them holds "hare".
//   - A div holding a single paragraph is looked through for a link before its link density is
//     counted (linkDensityBelow): without one it is 0.
//
// TestEquivalentCorpus, TestEquivalentFixtures and FuzzEquivalent hold the fork to upstream's
// results (the article rendered as HTML, title, byline, excerpt, site name, language, image,
// favicon and times, with KeepClasses off and on, from ParseAndMutate and from ParseFrom),
// upstream being kept as a test-only dependency.
//
// Not kept: Parse and ParseDocument (the engine parses its own trees and hands them to
// ParseFrom, or a copy to ParseAndMutate), CheckDocument, FromReader, FromURL and FromDocument.
package readability
