// Package dom turns untrusted response bodies into documents the engine can query: charset
// detection and conversion to UTF-8, HTML and XML parsing, XPath navigators, the visible text of
// a node, JSON-LD blocks, JSON embedded in scripts, and depth-capped JSON decoding.
//
// Every function here takes hostile input: none of them panics on any body, none of them
// recurses on the nesting of the input, and JSON nesting is capped at MaxDepth.
//
// JSON numbers always decode as float64.
package dom
