package engine_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"asa/engine"
	"asa/engine/dom"
	"asa/engine/fixture"
	"asa/engine/registry"
)

// projSpec writes a projection as its paths, sorted and joined by commas: [] is every element, ~k
// a search for k at any depth, a trailing * a part read whole; "whole" for no projection.
func projSpec(p *dom.Projection) string {
	if p == nil {
		return "whole"
	}
	var out []string
	var walk func(n *dom.Projection, prefix string)
	walk = func(n *dom.Projection, prefix string) {
		join := func(k string) string {
			if prefix == "" {
				return k
			}
			return prefix + "." + k
		}
		switch {
		case n.Whole:
			out = append(out, prefix+"*")
			return
		case len(n.Keys) == 0 && n.Elem == nil && len(n.Desc) == 0:
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
	sort.Strings(out)
	return strings.Join(out, ",")
}

const projSite = "kind: site\nsite: s\nname: S\ncategory: other\nversion: 1.0.0\ndomains:\n  com: {host: www.s.example, locale: en_US}\n"

// projEndpoint is an endpoint of two script-JSON sources, d and e, with the fields given; a field
// list that starts with "paginate:" puts its first lines (up to "fields:") before the fields.
func projEndpoint(fields string) string {
	extra := ""
	if strings.HasPrefix(fields, "paginate:") {
		i := strings.Index(fields, "fields:\n")
		extra, fields = fields[:i], fields[i+len("fields:\n"):]
	}
	return extra + `kind: endpoint
resource: r
summary: r
params:
  query: {type: string, required: true, example: x}
steps:
  - id: page
    request: {url: "https://www.s.example/${ params.query }"}
    vars:
      v: {expr: 'src.e?.v'}
sources:
  d: {script_json: 'var d = '}
  e: {script_json: 'var e = '}
rules:
  - id: flagged
    match: {expr: 'src.e?.flag == true'}
    error: blocked
  - id: gone
    when: fields.gone == true
    error: product_not_found
    message: gone ${ params.query }
fields:
  gone: {type: bool, hidden: true, const: false}
` + fields
}

var projectionCases = []struct {
	name, fields string
	d, e         string // the projections of d and e
}{
	{"member", "  a: {expr: src.d.a.b}\n", "a.b*", "flag*,v"},
	{"optional and ??", "  a: {expr: 'src.d?.a?.b ?? src.d?.c'}\n", "a.b*,c*", "flag*,v"},
	{"let", "  a: {expr: 'let x = src.d.a; x.b + x.c'}\n", "a.b*,a.c*", "flag*,v"},
	{"let of a let", "  a: {expr: 'let p = src.d.a; let q = p.b; q'}\n", "a.b*", "flag*,v"},
	{"map closure", "  a: {type: list<string>, expr: 'map(src.d.items ?? [], #.name)'}\n", "items.[].name*", "flag*,v"},
	{"count closure", "  a: {type: int, expr: 'count(src.d.items, #.ok)'}\n", "items.[].ok*", "flag*,v"},
	{"any closure", "  a: {type: bool, expr: 'any(src.d.badges, #.id == \"x\")'}\n", "badges.[].id*", "flag*,v"},
	{"filter keeps elements", "  a: {type: list<object>, expr: 'filter(src.d.items, #.ok)'}\n", "items.[]*", "flag*,v"},
	{"index", "  a: {expr: 'src.d.items[0].name'}\n", "items.[].name*", "flag*,v"},
	{"find", "  a: {type: any, expr: 'find(src.d, \"price\")'}\n", "~price*", "flag*,v"},
	{"findAll below", "  a: {type: any, expr: 'findAll(src.d.a, \"price\")'}\n", "a.~price*", "flag*,v"},
	{"a search and a path below it", "  a: {type: any, expr: 'findAll(src.d.a, \"price\")'}\n  b: {type: any, expr: 'src.d.a?.x?.q'}\n", "a.x.q*,a.~price*", "flag*,v"},
	{"findAll read on", "  a: {type: list<string>, expr: 'map(findAll(src.d.a, \"k\"), string(#.price))'}\n", "a.~k.price*", "flag*,v"},
	{"findAll nested", "  a: {type: any, expr: 'findAll(findAll(src.d.a, \"k\"), \"price\")'}\n", "a.~k.~price*", "flag*,v"},
	{"find in a search", "  a: {type: any, expr: 'find(findAll(src.d, \"x\"), \"price\")'}\n", "~x.~price*", "flag*,v"},
	{"findAll emptiness", "  a: {type: int, expr: 'len(findAll(src.d.a, \"k\"))'}\n  b: {type: bool, expr: 'findAll(src.d.sel, \"on\") == nil'}\n", "a.~k*,sel.~on", "flag*,v"},
	{"find with a predicate", "  a: {expr: 'find(src.d.items, .id == \"i\")?.name'}\n", "items.[].id*,items.[].name*", "flag*,v"},
	{"get path", "  a: {expr: 'get(src.d, \"items[-1].name\")'}\n", "items.[].name*,items[-1].name*", "flag*,v"},
	{"get of a key", "  a: {expr: 'get(src.d.a, \"b\")'}\n", "a.b*", "flag*,v"},
	{"get of a list path", "  a: {expr: 'get(src.d, [\"items\", 0, \"name\"])'}\n", "items.[].name*", "flag*,v"},
	{"get of a list path with a wildcard", "  a: {type: any, expr: 'get(src.d, [\"items\", \"*\", \"id\"])'}\n", "items*", "flag*,v"},
	{"get wildcard", "  a: {type: any, expr: 'get(src.d, \"items.*.id\")'}\n", "items*,items.*.id*", "flag*,v"},
	{"get dynamic", "  a: {type: any, expr: 'get(src.d.a, params.query)'}\n", "a*", "flag*,v"},
	{"concat filter map flatten", "  a: {type: list<string>, expr: 'map(filter(concat(src.d.items ?? [], flatten(findAll(src.d.sel, \"items\"))), .id != nil), .id)'}\n",
		"items.[].id*,sel.~items.[].id*,sel.~items.id*", "flag*,v"},
	{"flatten of maps", "  a: {type: list<string>, expr: 'map(src.d.items, map(#.kids ?? [], .id)) | flatten()'}\n", "items.[].kids.[].id*", "flag*,v"},
	{"flatten indexed", "  a: {type: any, expr: 'flatten(src.d.items)[0][0]'}\n", "whole", "whole"},
	{"find a selected element", "  a: {type: any, expr: 'find(find(src.d.sel, .t?.on == true)?.t?.c, \"token\")'}\n", "sel.[].t.c.~token*,sel.[].t.on*", "flag*,v"},
	{"items of a search", "  l:\n    type: list<object>\n    expr: 'filter(map(flatten(findAll(src.d.sel, \"items\")), .v ?? #), .id != nil)'\n    fields:\n      id: {expr: item.id}\n",
		"sel.~items.[].id*,sel.~items.[].v.id*,sel.~items.id*,sel.~items.v.id*", "flag*,v"},
	{"any of a search", "  a: {type: bool, expr: 'any(findAll(src.d.a, \"price\"), # == 3)'}\n", "a.~price*", "flag*,v"},
	{"findAll dynamic key", "  a: {type: any, expr: 'findAll(src.d.a, params.query)'}\n", "a*", "flag*,v"},
	{"find dynamic key", "  a: {type: any, expr: 'find(src.d.a, params.query)'}\n", "a*", "flag*,v"},
	{"findAll of src", "  a: {type: any, expr: 'findAll(src, \"price\")'}\n", "whole", "whole"},
	{"vars", "  a: {expr: 'vars.v?.name'}\n", "", "flag*,v.name*"},
	{"vars whole", "  a: {type: int, expr: 'len(vars)'}\n", "whole", "whole"},
	{"pagination", "paginate:\n  items: l\n  start: '1'\n  pages: '2'\n  next: 'find(src.d.sel, \"token\")'\nfields:\n  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      id: {expr: 'item?.id'}\n      n: {type: int, expr: 'len(items)'}\n",
		"items.[].id*,sel.~token*", "flag*,v"},
	{"first and last", "  a: {expr: 'first(src.d.items)?.name ?? last(filter(src.d.badges, #.id != nil))?.x'}\n", "badges.[].id,badges.[].x*,items.[].name*", "flag*,v"},
	{"type", "  a: {expr: 'type(src.d.o) == \"array\" ? first(src.d.o)?.id : src.d.o?.id'}\n", "o.[].id*,o.id*", "flag*,v"},
	{"keys", "  a: {type: list<string>, expr: 'keys(src.d.a)'}\n", "a*", "flag*,v"},
	{"values", "  a: {type: list<string>, expr: 'values(src.d.a)'}\n", "a*", "flag*,v"},
	{"len of the source", "  a: {type: int, expr: 'len(src.d)'}\n", "whole", "flag*,v"},
	{"whole object to a function", "  a: {expr: 'string(src.d.a)'}\n", "a*", "flag*,v"},
	{"dynamic key", "  a: {expr: 'src.d[params.query]'}\n", "whole", "flag*,v"},
	{"$env", "  a: {expr: '$env.src.d.a'}\n", "whole", "whole"},
	{"src whole", "  a: {type: int, expr: 'len(src)'}\n", "whole", "whole"},
	{"nil test", "  a: {expr: 'src.d.a == nil ? \"x\" : \"y\"'}\n", "a", "flag*,v"},
	{"output of an object", "  a: {type: any, expr: src.d.a}\n", "a*", "flag*,v"},
	{"hidden object through fields", "  p: {type: any, hidden: true, expr: src.d.product}\n  a: {expr: 'fields.p?.name'}\n  b: {type: float, expr: 'fields.p?.price?.value ?? src.e.price'}\n", "product.name*,product.price.value*", "flag*,price*,v"},
	{"hidden list through fields", "  r: {type: list<any>, hidden: true, expr: 'filter(src.d.items ?? [], #.ok)'}\n  a: {expr: 'first(fields.r)?.name'}\n", "items.[].name*,items.[].ok*", "flag*,v"},
	{"hidden list of one value", "  r: {type: list<any>, hidden: true, expr: src.d.o}\n  a: {type: list<string>, expr: 'map(fields.r, #.id)'}\n", "o.[].id*,o.id*", "flag*,v"},
	{"list of objects", "  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      id: {expr: 'item?.id'}\n      n: {expr: 'item.name', transform: 'trim(value)'}\n", "items.[].id*,items.[].name*", "flag*,v"},
	{"object of an item", "  o:\n    type: object\n    expr: src.d.o\n    fields:\n      id: {expr: item.id}\n", "o.id*", "flag*,v"},
	{"built field read whole", "  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      id: {expr: 'item?.id'}\n  n: {type: int, expr: 'len(fields.l)'}\n", "items.[].id*", "flag*,v"},
	{"fields whole", "  a: {expr: src.d.a}\n  b: {type: int, expr: 'len(fields)'}\n", "whole", "whole"},
	{"transform of a selection", "  a:\n    select:\n      - expr: src.d.a\n      - expr: src.e.b\n    transform: 'normSpace(value)'\n", "a*", "b*,flag*,v"},
	{"post", "  a: {expr: src.d.a, post: 'value.x'}\n", "a.x*", "flag*,v"},
	{"len of items", "  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      id: {expr: 'len(items)'}\n", "items.[]", "flag*,v"},
	{"items", "  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      id: {type: any, expr: 'items[0]'}\n", "whole", "whole"},
	{"items read by their fields", "  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      s: {type: bool, expr: 'item?.ok ?? false'}\n      n: {type: int, expr: 'fields.s ? count(items, #.s) + 1 : nil'}\n",
		"items.[].ok*", "flag*,v"},
	{"items' hidden field read on", "  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      h: {type: any, hidden: true, expr: 'item?.a'}\n      n: {type: int, expr: 'count(items, #.h?.b == \"1\")'}\n",
		"items.[].a.b*", "flag*,v"},
	{"items across pages", "paginate:\n  items: l\n  start: '1'\n  pages: '3'\nfields:\n  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      id: {expr: 'item?.id'}\n      n: {type: int, expr: 'count(items, #.id == \"i\")'}\n",
		"items.[].id*", "flag*,v"},
	{"items of a built list", "  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      k:\n        type: list<object>\n        expr: 'item?.kids'\n        fields:\n          id: {expr: 'item?.id'}\n      n: {type: int, expr: 'count(items, len(#.k) > 0)'}\n",
		"items.[].kids.[].id*", "flag*,v"},
	{"items filtered, read whole", "  l:\n    type: list<object>\n    expr: src.d.items\n    fields:\n      id: {expr: 'item?.id'}\n      n: {type: int, expr: 'len(filter(items, #.id != nil))'}\n", "whole", "whole"},
	{"items at the top", "  n: {type: int, expr: 'count(items, #.x)'}\n  a: {expr: src.d.a.b}\n", "a.b*", "flag*,v"},
}

func loadProjected(t *testing.T, e *engine.Engine, fields string) *registry.Registry {
	t.Helper()
	reg, diags := registry.Load(e, fstest.MapFS{
		"s/site.yaml": {Data: []byte(projSite)},
		"s/r.yaml":    {Data: []byte(projEndpoint(fields))},
	})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return reg
}

// The paths the analysis finds (e is read by a rule's match only), and the same output with and without them on pages that hold the
// sources in several shapes, well-formed or not where a projection steps over.
func TestProjectionPaths(t *testing.T) {
	pages := []string{
		`<script>var d = {"a":{"b":"1","c":"2","x":"3"},"c":"4","items":[{"id":"i","name":" n ","ok":true},{"id":"j","ok":false}],"badges":[{"id":"x"}],"product":{"name":"P","price":{"value":2},"junk":[1,2]},"o":{"id":"o"},"price":"p","zz":{"deep":[[[]]]}}; var e = {"price":3,"b":" b "};</script>`,
		`<script>var d = {"a":{},"items":[],"product":{"junk":1},"o":{"x":1}}; var e = {"x":1};</script>`,
		`<script>var d = {"zz":[1,2,], "a":{"b":"1"}}; var d = {"a":{"b":"second"}}; var e = {"b":"\ud83d\ude00"};</script>`,
		`<script>var d = {"a":{"b":"1"},"junk":"\ud83d\ude00 \xff","n":1e999}; var e = [1,2];</script>`,
		`<script>var d = {"a":{"b":"1"},"junk":"x`,
		`<script>var d = [{"a":1}]; var e = "s";</script>`,
		`<p>no script</p>`,
		`<script>var d = {"a":{"b":"1"}}; var e = {"flag":true,"price":1};</script>`,
		`<script>var d = {"a":{"x":{"price":1,"k":[{"price":{"price":2}},{"q":[1,{"k":{"price":3}}]}]},"price":3,"z":[[],{}]},"items":[{"id":"i","kids":[[{"id":"k"}],{"id":"m"}]},{"name":"n"}],` +
			`"sel":[{"t":{"on":true,"c":{"g":{"items":[{"v":{"id":"1"}},{"w":1},[{"id":"2"}]]},"ci":{"token":"T"}}}},{"t":{"on":false,"c":{"token":"U"}}},{"items":{"id":"3"}}],"x":{"price":[1]}}; var e = {"v":{"name":"V"}};</script>`,
		`<script>var d = {"a":{"k":{"price":null},"k":{"z":[1,2,]}},"sel":[{"items":[]}]}; var e = {"v":"\ud83d\ude00"};</script>`,
		`<script>var d = {"a":{"k":[1,2]},"sel":{"t":{"on":true}},"items":[[{"id":"a"}],7]}; var e = {"v":1};</script>`,
		`<script>var d = {"o":[{"id":"o1","z":1},{"id":"o2"}],"items":[{"x":1},{"name":"second"}],"badges":[{"id":"b","x":{"y":1}},{"x":2},{"id":"c","x":[3]}]}; var e = {};</script>`,
		`<script>var d = {"o":"s","items":{"name":"n"},"badges":{"id":"i"}}; var e = {};</script>`,
		`<script>var d = {"items":[{"id":"i","a":{"b":"1"},"kids":[{"id":"k"}]},{"id":"j","ok":true,"a":{"b":"1"}},{"id":"i","ok":true,"a":{"b":"2"},"kids":[]}]}; var e = {};</script>`,
	}
	for _, c := range projectionCases {
		t.Run(c.name, func(t *testing.T) {
			reg := loadProjected(t, engine.New(), c.fields)
			got := engine.Projections(reg.Plan("s.r"))
			if d, e := projSpec(got["d"]), projSpec(got["e"]); d != c.d || e != c.e {
				t.Errorf("projections d %q e %q, want %q %q", d, e, c.d, c.e)
			}
			whole := loadProjected(t, engine.NewUnprojected(), c.fields)
			for _, page := range pages {
				checkSameRun(t, reg.Plan("s.r"), whole.Plan("s.r"), url.Values{"query": {"x"}}, &fixture.Replay{Fallback: &fixture.Reply{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(page)}}, page)
			}
		})
	}
}

// checkSameRun fails when a and b (one plan compiled with and without projections) answer
// otherwise for params on the pages rp replays.
func checkSameRun(t *testing.T, a, b *engine.Plan, params url.Values, rp engine.Fetcher, what string) {
	t.Helper()
	oa := fixture.Execute(context.Background(), a, params, rp)
	ob := fixture.Execute(context.Background(), b, params, rp)
	var wa, wb []string
	if oa.Res != nil {
		wa = oa.Res.Warnings
	}
	if ob.Res != nil {
		wb = ob.Res.Warnings
	}
	if string(oa.JSON) != string(ob.JSON) || !reflect.DeepEqual(oa.Err, ob.Err) || oa.Rule != ob.Rule || !slices.Equal(wa, wb) {
		t.Errorf("%s: %.60q: %s %v %q %q, the other way %s %v %q %q", a.ID, what, oa.JSON, oa.Err, oa.Rule, wa, ob.JSON, ob.Err, ob.Rule, wb)
	}
}

// Every corpus expectation, every fixture case, and every corpus page of a site whose plan
// projects a source run on that plan (pages where the sources are there but other parts are
// read), with projections and without: the same output, error, rule and warnings.
func TestProjectionKeepsOutput(t *testing.T) {
	skipUnderRace(t)
	corpus, reg, exps := loadCorpus(t, engine.New())
	_, whole, _ := loadCorpus(t, engine.NewUnprojected())
	projected := 0
	for _, id := range reg.IDs() {
		for _, p := range engine.Projections(reg.Plan(id)) {
			if p != nil {
				projected++
				break
			}
		}
	}
	t.Logf("%d plans project a source", projected)
	if p := engine.Projections(reg.Plan("walmart.product")); p["product"] == nil || p["reviews"] == nil || p["idml"] == nil {
		t.Errorf("walmart.product decodes its sources whole: %v (%s)", p, engine.ProjectionRefused(reg.Plan("walmart.product")))
	}
	// Searches (findAll, find with a key), built lists, vars and pagination are followed.
	// items (walmart.search counts the cards before) is followed by the list's child fields.
	for id, src := range map[string]string{"youtube.channel": "browse_html", "youtube.video": "data", "youtube.search": "html", "youtube.transcript": "page_player",
		"walmart.search": "search_result"} {
		if p := engine.Projections(reg.Plan(id)); p[src] == nil {
			t.Errorf("%s decodes %s whole (%s)", id, src, engine.ProjectionRefused(reg.Plan(id)))
		}
	}
	// A JSON answer read through a body source; a parse: json step whose only reader is that source
	// leaves the decode to it.
	for _, x := range [][2]string{{"youtube.search", "first"}, {"youtube.search", "more"}, {"youtube.comments", "page"}, {"youtube.video", "json"},
		{"reddit.subreddit", "listing_body"}, {"twitter.timeline", "api"}, {"youtube.playlist", "browse"}} {
		if p := engine.Projections(reg.Plan(x[0])); p[x[1]] == nil {
			t.Errorf("%s decodes its body source %s whole (%s)", x[0], x[1], engine.ProjectionRefused(reg.Plan(x[0])))
		}
	}
	if s := engine.JSONBySource(reg.Plan("youtube.search")); !slices.Equal(s, []string{"more"}) {
		t.Errorf("youtube.search's steps whose body source decodes the JSON: %v, want [more]", s)
	}
	// JSON-LD (each step's json_ld sources together) and an attribute's JSON (xpath_json).
	for _, x := range [][2]string{{"bandcamp.album", "ld"}, {"bandcamp.album", "tralbum"}, {"bandcamp.track", "ld"}, {"bandcamp.track", "tralbum"},
		{"bestbuy.product", "ld"}, {"bestbuy.product", "crumbs"}, {"littlethings.article", "news"}} {
		if p := engine.Projections(reg.Plan(x[0])); p[x[1]] == nil {
			t.Errorf("%s decodes %s whole (%s)", x[0], x[1], engine.ProjectionRefused(reg.Plan(x[0])))
		}
	}
	// A plan that projects no source runs the same code both ways: only the others are compared.
	projects := func(plan *engine.Plan) bool {
		for _, p := range engine.Projections(plan) {
			if p != nil {
				return true
			}
		}
		return false
	}
	compareOnCorpus(t, corpus, reg, whole, exps, projects)
}

// compareOnCorpus runs every corpus expectation, every fixture case, and every corpus page of the
// plan's site (pages where the sources are there but other parts are read) of the plans of reg
// that chosen selects, on them and on other's plans of the same ids: the same output, error, rule
// and warnings.
func compareOnCorpus(t *testing.T, corpus string, reg, other *registry.Registry, exps []*fixture.Expectation, chosen func(*engine.Plan) bool) {
	t.Helper()
	load := func(name string, status int) *fixture.Reply {
		body, err := os.ReadFile(filepath.Join(corpus, name))
		if err != nil {
			t.Fatal(err)
		}
		return &fixture.Reply{Status: status, Header: http.Header{"Content-Type": {fixture.ContentType(name)}}, Body: body}
	}
	runs := 0
	for _, e := range exps {
		plan := reg.Plan(e.Endpoint)
		if plan == nil || !chosen(plan) {
			continue
		}
		rp := &fixture.Replay{Replies: map[string]*fixture.Reply{}}
		if e.Page != "" {
			rp.Fallback = load(e.Page, e.Status)
			rp.Fallback.URL = e.URL
		}
		for step, name := range e.Pages {
			rp.Replies[step] = load(name, e.Status)
		}
		checkSameRun(t, plan, other.Plan(e.Endpoint), fixture.Values(e.Params), rp, e.Name())
		runs++
	}
	// Each chosen plan on every corpus page of its site.
	for _, id := range reg.IDs() {
		plan := reg.Plan(id)
		if !chosen(plan) {
			continue
		}
		var params map[string]any
		for _, e := range exps {
			if e.Endpoint == id {
				params = e.Params
				break
			}
		}
		if params == nil {
			continue
		}
		site := strings.SplitN(id, ".", 2)[0]
		pages, _ := filepath.Glob(filepath.Join(corpus, site, "*.htm*"))
		for _, page := range pages {
			name, _ := filepath.Rel(corpus, page)
			rp := &fixture.Replay{Fallback: load(name, 200)}
			checkSameRun(t, plan, other.Plan(id), fixture.Values(params), rp, name)
			runs++
		}
	}
	cases, err := fixture.LoadCases("../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		plan := reg.Runnable(c.Endpoint)
		if plan == nil || !chosen(plan) {
			continue
		}
		rp, err := c.Replay()
		if err != nil {
			t.Fatal(err)
		}
		checkSameRun(t, plan, other.Runnable(c.Endpoint), fixture.Values(c.Params), rp, fmt.Sprintf("fixture %s/%s", c.Endpoint, c.Name))
		runs++
	}
	t.Logf("%d runs compared", runs)
}

// The json_ld sources of a step are decoded once: they share the union of what each reads, or
// decode whole when one reads its object whole, by element, by a search or its @graph; an
// xpath_json source is projected as a script-JSON one is.
func TestJSONLDProjectionPaths(t *testing.T) {
	endpoint := func(fields string) string {
		return `kind: endpoint
resource: r
summary: r
params:
  query: {type: string, required: true, example: x}
steps:
  - id: page
    request: {url: "https://www.s.example/${ params.query }"}
sources:
  p: {json_ld: Product}
  w: {json_ld: WebPage}
  x: {xpath_json: "//div[@data-x]/@data-x"}
fields:
` + fields
	}
	pages := []string{
		`<script type="application/ld+json">{"@type":"Product","name":"P","offers":{"price":1,"seller":{"name":"S"}},"review":[{"@type":"Review"}]}</script>` +
			`<script type="application/ld+json">{"@graph":[{"@type":"WebPage","name":"W","about":{"name":"A"}}]}</script><div data-x='{"a":{"b":1,"c":2},"d":[1]}'></div>`,
		`<script type="application/ld+json">{"@type":"WebPage","@id":"u","mainEntity":{"@type":"Product","@id":"u","name":"N"}}</script>`,
		`<script type="application/ld+json">{"@type":"Product","@id":"u","name":"N"}</script><script type="application/ld+json">{"@type":"Product","@id":"u","offers":{"price":2}}</script>`,
		`<script type="application/ld+json">[{"@type":"Thing"},{"@type":"WebPage","about":{"@type":"Product","name":"Nested"}}]</script><div data-x='{"a":1,}'></div>`,
		`<p>none</p>`,
	}
	for _, c := range []struct{ name, fields, p, w, x string }{
		{"union", "  a: {expr: 'src.p?.name'}\n  b: {type: float, expr: 'src.p?.offers?.price'}\n  c: {expr: 'src.w?.about?.name'}\n  d: {type: int, expr: 'src.x?.a?.b'}\n",
			"about.name*,name*,offers.price*", "about.name*,name*,offers.price*", "a.b*"},
		{"one read whole", "  a: {expr: 'src.p?.name'}\n  b: {type: any, expr: 'src.w'}\n  d: {type: any, expr: 'src.x'}\n", "whole", "whole", "whole"},
		{"one searched", "  a: {expr: 'src.p?.name'}\n  b: {type: any, expr: 'find(src.w, \"name\")'}\n", "whole", "whole", ""},
		{"@graph read", "  a: {expr: 'src.p?.name'}\n  b: {type: int, expr: 'len(src.w?.[\"@graph\"] ?? [])'}\n", "whole", "whole", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			load := func(e *engine.Engine) *registry.Registry {
				reg, diags := registry.Load(e, fstest.MapFS{"s/site.yaml": {Data: []byte(projSite)}, "s/r.yaml": {Data: []byte(endpoint(c.fields))}})
				if diags.HasErrors() {
					t.Fatal(diags)
				}
				return reg
			}
			reg, whole := load(engine.New()), load(engine.NewUnprojected())
			got := engine.Projections(reg.Plan("s.r"))
			if p, w, x := projSpec(got["p"]), projSpec(got["w"]), projSpec(got["x"]); p != c.p || w != c.w || x != c.x {
				t.Errorf("projections p %q w %q x %q, want %q %q %q", p, w, x, c.p, c.w, c.x)
			}
			for _, page := range pages {
				checkSameRun(t, reg.Plan("s.r"), whole.Plan("s.r"), url.Values{"query": {"x"}}, &fixture.Replay{Fallback: &fixture.Reply{Status: 200, Header: http.Header{"Content-Type": {"text/html"}}, Body: []byte(page)}}, page)
			}
		})
	}
}
