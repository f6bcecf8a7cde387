package dom

import (
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// ldMode is what JSONLDProjected answered for one type: the page's objects may merge (decoded
// whole), the set could not say (the type is only nested), or it answered.
type ldMode int

const (
	ldMerged ldMode = iota
	ldUnsure
	ldAnswered
)

// checkLDProjected fails when JSONLDProjected, projected by spec, answers a type otherwise than
// FindJSONLD of JSONLDElements does on the paths spec names; it returns what it answered for each
// type.
func checkLDProjected(t *testing.T, body []byte, spec string, types []string, what string) []ldMode {
	t.Helper()
	doc, elems, err := ParseHTMLViewElements(body)
	if err != nil {
		return nil
	}
	p := parseProjection(spec)
	full := JSONLDElements(doc, elems)
	modes := make([]ldMode, len(types))
	for _, els := range [][]*html.Node{elems, nil} { // the parser's list, and the walk
		set := JSONLDProjected(doc, els, p)
		if set == nil {
			continue
		}
		// No merge: the top-level objects are the full decode's, in its order, with its types.
		if len(set.objs) != len(full) {
			t.Fatalf("%s: %d top-level objects, the full decode %d", what, len(set.objs), len(full))
		}
		for i, o := range set.objs {
			if !sameJSON(o["@type"], full[i]["@type"]) {
				t.Fatalf("%s: object %d has @type %v, the full decode's %v", what, i, o["@type"], full[i]["@type"])
			}
		}
		for i, typ := range types {
			got, ok := set.Find(typ)
			if !ok {
				modes[i] = ldUnsure
				continue
			}
			modes[i] = ldAnswered
			want := FindJSONLD(full, typ)
			if (got == nil) != (want == nil) {
				t.Fatalf("%s: %s found %v, the full decode %v", what, typ, got != nil, want != nil)
			}
			if got == nil {
				continue
			}
			if why := ldAgrees(got, want, p); why != "" {
				t.Fatalf("%s: %s: projected %.200v, full %.200v: %s", what, typ, got, want, why)
			}
		}
	}
	return modes
}

// ldAgrees is projectedAgrees of a top-level object, which also keeps its @type and @graph (the
// @graph's objects are top-level objects of their own, compared as such).
func ldAgrees(got, want map[string]any, p *Projection) string {
	if sameJSON(got, want) {
		return "" // a block decoded whole
	}
	g := maps.Clone(got)
	q := &Projection{Keys: maps.Clone(p.Keys), Elem: p.Elem, Desc: p.Desc}
	if q.Keys == nil {
		q.Keys = map[string]*Projection{}
	}
	if _, ok := g["@graph"]; ok {
		g["@graph"] = want["@graph"]
		q.Keys["@graph"] = &Projection{Whole: true}
	}
	if _, read := p.Keys["@type"]; !read {
		q.Keys["@type"] = &Projection{Whole: true}
	}
	if searches(q) {
		if gs, ws := seen(g, q), seen(want, q); !sameJSON(gs, ws) {
			return "a search sees otherwise"
		}
		return ""
	}
	return projectedAgrees(g, want, q)
}

func ldPage(blocks ...string) []byte {
	var b strings.Builder
	for _, s := range blocks {
		b.WriteString(`<script type="application/ld+json">` + s + "</script>\n")
	}
	return []byte("<html><body>" + b.String() + "</body></html>")
}

var ldTestTypes = []string{"Product", "Recipe", "A", "B", "T", "WebPage", "NewsArticle", "BreadcrumbList", "MusicAlbum", "Person"}

var ldProjectionCases = []struct {
	name   string
	blocks []string
	spec   string
	want   map[string]ldMode // a type's answer, where the case is about it
}{
	{"members kept, others stepped over",
		[]string{`{"@context":"https://schema.org","@type":"Product","name":"P","offers":{"price":1,"seller":{"@type":"Person","name":"S"}},"review":[{"@type":"Review","author":{"@type":"Person"}}]}`},
		"name,offers.price", map[string]ldMode{"Product": ldAnswered, "Person": ldUnsure, "Recipe": ldAnswered}},
	{"graph", []string{`{"@context":"https://schema.org","@graph":[{"@type":"WebPage","name":"W"},[{"@type":["Recipe","Thing"],"name":"R","x":1}],{"@type":"A","@graph":{"@type":"B","name":"b"}}]}`},
		"name", map[string]ldMode{"Recipe": ldAnswered, "WebPage": ldAnswered, "A": ldAnswered, "B": ldAnswered}},
	{"an @id shared by agreeing types merges",
		[]string{`{"@id":"#r","@type":"Recipe","name":"R"}`, `{"@id":" #r","@type":"Recipe","recipeYield":"4"}`},
		"name,recipeYield", map[string]ldMode{"Recipe": ldMerged}},
	{"a nested lender merges",
		[]string{`{"@id":"#r","@type":"Recipe","name":"R"}`, `{"@type":"WebPage","mainEntity":{"@id":"#r","image":"i"}}`},
		"name,image", map[string]ldMode{"Recipe": ldMerged}},
	{"nested objects of one @id do not merge", []string{`{"@type":"A","x":{"@id":"i","@type":"Recipe","n":1},"y":[{"@id":"i","@type":"Recipe","m":2}]}`},
		"name", map[string]ldMode{"Recipe": ldUnsure, "A": ldAnswered}},
	{"a bare reference lends nothing", []string{`{"@type":"Recipe","@id":"i","name":"R"}`, `{"@type":"A","ref":{"@id":"i"}}`},
		"name", map[string]ldMode{"Recipe": ldAnswered}},
	{"an @id shared by other types does not merge",
		[]string{`{"@id":"u","@type":"MusicAlbum","name":"M","albumRelease":[{"@id":"u","@type":["MusicRelease","Product"],"name":"R"}]}`},
		"name", map[string]ldMode{"MusicAlbum": ldAnswered, "Product": ldUnsure}},
	{"the type only nested", []string{`{"@type":"WebPage","mainEntity":{"@type":"Recipe","name":"R"}}`},
		"name", map[string]ldMode{"Recipe": ldUnsure, "WebPage": ldAnswered, "A": ldAnswered}},
	{"the type in another case", []string{`{"@type":"recipe","name":"R"}`, `{"@type":"x","k":{"@type":"Recipe"}}`},
		"name", map[string]ldMode{"Recipe": ldAnswered}},
	{"escaped keys where stepped over",
		[]string{`{"@type":"Recipe","@id":"x","skip":{"\u0040type":"Recipe","\u0040id":"x","n":1}}`},
		"name", map[string]ldMode{"Recipe": ldMerged}},
	{"an escaped @type at the top", []string{`{"\u0040type":"Recipe","name":"R"}`}, "name", map[string]ldMode{"Recipe": ldAnswered}},
	{"a repeated @type: the last", []string{`{"@type":"A","@type":"Recipe","name":"R","k":{"@type":"B","@type":7}}`},
		"name", map[string]ldMode{"Recipe": ldAnswered, "A": ldAnswered, "B": ldAnswered}},
	{"a nested @type read in a kept part", []string{`{"@type":"Recipe","@id":"q","offers":{"@type":"Recipe","@id":"q","price":1}}`},
		"offers.price", map[string]ldMode{"Recipe": ldMerged}},
	{"a kept part read whole", []string{`{"@type":"A","offers":[{"@type":"B","@id":"z"}],"more":{"@id":"z","@type":"C"}}`},
		"offers*", map[string]ldMode{"A": ldAnswered, "B": ldUnsure}},
	{"a search under a member", []string{`{"@type":"A","x":{"k":{"@type":"T","v":1},"j":[{"@id":"i","k":2}]}}`},
		"x.~k*", map[string]ldMode{"A": ldAnswered, "T": ldUnsure}},
	{"lenient and escaped blocks, decoded whole",
		[]string{`{"@type":"A","name":"a",}`, `{ &quot;@type&quot;: &quot;Recipe&quot;, &quot;name&quot;: &quot;R&quot;}`, `<!--{"@type":"B","name":"b"}-->`},
		"name", map[string]ldMode{"A": ldAnswered, "Recipe": ldAnswered, "B": ldAnswered}},
	{"a block the decoders refuse", []string{`{"@type":"A"`, `{"@type":"B","name":"b"}`}, "name", map[string]ldMode{"A": ldAnswered, "B": ldAnswered}},
	{"nothing read", []string{`{"@type":"A","name":"a","x":[1,2]}`, `[]`, `"s"`, `{}`, `[{}]`}, "", map[string]ldMode{"A": ldAnswered}},
	{"too deep where stepped over", []string{`{"@type":"A","x":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`}, "name", nil},
	{"objects without @type or @id", []string{`{"name":"n","x":{"y":1}}`, `[[{"@type":"B"}]]`}, "name", map[string]ldMode{"B": ldAnswered}},
}

func TestJSONLDProjected(t *testing.T) {
	for _, c := range ldProjectionCases {
		t.Run(c.name, func(t *testing.T) {
			page := ldPage(c.blocks...)
			modes := checkLDProjected(t, page, c.spec, ldTestTypes, c.name)
			for typ, want := range c.want {
				if got := modes[slices.Index(ldTestTypes, typ)]; got != want {
					t.Errorf("%s: mode %d, want %d", typ, got, want)
				}
			}
		})
	}
	if s := JSONLDProjected(nil, nil, parseProjection("name")); s == nil || len(s.objs) != 0 {
		t.Errorf("nil tree: %v", s)
	}
}

// ldCorpusSpecs are projections such as the json_ld sources of the families read.
var ldCorpusSpecs = []string{
	"",
	"name,description*,offers*,brand.name*,aggregateRating.ratingValue*,image*,@id*",
	"headline*,author.[].name*,author.name*,publisher.name*,datePublished*,image*,mainEntity*",
	"name,recipeIngredient*,recipeInstructions*,nutrition.calories*,totalTime*",
	"itemListElement.[].item*,itemListElement.[].name*",
	"track.itemListElement.[].item.name*,albumRelease.[].offers.price*,byArtist.name*",
}

// Every corpus page (under -race every eighth): JSONLDProjected answers every type its JSON-LD
// names, and the usual ones, as the full decode does on the paths read; it answers every type of a
// top-level object itself, and decodes whole (the objects may merge) on few pages.
func TestJSONLDProjectedCorpus(t *testing.T) {
	dir := corpusDir(t)
	n, merged, i := 0, 0, 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".html") {
			return err
		}
		if i++; raceDetector && i%8 != 0 {
			return nil
		}
		raw := readCorpus(t, dir, mustRel(t, dir, p))
		body, err := ToUTF8(raw, "")
		if err != nil || !strings.Contains(string(body), "ld+json") {
			return nil
		}
		doc, elems, err := ParseHTMLViewElements(body)
		if err != nil {
			return nil
		}
		types := slices.Clone(ldTestTypes)
		var all, top ldNotes
		full := JSONLDElements(doc, elems)
		for _, o := range full {
			all.walk(o)
			top.noteMap(o, true)
		}
		for _, typ := range all.types {
			types = append(types, lastSegment(typ))
		}
		slices.Sort(types)
		types = slices.Compact(types)
		n++
		if JSONLDProjected(doc, elems, parseProjection("")) == nil {
			merged++
		}
		for _, spec := range ldCorpusSpecs {
			modes := checkLDProjected(t, body, spec, types, p)
			for _, typ := range top.types {
				if m := modes[slices.Index(types, lastSegment(typ))]; m == ldUnsure {
					t.Errorf("%s: %s, the type of a top-level object, not answered", p, typ)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d pages with JSON-LD, %d decoded whole (their objects may merge)", n, merged)
	if merged*5 > n {
		t.Errorf("%d of %d pages decoded whole", merged, n)
	}
}

// FuzzJSONLDProjected checks JSONLDProjected against the full decode on any blocks (separated by
// NUL) and any projection.
func FuzzJSONLDProjected(f *testing.F) {
	for _, c := range ldProjectionCases {
		f.Add(strings.Join(c.blocks, "\x00"), c.spec)
	}
	f.Add(`{"@id":"a","@type":"T","@graph":[{"@id":"b","@type":"T","@graph":[{"@id":"a","@type":"T"}]}]}`, "name")
	f.Add(`{"@graph":[{"@id":"a","@type":"Recipe","x":{"@id":"a","@type":"Recipe","n":1}},{"@id":"a","y":[{"@id":"a","z":2}]}]}`, "x.n,y")
	f.Fuzz(func(t *testing.T, blocks, spec string) {
		if len(spec) > 200 || strings.Contains(spec, "@graph") {
			return // a projection reading @graph is never used (ldProjection)
		}
		p := parseProjection(spec)
		if p.Elem != nil || len(p.Desc) > 0 || p.Whole {
			return // nor one that reads the object by element, searches it or reads it whole
		}
		checkLDProjected(t, ldPage(strings.Split(blocks, "\x00")...), spec, ldTestTypes, blocks)
	})
}

// UnionProjection keeps what either keeps.
func TestUnionProjection(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"a.b", "a.c", "a.b,a.c"},
		{"a.b*", "a.b.c", "a.b*"},
		{"x.[].y", "x.[].z,w", "w,x.[].y,x.[].z"},
		{"a.~k", "a.~k.v*,b", "a.~k.v*,b"},
		{"", "a", "a"},
	} {
		got := UnionProjection(parseProjection(c.a), parseProjection(c.b))
		if s := specOf(got); s != c.want {
			t.Errorf("%q | %q: %q, want %q", c.a, c.b, s, c.want)
		}
	}
	if !UnionProjection(&Projection{Whole: true}, parseProjection("a")).Whole {
		t.Error("whole | a is not whole")
	}
}

// specOf writes p as parseProjection reads it, paths sorted.
func specOf(p *Projection) string {
	var out []string
	var walk func(n *Projection, prefix string)
	walk = func(n *Projection, prefix string) {
		join := func(k string) string {
			if prefix == "" {
				return k
			}
			return prefix + "." + k
		}
		if n.Whole {
			out = append(out, prefix+"*")
			return
		}
		if len(n.Keys) == 0 && n.Elem == nil && len(n.Desc) == 0 {
			out = append(out, prefix)
			return
		}
		for k, c := range n.Keys {
			walk(c, join(k))
		}
		for k, c := range n.Desc {
			walk(c, join("~"+k))
		}
		if n.Elem != nil {
			walk(n.Elem, join("[]"))
		}
	}
	walk(p, "")
	slices.Sort(out)
	return strings.Join(out, ",")
}

// DecodeJSONStringProjected takes what DecodeJSONString takes, and answers the same on the paths
// read.
func TestDecodeJSONStringProjected(t *testing.T) {
	for _, c := range projectionCases {
		checkJSONStringProjected(t, c.in, c.proj)
		checkJSONStringProjected(t, " \n"+c.in+" ", c.proj)
		checkJSONStringProjected(t, ")]}'\n"+c.in, c.proj)
	}
	for _, c := range searchCases {
		checkJSONStringProjected(t, c.in, c.proj)
	}
}

func checkJSONStringProjected(t *testing.T, s, spec string) {
	t.Helper()
	p := parseProjection(spec)
	want, werr := DecodeJSONString(s)
	got, err := DecodeJSONStringProjected(s, p)
	if (err == nil) != (werr == nil) {
		t.Fatalf("%.80q: projected error %v, full %v", s, err, werr)
	}
	if err != nil {
		return
	}
	if sameJSON(got, want) {
		return // decoded whole
	}
	if searches(p) {
		if g, w := seen(got, p), seen(want, p); !sameJSON(g, w) {
			t.Fatalf("%.80q: projected sees %.200v, full %.200v", s, g, w)
		}
		return
	}
	if why := projectedAgrees(got, want, p); why != "" {
		t.Fatalf("%.80q: projected %.80v, full %.80v: %s", s, got, want, why)
	}
}

func FuzzDecodeJSONStringProjected(f *testing.F) {
	for _, c := range projectionCases {
		f.Add(c.in, c.proj)
	}
	f.Fuzz(func(t *testing.T, s, spec string) {
		if len(spec) > 200 {
			return
		}
		checkJSONStringProjected(t, s, spec)
	})
}
