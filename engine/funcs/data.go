package funcs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"asa/engine/dom"
)

// Values reach these functions from three places: JSON decoding (map[string]any, []any,
// float64), expr literals (int, float64, map[string]any, []any) and the engine's own Go values
// (typed slices and maps, structs). The helpers below accept all of them through reflection and
// always return the JSON shapes, so results compose.

// listOf returns the elements of a slice or array.
func listOf(v any) ([]any, bool) {
	switch l := v.(type) {
	case []any:
		return l, true
	case nil, string, []byte:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// sortedEntries returns the entries of a map sorted by key. Keys of other types than string
// (expr's groupBy makes map[any][]any) are written as text; a key with no text form is skipped.
func sortedEntries(v any) ([]entry, bool) {
	if m, ok := v.(map[string]any); ok {
		return entriesOf(m)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map {
		return nil, false
	}
	out := make([]entry, 0, rv.Len())
	it := rv.MapRange()
	for it.Next() {
		if ks, ok := stringOf(it.Key().Interface()); ok {
			out = append(out, entry{ks, it.Value().Interface()})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, true
}

// entry is one key/value of a map or struct, in the order children visits them.
type entry struct {
	key string
	val any
}

// entriesOf returns the string-keyed entries of a map (sorted by key, because decoded JSON
// objects no longer know their order and results must be deterministic) or the exported fields
// of a struct (in declaration order).
func entriesOf(v any) ([]entry, bool) {
	if m, ok := v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]entry, len(keys))
		for i, k := range keys {
			out[i] = entry{k, m[k]}
		}
		return out, true
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		out := make([]entry, 0, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			out = append(out, entry{it.Key().String(), it.Value().Interface()})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
		return out, true
	case reflect.Struct:
		t := rv.Type()
		var out []entry
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				out = append(out, entry{f.Name, rv.Field(i).Interface()})
			}
		}
		return out, true
	}
	return nil, false
}

// member returns v[key] for maps and structs, and v[index] for lists when key is an integer.
func member(v any, key string) (any, bool) {
	if m, ok := v.(map[string]any); ok {
		x, ok := m[key]
		return x, ok
	}
	if l, ok := listOf(v); ok {
		i, err := strconv.Atoi(key)
		if err != nil {
			return nil, false
		}
		return index(l, i)
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	switch rv.Kind() {
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, false
		}
		x := rv.MapIndex(reflect.ValueOf(key).Convert(rv.Type().Key()))
		if !x.IsValid() {
			return nil, false
		}
		return x.Interface(), true
	case reflect.Struct:
		if f, ok := rv.Type().FieldByName(key); ok && f.IsExported() {
			return rv.FieldByIndex(f.Index).Interface(), true
		}
	}
	return nil, false
}

func index(l []any, i int) (any, bool) {
	if i < 0 {
		i += len(l)
	}
	if i < 0 || i >= len(l) {
		return nil, false
	}
	return l[i], true
}

// pathSegments splits "a.b[0].c" and "a.b.0.c" into segments; "[*]" and "*" are wildcards.
func pathSegments(path any) ([]string, bool) {
	switch p := path.(type) {
	case string:
		p = bracketsToDots(p)
		if p == "" {
			return nil, true
		}
		return strings.Split(p, "."), true
	case []any:
		out := make([]string, 0, len(p))
		for _, s := range p {
			switch x := s.(type) {
			case string:
				out = append(out, x)
			default:
				n, ok := intOf(x)
				if !ok {
					return nil, false
				}
				out = append(out, strconv.FormatInt(n, 10))
			}
		}
		return out, true
	}
	if n, ok := intOf(path); ok {
		return []string{strconv.FormatInt(n, 10)}, true
	}
	return nil, false
}

// bracketsToDots is strings.NewReplacer("[", ".", "]", "").Replace(p) without building the
// replacer (a table of 256 strings) on every call of get: "a.b[0]" is "a.b.0".
func bracketsToDots(p string) string {
	i := strings.IndexAny(p, "[]")
	if i < 0 {
		return p
	}
	b := make([]byte, i, len(p))
	copy(b, p[:i])
	for ; i < len(p); i++ {
		switch c := p[i]; c {
		case '[':
			b = append(b, '.')
		case ']':
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// getPath walks segs from v. A "*" segment maps the rest of the path over every element (list
// items or map values) and collects the non-nil results into one flat list, like yt-dlp's
// traverse_obj with `...`.
func getPath(v any, segs []string) any {
	for i, seg := range segs {
		if v == nil {
			return nil
		}
		if seg == "*" {
			rest := segs[i+1:]
			nested := false
			for _, s := range rest {
				if s == "*" {
					nested = true
				}
			}
			out := []any{}
			for _, child := range childValues(v) {
				r := getPath(child, rest)
				if r == nil {
					continue
				}
				if l, ok := r.([]any); ok && nested {
					out = append(out, l...)
				} else {
					out = append(out, r)
				}
			}
			return out
		}
		x, ok := member(v, seg)
		if !ok {
			return nil
		}
		v = x
	}
	return v
}

func childValues(v any) []any {
	if l, ok := listOf(v); ok {
		return l
	}
	es, _ := entriesOf(v)
	out := make([]any, len(es))
	for i, e := range es {
		out[i] = e.val
	}
	return out
}

// get is a superset of expr's builtin get(v, key): a key that exists as such still wins, so
// get(m, "a.b") reads a key literally named "a.b" when there is one.
func get(v, path any) any {
	if v == nil {
		return nil
	}
	if p, ok := path.(string); ok && strings.ContainsAny(p, ".[") {
		if x, ok := member(v, p); ok {
			return x
		}
	}
	segs, ok := pathSegments(path)
	if !ok {
		return nil
	}
	return getPath(v, segs)
}

// findBudget bounds the nodes one find visits; decoded JSON cannot be cyclic, but Go values
// from the environment can, and a cycle must end the search rather than the process.
const findBudget = 2_000_000

// findKey walks v depth-first: list items in order, map keys sorted (see entriesOf), each key's
// own value before what is below it. It stops at the first non-nil match unless all is set.
//
// Sorting every map's keys is most of the cost of a walk over a big embedded JSON (a findAll over
// YouTube's ytInitialData visits tens of thousands of maps, nearly always to find nothing), so
// neither way sorts a map it does not need to: findAll walks in map order and sorts only the
// entries of a map that hold matches, and find sorts keys in one reused buffer instead of
// allocating two slices per map. Both answer as findKeySorted does: findAll visits every node
// either way, so the order cannot change which nodes the budget lets it see, and when the
// budget runs out findKey answers with findKeySorted itself.
func findKey(v any, key string, all bool) []any {
	f := finder{key: key, budget: findBudget}
	if !all {
		f.first(v, 0)
		if f.tooDeep {
			return findKeySorted(v, key, false)
		}
		return f.out
	}
	out, ok := f.every(v)
	if !ok {
		return findKeySorted(v, key, true)
	}
	return out
}

// maxFindDepth is the nesting past which findKey leaves the walk to findKeySorted. Decoded JSON
// is at most dom.MaxDepth deep; only a cycle among Go values goes further, down to the budget,
// and findKeySorted's smaller frames take those two million levels within the stack's limit.
const maxFindDepth = 10_000

// finder is one findKey's state.
type finder struct {
	key    string
	budget int
	out    []any
	keys   []string // find's sorted keys, a stack of one segment per map being walked
	scored []scored // findAll's matching entries of the maps being walked, also a stack
	// tooDeep: the walk went past maxFindDepth and stopped.
	tooDeep bool
}

// scored is a map entry of findAll's that holds matches: its key, and where its matches (its own
// value first) are in finder.out.
type scored struct {
	key      string
	from, to int
}

// first is findKeySorted's walk for the first match, node for node, with the keys of a
// map[string]any sorted in f.keys. It reports whether the walk must stop.
func (f *finder) first(v any, depth int) bool {
	if f.budget--; f.budget < 0 {
		return true
	}
	if depth > maxFindDepth {
		f.tooDeep = true
		return true
	}
	m, ok := v.(map[string]any)
	if !ok {
		return f.firstOther(v, depth)
	}
	mark := len(f.keys)
	for k := range m {
		f.keys = append(f.keys, k)
	}
	slices.Sort(f.keys[mark:])
	defer func() { f.keys = f.keys[:mark] }()
	// f.keys grows in the calls below: index it afresh each time.
	for i := mark; i < mark+len(m); i++ {
		k := f.keys[i]
		val := m[k]
		if k == f.key && val != nil {
			f.out = append(f.out, val)
			return true
		}
		switch val.(type) {
		case string, float64, bool, nil:
			// A leaf of decoded JSON: what first(val) does, without the call.
			if f.budget--; f.budget < 0 {
				return true
			}
			if depth+1 > maxFindDepth {
				f.tooDeep = true
				return true
			}
			continue
		}
		if f.first(val, depth+1) {
			return true
		}
	}
	return false
}

// firstOther is first for lists and for the maps and structs entriesOf reads.
func (f *finder) firstOther(v any, depth int) bool {
	if l, ok := listOf(v); ok {
		for _, x := range l {
			if f.first(x, depth+1) {
				return true
			}
		}
		return false
	}
	es, ok := entriesOf(v)
	if !ok {
		return false
	}
	for _, e := range es {
		if e.key == f.key && e.val != nil {
			f.out = append(f.out, e.val)
			return true
		}
		if f.first(e.val, depth+1) {
			return true
		}
	}
	return false
}

// every returns every match below v in findKeySorted's order, walking maps in their own order;
// false when the budget ran out (the caller then walks in findKeySorted's order, which decides
// which nodes the budget reaches).
func (f *finder) every(v any) ([]any, bool) {
	ok := f.collect(v, 0)
	return f.out, ok
}

// collect appends the matches below v to f.out in findKeySorted's order; false when the budget
// ran out or the walk went past maxFindDepth.
func (f *finder) collect(v any, depth int) bool {
	if f.budget--; f.budget < 0 || depth > maxFindDepth {
		return false
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		if l, ok := listOf(v); ok {
			for _, x := range l {
				if !f.collect(x, depth+1) {
					return false
				}
			}
			return true
		}
		es, ok := entriesOf(v)
		if !ok {
			return true
		}
		for _, e := range es {
			if e.key == f.key && e.val != nil {
				f.out = append(f.out, e.val)
			}
			if !f.collect(e.val, depth+1) {
				return false
			}
		}
		return true
	}
	start, mark := len(f.out), len(f.scored)
	for k, val := range m {
		from := len(f.out)
		if k == f.key && val != nil {
			f.out = append(f.out, val)
		}
		switch val.(type) {
		case string, float64, bool, nil:
			// A leaf of decoded JSON, most of the nodes: what collect(val) does, without the call.
			if f.budget--; f.budget < 0 || depth+1 > maxFindDepth {
				return false
			}
		default:
			if !f.collect(val, depth+1) {
				return false // the walk is over (findKey walks again sorted): f.scored is not used
			}
		}
		if len(f.out) > from {
			f.scored = append(f.scored, scored{k, from, len(f.out)})
		}
	}
	hits := f.scored[mark:]
	f.scored = f.scored[:mark] // hits stays valid: nothing is appended until it is used
	if len(hits) < 2 || slices.IsSortedFunc(hits, byKey) {
		return true
	}
	// Entries came in map order: put their runs of matches in key order.
	slices.SortFunc(hits, byKey)
	runs := slices.Clone(f.out[start:])
	f.out = f.out[:start]
	for _, h := range hits {
		f.out = append(f.out, runs[h.from-start:h.to-start]...)
	}
	return true
}

func byKey(a, b scored) int { return strings.Compare(a.key, b.key) }

// findKeySorted is findKey's definition: a depth-first walk that sorts every map's keys.
func findKeySorted(v any, key string, all bool) []any {
	var out []any
	budget := findBudget
	var walk func(v any) bool
	walk = func(v any) bool {
		if budget--; budget < 0 {
			return true
		}
		if l, ok := listOf(v); ok {
			for _, x := range l {
				if walk(x) {
					return true
				}
			}
			return false
		}
		es, ok := entriesOf(v)
		if !ok {
			return false
		}
		for _, e := range es {
			if e.key == key && e.val != nil {
				out = append(out, e.val)
				if !all {
					return true
				}
			}
			if walk(e.val) {
				return true
			}
		}
		return false
	}
	walk(v)
	return out
}

// isEmpty is the engine's notion of "no value": nil, "", an empty list or an empty map.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// uniqKey identifies a value for uniq: scalars by value (so 1 and 1.0 are the same number),
// everything else by its JSON encoding, which sorts map keys.
func uniqKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "n"
	case string:
		return "s" + x
	case bool:
		return "b" + strconv.FormatBool(x)
	}
	if f, ok := floatOf(v); ok {
		return "f" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("g%#v", v)
	}
	return "j" + string(b)
}

func uniq(l []any) []any {
	seen := make(map[string]bool, len(l))
	out := make([]any, 0, len(l))
	for _, x := range l {
		k := uniqKey(x)
		if !seen[k] {
			seen[k] = true
			out = append(out, x)
		}
	}
	return out
}

func flatten(l []any, depth int, out []any) []any {
	for _, x := range l {
		if sub, ok := listOf(x); ok && depth < 1000 {
			out = flatten(sub, depth+1, out)
		} else {
			out = append(out, x)
		}
	}
	return out
}

// textOf reads the text objects of Google's JSON (YouTube's ytInitialData and others):
// {"simpleText": "..."}, {"runs": [{"text": "..."}, ...]}, {"content": "..."} (the newer view
// models) or {"text": ...}.
func textOf(v any) (string, bool) {
	return textOfDepth(v, 0)
}

func textOfDepth(v any, depth int) (string, bool) {
	if depth > 3 {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case nil:
		return "", false
	}
	if l, ok := listOf(v); ok {
		return joinRuns(l)
	}
	if s, ok := member(v, "simpleText"); ok {
		if str, ok := s.(string); ok {
			return str, true
		}
	}
	if r, ok := member(v, "runs"); ok {
		if l, ok := listOf(r); ok {
			return joinRuns(l)
		}
	}
	if c, ok := member(v, "content"); ok {
		if str, ok := c.(string); ok {
			return str, true
		}
	}
	if t, ok := member(v, "text"); ok {
		return textOfDepth(t, depth+1)
	}
	return "", false
}

func joinRuns(l []any) (string, bool) {
	var b strings.Builder
	found := false
	for _, r := range l {
		t, ok := member(r, "text")
		if !ok {
			continue
		}
		if s, ok := t.(string); ok {
			b.WriteString(s)
			found = true
		}
	}
	return b.String(), found
}

// parseJSON decodes the first JSON value in s and ignores what follows it, so that the text of
// `var data = {...};` captured up to the semicolon, or a JSON value with trailing junk, still
// decodes.
func parseJSON(s string) (any, bool) {
	s = strings.TrimLeft(s, " \t\r\n\uFEFF")
	if s == "" {
		return nil, false
	}
	// An object or array in one pass, as Decode would give it: Google's batchexecute answers are
	// JSON in a JSON string of a hundred kilobytes, which encoding/json's scan-then-decode read at
	// a third of the speed (googleplay.reviews decoded its answer three times).
	if v, ok := dom.DecodeJSONPrefixString(s); ok {
		return v, true
	}
	v, err := dom.DecodeStd(json.NewDecoder(strings.NewReader(s)))
	if err != nil {
		// A JavaScript literal with undefined, NaN or Infinity as values.
		if fixed, ok := dom.JSLiteralsAsNull([]byte(s)); ok {
			if w, ok := dom.DecodeJSONPrefixString(string(fixed)); ok {
				return w, true
			}
		}
		return nil, false
	}
	return v, true
}

// toJSON encodes compactly and without escaping <, > and &, unlike expr's builtin (indented)
// and encoding/json's default: the result is data, usually an identifier or a request body.
func toJSON(v any) (string, bool) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// Conversions.

// floatOf returns the value of any Go number (not of strings).
func floatOf(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(rv.Uint()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return 0, false
}

// intOf returns the value of a Go integer, or of a float with no fractional part.
func intOf(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) >= 9.2e18 {
			return 0, false
		}
		return int64(x), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if rv.Uint() > math.MaxInt64 {
			return 0, false
		}
		return int64(rv.Uint()), true
	}
	if f, ok := floatOf(v); ok {
		return intOf(f)
	}
	return 0, false
}

// stringOf returns strings as they are and numbers formatted without exponent, so that a JSON
// number can go where text is expected ("price": 12.99).
func stringOf(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case nil:
		return "", false
	case []byte:
		return string(x), true
	case json.Number:
		return string(x), true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", false
		}
		return strconv.FormatFloat(f, 'f', -1, 64), true
	}
	return "", false
}

// toFloat converts numbers and numeric strings ("12.5", " 1e3 "); text with other characters
// is nil (parseNumber is for text).
func toFloat(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		if len(s) > MaxNumberText {
			return 0, false
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false
		}
		return f, true
	}
	if _, ok := v.(bool); ok {
		return 0, false
	}
	f, ok := floatOf(v)
	if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// toInt converts like toFloat and truncates toward zero, as expr's int() does.
func toInt(v any) (int, bool) {
	if s, ok := v.(string); ok {
		if len(s) > MaxNumberText {
			return 0, false
		}
		s = strings.TrimSpace(s)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return int(n), true
		}
	}
	if n, ok := intOf(v); ok {
		return int(n), true
	}
	f, ok := toFloat(v)
	if !ok || math.Abs(f) >= 9.2e18 {
		return 0, false
	}
	return int(f), true
}

// digitsOf keeps the digits of s, in any script, as ASCII; false when s is longer than
// MaxNumberText.
func digitsOf(s string) (string, bool) {
	if len(s) > MaxNumberText {
		return "", false
	}
	var b strings.Builder
	for _, r := range s {
		if d, ok := digitValue(r); ok {
			b.WriteByte(byte('0' + d))
		}
	}
	return b.String(), true
}
