package funcs

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/types"
)

// run compiles code with the Set's options and env, and runs it.
func run(t *testing.T, s *Set, code string, env map[string]any) (any, error) {
	t.Helper()
	opts := append([]expr.Option{expr.Env(env)}, s.Options()...)
	prog, err := expr.Compile(code, opts...)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	return expr.Run(prog, env)
}

func TestExprIntegration(t *testing.T) {
	s := New()
	yt := map[string]any{
		"contents": []any{
			map[string]any{"videoRenderer": map[string]any{"videoId": "a1", "title": map[string]any{"runs": []any{map[string]any{"text": "First"}}}}},
			map[string]any{"videoRenderer": map[string]any{"videoId": "b2", "title": map[string]any{"simpleText": "Second"}}},
			map[string]any{"adSlotRenderer": map[string]any{}},
		},
	}
	env := map[string]any{
		"value":  "4,5 von 5 Sternen",
		"nilv":   nil,
		"data":   yt,
		"items":  []any{map[string]any{"price": 0.0}, map[string]any{"price": 12.5}},
		"domain": map[string]any{"locale": "de_DE", "currency": "EUR"},
		"typed":  []string{"b", "a", "b"},
		"n":      12.99,
	}
	for _, c := range []struct {
		code string
		want any
	}{
		{`parseNumber(value)`, 4.5},
		{`parseNumber(value, domain.locale)`, 4.5},
		{`parsePrice("1.299,00 €", domain.locale) * 2`, 2598.0},
		{`parsePrice(n)`, 12.99},
		{`parseNumber(nilv)`, nil},
		{`parseNumber(nilv) ?? 0`, 0},
		{`parsePrice(nilv, domain.locale) == nil`, true},
		{`normSpace(nilv) == "x"`, false},
		{`parseCount("1.2K") + 1`, 1201},
		{`parseCurrency("12 €") == domain.currency`, true},
		{`parseCurrency("12,99", domain.currency)`, "EUR"},
		// find: the key search and expr's predicate builtin side by side.
		{`find(data, "videoId")`, "a1"},
		{`data | find("videoId")`, "a1"},
		{`find(items, .price > 0).price`, 12.5},
		{`find(items, #.price > 0).price`, 12.5},
		{`find([1, 2, 3], true)`, 1},
		{`findAll(data, "videoId")`, []any{"a1", "b2"}},
		{`map(findAll(data, "videoRenderer"), textOf(.title))`, []any{"First", "Second"}},
		{`get(data, "contents.*.videoRenderer.videoId")`, []any{"a1", "b2"}},
		{`get(data, "contents.0.videoRenderer.videoId")`, "a1"},
		{`get(data, "contents[-1].adSlotRenderer")`, map[string]any{}},
		{`get(data, "missing.path")`, nil},
		{`get(items, 1).price`, 12.5},
		{`get(typed, 0)`, "b"},
		{`uniq(typed)`, []any{"b", "a"}},
		{`flatten([[1], [2, [3]]])`, []any{1, 2, 3}},
		{`flatten(nilv)`, nil},
		{`toJSON({"a": [1, "<"]})`, `{"a":[1,"<"]}`},
		{`toJSON(nilv)`, nil},
		{`coalesce(nilv, "", "x")`, "x"},
		{`reMatch(nilv, "x")`, false},
		{`reFind(value, "(\\d),(\\d)")`, "4"},
		{`len(reFindAll("a1b22c333", "\\d+"))`, 3},
		{`joinLines(splitLines(" a \n\n b "))`, "a\nb"},
		{`parseDate(1710324000)`, "2024-03-13T10:00:00Z"},
		{`parseDuration("PT1M") / 60`, 1.0},
		{`toInt("42") + 1`, 43},
		{`parseInt("12,345") * 2`, 24690},
		{`truncate("abcdef", 3)`, "abc"},
		{`zipObject(["a"], [1]).a`, 1},
		{`absURL("/x", "https://example.com/y")`, "https://example.com/x"},
	} {
		t.Run(c.code, func(t *testing.T) {
			got, err := run(t, s, c.code, env)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s = %#v, want %#v", c.code, got, c.want)
			}
		})
	}
}

// The engine compiles with a typed environment (types.Map); the functions must type-check
// against it and reject malformed calls at compile time.
func TestCompileTimeChecks(t *testing.T) {
	s := New()
	env := types.Map{
		"value":  types.String,
		"n":      types.Int,
		"domain": types.Map{"locale": types.String},
		"src":    types.Map{"ld": types.Any},
	}
	compile := func(code string) error {
		_, err := expr.Compile(code, append([]expr.Option{expr.Env(env)}, s.Options()...)...)
		return err
	}
	for _, ok := range []string{
		`parsePrice(value, domain.locale)`,
		`parsePrice(src.ld.offers.price)`,
		`find(src.ld, "price")`,
		`find(src.ld, .x == 1)`,
		`get(src.ld, "a.b")`,
		`toInt(n)`,
		`truncate(value, n)`,
		`coalesce()`,
		`coalesce(value, "x", n)`,
		"reFind(value, `(\\d+)`)",
		`parseNumber(n)`,
		`parseNumber(nil)`,
		`normSpace(nil)`,
		`truncate(value, 2.0)`,
	} {
		if err := compile(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for code, msg := range map[string]string{
		`parsePrice(value, "de", 1)`: "parsePrice takes 1 or 2 arguments, not 3",
		`parsePrice(value, 1)`:       "parsePrice: argument 2 must be a string, not int",
		`normSpace(n)`:               "normSpace: argument 1 must be a string, not int",
		`reMatch(value)`:             "reMatch takes 2 arguments, not 1",
		`textOf()`:                   "textOf takes 1 argument, not 0",
		`find(src.ld, n)`:            "find: argument 2 must be a string, not int",
	} {
		if err := compile(code); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want %q", code, err, msg)
		}
	}
	for _, bad := range []string{
		`parseNumber()`,
		`parseNumber(value, "de", "x")`,
		`normSpace(n)`,
		`truncate(value)`,
		`truncate(value, "3")`,
		`between(value, "a")`,
		`reMatch(value)`,
		`find(src.ld)`,
		`find(src.ld, n)`,
		`absURL(value)`,
	} {
		if err := compile(bad); err == nil {
			t.Errorf("%s compiled; want an error", bad)
		}
	}
}

// Every function must survive nil, empty and wrongly typed arguments at run time (values the
// checker cannot see, because the environment is untyped) without panicking.
func TestNilSafety(t *testing.T) {
	s := New()
	weird := []any{nil, "", " ", "x", 0, -1, 1.5, math.NaN(), math.Inf(1), true, []any{}, []any{nil},
		map[string]any{}, map[string]any{"a": nil}, []string{"a"}, map[int]any{1: 2}, struct{ A int }{1},
		[]byte("7"), int64(math.MaxInt64), uint64(math.MaxUint64)}
	for _, d := range s.defs {
		d := d
		t.Run(d.name, func(t *testing.T) {
			for _, typ := range d.types {
				ft := reflect.TypeOf(typ).Elem()
				n := ft.NumIn()
				if ft.IsVariadic() {
					n = 3
				}
				args := make([]any, n)
				var try func(i int)
				try = func(i int) {
					if i == n {
						func() {
							defer func() {
								if r := recover(); r != nil {
									t.Errorf("%s%v panicked: %v", d.name, args, r)
								}
							}()
							_, err := d.fn(args...)
							// Only patterns and parseDate's zone may error: a non-string pattern or
							// an unknown zone is a sitedef bug.
							if err != nil && !strings.HasPrefix(d.name, "re") && !(d.name == "parseDate" && n == 3) {
								t.Errorf("%s%v: %v", d.name, args, err)
							}
						}()
						return
					}
					for _, w := range weird {
						args[i] = w
						try(i + 1)
					}
				}
				try(0)
			}
		})
	}
}

func TestNilInputGivesNil(t *testing.T) {
	s := New()
	for _, d := range s.defs {
		switch d.name {
		case "coalesce", "findAll", "reMatch", "find":
			continue
		}
		ft := reflect.TypeOf(d.types[0]).Elem()
		args := make([]any, ft.NumIn())
		for i := 1; i < len(args); i++ {
			switch ft.In(i).Kind() {
			case reflect.String:
				args[i] = "x"
			case reflect.Int:
				args[i] = 1
			default:
				args[i] = []any{}
			}
		}
		got, err := d.fn(args...)
		if err != nil || got != nil {
			t.Errorf("%s(nil, ...) = %#v, %v; want nil", d.name, got, err)
		}
	}
}

func TestArityErrors(t *testing.T) {
	s := New()
	for _, d := range s.defs {
		if d.name == "coalesce" {
			continue
		}
		if _, err := d.fn(); err == nil {
			t.Errorf("%s() without arguments: no error", d.name)
		}
		if _, err := d.fn(make([]any, 5)...); err == nil {
			t.Errorf("%s with 5 arguments: no error", d.name)
		}
	}
}

func TestRegexErrors(t *testing.T) {
	s := New()
	for _, code := range []string{`reFind("a", "(")`, `reFindAll("a", "(")`, `reMatch("a", "(")`, `reMatch(nilv, "(")`, `reReplace("a", "(", "")`, `reFind("a", nilv)`} {
		_, err := run(t, s, code, map[string]any{"nilv": nil})
		if err == nil {
			t.Errorf("%s: no error", code)
		}
	}
	if err := s.ValidatePattern(`(\d+`); err == nil {
		t.Error("ValidatePattern accepted (\\d+")
	}
	if err := s.ValidatePattern(`(?i)asin: ([A-Z0-9]{10})`); err != nil {
		t.Error(err)
	}
	// A pattern's length is capped, literal or computed from page data: RE2's work is the text's
	// length times the pattern's.
	long := strings.Repeat("a", MaxPattern)
	if err := s.ValidatePattern(long); err != nil {
		t.Errorf("a pattern of MaxPattern bytes: %v", err)
	}
	cached := s.re.len()
	if err := s.ValidatePattern(long + "a"); err == nil {
		t.Error("a pattern over MaxPattern bytes compiled")
	}
	if _, err := run(t, s, `reFind("aaa", p + "a")`, map[string]any{"p": long}); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("computed pattern over MaxPattern: %v", err)
	}
	if n := s.re.len(); n != cached {
		t.Errorf("refused patterns are cached: %d entries, was %d", n, cached)
	}
}

func TestLiteralPatternsCheckedAtCompile(t *testing.T) {
	s := New()
	compile := func(code string) error {
		_, err := expr.Compile(code, append([]expr.Option{expr.Env(map[string]any{"value": ""})}, s.Options()...)...)
		return err
	}
	if err := compile("reFind(value, `ok (\\d+)`) ?? reMatch(value, `^x$`)"); err != nil {
		t.Errorf("valid patterns: %v", err)
	}
	err := compile("parseNumber(reFind(value, `bad (\\d+`))")
	if err == nil || !strings.Contains(err.Error(), "reFind: invalid regular expression") || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("got %v", err)
	}
	var fe *file.Error
	if !errors.As(err, &fe) || fe.Line != 1 || fe.Column != 12 {
		t.Errorf("error position: %#v", err)
	}
	for _, code := range []string{`reReplace(value, "[", "")`, `reFindAll(value, "(?P<x")`, `reMatch(value, "a{2,1}")`, `value | reFind("(")`} {
		if err := compile(code); err == nil || !strings.Contains(err.Error(), "invalid regular expression") {
			t.Errorf("%s: got %v", code, err)
		}
	}
	// Patterns computed at run time fail when they run.
	if err := compile(`reFind(value, value + "(")`); err != nil {
		t.Errorf("dynamic pattern: %v", err)
	}
	// One Options() shared by concurrent compilations.
	opts := append([]expr.Option{expr.Env(map[string]any{"value": ""})}, s.Options()...)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := expr.Compile(fmt.Sprintf("reFind(value, `(%d`) ?? reFind(value, `[`)", i), opts...)
			if err == nil {
				t.Error("no error")
			}
		}()
	}
	wg.Wait()
}

func TestRegexCacheBounded(t *testing.T) {
	c := newRegexCache(8)
	for i := range 100 {
		if _, err := c.get(fmt.Sprintf("a%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.len(); n != 8 {
		t.Errorf("cache holds %d patterns, want 8", n)
	}
	// The most recently used entries stay.
	re1, _ := c.get("a99")
	re2, _ := c.get("a99")
	if re1 != re2 {
		t.Error("a99 recompiled")
	}
}

func TestConcurrentUse(t *testing.T) {
	s := New()
	prog, err := expr.Compile("reFind(v, p) ?? parsePrice(v, 'de_DE')", s.Options()...)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				env := map[string]any{"v": fmt.Sprintf("x%d 1.234,5%d €", i, g), "p": fmt.Sprintf(`y%d(\d+)`, i%(regexCacheSize+50))}
				if _, err := expr.Run(prog, env); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := s.re.len(); n > regexCacheSize {
		t.Errorf("cache grew to %d", n)
	}
}

func TestDataFunctions(t *testing.T) {
	type item struct {
		Name string
		Tags []string
		priv int
	}
	cyclic := map[string]any{"a": 1}
	cyclic["self"] = cyclic

	for _, c := range []struct {
		name string
		got  any
		want any
	}{
		{"get struct", get(item{Name: "n"}, "Name"), "n"},
		{"get struct slice", get(&item{Tags: []string{"x", "y"}}, "Tags.-1"), "y"},
		{"get private", get(item{priv: 1}, "priv"), nil},
		{"get typed map", get(map[string]int{"a": 1}, "a"), 1},
		{"get int key map", get(map[int]any{1: "x"}, "1"), nil},
		{"get empty path", get(map[string]any{"a": 1}, ""), map[string]any{"a": 1}},
		{"get float index", get([]any{"a", "b"}, 1.0), "b"},
		{"get out of range", get([]any{"a"}, 5), nil},
		{"get bad path", get([]any{"a"}, true), nil},
		{"get nested wildcard", get(map[string]any{"a": []any{
			map[string]any{"b": []any{map[string]any{"c": 1}, map[string]any{"c": 2}}},
			map[string]any{"b": []any{map[string]any{"c": 3}}},
		}}, "a.*.b.*.c"), []any{1, 2, 3}},
		{"get wildcard map values", get(map[string]any{"x": map[string]any{"id": 1}, "y": map[string]any{"id": 2}}, "*.id"), []any{1, 2}},
		{"get wildcard none", get(map[string]any{"a": []any{}}, "a.*.id"), []any{}},
		{"find skips nil", findKey(map[string]any{"a": map[string]any{"k": nil}, "b": map[string]any{"k": 2}}, "k", false), []any{2}},
		{"find depth first", findKey(map[string]any{"a": map[string]any{"x": map[string]any{"k": "deep"}}, "k": "shallow"}, "k", true), []any{"deep", "shallow"}},
		{"find nested matches", findKey(map[string]any{"k": map[string]any{"k": 1}}, "k", true), []any{map[string]any{"k": 1}, 1}},
		{"find cyclic terminates", len(findKey(cyclic, "zzz", true)), 0},
		{"uniq numbers", uniq([]any{1, 1.0, int64(1), "1"}), []any{1, "1"}},
		{"uniq maps", uniq([]any{map[string]any{"a": 1, "b": 2}, map[string]any{"b": 2, "a": 1}}), []any{map[string]any{"a": 1, "b": 2}}},
		{"uniq nil", uniq([]any{nil, nil}), []any{nil}},
		{"textOf runs", mustText(map[string]any{"runs": []any{map[string]any{"text": "a"}, map[string]any{"x": 1}, map[string]any{"text": "b"}}}), "ab"},
		{"textOf list of runs", mustText([]any{map[string]any{"text": "a"}}), "a"},
		{"textOf text nested", mustText(map[string]any{"text": map[string]any{"simpleText": "t"}}), "t"},
		{"textOf empty", mustText(map[string]any{}), "<nil>"},
		{"parseJSON trailing", mustJSON(`[1,2] junk`), []any{1.0, 2.0}},
		{"parseJSON BOM", mustJSON("\ufeff{\"a\":true}"), map[string]any{"a": true}},
		{"parseJSON empty", mustJSON("   "), nil},
		{"parseJSON broken", mustJSON(`{"a":`), nil},
		{"toJSON NaN", mustToJSON(math.NaN()), "<nil>"},
		{"toJSON struct", mustToJSON(item{Name: "a"}), `{"Name":"a","Tags":null}`},
		{"isEmpty typed", isEmpty([]string{}), true},
		{"isEmpty zero", isEmpty(0), false},
		{"toInt big", mustInt("9999999999999999999999"), "<nil>"},
		{"toInt neg", mustInt("-7"), "-7"},
		{"toInt float string", mustInt("-7.9"), "-7"},
		{"toInt bool", mustInt(true), "<nil>"},
		{"toInt uint max", mustInt(uint64(math.MaxUint64)), "<nil>"},
		{"toFloat inf", fmt.Sprint(toFloat("1e999")), "0 false"},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func mustText(v any) any {
	s, ok := textOf(v)
	if !ok {
		return "<nil>"
	}
	return s
}

func mustJSON(s string) any {
	v, _ := parseJSON(s)
	return v
}

func mustToJSON(v any) any {
	s, ok := toJSON(v)
	if !ok {
		return "<nil>"
	}
	return s
}

func mustInt(v any) string {
	n, ok := toInt(v)
	if !ok {
		return "<nil>"
	}
	return fmt.Sprint(n)
}

// capped are the value parsers and their caps (limits.go), each with a real value and its
// result. wholeText are the functions that take whole texts or documents by design and are one
// pass over them. Every function is in one list, so a new one must choose.
var (
	capped = map[string]struct {
		max        int
		value, loc string
		want       any
	}{
		"parseNumber":   {MaxNumberText, "4,5 von 5 Sternen", "de_DE", 4.5},
		"parsePrice":    {MaxNumberText, "Preis: 1.234,56 € inkl. MwSt.", "de_DE", 1234.56},
		"parseCurrency": {MaxNumberText, "Preis: 1.234,56 €", "", "EUR"},
		"parseCount":    {MaxNumberText, "1,2 Mio. Aufrufe", "de", 1200000},
		"parseInt":      {MaxNumberText, "#1,234 in Books", "", 1234},
		"digits":        {MaxNumberText, "+49 (0) 30 1234-567", "", "490301234567"},
		"toInt":         {MaxNumberText, " 42 ", "", 42},
		"toFloat":       {MaxNumberText, " 12.5 ", "", 12.5},
		"fromUnix":      {MaxNumberText, " 1710324000 ", "", "2024-03-13T10:00:00Z"},
		"parseDate":     {MaxDateText, "Reviewed in the United States on March 13, 2024", "", "2024-03-13"},
		"parseDuration": {MaxDurationText, "1 Std. 5 Min.", "", 3900.0},
	}
	wholeText = []string{"normSpace", "stripTags", "blockText", "unescapeHTML", "unescapeCSS", "truncate", "splitLines", "joinLines",
		"between", "absURL", "urlParam", "queryEscape", "pathUnescape", "urlHost", "urlPath", "unwrapURL", "reFind", "reFindAll",
		"reMatch", "reReplace", "parseJSON", "base64Decode", "toJSON", "get", "find", "findAll", "uniq", "compact",
		"flatten", "zipObject", "coalesce", "textOf", "keys", "values", "fromPairs", "wordCount",
		"bestImage", "cleanText", "closestOf", "howToSteps", "schemaMinutes", "schemaName", "schemaProps", "schemaURL", "schemaYield", "splitTags"}
)

// argsFor builds the arguments of a call of d with first argument in.
func argsFor(d def, in, second string) []any {
	ft := reflect.TypeOf(d.types[len(d.types)-1]).Elem()
	n := ft.NumIn()
	if ft.IsVariadic() {
		n = 2
	}
	third := "x"
	if d.name == "parseDate" {
		third = "Asia/Tokyo" // a zone, the only third argument it takes
	}
	args := []any{in, second, third}[:n]
	for i := 1; i < n && !ft.IsVariadic(); i++ {
		if ft.In(i).Kind() == reflect.Int {
			args[i] = 1000
		}
	}
	return args
}

// Every value parser refuses text over its cap, by a length check before any other work: a real
// value padded to the cap still parses, one byte more gives nil, and the refusal allocates
// nothing (the scanners behind the check all allocate: runes, tokens, digit groups). So no input
// makes a parser do more than its cap's worth of work. No clock is involved.
func TestInputCaps(t *testing.T) {
	s := New()
	listed := map[string]bool{}
	for _, n := range wholeText {
		listed[n] = true
	}
	for _, d := range s.defs {
		c, ok := capped[d.name]
		if !ok {
			if !listed[d.name] {
				t.Errorf("%s is neither capped nor listed as a whole-text function", d.name)
			}
			continue
		}
		t.Run(d.name, func(t *testing.T) {
			atCap := c.value + strings.Repeat(" ", c.max-len(c.value))
			got, err := d.fn(argsFor(d, atCap, c.loc)...)
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("%d bytes: got %#v, %v; want %#v", len(atCap), got, err, c.want)
			}
			for _, over := range []string{atCap + " ", " " + atCap, strings.Repeat(c.value, 1+c.max/len(c.value)), strings.Repeat("9", 1<<20)} {
				args := argsFor(d, over, c.loc)
				if got, err := d.fn(args...); got != nil || err != nil {
					t.Errorf("%d bytes: got %#v, %v; want nil", len(over), got, err)
				}
				if n := testing.AllocsPerRun(3, func() { _, _ = d.fn(args...) }); n != 0 {
					t.Errorf("%d bytes: refusing allocated %v times: work was done first", len(over), n)
				}
			}
		})
	}
	for _, n := range wholeText {
		if s.groupOf(n) == "" {
			t.Errorf("wholeText lists %s, which is not a function", n)
		}
	}
}

// Hostile inputs give a result or nil, never an error or a panic, whatever their size: a page body
// can be megabytes. (How long they take is for BenchmarkLargeInputs; the value parsers' work is
// bounded by TestInputCaps, and the whole-text functions are single passes.)
func TestLargeInputs(t *testing.T) {
	s := New()
	for _, d := range s.defs {
		if strings.HasPrefix(d.name, "re") {
			continue // RE2 is linear; the pattern is the sitedef's
		}
		for _, in := range largeInputs {
			if _, err := d.fn(argsFor(d, in, "de_DE")...); err != nil {
				t.Errorf("%s: %v", d.name, err)
			}
		}
	}
}

var largeInputs = []string{
	strings.Repeat("1.2.", 50000),
	strings.Repeat("1,234 ", 50000),
	strings.Repeat("1a€a", 50000),
	strings.Repeat("$", 200000),
	strings.Repeat("9", 200000),
	strings.Repeat("13 March ", 30000),
	strings.Repeat("<a ", 60000),
	strings.Repeat("kr ", 60000),
	strings.Repeat("1:", 100000),
	strings.Repeat("1h", 100000),
	strings.Repeat("P1D", 60000),
	strings.Repeat(`{"a":`, 40000),
	strings.Repeat("%", 100000),
}

// BenchmarkLargeInputs: one op is every function on every hostile input, the measure of what
// TestLargeInputs only runs.
func BenchmarkLargeInputs(b *testing.B) {
	s := New()
	for b.Loop() {
		for _, d := range s.defs {
			if strings.HasPrefix(d.name, "re") {
				continue
			}
			for _, in := range largeInputs {
				_, _ = d.fn(argsFor(d, in, "de_DE")...)
			}
		}
	}
}
