package sitedef

import (
	"bytes"

	"gopkg.in/yaml.v3"

	"asa/engine/diag"
)

// File is one decoded sitedef file: a site or an endpoint, with the positions of its values.
type File struct {
	Path     string
	Site     *Site
	Endpoint *Endpoint
	Pos      Positions
	// Node is the file's root mapping, kept to resolve extends (which merges trees, then decodes).
	Node *yaml.Node
	// Base is set on a file resolved from extends: the base it extends and where the child says so.
	Base *BaseRef
	// Cut holds, by the address of a string value, the comment YAML took off its line: an unquoted
	// expression with " #" in it loses its end that way, and the compiler says so when it fails.
	Cut map[uintptr]string
	// origin names the file of every subtree of Node taken from another file by extends, so a
	// second resolution (fields that extend) keeps the first one's positions.
	origin map[*yaml.Node]string
}

// DropTree lets go of what only loading reads (the YAML tree, the cut comments, the origins of
// extended subtrees), once every file that extends this one is resolved and compiled: the decoded
// definition and its positions stay. A service holds every file of the catalogue for as long as it
// runs, and the trees were a fifth of its heap, which each collection walked.
func (f *File) DropTree() {
	f.Node, f.Cut, f.origin = nil, nil, nil
}

// MaxFileBytes bounds a sitedef file: they are small by nature, and the loader also reads directories
// named at start.
const MaxFileBytes = 1 << 20

// Parse decodes one sitedef file strictly. Every structural problem is returned, each with its line and
// column; the returned File is usable for further checks even when there are errors.
func Parse(path string, data []byte) (*File, diag.List) {
	var diags diag.List
	f := &File{Path: path, Pos: Positions{}, Cut: map[uintptr]string{}}
	if len(data) > MaxFileBytes {
		diags.Add(path, 1, 1, "file is %d bytes, over the %d byte limit", len(data), MaxFileBytes)
		return f, diags
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		line, col, msg := syntaxError(data, err.Error())
		diags.Add(path, line, col, "%s", msg)
		return f, diags
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		diags.Add(path, extra.Line, extra.Column, "only one YAML document is allowed per file")
	}
	n := &root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		diags.Add(path, n.Line, n.Column, "a sitedef file is a mapping with kind: site or kind: endpoint")
		return f, diags
	}
	kind := ""
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "kind" {
			kind = n.Content[i+1].Value
		}
	}
	f.Node = n
	d := &decoder{file: path, root: path, diags: &diags, pos: f.Pos, cut: f.Cut}
	switch kind {
	case "site":
		f.Site = &Site{}
		d.decode(n, reflectValue(f.Site))
	case "endpoint":
		f.Endpoint = &Endpoint{}
		d.decode(n, reflectValue(f.Endpoint))
	default:
		diags.Add(path, n.Line, n.Column, "missing or unknown kind %q: want site or endpoint", kind)
	}
	return f, diags
}

// DecodeNode decodes a tree built in Go rather than read from a file (extract_rules: a JSON object
// of fields) strictly into v, a pointer to a model value, recording positions in pos. Problems are
// reported under path at the nodes' own lines and columns, which the caller chose.
func DecodeNode(path string, n *yaml.Node, v any, pos Positions) diag.List {
	var diags diag.List
	d := &decoder{file: path, root: path, diags: &diags, pos: pos}
	d.decode(n, reflectValue(v))
	return diags
}
