package sitedef

import (
	"bytes"
	"io"

	"gopkg.in/yaml.v3"

	"asa/engine/diag"
)

// Decode decodes one YAML document into v (a pointer to a struct) as strictly as a sitedef: unknown
// keys, wrong kinds, aliases and bad scalars are all reported with file:line:col, and decoding goes on
// so one run reports every mistake. Fixture cases use it. The document's root node is returned too
// (nil on a syntax error), for checks that need positions of values the struct does not keep.
func Decode(path string, data []byte, v any) (*yaml.Node, diag.List) {
	var diags diag.List
	if len(data) > MaxFileBytes {
		diags.Add(path, 1, 1, "file is %d bytes, over the %d byte limit", len(data), MaxFileBytes)
		return nil, diags
	}
	var root yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&root); err == io.EOF {
		diags.Add(path, 1, 1, "the file is empty")
		return nil, diags
	} else if err != nil {
		line, col, msg := syntaxError(data, err.Error())
		diags.Add(path, line, col, "%s", msg)
		return nil, diags
	}
	n := &root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	d := &decoder{file: path, root: path, diags: &diags, pos: Positions{}}
	d.decode(n, reflectValue(v))
	return n, diags
}
