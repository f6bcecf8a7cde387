package regexfast

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// chainPatterns: the sitedefs' patterns a chain takes, and shapes around each way a run ends,
// optional literals, alternations with the rest copied into their branches, groups opened
// before a branch and closed in it, and classes with every non-ASCII character or none.
var chainPatterns = []string{
	`<a href="([^"]+)"[^>]*><abbr`,
	`<a href="([^"]+)"[^>]*aria-label="Open story"`,
	`<abbr[^>]*>([^<]+)</abbr>`,
	`<span class="like_def[^"]*">([^<]+)</span>`,
	`(?:<a [^>]*aria-label="Open story"|<div class="_5rgu|<footer)`,
	`<strong>(?:<span>)?<a [^>]*>([^<]+)</a>`,
	`<strong>(?:<span>)?<a href="([^"]+)"`,
	`"group_id":"?([0-9]+)`,
	`"(?:graphql|data)"\s*:\s*\{\s*"user"\s*:\s*`,
	`id="feedback_inline_([0-9]+)"`,
	`a[^b]*ab`,   // the run stops a byte before the b: the literal's a is in its class
	`a[^b]+ab`,   // and must hold one character
	`a([^b]*)`,   // the pattern ends with the run: its longest span
	`a[^b]*?b`,   // a lazy run has the same one span
	`a[^b]+?ab`,  //
	`x[^>]*yy`,   // the last occurrence of the final literal inside the run
	`x([^>]+)yy`, //
	`x[^>]*(yy)`, //
	`x.+y`,       // . takes every non-ASCII character
	`(?s)x(.*)`,  //
	`x\S+ `,      //
	`x[^>]*yy>`,  // the run stops two bytes before the >
	`x(?:ab)?ac`, // an optional literal what follows cannot start as
	`x(?:ab)?[0-9]+`,
	`(a)|(b)x[^x]*x`,
	`x(y(z|w))[^q]*q`,  // a group opened before an alternation closes in its branches
	`x(y|(z))(w|(q))`,  // alternations in a row
	`x(?:(a)b|(a)c)d`,  // a failed branch's group is unset
	`x[a-c]+[d-f]+g`,   // a run followed by a run it excludes
	`x[a-c]*[d-f]g`,    // by a character
	`x[^ac]*(?:a|cc|)`, // by an alternation, an empty branch included
	`é[^a]*a`,          // a non-ASCII literal
	`x[\x80-\x{10FFFF}]+y`,
	`x[^\x00-\x7f]`,
	`<b>|x`,
	`(?:Prep|Cook): (\d+ \w+)`,
	`>([0-9][0-9.,]*[KM]?) shares?<`, // optional characters after a run
	`x([^"]*)("?)`,                   // a run followed by an optional literal
	`x[a-c]*[d-f]*g`,                 // by a run that may be empty
	`x[0-9.,]*[KM]?y`,                // by an optional character
	`x(?:ab)?(?:cd)?[0-9]*(?:e|f)`,   // optional literals in a row
	`[?&](?:refid|__tn__|_ft_|__xts__\[0\])=.*$`, // a class first; the input's end last
	`[?&](?:groupid|refid|__tn__|_ft_)=.*$`,
	`x[^a]*$`,
	`x[^a]*a$`,
	`x(?:ab)?\z`,
	`[ab]c[^d]*d`,
	`x(?:[ab]c)?[a-z]`,    // an optional sequence: the alternation of it and nothing
	`x(?:\\*&q;|\\*")?:y`, // of an alternation
	`data-commentid="(?:[0-9]+_)?([0-9]+)"`,
	`[ab]c|d$`,       // the end not last in the pattern
	`x$y`,            //
	`x([0-9]{2,3}),`, // a counted run: its longest span
	`x[^\[]{0,3}\[`,  // (every non-ASCII character counted as one, an invalid byte too)
	`x[^\[]{2,}\[`,   //
	`x[a-c]{2}`,      //
	`(?s)x.{0,3}?yy`, // lazy before the last literal: its first occurrence
	`(?s)class="actor".{0,600}?aria-label="Verified`,
	`x[^a]{1,3}?(b)`,
	`x[a-c]{1,3}?d`,            //
	`x12\b`,                    // word boundaries where they stand
	`x\B1`,                     //
	`"error":\s*(?:404|410)\b`, //
	`x:([0-9]{2,3}),[^\[]{0,4}\[(?:\\*&q;|\\*")?12\b`,
}

// notChains must be left to the other strategies: a run's end not decided by its class,
// a partly non-ASCII class, case folding, U+FFFD, no literal to start from.
var notChains = []string{
	`x[^>]*yy(a)`,                            // a literal inside the run's class not last
	`x[^>]*?yy`,                              // a lazy run's first occurrence
	`x[a-c]*[b-f]+`,                          // runs that overlap
	`x[^a]*(?:b|a)`,                          // a branch the run's class could start
	`x(?:ab)?a`,                              // an optional literal what follows starts as
	`x(?:ab)?`,                               // (it is taken: fine, but what follows is nothing: see below)
	`é[^é]*é`,                                // a class with some non-ASCII characters
	`(?i)x[^a]*a`,                            // folded case
	`\x{FFFD}[^a]*a`,                         // U+FFFD matches an invalid byte too
	`[^a]*a`,                                 // no literal first
	`x{2}[^a]*a`,                             // a counted repetition
	`x(?:ab)+[^a]*a`,                         // a repetition of more than a character
	`x[^"]*"|[^y]*y`,                         // a branch with no literal first
	`x[^a]*?`,                                // a lazy run last
	`x(?:ab)??[0-9]+z`,                       // a lazy optional literal
	`x[0-9]*[0-9K]?y`,                        // an optional character the run's class holds
	`x(?:ab)?[a-z]`,                          // an optional literal what follows may start as
	`(?m)x[^a]*$`,                            // the end of a line
	`x[^a]*\b`,                               // a run followed by an assertion: its end depends on more than its class
	`x[a-c]{0,3}\b`,                          //
	`x[a-c]{0,3}c`,                           // a counted run whose class holds what follows
	`x[a-c]{1,3}?d[ef]`,                      // lazy, not before the last literal
	`x.{0,3}?yy(a)`,                          //
	`x[a-c]{0,3}?`,                           // lazy last
	`x(?:(?:a|b|c)?(?:d|e|f)?(?:g|h|i)?){2}`, // too many copies of the rest
	`^x[^a]*a`,                               // the start of the input
	`[a-j]c[^d]*d`,                           // a class of too many characters first
	`(?s)a.*?b$`,                             // and not anchored either: each try would scan to the end
}

func TestChainShapes(t *testing.T) {
	for _, p := range chainPatterns {
		if !MustCompile(p).Chained() {
			t.Errorf("%s: not a chain", p)
		}
	}
	for _, p := range notChains {
		if p == `x(?:ab)?` {
			continue // documented above: an optional literal last is a chain
		}
		if MustCompile(p).Chained() {
			t.Errorf("%s: a chain", p)
		}
	}
	if !MustCompile(`x(?:ab)?`).Chained() {
		t.Errorf("x(?:ab)?: not a chain")
	}
	if MustCompile(`(?s)a.*?b$`).Prefixed() {
		t.Errorf("(?s)a.*?b$: prefixed, want searched whole")
	}
}

// chainInputs are the tricky inputs: runs that are empty, that reach the end of the input,
// candidates that overlap, matches next to each other, multi-byte and invalid UTF-8.
var chainInputs = []string{
	"", "x", "a", "<a href=\"\"><abbr>", "<a href=\"u\"><abbr>", "<a href=\"u\" x><abbr>", "<a href=\"u",
	"<a href=\"u\"", "<a href=\"u\" c", "<a <a <a href=\"u\">", "<a href=\"<a href=\"u\"><abbr>",
	"<a href=\"u\" aria-label=\"Open story\" aria-label=\"Open story\">", "<a aria-label=\"Open story\"",
	"<abbr>1 h</abbr><abbr>2 h</abbr>", "<abbr></abbr>", "<span class=\"like_def\">3</span>",
	"<strong><span><a href=\"/u\">Name</a>", "<strong><a x>N</a><strong><span><a y>M</a>",
	"<strong><span><span><a href=\"u\"", "\"group_id\":\"123\"", "\"group_id\":123,", "\"group_id\":\"x",
	"\"data\" : {\"user\":", "\"graphql\"\t:\n{ \"user\" : x", "id=\"feedback_inline_12\"",
	"aab", "ab", "aaab", "abab", "a\xffab", "aéb", "a", "axxxab", "xyy", "xyyy", "xyyyy>", "xayyb>yy",
	"x>yy", "xyy>yy", "xy", "x\ny", "xéy", "x\xffy", "x\xe6\x9dy", "xé", "x\xff", "x\xe6\x9d", "x ",
	"xa ", "x\"", "x\"\"", "xab", "xac", "xabac", "xab12", "x12", "xab", "b", "bxx", "bxax", "xyzq",
	"xywq", "xyz", "xywaq", "xyw", "xzq", "xab", "xacd", "xabd", "xabcd", "xaadg", "xadg", "xdg",
	"xadeg", "xg", "xbbb", "xbb", "xa", "é", "éa", "éba", "é\xffa", "xé\xffy", "x\u0080", "x\xc2",
	"<b>x<b>", "xx", "Prep: 12 min", "Cook: 3 x", "Prep: 1", "Cook: 4 h, Prep: 5 m", ">12K shares<",
	">1,2 share<", ">3M shares< >4 shares<>5.5 share", ">K shares<", "x12Ky", "x12y", "xKy", "x1K",
	"xabcd12e", "xcdf", "xabf", "?refid=1", "?refid=1\n", "a?b&_ft_=x&refid=2", "&__xts__[0]=y", "?refid",
	"x\n", "xb", "xb\n", "xab\n", "acxd", "bcd", "acd\nbcdd",
}

// chainAlphabet builds random inputs from the patterns' literals and the characters their
// classes split on.
var chainAlphabet = []string{
	"<a href=\"", "\"", ">", "<abbr", "</abbr>", "<a ", "aria-label=\"Open story\"", "<div class=\"_5rgu",
	"<footer", "<strong>", "<span>", "</a>", "</span>", "<span class=\"like_def", "\"group_id\":", "0",
	"7", "x", "y", "yy", "a", "b", "ab", "ac", "c", "d", "g", "q", "z", "w", "é", "\xff", "\xe6\x9d",
	"\n", " ", "\t", ":", "{", "\"user\"", "\"data\"", "id=\"feedback_inline_", "<b>", "Prep: ", "min",
	"K", "M", " shares", " share", ",", ".", "cd", "e", "f", "?refid=", "&_ft_=", "&__xts__[0]=", "?", "&",
	"&groupid=", "bc", "\\", "&q;", "[", "12", "1", "x:", "_", "404", "410", "\"error\":", "class=\"actor\"",
	"aria-label=\"Verified", "data-commentid=\"",
}

// sameAsRegexp compares every method of fast with std's on s.
func sameAsRegexp(t *testing.T, fast *Regexp, std *regexp.Regexp, s string) {
	t.Helper()
	if got, want := fast.FindStringSubmatchIndex(s), std.FindStringSubmatchIndex(s); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: FindStringSubmatchIndex(%q) = %v, want %v", std, s, got, want)
	}
	for _, n := range []int{-1, 0, 2} {
		if got, want := fast.FindAllStringSubmatchIndex(s, n), std.FindAllStringSubmatchIndex(s, n); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: FindAllStringSubmatchIndex(%q, %d) = %v, want %v", std, s, n, got, want)
		}
	}
	if got, want := fast.FindIndex([]byte(s)), std.FindIndex([]byte(s)); !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: FindIndex(%q) = %v, want %v", std, s, got, want)
	}
	if got, want := fast.MatchString(s), std.MatchString(s); got != want {
		t.Fatalf("%s: MatchString(%q) = %v, want %v", std, s, got, want)
	}
	sameReplacements(t, fast, std, s)
}

// sameReplacements compares ReplaceAllString with templates that use groups, the whole
// match and nothing (the template is expanded by the regexp package's ExpandString).
func sameReplacements(t *testing.T, fast *Regexp, std *regexp.Regexp, s string) {
	t.Helper()
	for _, repl := range []string{"", "<$0>", "${1}x$2"} {
		if got, want := fast.ReplaceAllString(s, repl), std.ReplaceAllString(s, repl); got != want {
			t.Fatalf("%s: ReplaceAllString(%q, %q) = %q, want %q", std, s, repl, got, want)
		}
	}
}

// anyLength applies the strategy whatever the input's length; tight leaves a chain no budget,
// so that its searches hand the input to the regexp package at once.
func anyLength(fast *Regexp, tight bool) {
	fast.minLen = 0
	if fast.chain != nil {
		fast.chain.tight = tight
	}
	for _, p := range fast.pieces {
		anyLength(p.re, tight)
	}
}

// randomOf is the i-th random input: pieces of alphabet, up to about 20, 200 or 3000 bytes.
func randomOf(rng *rand.Rand, alphabet []string, i int) string {
	var b strings.Builder
	for n := rng.IntN([]int{20, 200, 3000}[i%3]); b.Len() < n; {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

func TestChainSameAsRegexp(t *testing.T) {
	skipUnderRace(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range append(chainPatterns, notChains...) {
		std := regexp.MustCompile(p)
		for _, tight := range []bool{false, true} {
			fast := New(std)
			anyLength(fast, tight)
			for _, s := range chainInputs {
				sameAsRegexp(t, fast, std, s)
				sameAsRegexp(t, fast, std, s+s) // adjacent matches
			}
			n := 300
			if raceDetector {
				n = 30 // a sample under -race (see race_on_test.go)
			}
			for i := range n {
				sameAsRegexp(t, fast, std, randomOf(rng, chainAlphabet, i))
			}
		}
	}
}

// TestChainStaged: chains as the pieces of a pattern cut by lazy wildcards (facebook.group's
// text, image and author), where a piece numbers its groups from 1.
func TestChainStaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, p := range []string{
		`(?s)<h3[^>]*>.*?<strong>(?:<span>)?<a [^>]*>([^<]+)</a>`,
		`(?s)<div class="_5rgu.*?<img src="([^"]+)"`,
		`(?s)<div class="_5rgt _5nk5[^>]*>(.*?)(?:<a [^>]*aria-label="Open story"|<div class="_5rgu|<footer)`,
		`(?s)(x)[^a]*(a).*?(b)([^c]*)c`,
	} {
		std := regexp.MustCompile(p)
		fast := New(std)
		if !fast.Staged() || !fast.pieces[0].re.Chained() {
			t.Fatalf("%s: staged %v, want staged with chains", p, fast.Staged())
		}
		alphabet := append(chainAlphabet, "<h3 c>", "<img src=\"i\">", "<div class=\"_5rgt _5nk5 x\">", "<footer>")
		for _, tight := range []bool{false, true} {
			anyLength(fast, tight)
			for i := range 300 {
				sameAsRegexp(t, fast, std, randomOf(rng, alphabet, i))
			}
		}
	}
}

// TestChainScansOnce: tries that enter a run inside a stretch scanned before take its end from
// the memo, so that candidates inside one long run cost no more than the run's length, and
// the budget is not spent.
func TestChainScansOnce(t *testing.T) {
	re := MustCompile(`<a [^>]*>x`)
	s := strings.Repeat("<a ", 20000) + ">y"
	st := newChainState(re.chain, len(s), 2)
	if m := findAnchored(re, s, 0, false, st); m != nil {
		t.Fatalf("match %v, want none", m)
	}
	if st.spent > len(s) {
		t.Fatalf("scanned %d bytes of %d", st.spent, len(s))
	}
}

// FuzzChainSameAsRegexp compares a search's first match and all its matches with the regexp
// package's, on any pattern and input, with and without the budget.
func FuzzChainSameAsRegexp(f *testing.F) {
	for i, p := range chainPatterns {
		f.Add(p, chainInputs[i%len(chainInputs)]+"<a href=\"u\" x><abbr>xab<b>\"group_id\":\"1\"yy>")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		std, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		for _, tight := range []bool{false, true} {
			fast := New(std)
			anyLength(fast, tight)
			if got, want := fast.FindStringSubmatchIndex(s), std.FindStringSubmatchIndex(s); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q on %q: FindStringSubmatchIndex %v, want %v", pattern, s, got, want)
			}
			if got, want := fast.FindAllStringSubmatchIndex(s, -1), std.FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q on %q: FindAllStringSubmatchIndex %v, want %v", pattern, s, got, want)
			}
			if got, want := fast.ReplaceAllString(s, "<$1>"), std.ReplaceAllString(s, "<$1>"); got != want {
				t.Fatalf("%q on %q: ReplaceAllString %q, want %q", pattern, s, got, want)
			}
		}
	})
}
