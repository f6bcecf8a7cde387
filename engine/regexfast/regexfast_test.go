package regexfast

import (
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// patterns are the lazy-wildcard patterns of the shipped sitedefs and shapes around them: groups
// around and inside wildcards, several wildcards, `.*?` without the s flag, alternations, case
// folding, and patterns that must be left to the regexp package.
var patterns = []struct {
	pattern string
	staged  bool
}{
	// searched by prefixes (see prefixed)
	{`<a href="([^"]+)"[^>]*><abbr`, false},
	{`"(?:graphql|data)"\s*:\s*\{\s*"user"\s*:\s*`, false},
	{`(?:<a [^>]*aria-label="Open story"|<div class="_5rgu|<footer)`, false},
	{`(<b>|<i>)(a|bb)?`, false},
	{`(<b>|<i>)(a|bb)+`, false},
	{`(?i)<a.*`, false},
	{`\x{FFFD}a`, false},
	{`x*</b>`, false},
	{`</b>|`, false},
	{`<b>|x`, false},

	{"(?s)<article.*?</article>", true},
	{`(?s)<div class="_5rgt _5nk5[^>]*>(.*?)(?:<a [^>]*aria-label="Open story"|<div class="_5rgu|<footer)`, true},
	{`(?s)<div class="_5rgu.*?<img src="([^"]+)"`, true},
	{`(?s)<h3[^>]*>.*?<strong>(?:<span>)?<a [^>]*>([^<]+)</a>`, true},
	{`(?s)<h3[^>]*>.*?<strong>(?:<span>)?<a href="([^"]+)"`, true},
	{`(?s)<code[^>]*><!--(.*?data-sigil="actor-link".*?)--></code>`, true},
	{`(?s)<code[^>]*><!--(.*?)--></code>`, true},
	{`(?s)data-sigil="comment-body">(.*?)</div>`, true},
	{`(?s)<span class="text_exposed_hide">.*?</span></span>`, true},
	{`<li>(.*?)</li>`, true},
	{`(?s)(<a.*?)(b)(.*?c)`, true},
	{`(?s)((a).*?(b)).*?((c)|(d))`, true},
	{`(?s)(?P<x>a+).*?(?:b|bb)(.*?)b`, true},
	{`(?is)<A.*?</a>`, true},
	{`a.*?b.*?c`, true},
	{`(?s)x*a.*?b`, true},
	{`(?s)a*.*?b`, false},      // the first piece matches empty
	{`(?s).*?b`, false},        // a wildcard first
	{`(?s)a.*?`, false},        // a wildcard last
	{`(?s)a.*?.*?b`, false},    // two in a row
	{`(?s)\ba.*?b`, false},     // an assertion
	{`(?s)a.*?b$`, false},      // an assertion
	{`(?s)(?:a.*?b|c)`, false}, // a wildcard in an alternation
	{`(?s)(?:a.*?b)+`, false},  // in a repetition
	{`(?s)(ab.*?c)d`, false},   // a group closing inside a piece
	{`(?s)(ab.*?c).*?d`, true},
	{`(?s)a(b.*?c)`, false},  // a group opening inside a piece
	{`(?s)a.*?(?:b)c`, true}, // a piece of several parts
	{`(?s)<b>(.*?)</b>.*?<i>(.*?)</i>`, true},
	{`(?s)[\x{80}-\x{10FFFF}]a.*?é`, true},
	{`(?s)a.*?\n`, true},
	{`a.*?\nb`, true},
}

// prefixed says of some patterns whether they are tried where their prefixes occur, by the
// regexp package anchored there; chained, by a chain.
var prefixed = map[string]bool{
	`(<b>|<i>)(a|bb)+`: true,
	`(?i)<a.*`:         false,
	`x*</b>`:           false,
}

var chained = map[string]bool{
	`<a href="([^"]+)"[^>]*><abbr`:                                  true,
	`"(?:graphql|data)"\s*:\s*\{\s*"user"\s*:\s*`:                   true,
	`(?:<a [^>]*aria-label="Open story"|<div class="_5rgu|<footer)`: true,
	`<b>|x`:            true,
	`(<b>|<i>)(a|bb)?`: true, // an optional alternation: the alternation of it and nothing
	`(<b>|<i>)(a|bb)+`: false,
	`(?i)<a.*`:         false,
}

// fragments make the random inputs: the patterns' literals, newlines, multi-byte and invalid
// UTF-8.
var fragments = []string{
	"<article>", "</article>", "<div class=\"_5rgt _5nk5 x\">", "<div class=\"_5rgu\">", "<footer>",
	"<a href=\"/u\">", "<a aria-label=\"Open story\">", "<abbr>", "<img src=\"i.jpg\">", "<h3 c>",
	"<strong>", "<span>", "</a>", "</span></span>", "<span class=\"text_exposed_hide\">",
	"<code x><!--", "--></code>", "data-sigil=\"actor-link\"", "data-sigil=\"comment-body\">", "</div>",
	"<li>", "</li>", "<b>", "</b>", "<i>", "</i>", "<A", "</A>", "a", "b", "c", "d", "bb", "é", "\xff",
	"\n", " ", "x", "text ", "\"", ">", "<", "\"data\"", "\"graphql\" : { \"user\":", "\xef\xbf\xbd", "a\xff", "\t",
}

func randomInput(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(fragments[r.IntN(len(fragments))])
	}
	return b.String()
}

// TestSameAsRegexp compares every method with the regexp package's on random inputs, with the
// pieces searched whatever the input's length.
func TestSameAsRegexp(t *testing.T) {
	skipUnderRace(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, p := range patterns {
		t.Run(p.pattern, func(t *testing.T) {
			std := regexp.MustCompile(p.pattern)
			fast := New(std)
			if fast.Staged() != p.staged {
				t.Fatalf("staged %v, want %v", fast.Staged(), p.staged)
			}
			if want, ok := prefixed[p.pattern]; ok && fast.Prefixed() != want {
				t.Fatalf("prefixed %v, want %v", fast.Prefixed(), want)
			}
			if want, ok := chained[p.pattern]; ok && fast.Chained() != want {
				t.Fatalf("chained %v, want %v", fast.Chained(), want)
			}
			fast.minLen, fast.leadMin = 0, 0
			for _, p := range fast.pieces {
				p.re.minLen = 0
			}
			n := 600
			if raceDetector {
				n = 60 // a sample under -race (see race_on_test.go)
			}
			for i := range n {
				s := randomInput(r, r.IntN(200)+[]int{0, 50, 3000}[i%3])
				if got, want := fast.FindStringSubmatchIndex(s), std.FindStringSubmatchIndex(s); !reflect.DeepEqual(got, want) {
					t.Fatalf("FindStringSubmatchIndex(%q) = %v, want %v", s, got, want)
				}
				for _, n := range []int{-1, 0, 2} {
					if got, want := fast.FindAllStringSubmatchIndex(s, n), std.FindAllStringSubmatchIndex(s, n); !reflect.DeepEqual(got, want) {
						t.Fatalf("FindAllStringSubmatchIndex(%q, %d) = %v, want %v", s, n, got, want)
					}
				}
				if got, want := fast.FindIndex([]byte(s)), std.FindIndex([]byte(s)); !reflect.DeepEqual(got, want) {
					t.Fatalf("FindIndex(%q) = %v, want %v", s, got, want)
				}
				if got, want := fast.MatchString(s), std.MatchString(s); got != want {
					t.Fatalf("MatchString(%q) = %v, want %v", s, got, want)
				}
				if i%20 == 0 { // the regexp package's NFA on the long inputs is slow under -race
					if got, want := fast.ReplaceAllString(s, "<${1}>"), std.ReplaceAllString(s, "<${1}>"); got != want {
						t.Fatalf("ReplaceAllString(%q) = %q, want %q", s, got, want)
					}
				}
			}
		})
	}
}

// FuzzSameAsRegexp compares FindAllStringSubmatchIndex with the regexp package's on any pattern
// and input.
func FuzzSameAsRegexp(f *testing.F) {
	for _, p := range patterns {
		f.Add(p.pattern, "<article>a</article>x<b>b</b>yé\n<i>c</i>")
	}
	for _, l := range leads {
		f.Add(l.pattern, "publish_time:1234567890,story_name xx[12 ab\ncdc abcd éacd abcdcdx")
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		std, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		fast := New(std)
		fast.minLen, fast.leadMin = 0, 0
		for _, p := range fast.pieces {
			p.re.minLen = 0
		}
		if got, want := fast.FindAllStringSubmatchIndex(s, -1), std.FindAllStringSubmatchIndex(s, -1); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q on %q: %v, want %v", pattern, s, got, want)
		}
		if got, want := fast.FindStringSubmatchIndex(s), std.FindStringSubmatchIndex(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("FindStringSubmatchIndex %q on %q: %v, want %v", pattern, s, got, want)
		}
	})
}

// leads are patterns the regexp package runs whole, with and without a lead: assertions after
// the literal every match starts with (which see the bytes before the lead), and before it.
var leads = []struct{ pattern, lead string }{
	{`publish_time(?:\\*&quot;|\\*")?:([0-9]{9,11}),(?:\\*&quot;|\\*")?story_name[^\[]{0,200}\[(?:\\*&quot;|\\*")?12\b`, "publish_time"},
	{`(?m)ab$`, "ab"},
	{`(?m)ab\n^c`, "ab\n"},
	{`ab(?:cd)+\b`, "ab"},
	{`ab(?:cd)*$`, "ab"},
	{`(?m)ab(?:cd)*$`, "ab"},
	{`ab(?:cd)+\B`, "ab"},
	{`(?m)ab(?:cd)*\n^c`, "ab"},
	{`éa(?:cd)+\b`, "éa"},
	{`x(?:cd)+\b`, ""}, // a one-byte lead is an IndexByte already
	{`ab\b`, ""},       // a chain
	{`\b(?:cd)+ab`, ""},
	{`^ab(?:cd)+`, ""},
	{`(?m)^ab(?:cd)+`, ""},
	{`(?i)ab(?:cd)+\b`, ""},
	{`(?:ab|cd)(?:cd)+\b`, ""},
}

// TestLeadSameAsRegexp compares the search from a pattern's lead with the regexp package's on
// random inputs, cut anywhere around the lead.
func TestLeadSameAsRegexp(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, l := range leads {
		std := regexp.MustCompile(l.pattern)
		fast := New(std)
		if fast.Lead() != l.lead {
			t.Fatalf("%s: lead %q, want %q", l.pattern, fast.Lead(), l.lead)
		}
		fast.leadMin = 0
		for i := range 400 {
			s := randomInput(r, r.IntN(200)+[]int{0, 50, 3000}[i%3])
			if i%2 == 0 {
				s += "publish_time:1234567890,story_name xx[12 ab\ncdc abcd éacd abcdcdx"
			}
			if got, want := fast.FindStringSubmatchIndex(s), std.FindStringSubmatchIndex(s); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s on %q: %v, want %v", l.pattern, s, got, want)
			}
		}
	}
}

// BenchmarkStaged is a 900 KB page cut into posts, and a field read from each, by the pieces and
// by the regexp package.
func BenchmarkStaged(b *testing.B) {
	var page strings.Builder
	post := "<article><h3 class=\"x\"><strong><a href=\"/u\">Name</a></strong></h3>" +
		strings.Repeat("<div class=\"t\"><span>some text of the post</span></div>\n", 600) +
		"<footer><abbr>1 h</abbr></footer></article>"
	for page.Len() < 900<<10 {
		page.WriteString("<div class=\"between\">" + strings.Repeat("x", 2000) + "</div>")
		page.WriteString(post)
	}
	for _, c := range []struct{ name, pattern string }{
		{"posts", `(?s)<article.*?</article>`},
		{"author", `(?s)<h3[^>]*>.*?<strong>(?:<span>)?<a [^>]*>([^<]+)</a>`},
	} {
		std := regexp.MustCompile(c.pattern)
		fast := New(std)
		b.Run(c.name+"/regexfast", func(b *testing.B) {
			for b.Loop() {
				fast.FindAllStringSubmatchIndex(page.String(), -1)
			}
		})
		b.Run(c.name+"/regexp", func(b *testing.B) {
			for b.Loop() {
				std.FindAllStringSubmatchIndex(page.String(), -1)
			}
		})
	}
}

// BenchmarkPrefixed is a script marker whose matches start with one of two literals (no literal
// prefix for the regexp package) over a 1 MB page where it does not match, as on instagram's
// profile page.
func BenchmarkPrefixed(b *testing.B) {
	page := []byte(`<script>var d = {"data": 1};</script>` +
		strings.Repeat(`<div class="a" data-x="{&quot;k&quot;:1}"><a href="/x">"text"</a></div>`, 12000))
	std := regexp.MustCompile(`"(?:graphql|data)"\s*:\s*\{\s*"user"\s*:\s*`)
	fast := New(std)
	b.Run("regexfast", func(b *testing.B) {
		for b.Loop() {
			fast.FindIndex(page)
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			std.FindIndex(page)
		}
	})
}

// indexRare against strings.Index, on literals whose rarest byte is first, inside or last.
func TestIndexRare(t *testing.T) {
	for _, lit := range []string{`data-sigil="comment-body">`, "ab", "a", "yx", "xy", "aya", "é", "aéb"} {
		r := rarests([]string{lit})[0]
		for _, s := range []string{"", "a", "y", lit, "x" + lit, lit + lit, "yyy" + lit, strings.Repeat("ay", 9) + lit + "a",
			lit[:len(lit)-1], "\xff" + lit, "ééaéb"} {
			if got, want := indexRare(s, lit, r), strings.Index(s, lit); got != want {
				t.Errorf("indexRare(%q, %q, %d) = %d, want %d", s, lit, r, got, want)
			}
			if got, want := Index(s, lit), strings.Index(s, lit); got != want {
				t.Errorf("Index(%q, %q) = %d, want %d", s, lit, got, want)
			}
			if got, want := IndexBytes([]byte(s), lit), strings.Index(s, lit); got != want {
				t.Errorf("IndexBytes(%q, %q) = %d, want %d", s, lit, got, want)
			}
			if got, want := indexRare([]byte(s), lit, r), strings.Index(s, lit); got != want {
				t.Errorf("indexRare([]byte(%q), %q, %d) = %d, want %d", s, lit, r, got, want)
			}
		}
	}
}

// TestIndexRareChooses: a literal whose byte of rarest rank is the page's commonest is searched
// by another after the first misses, from where the search had got to, and found where
// strings.Index finds it, whichever byte the search starts from and however often it chooses.
func TestIndexRareChooses(t *testing.T) {
	lit := "publish_time"
	page := strings.Repeat("<div class=\"_a_b_c_d\">x_y</div>", 400)
	for _, s := range []string{page, page + lit, page[:5000] + lit + page, lit + page, page + "publish_tim", page + lit[1:]} {
		want := strings.Index(s, lit)
		for r := range len(lit) {
			for _, wait := range []int{1, 3, rechooseMisses} {
				if got := indexRareFrom(s, lit, r, wait); got != want {
					t.Fatalf("indexRareFrom(%d bytes, %q, %d, %d) = %d, want %d", len(s), lit, r, wait, got, want)
				}
			}
		}
		if r := rarests([]string{lit})[0]; lit[r] != '_' {
			t.Fatalf("the rarest byte of %q in HTML is %q: the test needs it to be '_'", lit, lit[r])
		}
		if got := rarestIn(page[:rechooseWindow], lit, 7); lit[got] == '_' {
			t.Fatalf("rarestIn chose '_' on a page full of it")
		}
	}
}

// TestIndexRareChoosesEverywhere: every text of up to 7 bytes over a literal's alphabet, every
// byte to start from, a choice after every miss.
func TestIndexRareChoosesEverywhere(t *testing.T) {
	const alpha = "a_bx"
	for _, lit := range []string{"a__b", "_a", "ab_", "a_a_"} {
		for n := 0; n <= 7; n++ {
			total := 1
			for range n {
				total *= len(alpha)
			}
			b := make([]byte, n)
			for k := range total {
				for i, x := 0, k; i < n; i, x = i+1, x/len(alpha) {
					b[i] = alpha[x%len(alpha)]
				}
				s := string(b)
				want := strings.Index(s, lit)
				for r := range len(lit) {
					if got := indexRareFrom(s, lit, r, 1); got != want {
						t.Fatalf("indexRareFrom(%q, %q, %d, 1) = %d, want %d", s, lit, r, got, want)
					}
				}
			}
		}
	}
}

// FuzzIndexRare compares indexRare with strings.Index on any input and literal.
func FuzzIndexRare(f *testing.F) {
	f.Add("xxdata-sigil=\"comment-body\">", `data-sigil="comment-body">`)
	f.Add("ayay", "ya")
	f.Fuzz(func(t *testing.T, s, lit string) {
		if lit == "" {
			return
		}
		r := rarests([]string{lit})[0]
		if got, want := indexRare(s, lit, r), strings.Index(s, lit); got != want {
			t.Fatalf("indexRare(%q, %q, %d) = %d, want %d", s, lit, r, got, want)
		}
		if got, want := Index(s, lit), strings.Index(s, lit); got != want {
			t.Fatalf("Index(%q, %q) = %d, want %d", s, lit, got, want)
		}
		if got, want := IndexBytes([]byte(s), lit), strings.Index(s, lit); got != want {
			t.Fatalf("IndexBytes(%q, %q) = %d, want %d", s, lit, got, want)
		}
		// From any byte, choosing another after every miss or two.
		for r := range len(lit) {
			for _, wait := range []int{1, 2} {
				if got, want := indexRareFrom(s, lit, r, wait), strings.Index(s, lit); got != want {
					t.Fatalf("indexRareFrom(%q, %q, %d, %d) = %d, want %d", s, lit, r, wait, got, want)
				}
				if got, want := indexRareFrom([]byte(s), lit, r, wait), strings.Index(s, lit); got != want {
					t.Fatalf("indexRareFrom([]byte(%q), %q, %d, %d) = %d, want %d", s, lit, r, wait, got, want)
				}
			}
		}
	})
}

// replaceRuns against the regexp package, on patterns that are a run of ASCII characters and
// on inputs with non-ASCII and invalid bytes next to the runs.
func TestReplaceRuns(t *testing.T) {
	for _, p := range []string{`\s+`, `[ \t]+`, `[0-9a-f]+`, `x+`} {
		fast, std := MustCompile(p), regexp.MustCompile(p)
		if fast.run == nil {
			t.Fatalf("%s: not a run", p)
		}
		for _, s := range []string{"", " ", "a", " a ", "a  b\t\n c", "\u00a0 \u00a0", "\xff \xff", "xx1x", "  ", "a\u2003b",
			"é é", "end "} {
			for _, repl := range []string{" ", "", "-$0-", "${1}"} {
				if got, want := fast.ReplaceAllString(s, repl), std.ReplaceAllString(s, repl); got != want {
					t.Errorf("%s: ReplaceAllString(%q, %q) = %q, want %q", p, s, repl, got, want)
				}
			}
		}
	}
	for _, p := range []string{`[^a]+`, `\s*`, `\s+?`, `a\s+`, `\pL+`} {
		if MustCompile(p).run != nil {
			t.Errorf("%s: a run", p)
		}
	}
}

// FuzzReplaceRuns compares ReplaceAllString of `\s+` and `[ab]+` with the regexp package's.
func FuzzReplaceRuns(f *testing.F) {
	f.Add("a  b\t\n c\u00a0d", " ")
	f.Add("aab\xffba", "-")
	f.Fuzz(func(t *testing.T, s, repl string) {
		for _, p := range []string{`\s+`, `[ab]+`} {
			if got, want := MustCompile(p).ReplaceAllString(s, repl), regexp.MustCompile(p).ReplaceAllString(s, repl); got != want {
				t.Fatalf("%s: ReplaceAllString(%q, %q) = %q, want %q", p, s, repl, got, want)
			}
		}
	})
}
