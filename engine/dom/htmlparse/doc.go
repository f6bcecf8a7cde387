// Package htmlparse parses HTML into x/net/html's *html.Node trees, the same trees
// golang.org/x/net/html's Parse builds, faster.
//
// It is a fork of golang.org/x/net/html at v0.62.0 (BSD licence, in LICENSE). The tree builder
// (parse.go, with const.go, doctype.go, foreign.go and the node stacks of node.go) is upstream's,
// insertion modes, adoption agency, foster parenting, foreign content, templates and the
// 512-element limit as they are, with mechanical changes (upstream's node types used through the
// html package, unexported token types, nodes allocated by the parser) and three for speed that
// change no result: the default scope's stop tags are switches rather than lists in a map looked
// up for every open element at every scope test, attributes are ordered without comparing values
// when keys differ, and nodes and tokens are written field by field (a whole-struct copy costs a
// bulk write barrier while the GC runs). The entity tables (entity.go) and unescaping (escape.go)
// are upstream's, copied because they are not exported; unescape copies the runs between entities
// at once rather than byte by byte, and reads a plain numeric reference (&#x9AD8;) itself
// (numericRef, whose answer is unescapeEntity's). The tokenizer (token.go) keeps every state transition of
// upstream's and changes how it reads:
//
//   - It works on the whole body at once rather than an io.Reader: no buffer grown and copied as
//     the input is read, no reading byte by byte through a bounds-checked refill.
//   - Where upstream loops byte by byte through a state only one or two bytes can leave (text up
//     to '<', script data up to '<', RAWTEXT and RCDATA up to "</", a quoted attribute value up to
//     its quote, a comment body up to '-', a bogus comment up to '>'), it jumps there with an
//     index search. The scans only move forward, so tokenizing stays linear.
//   - Node Data and attribute keys and values are substrings of one string copy of the body
//     (of the string ParseString is given, without a copy) whenever upstream's rewriting (CR LF,
//     NUL, entities, lower case) leaves them unchanged.
//   - Nodes and attribute slices come from slabs; duplicate attribute keys are found without a
//     map or a string per attribute on ordinary tags. Tag names, attribute keys, unquoted values
//     and white space are scanned with byte-class tables.
//
// Upstream's Parse copies every body into its tokenizer's buffer in chunks, reads it one byte at
// a time and allocates every node and string separately: on a 1.4 MB marketplace page that is
// most of an extraction's time. The rest of the engine works on *html.Node, so the fork keeps
// that type; FuzzParseEquivalent, the corpus equivalence test and the html5lib tree-construction
// tests hold it to upstream's trees and errors.
//
// Fragment parsing is not offered; the tree builder keeps upstream's fragment paths (never taken)
// so that it still diffs cleanly against upstream.
package htmlparse
