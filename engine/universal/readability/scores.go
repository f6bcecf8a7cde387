package readability

import (
	"math"
	"strconv"

	"golang.org/x/net/html"
)

// roundScore is the score a data-readability-score attribute gives back once score is written in
// it: strconv.ParseFloat of strconv.FormatFloat(score, 'f', 4, 64), the decimal nearest score
// with four places, then the float nearest that decimal. Most scores are far enough from a tie
// between two such decimals for score*1e4, rounded, to be that decimal's digits (the product's
// error is under 2^-13 below 2^40), and that integer divided by 1e4 (both exact) is the float
// nearest it as ParseFloat reads it: the rest, ties, large values, Inf and NaN, go through
// strconv.
func roundScore(score float64) float64 {
	y := score * 1e4
	if math.Abs(y) < 1<<40 {
		r := math.Round(y)
		if math.Abs(y-r) < 0.5-1.0/(1<<12) {
			return r / 1e4
		}
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(score, 'f', 4, 64), 64)
	return f
}

// hasScoreAttr reports whether an element under n (n included) has a data-readability-score
// attribute of its own: its page wrote it, and upstream reads it as a score.
func hasScoreAttr(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "data-readability-score" {
			return true
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasScoreAttr(c) {
			return true
		}
	}
	return false
}
