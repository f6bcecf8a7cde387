package regexfast

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// splitPatterns: the reFindAll patterns of the sitedefs, and shapes the cutting must refuse or
// get right (assertions, empty matches, case folding, any character, alternation of groups).
var splitPatterns = []string{
	`[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{L}\p{N}\p{Mn}]+(?:['’-][\p{L}]+)*`,
	"[0-9]+(?:[.,' ][0-9]{3})*", "[0-9]+(?:,[0-9]{3})*", "[0-9]+(?:[.,’' ][0-9]{3})*", `([0-9]{6,})`,
	`"([^"]+)"|(\S+)`, `(?:Prep|Cook): (\d+ \w+)`, `(?s)<article.*?</article>`, `<li>(.*?)</li>`,
	`\w+`, `[a-z]+`, `(?i)k+`, `(?i)s\w*`, `(a)|(é+)|(東)`, `[^ ]+`, `.+`, `(?s).`, `\bab`, `ab\b`, `^a+`,
	`a+$`, `(?m)^a`, `\Aa`, `a*`, `x?`, `a|`, `[\x{FFFD}]+`, `\pL\pN?`, `[^\n]{2,3}`, `(?U)a+`, `-+`,
}

// splitAlphabet mixes letters of several scripts, case-folding pairs (K and the Kelvin sign, s
// and long s), apostrophes, separators, digits and invalid UTF-8.
var splitAlphabet = []string{
	"a", "b", "k", "K", "\u212a", "s", "S", "\u017f", "é", "東", "カ", "ぁ", "'", "’", "-", " ", "\n", "\t",
	",", ".", "0", "7", "_", "\"", "<li>", "</li>", "\xff", "\xe6", "\u0301", "\u00a0", "ab ", "Cook: 12 min",
}

// splitOnly is std cut at its break bytes whatever the other strategies would do, so that the
// cutting is tested on every pattern, staged and prefixed ones included.
func splitOnly(std *regexp.Regexp) *Regexp {
	return &Regexp{re: std, minLen: minSplit, breaks: breakBytes(std)}
}

// firstGroup is reFindAll's value of a match: its first group that took part, or the whole match.
func firstGroup(s string, m []int) string {
	if len(m) == 2 {
		return s[m[0]:m[1]]
	}
	for i := 2; i+1 < len(m); i += 2 {
		if m[i] >= 0 {
			return s[m[i]:m[i+1]]
		}
	}
	return ""
}

func firstGroups(s string, ms [][]int) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, firstGroup(s, m))
	}
	return out
}

func TestSplitSameAsRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	runs := 50
	if raceDetector {
		runs = 6 // a sample under -race (see race_on_test.go)
	}
	for _, p := range splitPatterns {
		std := regexp.MustCompile(p)
		re := splitOnly(std)
		for range runs {
			var b strings.Builder
			for b.Len() < minSplit+rng.IntN(3000) {
				b.WriteString(splitAlphabet[rng.IntN(len(splitAlphabet))])
			}
			s := b.String()
			if got, want := FindAllFunc(re, s, firstGroup), firstGroups(s, std.FindAllStringSubmatchIndex(s, -1)); !slices.Equal(got, want) {
				t.Fatalf("%s on %q: FindAllFunc\n got %v\nwant %v", p, s, got, want)
			}
			for _, n := range []int{-1, 0, 7} {
				if got, want := re.FindAllStringSubmatchIndex(s, n), std.FindAllStringSubmatchIndex(s, n); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s on %q, n=%d:\n got %v\nwant %v", p, s, n, got, want)
				}
			}
		}
	}
}

// TestSplitPrecedence: New cuts only a pattern it neither stages nor prefixes.
func TestSplitPrecedence(t *testing.T) {
	for _, tc := range []struct {
		pattern                 string
		staged, prefixed, split bool
	}{
		{pattern: `(?s)<div.*?</div>`, staged: true},
		{pattern: `(?:Prep|Cook): (\d+ \w+)`, prefixed: true}, // its break bytes are never used
		{pattern: `[\p{L}\p{N}\p{Mn}]+(?:['’-][\p{L}]+)*`, split: true},
		{pattern: `\w+`, split: true},
		{pattern: `\bab`},
	} {
		re := MustCompile(tc.pattern)
		prefixed := re.Prefixed() || re.Chained()
		if re.Staged() != tc.staged || prefixed != tc.prefixed || re.Split() != tc.split {
			t.Errorf("%s: staged %v prefixed %v split %v, want %v %v %v", tc.pattern,
				re.Staged(), prefixed, re.Split(), tc.staged, tc.prefixed, tc.split)
		}
		if breakBytes(re.Regexp()) == nil && tc.prefixed {
			t.Errorf("%s: no break bytes, want some (else the test proves nothing)", tc.pattern)
		}
	}
}

func TestBreakBytes(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		breaks  string // some bytes that must be breaks
		not     string // bytes that must not be ("" and nil breaks: the pattern is searched whole)
		whole   bool
	}{
		{pattern: `[\p{Han}\p{Hiragana}\p{Katakana}]|[\p{L}\p{N}\p{Mn}]+(?:['’-][\p{L}]+)*`, breaks: " \n\t.,\"<_", not: "aZ09'-"},
		{pattern: "[0-9]+(?:[.,' ][0-9]{3})*", breaks: "a\n\"", not: "09., '"},
		{pattern: `(?i)k+`, breaks: "jl ", not: "kK"},
		{pattern: `(?i)\x{212a}`, breaks: "j ", not: "kK"}, // the Kelvin sign folds to ASCII k
		{pattern: `[^\n]+`, breaks: "\n", not: " a"},       // every byte but the newline
		{pattern: `photo_list\[(\d+)\]`, whole: true},      // a literal prefix is faster whole
		{pattern: `\bab`, whole: true}, {pattern: `a\B`, whole: true}, {pattern: `^a`, whole: true},
		{pattern: `a$`, whole: true}, {pattern: `a*`, whole: true}, {pattern: `a|`, whole: true},
		{pattern: `(?s)x.`, whole: true}, {pattern: `[\x00-\x7f]`, whole: true}, // no byte left to cut at
	} {
		b := breakBytes(regexp.MustCompile(tc.pattern))
		if tc.whole {
			if b != nil {
				t.Errorf("%s: cut, want searched whole", tc.pattern)
			}
			continue
		}
		if b == nil {
			t.Errorf("%s: searched whole, want cut", tc.pattern)
			continue
		}
		for i := range len(tc.breaks) {
			if !b.has(tc.breaks[i]) {
				t.Errorf("%s: %q is not a break", tc.pattern, tc.breaks[i])
			}
		}
		for i := range len(tc.not) {
			if b.has(tc.not[i]) {
				t.Errorf("%s: %q is a break", tc.pattern, tc.not[i])
			}
		}
	}
}

// FuzzSplitSameAsRegexp: searching piece by piece finds exactly what searching the whole text
// finds.
func FuzzSplitSameAsRegexp(f *testing.F) {
	for i, p := range splitPatterns {
		f.Add(p, splitAlphabet[i%len(splitAlphabet)]+" x'y 東京 12,345 ab")
	}
	f.Fuzz(func(t *testing.T, p, s string) {
		std, err := regexp.Compile(p)
		if err != nil || len(s) == 0 {
			return
		}
		for len(s) < minSplit {
			s += s
		}
		re, ms := splitOnly(std), std.FindAllStringSubmatchIndex(s, -1)
		if got := re.FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, ms) {
			t.Fatalf("%s on %q:\n got %v\nwant %v", p, s, got, ms)
		}
		if got, want := FindAllFunc(re, s, firstGroup), firstGroups(s, ms); !slices.Equal(got, want) {
			t.Fatalf("%s on %q: FindAllFunc\n got %v\nwant %v", p, s, got, want)
		}
	})
}
