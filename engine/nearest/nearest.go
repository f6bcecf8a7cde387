// Package nearest finds the name a mistyped one probably meant: the sitedef decoder's "did you mean"
// for an unknown key, the fixture checks' near-miss field names, the API's and the CLI's hints for
// an unknown site, endpoint or resource.
package nearest

// Name is the name of names one or two edits from s (the first of the closest), or "".
func Name(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of a and b, in bytes (the names compared are ASCII).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
