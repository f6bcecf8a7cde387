package funcs

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
)

var update = flag.Bool("update", false, "rewrite docs/functions.md from Docs()")

const docsPath = "../../docs/functions.md"

// encodeJSON is how examples show results: compact, without HTML escaping.
func encodeJSON(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

func evalExpr(t testing.TB, s *Set, code string) any {
	t.Helper()
	prog, err := expr.Compile(code, s.Options()...)
	if err != nil {
		t.Fatalf("compile %s: %v", code, err)
	}
	out, err := expr.Run(prog, map[string]any{})
	if err != nil {
		t.Fatalf("run %s: %v", code, err)
	}
	return out
}

func TestExamples(t *testing.T) {
	s := New()
	for _, d := range s.Docs() {
		if len(d.Examples) == 0 {
			t.Errorf("%s has no example", d.Name)
		}
		if d.Summary == "" || !strings.HasPrefix(d.Signature, d.Name+"(") {
			t.Errorf("%s: bad summary or signature %q", d.Name, d.Signature)
		}
		for _, e := range d.Examples {
			t.Run(d.Name+"/"+e.Expr, func(t *testing.T) {
				got, err := encodeJSON(evalExpr(t, s, e.Expr))
				if err != nil {
					t.Fatal(err)
				}
				if got != e.Want {
					t.Errorf("%s\n got %s\nwant %s", e.Expr, got, e.Want)
				}
			})
		}
	}
}

func TestDocsSortedAndGrouped(t *testing.T) {
	s := New()
	docs := s.Docs()
	for i := 1; i < len(docs); i++ {
		if docs[i-1].Name >= docs[i].Name {
			t.Errorf("Docs not sorted: %s before %s", docs[i-1].Name, docs[i].Name)
		}
	}
	for _, d := range docs {
		if s.groupOf(d.Name) == "" {
			t.Errorf("%s has no documentation group", d.Name)
		}
	}
}

func TestDocsUpToDate(t *testing.T) {
	want := renderMarkdown(New())
	if *update {
		if err := os.WriteFile(docsPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/funcs -update)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date: run go test ./engine/funcs -update", filepath.Clean(docsPath))
	}
}

// mdCode wraps s as inline code, using a longer fence when s contains backquotes.
func mdCode(s string) string {
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func anchor(name string) string { return strings.ToLower(name) }

func renderMarkdown(s *Set) string {
	docs := s.Docs()
	var b strings.Builder
	b.WriteString(`# Expression functions

<!-- Generated from engine/funcs (Set.Docs) by: go test ./engine/funcs -update. Do not edit. -->

These functions are available in every sitedef expression (` + "`transform`, `post`, `expr`, `when`, templates" + `),
next to [expr's builtins](https://expr-lang.org/docs/language-definition) (` + "`trim`, `lower`, `split`, `map`, `filter`, ..." + `).
They are pure: same input, same output, no I/O, no clock.

**Nil-safe.** A nil, missing or unparsable input gives ` + "`nil`" + ` (JSON ` + "`null`" + `), never an error, so a
` + "`select:`" + ` list falls through to its next selector and ` + "`??`" + ` supplies defaults:
` + "`parsePrice(value, domain.locale) ?? 0`" + `. A call fails only when it is malformed: wrong argument
count or type where the compiler can see it (checked when the sitedef loads), or an invalid regular
expression. The parsers also accept numbers (JSON ` + "`\"price\": 12.99`" + ` parses like ` + "`\"12.99\"`" + `); the text
functions want strings, and passing a value the compiler knows to be a number is a load error.

**Locales.** Number functions take the domain's locale (` + "`domain.locale`" + `: ` + "`de_DE`, `de-DE` or `de`" + `) as a hint
only: a reading the text itself rules out never wins, because storefronts mix conventions.

**Regular expressions** use Go's RE2 syntax (linear time, no backreferences). Write patterns in
backquotes so that backslashes need no escaping: ` + "``reFind(value, `(\\d+) ratings`)``" + `. An invalid literal
pattern is an error when the sitedef loads; compiled patterns are cached per process. A pattern is at
most ` + strconv.Itoa(MaxPattern) + ` bytes, also one computed at run time.

**Bounded input.** A value parser reads a value, not a page: text longer than ` + strconv.Itoa(MaxNumberText) + ` bytes gives
` + "`nil`" + ` from parseNumber, parsePrice, parseCurrency, parseCount, parseInt, digits, toInt, toFloat and
fromUnix, longer than ` + strconv.Itoa(MaxDateText) + ` bytes from parseDate, longer than ` + strconv.Itoa(MaxDurationText) + ` bytes from parseDuration. Select the element
that holds the value (or cut the text with ` + "`between`" + ` or ` + "`reFind`" + `) rather than a whole block.

**Builtins replaced.** ` + "`get`, `uniq`, `flatten` and `toJSON`" + ` replace expr's builtins of the same name with
compatible supersets (dotted paths, nil instead of errors, compact JSON). ` + "`find`" + ` is shared: with a
predicate (` + "`find(items, .price > 0)`" + `) it is expr's builtin, with a key (` + "`find(data, \"videoId\")`" + `) it
searches nested JSON.

`)
	for _, g := range groupOrder {
		fmt.Fprintf(&b, "## %s\n\n| function | returns |\n|---|---|\n", g)
		for _, d := range docs {
			if s.groupOf(d.Name) != g {
				continue
			}
			sig, ret, _ := strings.Cut(d.Signature, " → ")
			fmt.Fprintf(&b, "| [%s](#%s) | %s |\n", mdCell(mdCode(sig)), anchor(d.Name), mdCell(mdCode(ret)))
		}
		b.WriteString("\n")
		for _, d := range docs {
			if s.groupOf(d.Name) != g {
				continue
			}
			fmt.Fprintf(&b, "### %s\n\n`%s`\n\n%s\n\n", d.Name, d.Signature, d.Summary)
			b.WriteString("| expression | result |\n|---|---|\n")
			for _, e := range d.Examples {
				fmt.Fprintf(&b, "| %s | %s |\n", mdCell(mdCode(e.Expr)), mdCell(mdCode(e.Want)))
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
