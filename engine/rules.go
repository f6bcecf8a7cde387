package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"gopkg.in/yaml.v3"

	"asa/engine/errcode"
	"asa/engine/sitedef"
)

// RuleLimits bound an extraction rule set (extract_rules on universal/get): a request's own fields
// in sitedef syntax. Every limit is checked while the JSON is read, before anything is compiled, so
// a rule set past one is refused after reading at most its bytes once.
type RuleLimits struct {
	// Bytes is the size of the JSON.
	Bytes int
	// Fields is the number of fields at every level together; Depth the levels of fields (an object
	// or list<object> field's fields are one level down).
	Fields, Depth int
	// Values is the number of JSON values in all (constants and defaults included).
	Values int
	// Select is the selectors of one field's select list.
	Select int
	// XPath, Expr and Regex bound one XPath, expression (expr, transform, post, when, limit) and
	// regular expression, in bytes; ExprNodes one expression's syntax tree.
	XPath, Expr, Regex int
	ExprNodes          uint
	// ListItems is the most items a list field keeps (its limit, or this when less): a list's child
	// fields run once per item, so this bounds the work of nested lists.
	ListItems int
}

// DefaultRuleLimits are the limits docs/api.md documents for extract_rules.
func DefaultRuleLimits() RuleLimits {
	return RuleLimits{Bytes: 16 << 10, Fields: 100, Depth: 4, Values: 2000, Select: 5,
		XPath: 512, Expr: 1024, Regex: 256, ExprNodes: 300, ListItems: 1000}
}

// maxRuleJSONDepth bounds the nesting of the JSON itself (constants can nest without fields).
const maxRuleJSONDepth = 32

// rulesFile names a rule set in diagnostics; the client sees paths, never it.
const rulesFile = "extract_rules"

// RuleSet is a compiled extract_rules: a one-step plan whose fields are the rules. It is immutable
// and safe for concurrent runs.
type RuleSet struct {
	plan *Plan
	// Hash is the SHA-256 of the rule set's bytes, hex: the key it is cached under.
	Hash string
}

// RuleHash is the key a rule set is cached under.
func RuleHash(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// CompileRules reads a rule set (a JSON object of fields: name to field, each as in a sitedef
// endpoint's fields, or a string as a shorthand for {"xpath": ...}) within lim and compiles it with
// the sitedef compiler. Problems are returned each at its path in the JSON
// (products.fields.name.xpath); none means the rule set is good. Compiler warnings are problems here:
// there is no lint run for a request, and both warnings name costly or misleading rules.
//
// Each rule set is compiled by an Engine of its own, which lives as long as the rule set: nothing a
// request wrote is kept in anything that outlives it (the caller bounds how many it keeps).
func CompileRules(data []byte, lim RuleLimits) (*RuleSet, []errcode.Problem) {
	root, paths, prob := readRules(data, lim)
	if prob != nil {
		return nil, []errcode.Problem{*prob}
	}
	ep := &sitedef.Endpoint{
		Kind: "endpoint", Resource: "rules", Summary: "extract_rules",
		Params: sitedef.Map[sitedef.Param]{Keys: []string{"url"}, Vals: map[string]*sitedef.Param{"url": {Type: "string"}}},
		// Any status: with parse=html the rules read whatever page the target answered.
		Steps: []sitedef.Step{{ID: "page", Request: sitedef.Request{URL: "${ params.url }"}, ExpectStatus: anyStatus()}},
	}
	pos := sitedef.Positions{}
	diags := sitedef.DecodeNode(rulesFile, root, &ep.Fields, pos)
	capLists(&ep.Fields, lim.ListItems)
	if !diags.HasErrors() {
		site := &sitedef.File{Path: rulesFile, Pos: sitedef.Positions{},
			Site: &sitedef.Site{Kind: "site", Site: "rules", Name: "extract_rules", Category: "other", Version: "1.0.0"}}
		plan, cd := New().Compile(site, &sitedef.File{Path: rulesFile, Endpoint: ep, Pos: pos})
		diags = append(diags, cd...)
		if len(diags) == 0 {
			return &RuleSet{plan: plan, Hash: RuleHash(data)}, nil
		}
	}
	var out []errcode.Problem
	for _, d := range diags {
		p := ""
		if d.Line >= 0 && d.Line < len(paths) {
			p = paths[d.Line]
		}
		out = append(out, errcode.Problem{Path: p, Message: d.Message})
		if len(out) == 20 {
			break
		}
	}
	return nil, out
}

// capLists gives every list field a limit of at most n items, wrapping the rule's own.
func capLists(m *sitedef.Map[sitedef.Field], n int) {
	m.Each(func(_ string, f *sitedef.Field) {
		if strings.HasPrefix(f.Type, "list<") {
			if strings.TrimSpace(f.Limit) == "" {
				f.Limit = strconv.Itoa(n)
			} else {
				f.Limit = "min(" + f.Limit + ", " + strconv.Itoa(n) + ")"
			}
		}
		capLists(&f.Fields, n)
	})
}

func anyStatus() []int {
	out := make([]int, 0, 500)
	for s := 100; s < 600; s++ {
		out = append(out, s)
	}
	return out
}

// Run extracts the rule set's fields from a page already fetched: the ordered JSON object.
func (rs *RuleSet) Run(ctx context.Context, resp *Response) ([]byte, error) {
	page := *resp
	page.Attempts = 1
	res, err := rs.plan.Run(ctx, Params{"url": resp.URL}, FetcherFunc(func(context.Context, *Request) (*Response, error) {
		return &page, nil
	}))
	if err != nil {
		var re *RunError
		if errors.As(err, &re) {
			return nil, re.Err
		}
		return nil, err
	}
	return res.MarshalJSON()
}

// ruleReader turns the JSON of a rule set into a YAML node tree for the strict sitedef decoder,
// checking the limits as it goes. Each node's Line is its index in paths, so that a diagnostic at a
// node is reported at the node's path in the JSON.
type ruleReader struct {
	dec    *json.Decoder
	lim    RuleLimits
	paths  []string
	fields int
	depth  int
	// tokens counts the JSON tokens read: the work done, which tests bound for refused rule sets.
	tokens int
	prob   *errcode.Problem
}

// readRules reads a rule set into a node tree and the path of every node, by line.
func readRules(data []byte, lim RuleLimits) (*yaml.Node, []string, *errcode.Problem) {
	n, paths, _, prob := readRulesCounted(data, lim)
	return n, paths, prob
}

func readRulesCounted(data []byte, lim RuleLimits) (*yaml.Node, []string, int, *errcode.Problem) {
	if len(data) > lim.Bytes {
		return nil, nil, 0, &errcode.Problem{Message: fmt.Sprintf("the rule set is %d bytes, over the limit of %d", len(data), lim.Bytes)}
	}
	r := &ruleReader{dec: json.NewDecoder(bytes.NewReader(data)), lim: lim, paths: []string{"", ""}}
	r.dec.UseNumber()
	root := r.fieldMap("", 1)
	if r.prob == nil {
		if _, err := r.dec.Token(); err != io.EOF {
			r.fail("", "the rule set must be one JSON object, with nothing after it")
		}
	}
	if r.prob != nil {
		return nil, nil, r.tokens, r.prob
	}
	return root, r.paths, r.tokens, nil
}

func (r *ruleReader) fail(path, format string, args ...any) {
	if r.prob == nil {
		r.prob = &errcode.Problem{Path: path, Message: fmt.Sprintf(format, args...)}
	}
}

// token reads the next token, keeping count of the work and of the nesting.
func (r *ruleReader) token(path string) (json.Token, bool) {
	if r.prob != nil {
		return nil, false
	}
	t, err := r.dec.Token()
	r.tokens++
	if err != nil {
		msg := "not valid JSON"
		var se *json.SyntaxError
		if errors.As(err, &se) {
			msg = fmt.Sprintf("not valid JSON at byte %d: %s", se.Offset, se.Error())
		} else if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			msg = "not valid JSON: it ends too soon"
		}
		r.fail(path, "%s", msg)
		return nil, false
	}
	if d, ok := t.(json.Delim); ok {
		switch d {
		case '{', '[':
			r.depth++
			if r.depth > maxRuleJSONDepth {
				r.fail(path, "the JSON nests more than %d deep", maxRuleJSONDepth)
				return nil, false
			}
		default:
			r.depth--
		}
	}
	return t, true
}

// node makes a node for path; every node counts against Values.
func (r *ruleReader) node(path string, kind yaml.Kind, tag, value string) *yaml.Node {
	if len(r.paths) > r.lim.Values+2 {
		r.fail(path, "the rule set has more than %d JSON values", r.lim.Values)
	}
	r.paths = append(r.paths, path)
	return &yaml.Node{Kind: kind, Tag: tag, Value: value, Line: len(r.paths) - 1, Column: 1}
}

// key reads an object's next key, or reports the end of the object (consuming its '}').
func (r *ruleReader) key(path string) (string, bool) {
	if !r.dec.More() {
		r.token(path) // the closing brace
		return "", false
	}
	t, ok := r.token(path)
	if !ok {
		return "", false
	}
	k, _ := t.(string)
	return k, true
}

func isDelim(t json.Token, d json.Delim) bool {
	x, ok := t.(json.Delim)
	return ok && x == d
}

// fieldMap reads an object of fields, name to field, depth levels down.
func (r *ruleReader) fieldMap(path string, depth int) *yaml.Node {
	where := path
	if where == "" {
		where = "the rule set"
	}
	t, ok := r.token(path)
	if !ok {
		return nil
	}
	if !isDelim(t, '{') {
		r.fail(path, "%s must be a JSON object of fields (name: field)", where)
		return nil
	}
	if depth > r.lim.Depth {
		r.fail(path, "fields nest more than %d levels deep", r.lim.Depth)
		return nil
	}
	m := r.node(path, yaml.MappingNode, "!!map", "")
	for {
		k, ok := r.key(path)
		if !ok {
			break
		}
		fp := k
		if path != "" {
			fp = path + "." + k
		}
		r.fields++
		if r.fields > r.lim.Fields {
			r.fail(fp, "the rule set has more than %d fields", r.lim.Fields)
			return nil
		}
		kn := r.node(fp, yaml.ScalarNode, "!!str", k)
		vn := r.field(fp, depth)
		if r.prob != nil {
			return nil
		}
		m.Content = append(m.Content, kn, vn)
	}
	return m
}

// field reads one field: an object in sitedef syntax, or a string standing for {"xpath": ...}.
func (r *ruleReader) field(path string, depth int) *yaml.Node {
	t, ok := r.token(path)
	if !ok {
		return nil
	}
	if s, isStr := t.(string); isStr {
		r.checkString(path, "xpath", s)
		m := r.node(path, yaml.MappingNode, "!!map", "")
		m.Content = append(m.Content, r.node(path, yaml.ScalarNode, "!!str", "xpath"), r.node(path, yaml.ScalarNode, "!!str", s))
		return m
	}
	if !isDelim(t, '{') {
		r.fail(path, "a field is an object (xpath, expr, regex or const, type, select, fields, ...) or an XPath string")
		return nil
	}
	return r.members(path, func(kp, k string) *yaml.Node {
		switch k {
		case "fields":
			return r.fieldMap(kp, depth+1)
		case "select":
			return r.selectList(kp)
		case "extends", "remove":
			r.fail(kp, "%s is for sitedef files; a rule set gives its fields in full", k)
			return nil
		}
		return r.value(kp, k)
	})
}

// members reads the rest of an object whose '{' was just read, path.key to the value val reads for
// each key, as a mapping node; nil once anything failed.
func (r *ruleReader) members(path string, val func(kp, k string) *yaml.Node) *yaml.Node {
	m := r.node(path, yaml.MappingNode, "!!map", "")
	for {
		k, ok := r.key(path)
		if !ok {
			break
		}
		kp := path + "." + k
		kn := r.node(kp, yaml.ScalarNode, "!!str", k)
		vn := val(kp, k)
		if r.prob != nil {
			return nil
		}
		m.Content = append(m.Content, kn, vn)
	}
	return m
}

// selectList reads a field's select: a list of selectors.
func (r *ruleReader) selectList(path string) *yaml.Node {
	t, ok := r.token(path)
	if !ok {
		return nil
	}
	if !isDelim(t, '[') {
		r.fail(path, "select must be a list of selectors")
		return nil
	}
	seq := r.node(path, yaml.SequenceNode, "!!seq", "")
	for i := 0; r.dec.More(); i++ {
		sp := path + "[" + strconv.Itoa(i) + "]"
		if i >= r.lim.Select {
			r.fail(sp, "select has more than %d selectors", r.lim.Select)
			return nil
		}
		t, ok := r.token(sp)
		if !ok {
			return nil
		}
		if !isDelim(t, '{') {
			r.fail(sp, "a selector is an object with xpath, expr, regex or const")
			return nil
		}
		m := r.members(sp, r.value)
		if m == nil {
			return nil
		}
		seq.Content = append(seq.Content, m)
	}
	r.token(path) // ]
	return seq
}

// value reads any JSON value under key k; strings are checked against the limit of their kind.
func (r *ruleReader) value(path, k string) *yaml.Node {
	t, ok := r.token(path)
	if !ok {
		return nil
	}
	return r.valueFrom(t, path, k)
}

func (r *ruleReader) valueFrom(t json.Token, path, k string) *yaml.Node {
	switch x := t.(type) {
	case string:
		r.checkString(path, k, x)
		return r.node(path, yaml.ScalarNode, "!!str", x)
	case json.Number:
		tag := "!!float"
		if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			tag = "!!int"
		}
		return r.node(path, yaml.ScalarNode, tag, x.String())
	case bool:
		return r.node(path, yaml.ScalarNode, "!!bool", strconv.FormatBool(x))
	case nil:
		return r.node(path, yaml.ScalarNode, "!!null", "null")
	case json.Delim:
		if x == '[' {
			seq := r.node(path, yaml.SequenceNode, "!!seq", "")
			for i := 0; r.dec.More() && r.prob == nil; i++ {
				seq.Content = append(seq.Content, r.value(path+"["+strconv.Itoa(i)+"]", ""))
			}
			r.token(path)
			return seq
		}
		m := r.node(path, yaml.MappingNode, "!!map", "")
		for r.prob == nil {
			k, ok := r.key(path)
			if !ok {
				break
			}
			m.Content = append(m.Content, r.node(path+"."+k, yaml.ScalarNode, "!!str", k), r.value(path+"."+k, ""))
		}
		return m
	}
	r.fail(path, "unexpected JSON")
	return nil
}

// checkString applies the limit of a string's kind, named by its key.
func (r *ruleReader) checkString(path, k, s string) {
	switch k {
	case "xpath":
		if len(s) > r.lim.XPath {
			r.fail(path, "the XPath is %d bytes, over the limit of %d", len(s), r.lim.XPath)
		} else if msg := costlyXPath(s); msg != "" {
			r.fail(path, "%s", msg)
		}
	case "expr", "transform", "post", "when", "limit":
		if len(s) > r.lim.Expr {
			r.fail(path, "the expression is %d bytes, over the limit of %d", len(s), r.lim.Expr)
		} else if n := exprNodes(s); n > int(r.lim.ExprNodes) {
			r.fail(path, "the expression has %d syntax nodes, over the limit of %d", n, r.lim.ExprNodes)
		}
	case "regex":
		if len(s) > r.lim.Regex {
			r.fail(path, "the regular expression is %d bytes, over the limit of %d", len(s), r.lim.Regex)
		}
	}
}

// exprNodes counts the syntax nodes of an expression (linear in its length); one that does not
// parse counts 0, and the compiler says why.
func exprNodes(code string) int {
	tree, err := parser.Parse(code)
	if err != nil {
		return 0
	}
	var c nodeCounter
	ast.Walk(&tree.Node, &c)
	return int(c)
}

type nodeCounter int

func (c *nodeCounter) Visit(*ast.Node) { *c++ }

// costlyXPath refuses the XPath shapes whose cost grows with the square of the page: an absolute
// path inside a predicate reads the whole page again for every candidate node (//a[//b]), and the
// following and preceding axes read the rest of the page from every node they start at. It is a
// lexical check (string literals skipped), so it is linear in the XPath and may refuse an odd
// expression that would have been cheap; the message says what to write instead.
func costlyXPath(x string) string {
	for _, axis := range []string{"following::", "preceding::"} {
		if i := indexOutsideLiterals(x, axis); i >= 0 {
			return fmt.Sprintf("the %s axis reads the rest of the page from every node: use %s-sibling:: or a path from the node", strings.TrimSuffix(axis, "::"), strings.TrimSuffix(axis, "::"))
		}
	}
	depth := 0
	var quote byte
	for i := 0; i < len(x); i++ {
		c := x[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '/' && depth > 0 && startsPath(x[:i]):
			return "an absolute path inside a predicate reads the whole page for every node it tests: start it with ./ or .//"
		}
	}
	return ""
}

// startsPath reports whether a '/' after before begins a location path (rather than continuing one).
func startsPath(before string) bool {
	t := strings.TrimRight(before, " \t\r\n")
	if t == "" {
		return true
	}
	switch t[len(t)-1] {
	case '[', '(', ',', '=', '<', '>', '|', '+', '-':
		return true
	case '/':
		return startsPath(t[:len(t)-1])
	}
	if len(t) < len(before) { // whitespace before the '/': after an operator word it starts a path
		w := t[strings.LastIndexAny(t, " \t\r\n[(,")+1:]
		switch w {
		case "and", "or", "div", "mod":
			return true
		}
	}
	return false
}

func indexOutsideLiterals(x, sub string) int {
	var quote byte
	for i := 0; i < len(x); i++ {
		c := x[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case strings.HasPrefix(x[i:], sub):
			return i
		}
	}
	return -1
}
