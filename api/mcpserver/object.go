package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// object is a JSON object whose members keep their order and their raw values: the tools' schemas
// are cut from the OpenAPI document and put together again without reordering what the sitedef
// author wrote (parameters and fields come out in the order of the sitedef).
type object []member

type member struct {
	key string
	val json.RawMessage
}

// parseObject splits a raw JSON object into its members.
func parseObject(raw json.RawMessage) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{k, v})
	}
	return o, nil
}

func (o object) get(k string) json.RawMessage {
	for _, m := range o {
		if m.key == k {
			return m.val
		}
	}
	return nil
}

// set replaces k's value or appends it.
func (o *object) set(k string, v any) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		raw = mustJSON(v)
	}
	for i := range *o {
		if (*o)[i].key == k {
			(*o)[i].val = raw
			return
		}
	}
	*o = append(*o, member{k, raw})
}

// without returns o less the keys named.
func (o object) without(keys ...string) object {
	var out object
	for _, m := range o {
		drop := false
		for _, k := range keys {
			drop = drop || m.key == k
		}
		if !drop {
			out = append(out, m)
		}
	}
	return out
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(mustJSON(m.key))
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// mustJSON encodes values the package builds itself (strings, maps, slices of them), which cannot
// fail, without escaping <, > and & in descriptions.
func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("mcpserver: encoding %T: %v", v, err))
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}
