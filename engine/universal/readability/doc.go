// Package readability finds the main content of an HTML page: a port of Mozilla's Readability.js.
//
// It is a fork of readeck's go-readability (codeberg.org/readeck/go-readability/v2) at v2.1.3 (MIT
// licence, in LICENSE), itself a fork of go-shiori/go-readability. The algorithm, its flags and
// retries, its regular expressions (the re2go matchers of internal/re2go) and the text rendering of
// render are upstream's; what differs is how it walks the tree, for speed, and nothing it returns.
// TestEquivalentCorpus, TestEquivalentFixtures and FuzzEquivalent hold it to upstream's results
// (the article rendered as HTML, title, byline, excerpt, site name, language, image, favicon and
// times), upstream being kept as a test-only dependency.
//
// Not kept: Parse and ParseDocument (the engine parses its own trees and hands a copy to
// ParseAndMutate), FromReader, FromURL and FromDocument.
package readability
