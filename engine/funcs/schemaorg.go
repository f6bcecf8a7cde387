package funcs

import (
	"html"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Schema.org values are loosely typed in the wild: a property that schema.org defines as text is a
// string, a list of strings, an object with a name, or HTML with entities, depending on the plugin
// that wrote the page. These functions turn such values into the plain shapes a client expects,
// following the conventions of recipe-scrapers (whose expected outputs are our reference).

// cleanText decodes entities (twice: pages double-encode "&amp;amp;"), removes tags and collapses
// whitespace, zero-width characters included.
func cleanText(s string) string {
	for range 2 {
		s = html.UnescapeString(s)
		if strings.IndexByte(s, '<') >= 0 {
			s = removeTags(s)
		}
	}
	return normSpace(s)
}

// removeTags deletes every <...> that starts like a tag (a letter, '/', '!' or '?' after '<'), so
// that "a < b" survives.
func removeTags(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c == '<' && i+1 < len(s) && (isASCIILetter(s[i+1]) || s[i+1] == '/' || s[i+1] == '!' || s[i+1] == '?') {
			if end := strings.IndexByte(s[i:], '>'); end >= 0 {
				i += end + 1
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// schemaMinutes reads a schema.org duration as whole minutes: a number is minutes already; an ISO
// 8601 duration is rounded up to the minute (0 is no duration); text ("1 hr 30 mins", "1 Std.")
// goes through parseDuration and is rounded; a range ("10-15 minutes", "PT10M-PT15M") gives its
// upper bound; a QuantitativeValue gives its maxValue, a typed JSON-LD value its @value.
func schemaMinutes(v any) (any, bool) {
	if m, ok := v.(map[string]any); ok {
		if x, ok := m["@value"]; ok { // {"@type": "Duration", "@value": "PT35M"}
			return schemaMinutes(x)
		}
		return schemaMinutes(m["maxValue"])
	}
	if _, isStr := v.(string); !isStr {
		if f, ok := toFloat(v); ok {
			return int(f), true
		}
		return nil, false
	}
	s := strings.TrimSpace(clip(v.(string)))
	if n, err := strconv.Atoi(s); err == nil {
		return n, true
	}
	if _, after, ok := strings.Cut(s, "-"); ok {
		s = after
	}
	if _, after, ok := strings.Cut(s, " to "); ok {
		s = after
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "P") && strings.Contains(s, "T") {
		if secs, ok := parseDuration(s); ok {
			m := int(math.Ceil(secs / 60))
			if m == 0 {
				return nil, false
			}
			return m, true
		}
	}
	if secs, ok := parseDuration(s); ok {
		return int(math.Round(secs / 60)), true
	}
	return nil, false
}

// maxSchemaText bounds the text a duration or a yield is read from: either is a few words, and
// longer text (a page's markup caught by a loose selector) is cut rather than scanned.
const maxSchemaText = 256

func clip(s string) string {
	if len(s) <= maxSchemaText {
		return s
	}
	return strings.ToValidUTF8(s[:maxSchemaText], "")
}

// yieldTypes are the units a yield may count, singular and plural; the longest one the text
// names wins ("hamburger buns" over "buns").
var yieldTypes = [][2]string{
	{"dozen", "dozen"}, {"batch", "batches"}, {"cake", "cakes"}, {"sandwich", "sandwiches"},
	{"bun", "buns"}, {"cookie", "cookies"}, {"muffin", "muffins"}, {"cupcake", "cupcakes"},
	{"loaf", "loaves"}, {"pie", "pies"}, {"cup", "cups"}, {"pint", "pints"}, {"gallon", "gallons"},
	{"ounce", "ounces"}, {"pound", "pounds"}, {"gram", "grams"}, {"liter", "liters"},
	{"piece", "pieces"}, {"layer", "layers"}, {"scoop", "scoops"}, {"bar", "bars"},
	{"patty", "patties"}, {"hamburger bun", "hamburger buns"}, {"pancake", "pancakes"},
	{"item", "items"},
}

var (
	yieldRangeRe = regexp.MustCompile(`\d+(\s+to\s+|-)\d+`)
	yieldItemsRe = regexp.MustCompile(`(?i)\bsandwiches\b|\btacquitos\b|\bmakes\b|\bcups\b|\bappetizer\b|\bporzioni\b|\bcookies\b|\b(?:large|small)?buns\b`)
	firstDigits  = regexp.MustCompile(`\d+`)
)

// schemaYield writes a recipe yield as "N servings", or "N <unit>" when the text counts
// something else ("2 dozen", "12 cookies"); a range gives its upper bound.
func schemaYield(v any) (any, bool) {
	if m, ok := v.(map[string]any); ok {
		v = m["value"]
		if v == nil {
			v = m["maxValue"]
		}
	}
	if l, ok := listOf(v); ok {
		// ["12", "12 muffins"]: a text that names what is counted says more than the number;
		// ["6", "6 to 8 servings"]: servings, the first value as it is.
		if len(l) == 0 {
			return nil, false
		}
		for _, e := range l[1:] {
			if y, ok := schemaYield(e); ok && !strings.HasSuffix(y.(string), " servings") && !strings.HasSuffix(y.(string), " serving") {
				return y, true
			}
		}
		v = l[0]
	}
	s, ok := stringOf(v)
	if !ok {
		return nil, false
	}
	s = cleanText(clip(s))
	if s == "" {
		return nil, false
	}
	if m := yieldRangeRe.FindStringSubmatch(s); m != nil {
		_, s, _ = strings.Cut(s, m[1])
	}
	num := "0"
	if d := firstDigits.FindString(s); d != "" {
		num = d
	}
	n, _ := strconv.Atoi(num)
	lower := strings.ToLower(s)
	best, bestLen := "", 0
	for _, t := range yieldTypes {
		l := 0
		switch {
		case strings.Contains(lower, t[0]):
			l = len(t[0])
		case strings.Contains(lower, t[1]):
			l = len(t[1])
		}
		if l > bestLen {
			bestLen = l
			if n == 1 {
				best = num + " " + t[0]
			} else {
				best = num + " " + t[1]
			}
		}
	}
	if best != "" {
		return best, true
	}
	unit := "serving"
	if yieldItemsRe.MatchString(s) {
		unit = "item"
	}
	if n != 1 {
		unit += "s"
	}
	return num + " " + unit, true
}

// howToSteps flattens schema.org recipeInstructions into one string per step: a HowToSection
// gives its name and then its steps, a HowToStep its text (and its name first when the name is
// not just the start of the text), a string its lines.
//
// mode "text" keeps only the steps' texts (no section or step names); "names" keeps every step
// name, numbering labels ("Step 2") included.
func howToSteps(v any, mode string) []any {
	if m, ok := v.(map[string]any); ok {
		v = m["itemListElement"]
	}
	out := []any{}
	add := func(s string) {
		if s = cleanText(s); s != "" {
			out = append(out, s)
		}
	}
	if s, ok := v.(string); ok {
		for _, line := range strings.Split(html.UnescapeString(s), "\n") {
			for _, p := range splitJoinedParagraphs(line) {
				add(p)
			}
		}
		return out
	}
	l, ok := listOf(v)
	if !ok {
		return out
	}
	var walk func(x any, depth int)
	walk = func(x any, depth int) {
		if depth > 8 {
			return
		}
		switch x := x.(type) {
		case string:
			add(x)
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		case map[string]any:
			switch schemaType(x) {
			case "HowToSection":
				name, _ := stringOf(x["name"])
				if name == "" {
					name, _ = stringOf(x["Name"])
				}
				if mode != "text" {
					add(name)
				}
				walk(x["itemListElement"], depth+1)
			default:
				text, _ := stringOf(x["text"])
				if name, _ := stringOf(x["name"]); name != "" && mode != "text" && (mode == "names" || !stepLabel.MatchString(cleanText(name))) && !strings.HasPrefix(cleanText(text), cleanText(strings.TrimRight(name, "."))) {
					add(name)
				}
				if text == "" {
					if sub, ok := x["itemListElement"]; ok {
						walk(sub, depth+1)
						return
					}
				}
				add(text)
			}
		}
	}
	for _, e := range l {
		walk(e, 0)
	}
	return out
}

// splitJoinedParagraphs splits text where a sentence ends and the next starts with no space
// ("...baking paper.Snap the chocolate..."): the trace of paragraphs joined when a CMS flattened
// the instructions into one string. An abbreviation such as "U.S." is kept: the letter before the
// stop must be lower case (or a digit or a closing bracket).
func splitJoinedParagraphs(s string) []string {
	var out []string
	start := 0
	var prev, stop rune
	for i, r := range s {
		if stop != 0 && unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev) || prev == ')') {
			out = append(out, s[start:i])
			start = i
		}
		if r == '.' || r == '!' || r == '?' {
			stop = r
			continue
		}
		prev, stop = r, 0
	}
	return append(out, s[start:])
}

// stepLabel is a step name that only numbers the step ("Step 2", "Schritt 2", "stap 2", "2."):
// not an instruction of its own.
var stepLabel = regexp.MustCompile(`(?i)^(?:step|stap|schritt|étape|etape|paso|passo|krok|korak|trin|steg|vaihe|adım|lépés|шаг)?\s*\d+\s*[.:)]?$`)

// schemaType is the last segment of an object's first @type ("http://schema.org/HowToStep").
func schemaType(m map[string]any) string {
	t := m["@type"]
	if l, ok := t.([]any); ok && len(l) > 0 {
		t = l[0]
	}
	s, _ := t.(string)
	if i := strings.LastIndexAny(s, "/#:"); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// schemaName is the name of a schema.org Person or Organization value: a string as it is, the
// first of a list, an object's name, or, for a reference ({"@id": ...}), the name of the
// candidate object with that @id (or url).
func schemaName(v any, candidates []any) (any, bool) {
	if l, ok := listOf(v); ok {
		if len(l) == 0 {
			return nil, false
		}
		v = l[0]
	}
	switch x := v.(type) {
	case string:
		s := cleanText(x)
		return s, s != ""
	case map[string]any:
		if n, ok := stringOf(x["name"]); ok && strings.TrimSpace(n) != "" {
			s := cleanText(n)
			return s, s != ""
		}
		ref, _ := stringOf(x["@id"])
		if ref == "" {
			ref, _ = stringOf(x["url"])
		}
		if ref == "" {
			return nil, false
		}
		for _, c := range candidates {
			cm, ok := c.(map[string]any)
			if !ok {
				continue
			}
			id, _ := stringOf(cm["@id"])
			u, _ := stringOf(cm["url"])
			if id == ref || u == ref {
				return schemaName(cm, nil)
			}
		}
	}
	return nil, false
}

// schemaURL is the URL of a schema.org ImageObject-like value: a string, the first of a list,
// or an object's url (else contentUrl). Only absolute http(s) URLs count.
func schemaURL(v any) (any, bool) {
	for range 4 {
		if l, ok := listOf(v); ok {
			if len(l) == 0 {
				return nil, false
			}
			v = l[0]
			continue
		}
		if m, ok := v.(map[string]any); ok {
			if u, ok := m["url"]; ok && u != nil {
				v = u
			} else {
				v = m["contentUrl"]
			}
			continue
		}
		break
	}
	s, ok := v.(string)
	s = strings.TrimSpace(s)
	if !ok || !(strings.Contains(s, "http://") || strings.Contains(s, "https://")) {
		return nil, false
	}
	return s, true
}

// splitTags splits comma-separated keywords (or a list of them) into distinct tags, the first
// spelling of each kept (compared case-insensitively).
func splitTags(v any) []any {
	var parts []string
	if l, ok := listOf(v); ok {
		for _, e := range l {
			if s, ok := stringOf(e); ok {
				parts = append(parts, cleanText(s))
			}
		}
	} else if s, ok := stringOf(v); ok {
		parts = []string{cleanText(s)}
	}
	out := []any{}
	seen := map[string]bool{}
	for _, p := range parts {
		for _, t := range strings.Split(p, ",") {
			t = strings.TrimFunc(t, unicode.IsSpace)
			k := strings.ToLower(t)
			if t == "" || seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// schemaProps is a schema.org object's properties as text: "@" keys, "type" and empty values
// dropped, names and values cleaned (NutritionInformation: {"calories": "240 kcal", ...}).
func schemaProps(v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := map[string]any{}
	for k, x := range m {
		if k == "" || strings.HasPrefix(k, "@") || k == "type" || isEmptyValue(x) {
			continue
		}
		s, ok := stringOf(x)
		if !ok {
			continue
		}
		if s = cleanText(s); s != "" {
			out[cleanText(k)] = s
		}
	}
	return out, len(out) > 0
}

func isEmptyValue(x any) bool {
	switch x := x.(type) {
	case nil:
		return true
	case string:
		return strings.TrimSpace(x) == ""
	case bool:
		return !x
	}
	if f, ok := toFloat(x); ok {
		return f == 0
	}
	return false
}

func schemaDefinitions() []def {
	textArg := func(name string, f func(string) any) func(args ...any) (any, error) {
		return func(args ...any) (any, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			s, ok := stringOf(args[0])
			if !ok {
				return nil, nil
			}
			return f(s), nil
		}
	}
	one := func(name string, f func(any) (any, bool)) func(args ...any) (any, error) {
		return func(args ...any) (any, error) {
			if err := arity(name, args, 1, 1); err != nil {
				return nil, err
			}
			return orNil(f(args[0]))
		}
	}
	return []def{
		{
			name: "cleanText", group: groupText, sig: "cleanText(s) → string | nil",
			summary: "s with HTML entities decoded (twice, for double-encoded `&amp;amp;`), tags removed and " +
				"whitespace collapsed: what a schema.org text property holds once the HTML a CMS left in it is " +
				"gone. nil for nil or an empty result.",
			types: []any{tA},
			fn: textArg("cleanText", func(s string) any {
				if s = cleanText(s); s == "" {
					return nil
				}
				return s
			}),
			examples: ex(
				`cleanText("Mac &amp;amp; <b>cheese</b>\n ")`, `"Mac & cheese"`,
				`cleanText("<p></p>")`, `null`,
			),
		},
		{
			name: "schemaMinutes", group: groupDates, sig: "schemaMinutes(x) → int | nil",
			summary: "A schema.org duration in whole minutes: an ISO 8601 duration rounded up (`PT0M` is nil), " +
				"a number (already minutes), text with units as parseDuration reads it, rounded; a range gives " +
				"its upper bound; a QuantitativeValue its `maxValue`, a typed value (`{\"@value\": ...}`) its `@value`.",
			types: []any{tA},
			fn:    one("schemaMinutes", schemaMinutes),
			examples: ex(
				`schemaMinutes("PT1H30M")`, `90`,
				`schemaMinutes("PT90S")`, `2`,
				`schemaMinutes("P0DT0H0M")`, `null`,
				`schemaMinutes("1 hr 15 mins")`, `75`,
				`schemaMinutes("10-15 minutes")`, `15`,
				`schemaMinutes(45)`, `45`,
				`schemaMinutes({"maxValue": "PT20M"})`, `20`,
				`schemaMinutes({"@type": "Duration", "@value": "P0DT0H35M0S"})`, `35`,
			),
		},
		{
			name: "schemaYield", group: groupNumbers, sig: "schemaYield(x) → string | nil",
			summary: "A recipe yield as recipe-scrapers writes it: `N servings` (`1 serving`), or `N <unit>` when " +
				"the text counts dozens, batches, cookies, loaves, cups ... (`N items` for other counted things); " +
				"a range gives its upper bound, a list its first value, text without a number 0.",
			types: []any{tA},
			fn:    one("schemaYield", schemaYield),
			examples: ex(
				`schemaYield("4")`, `"4 servings"`,
				`schemaYield(["12", "12 muffins"])`, `"12 muffins"`,
				`schemaYield("Serves 4-6")`, `"6 servings"`,
				`schemaYield("Makes 2 dozen")`, `"2 dozen"`,
				`schemaYield("1 loaf")`, `"1 loaf"`,
				`schemaYield("Für 4 Personen")`, `"4 servings"`,
			),
		},
		{
			name: "howToSteps", group: groupData, sig: "howToSteps(x [, mode]) → list",
			summary: "schema.org recipeInstructions as one string per step: a HowToSection gives its name and then " +
				"its steps, a HowToStep its text (preceded by its name when the name is neither the start of the " +
				"text nor a numbering label such as `Step 2`), an ItemList its elements, a string its lines (and " +
				"its paragraphs run together, `...paper.Snap the...`); each cleaned as by cleanText. mode `text` " +
				"keeps only the steps' texts; `names` keeps numbering labels too.",
			types: []any{tA, tAS},
			fn: func(args ...any) (any, error) {
				if err := arity("howToSteps", args, 1, 2); err != nil {
					return nil, err
				}
				if args[0] == nil {
					return nil, nil
				}
				mode := ""
				if len(args) == 2 {
					mode, _ = args[1].(string)
				}
				return howToSteps(args[0], mode), nil
			},
			examples: ex(
				`howToSteps([{"@type": "HowToSection", "name": "Dough", "itemListElement": [{"@type": "HowToStep", "text": "Mix."}, {"@type": "HowToStep", "text": "Knead."}]}])`, `["Dough","Mix.","Knead."]`,
				`howToSteps([{"@type": "HowToStep", "name": "Shape", "text": "Form a loaf."}, {"@type": "HowToStep", "name": "Bake", "text": "Bake for 20 minutes."}])`, `["Shape","Form a loaf.","Bake for 20 minutes."]`,
				`howToSteps("Preheat the oven.\n<p>Bake for 20 min.Serve.</p>")`, `["Preheat the oven.","Bake for 20 min.","Serve."]`,
				`howToSteps([{"@type": "HowToSection", "name": "Dough", "itemListElement": [{"@type": "HowToStep", "name": "Step 1", "text": "Mix."}]}], "text")`, `["Mix."]`,
			),
		},
		{
			name: "schemaName", group: groupData, sig: "schemaName(v [, candidates]) → string | nil",
			summary: "The name in a schema.org Person or Organization value: a string, the first of a list, an " +
				"object's `name`, or for a reference (`{\"@id\": ...}`) the name of the object among candidates " +
				"(one object or a list) whose `@id` or `url` it is.",
			types: []any{tA, tAA},
			fn: func(args ...any) (any, error) {
				if err := arity("schemaName", args, 1, 2); err != nil {
					return nil, err
				}
				var cands []any
				if len(args) == 2 {
					if l, ok := listOf(args[1]); ok {
						cands = l
					} else if args[1] != nil {
						cands = []any{args[1]}
					}
				}
				return orNil(schemaName(args[0], cands))
			},
			examples: ex(
				`schemaName([{"@type": "Person", "name": " Ann Lee "}])`, `"Ann Lee"`,
				`schemaName({"@id": "#p1"}, {"@id": "#p1", "name": "Bo"})`, `"Bo"`,
				`schemaName({"@id": "#p2"}, [{"@id": "#p1", "name": "Bo"}])`, `null`,
			),
		},
		{
			name: "schemaURL", group: groupURLs, sig: "schemaURL(v) → string | nil",
			summary: "The URL in a schema.org ImageObject-like value: a string, the first of a list, an object's " +
				"`url` (else `contentUrl`); nil unless it is an absolute http(s) URL.",
			types: []any{tA},
			fn:    one("schemaURL", schemaURL),
			examples: ex(
				`schemaURL([{"@type": "ImageObject", "url": "https://x.test/a.jpg"}, "https://x.test/b.jpg"])`, `"https://x.test/a.jpg"`,
				`schemaURL("/img/a.jpg")`, `null`,
			),
		},
		{
			name: "bestImage", group: groupURLs, sig: "bestImage(candidates...) → string | nil",
			summary: "The largest of the candidate images, each a URL, an ImageObject (`url`, `width`, `height`) or a " +
				"list of them: a size comes from the object, else from the URL (`1200x800`, `?w=1200&h=800`); " +
				"the same URL given twice keeps its largest size; ties go to https, then to the earlier " +
				"candidate. Only absolute http(s) URLs count; one to four arguments.",
			types: []any{tVar},
			fn: func(args ...any) (any, error) {
				if err := arity("bestImage", args, 1, 4); err != nil {
					return nil, err
				}
				return orNil(bestImage(args))
			},
			examples: ex(
				`bestImage([{"url": "https://x.test/a.jpg", "width": 640, "height": 480}, "https://x.test/b_1200x800.jpg"])`, `"https://x.test/b_1200x800.jpg"`,
				`bestImage("https://x.test/a.jpg", {"url": "https://x.test/b.jpg", "width": "1600"})`, `"https://x.test/b.jpg"`,
				`bestImage("/a.jpg")`, `null`,
			),
		},
		{
			name: "closestOf", group: groupText, sig: "closestOf(items, candidates) → list",
			summary: "Each string of items replaced by the most similar string of candidates (character bigrams, case " +
				"and punctuation ignored); an item like none of them is kept. Reports what a page shows in its HTML " +
				"(ingredients under a heading) as the strings of its schema.org data. At most 200 items and " +
				"candidates are compared, each on its first 300 bytes.",
			types: []any{tAA},
			fn: func(args ...any) (any, error) {
				if err := arity("closestOf", args, 2, 2); err != nil {
					return nil, err
				}
				items, ok := listOf(args[0])
				if !ok {
					return nil, nil
				}
				cands, _ := listOf(args[1])
				return closestOf(items, cands), nil
			},
			examples: ex(
				`closestOf(["2 eggs beaten", "flour"], ["250 g flour", "2 eggs (beaten)"])`, `["2 eggs (beaten)","250 g flour"]`,
				`closestOf(["salt"], [])`, `["salt"]`,
			),
		},
		{
			name: "splitTags", group: groupText, sig: "splitTags(v) → list",
			summary: "Comma-separated tags (a string, or a list of strings that may each hold several) as a list " +
				"of distinct tags, trimmed, the first spelling of each kept (compared case-insensitively).",
			types: []any{tA},
			fn: func(args ...any) (any, error) {
				if err := arity("splitTags", args, 1, 1); err != nil {
					return nil, err
				}
				if args[0] == nil {
					return nil, nil
				}
				return splitTags(args[0]), nil
			},
			examples: ex(
				`splitTags("soup, Dinner,dinner, ,easy")`, `["soup","Dinner","easy"]`,
				`splitTags(["a, b", "c"])`, `["a","b","c"]`,
			),
		},
		{
			name: "schemaProps", group: groupData, sig: "schemaProps(v) → object | nil",
			summary: "A schema.org object's properties as text, for objects such as NutritionInformation: `@` keys, " +
				"`type` and empty values dropped, names and values cleaned as by cleanText, numbers written as text.",
			types: []any{tA},
			fn:    one("schemaProps", schemaProps),
			examples: ex(
				`schemaProps({"@type": "NutritionInformation", "calories": "240 kcal", "fatContent": 9.5, "sugarContent": ""})`, `{"calories":"240 kcal","fatContent":"9.5"}`,
			),
		},
	}
}

var (
	leadingDigits = regexp.MustCompile(`\d+`)
)

// imageDims is the size imageDimsRe finds in u (its first match's groups, as numbers), read by
// one scan instead of the regexp package's backtracker (a recipe page's dozens of image URLs
// cost 5% of its parse): the first run of 3 to 5 ASCII digits followed by 'x' or 'X' and another
// such run, each run whole (a longer run of digits is no match, as the pattern's borders say).
// FuzzImageDims holds it to the pattern.
func imageDims(u string) (w, h int, ok bool) {
	for i := 0; i < len(u); {
		if !isASCIIDigit(u[i]) {
			i++
			continue
		}
		a := i
		for i < len(u) && isASCIIDigit(u[i]) {
			i++
		}
		if n := i - a; n < 3 || n > 5 || i >= len(u) || u[i] != 'x' && u[i] != 'X' {
			continue
		}
		e := i + 1
		for e < len(u) && isASCIIDigit(u[e]) {
			e++
		}
		if n := e - (i + 1); n < 3 || n > 5 {
			continue
		}
		w, _ = strconv.Atoi(u[a:i])
		h, _ = strconv.Atoi(u[i+1 : e])
		return w, h, true
	}
	return 0, 0, false
}

// queryDim is the number imageQueryW (short "w", long "width") or imageQueryH ("h", "height")
// finds in u: after the first '?' or '&' followed by either name in any case and '=', 3 to 5
// ASCII digits (the first 5 of a longer run). FuzzImageDims holds it to the patterns.
func queryDim(u, short, long string) (int, bool) {
	for i := 0; i < len(u); i++ {
		if u[i] != '?' && u[i] != '&' {
			continue
		}
		for _, name := range [2]string{short, long} {
			k := i + 1 + len(name)
			if k >= len(u) || u[k] != '=' || !asciiFold(u[i+1:k], name) {
				continue
			}
			e := k + 1
			for e < len(u) && e-(k+1) < 5 && isASCIIDigit(u[e]) {
				e++
			}
			if e-(k+1) >= 3 {
				n, _ := strconv.Atoi(u[k+1 : e])
				return n, true
			}
		}
	}
	return 0, false
}

func isASCIIDigit(c byte) bool { return c >= '0' && c <= '9' }

// asciiFold reports whether s is name (lower-case ASCII letters without k or s, whose case
// folding holds no other rune) in any case.
func asciiFold(s, name string) bool {
	if len(s) != len(name) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 != name[i] {
			return false
		}
	}
	return true
}

type imageCandidate struct {
	url           string
	width, height int
	order         int
}

// bestImage picks the largest of the candidate images: strings, ImageObjects (url, width,
// height) or lists of them, in order of preference. A size comes from the object, else from the
// URL (1200x800, ?w=1200&h=800); the same URL given twice keeps its largest size. Ties go to https,
// then to the earlier candidate.
func bestImage(entries []any) (any, bool) {
	var cands []*imageCandidate
	byURL := map[string]*imageCandidate{}
	var add func(e any, depth int)
	add = func(e any, depth int) {
		if depth > 4 {
			return
		}
		var c imageCandidate
		switch x := e.(type) {
		case string:
			c.url = strings.TrimSpace(x)
		case []any:
			for _, y := range x {
				add(y, depth+1)
			}
			return
		case map[string]any:
			u := x["url"]
			if u == nil {
				u = x["@id"]
			}
			if u == nil {
				u = x["contentUrl"]
			}
			if l, ok := u.([]any); ok && len(l) > 0 {
				u = l[0]
			}
			s, _ := stringOf(u)
			c.url = strings.TrimSpace(s)
			c.width, c.height = dimension(x["width"]), dimension(x["height"])
		default:
			return
		}
		if !strings.HasPrefix(c.url, "http://") && !strings.HasPrefix(c.url, "https://") {
			return
		}
		if old := byURL[c.url]; old != nil {
			old.width, old.height = max(old.width, c.width), max(old.height, c.height)
			return
		}
		c.order = len(cands)
		byURL[c.url] = &c
		cands = append(cands, &c)
	}
	for _, e := range entries {
		add(e, 0)
	}
	var best *imageCandidate
	bestArea, bestSecure := -1, 0
	for _, c := range cands {
		w, h := c.width, c.height
		if w == 0 || h == 0 {
			if mw, mh, ok := imageDims(c.url); ok {
				w, h = cmpOr(w, mw), cmpOr(h, mh)
			} else if qw, okw := queryDim(c.url, "w", "width"); okw {
				if qh, okh := queryDim(c.url, "h", "height"); okh {
					w, h = cmpOr(w, qw), cmpOr(h, qh)
				}
			}
		}
		area := w * h
		if area == 0 {
			side := max(w, h)
			area = side * side
		}
		secure := 0
		if strings.HasPrefix(c.url, "https://") {
			secure = 1
		}
		if area > bestArea || area == bestArea && secure > bestSecure {
			best, bestArea, bestSecure = c, area, secure
		}
	}
	if best == nil {
		return nil, false
	}
	return best.url, true
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// dimension reads a width or height: a number, "1200px", or a QuantitativeValue.
func dimension(v any) int {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range []string{"value", "maxValue", "minValue"} {
			if d := dimension(x[k]); d != 0 {
				return d
			}
		}
		return 0
	case string:
		n, _ := strconv.Atoi(leadingDigits.FindString(x))
		return n
	}
	if f, ok := toFloat(v); ok && f > 0 && f < 1e6 {
		return int(f)
	}
	return 0
}

// closestOf replaces each item of items by the most similar string of candidates (Dice
// coefficient of character bigrams, case and punctuation ignored), so that the ingredients a page
// shows under a heading can be reported as the same strings as its schema.org ingredient list.
// An item with no candidate sharing a bigram is kept as it is. Both lists are capped at
// maxClosest items and each string at maxClosestLen bytes, so the work is bounded.
func closestOf(items, candidates []any) []any {
	if len(items) > maxClosest {
		items = items[:maxClosest]
	}
	if len(candidates) > maxClosest {
		candidates = candidates[:maxClosest]
	}
	cands := make([]map[uint64]int, len(candidates))
	for i, c := range candidates {
		s, _ := stringOf(c)
		cands[i] = bigrams(s)
	}
	out := make([]any, 0, len(items))
	for _, it := range items {
		s, ok := stringOf(it)
		if !ok {
			continue
		}
		b := bigrams(s)
		best, bestScore := -1, 0.0
		for i, cb := range cands {
			if sc := dice(b, cb); sc > bestScore {
				best, bestScore = i, sc
			}
		}
		if best >= 0 {
			out = append(out, candidates[best])
		} else {
			out = append(out, s)
		}
	}
	return out
}

const (
	maxClosest    = 200
	maxClosestLen = 300
)

// bigrams counts the pairs of adjacent letters and digits of s, lower-cased, each pair packed in
// one integer.
func bigrams(s string) map[uint64]int {
	if len(s) > maxClosestLen {
		s = s[:maxClosestLen]
	}
	m := make(map[uint64]int, len(s))
	var prev rune = -1
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		r = unicode.ToLower(r)
		if prev >= 0 {
			m[uint64(prev)<<32|uint64(r)]++
		}
		prev = r
	}
	return m
}

func dice(a, b map[uint64]int) float64 {
	na, nb, common := 0, 0, 0
	for k, n := range a {
		na += n
		common += min(n, b[k])
	}
	for _, n := range b {
		nb += n
	}
	if na+nb == 0 {
		return 0
	}
	return 2 * float64(common) / float64(na+nb)
}
