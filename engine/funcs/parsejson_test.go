package funcs

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// decoderJSON is parseJSON as encoding/json's Decoder alone answers it, the reference of its fast
// path (dom.DecodeJSONPrefixString).
func decoderJSON(s string) (any, bool) {
	s = strings.TrimLeft(s, " \t\r\n\uFEFF")
	if s == "" {
		return nil, false
	}
	var v any
	if err := json.NewDecoder(strings.NewReader(s)).Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

var parseJSONCases = []string{
	`{"a":1};`,
	`[1,2,{"b":null}] and then some`,
	"\uFEFF {\"a\":[true,false]}",
	`{"a":1}{"b":2}`,
	`{"a":"\ud83d\ude00 \u00e9"}`,
	`[["wrb.fr","UsvDTd","[[[\"x\",[\"y\"]]],[null,\"tok\"]]",null]]`,
	`{"a":`,
	`[1,]`,
	`{"a":1e999}`,
	"{\"a\":\"\xff\"}",
	`"a string"`,
	`12 apples`,
	`nul`,
	strings.Repeat("[", 600) + strings.Repeat("]", 600),
	``,
	`   `,
}

func TestParseJSONAgreesWithDecoder(t *testing.T) {
	for _, s := range parseJSONCases {
		checkParseJSON(t, s)
	}
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range parseJSONCases {
		f.Add(s)
	}
	f.Fuzz(checkParseJSON)
}

func checkParseJSON(t *testing.T, s string) {
	got, ok := parseJSON(s)
	want, wok := decoderJSON(s)
	if ok != wok || !reflect.DeepEqual(got, want) {
		t.Fatalf("parseJSON(%q) = %#v, %v; encoding/json's Decoder: %#v, %v", s, got, ok, want, wok)
	}
}
