package funcs

import (
	"reflect"
	"strings"
	"testing"
)

func TestSchemaMinutes(t *testing.T) {
	tests := []struct {
		in   any
		want any
	}{
		{"PT20M", 20},
		{"PT1H", 60},
		{"P0DT1H5M", 65},
		{"PT30S", 1},    // rounded up: recipe-scrapers' ceil
		{"PT0M", nil},   // no duration
		{"PT0H0M", nil}, // no duration
		{"45", 45},      // a bare number is minutes
		{45.0, 45},
		{"10-15 minutes", 15},
		{"PT10M-PT15M", 15},
		{"12 to 15 mins", 15},
		{"1 hr 30 mins", 90},
		{"2 Std. 5 Min.", 125},
		{map[string]any{"@type": "QuantitativeValue", "maxValue": "PT25M"}, 25},
		{map[string]any{"minValue": "PT25M"}, nil},
		{"soon", nil},
		{"", nil},
		{nil, nil},
		{[]any{"PT5M"}, nil},
	}
	for _, tt := range tests {
		got, ok := schemaMinutes(tt.in)
		if !ok {
			got = nil
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("schemaMinutes(%#v) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestSchemaYield(t *testing.T) {
	tests := []struct {
		in   any
		want any
	}{
		{"4", "4 servings"},
		{4.0, "4 servings"},
		{"1", "1 serving"},
		{"Serves 4-6", "6 servings"},
		{"4 to 6 portions", "6 servings"},
		{"Makes 2 dozen", "2 dozen"},
		{"12 MUFFINS", "12 muffins"},
		{"1 loaf", "1 loaf"},
		{"2 loaves", "2 loaves"},
		{"8 hamburger buns", "8 hamburger buns"},
		{"makes 10", "10 items"},
		{"a few", "0 servings"},
		{[]any{"12", "12 muffins"}, "12 muffins"},
		{[]any{"6", "6 to 8 servings"}, "6 servings"},
		{[]any{"28", "28-32 cookies"}, "32 cookies"},
		{map[string]any{"@type": "QuantitativeValue", "value": 6.0}, "6 servings"},
		{[]any{}, nil},
		{"", nil},
		{nil, nil},
	}
	for _, tt := range tests {
		got, ok := schemaYield(tt.in)
		if !ok {
			got = nil
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("schemaYield(%#v) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestHowToSteps(t *testing.T) {
	step := func(name, text string) map[string]any {
		m := map[string]any{"@type": "HowToStep", "text": text}
		if name != "" {
			m["name"] = name
		}
		return m
	}
	section := func(name string, steps ...any) map[string]any {
		return map[string]any{"@type": "HowToSection", "name": name, "itemListElement": steps}
	}
	tests := []struct {
		name string
		in   any
		mode string
		want []any
	}{
		{"strings", []any{"Mix &amp; stir.", " <b>Bake</b>  "}, "", []any{"Mix & stir.", "Bake"}},
		{"name is the start of the text", []any{step("Mix the flour.", "Mix the flour with salt.")}, "", []any{"Mix the flour with salt."}},
		{"name differs", []any{step("Dough", "Mix.")}, "", []any{"Dough", "Mix."}},
		{"numbering label dropped", []any{step("Step 1", "Mix."), step("Schritt 2", "Bake.")}, "", []any{"Mix.", "Bake."}},
		{"numbering label kept", []any{step("Step 1", "Mix.")}, "names", []any{"Step 1", "Mix."}},
		{"sections", []any{section("Dough", step("", "Mix."), step("", "Knead.")), section("Filling", step("", "Stir."))}, "", []any{"Dough", "Mix.", "Knead.", "Filling", "Stir."}},
		{"sections, text only", []any{section("Dough", step("Knead", "Mix."))}, "text", []any{"Mix."}},
		{"ItemList", map[string]any{"@type": "ItemList", "itemListElement": []any{step("", "A."), step("", "B.")}}, "", []any{"A.", "B."}},
		{"nested lists", []any{[]any{"A."}, []any{"B."}}, "", []any{"A.", "B."}},
		{"one string, lines and joined paragraphs", "Heat the pan.\nAdd the oil.Stir for 2 min.Serve in the U.S. style.", "", []any{"Heat the pan.", "Add the oil.", "Stir for 2 min.", "Serve in the U.S. style."}},
		{"typed by IRI", []any{map[string]any{"@type": "http://schema.org/HowToSection", "name": "S", "itemListElement": []any{step("", "A.")}}}, "", []any{"S", "A."}},
		{"nothing", nil, "", []any{}},
		{"a number", 12.0, "", []any{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := howToSteps(tt.in, tt.mode); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestHowToStepsDepthBounded(t *testing.T) {
	// A hostile page can nest sections without end; the walk stops at a fixed depth.
	var v any = map[string]any{"@type": "HowToStep", "text": "deep"}
	for range 10000 {
		v = map[string]any{"@type": "HowToSection", "itemListElement": []any{v}}
	}
	if got := howToSteps([]any{v}, ""); len(got) != 0 {
		t.Errorf("got %v, want nothing past the depth limit", got)
	}
}

func TestSchemaName(t *testing.T) {
	people := []any{
		map[string]any{"@id": "https://x.test/#/person/1", "name": "Ann Lee"},
		map[string]any{"url": "https://x.test/bo", "name": "Bo"},
	}
	tests := []struct {
		in   any
		want any
	}{
		{"  Jo &amp; Al ", "Jo & Al"},
		{map[string]any{"@type": "Person", "name": "Ann"}, "Ann"},
		{[]any{map[string]any{"name": "First"}, map[string]any{"name": "Second"}}, "First"},
		{map[string]any{"@id": "https://x.test/#/person/1"}, "Ann Lee"},
		{map[string]any{"url": "https://x.test/bo"}, "Bo"},
		{map[string]any{"@id": "https://x.test/#/person/9"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		got, ok := schemaName(tt.in, people)
		if !ok {
			got = nil
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("schemaName(%#v) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestBestImage(t *testing.T) {
	tests := []struct {
		name string
		in   []any
		want any
	}{
		{"size from the object", []any{map[string]any{"url": "https://x.test/s.jpg", "width": 300, "height": 300}, map[string]any{"url": "https://x.test/l.jpg", "width": "1200", "height": "800"}}, "https://x.test/l.jpg"},
		{"size from the URL", []any{"https://x.test/a-225x225.jpg", "https://x.test/a-1200x800.jpg"}, "https://x.test/a-1200x800.jpg"},
		{"size from the query", []any{"https://x.test/a.jpg?w=300&h=200", "https://x.test/b.jpg?w=1600&h=900"}, "https://x.test/b.jpg?w=1600&h=900"},
		{"no sizes: the first", []any{"https://x.test/a.jpg", "https://x.test/b.jpg"}, "https://x.test/a.jpg"},
		{"https wins a tie", []any{"http://x.test/a.jpg", "https://x.test/b.jpg"}, "https://x.test/b.jpg"},
		{"same URL keeps its largest size", []any{"https://x.test/a.jpg", map[string]any{"url": "https://x.test/b.jpg", "width": 800, "height": 600}, map[string]any{"url": "https://x.test/a.jpg", "width": 1000, "height": 1000}}, "https://x.test/a.jpg"},
		{"relative URLs do not count", []any{"/a.jpg", []any{}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := bestImage(tt.in)
			if !ok {
				got = nil
			}
			if got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestClosestOfBounded(t *testing.T) {
	many := make([]any, 5000)
	for i := range many {
		many[i] = strings.Repeat("ab", 5000)
	}
	if got := closestOf(many, many); len(got) != maxClosest {
		t.Errorf("got %d items, want the first %d", len(got), maxClosest)
	}
}

func FuzzSchemaText(f *testing.F) {
	for _, s := range []string{"PT1H30M", "10-15 minutes", "Serves 4 to 6", "12 MUFFINS", "1 ½ hrs", "<p>a</p>&amp;amp;", "P", "PT", "-", " to ", "step 1", "a.B.c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if m, ok := schemaMinutes(s); ok {
			if _, isInt := m.(int); !isInt {
				t.Fatalf("schemaMinutes(%q) = %#v, not an int", s, m)
			}
		}
		if y, ok := schemaYield(s); ok && !strings.Contains(y.(string), " ") {
			t.Fatalf("schemaYield(%q) = %q, want a count and a unit", s, y)
		}
		for _, step := range howToSteps(s, "") {
			if step.(string) == "" || strings.ContainsAny(step.(string), "\n\t") {
				t.Fatalf("howToSteps(%q) gave step %q", s, step)
			}
		}
		_ = cleanText(s)
		_ = splitTags(s)
	})
}

// A duration or a yield is a few words: text past maxSchemaText bytes is not read, so a loose
// selector that catches a whole page costs a bounded amount of work.
func TestSchemaTextClipped(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	if got, ok := schemaYield(long + " 4 cookies"); !ok || got != "0 servings" {
		t.Errorf("schemaYield(long + count) = %v, %v; want the count past the limit unread", got, ok)
	}
	if got, ok := schemaMinutes(long + " 20 minutes"); ok {
		t.Errorf("schemaMinutes(long + duration) = %v; want nil", got)
	}
	if got := clip(strings.Repeat("é", 200)); len(got) > maxSchemaText || !strings.HasPrefix(strings.Repeat("é", 200), got) {
		t.Errorf("clip cut inside a character or kept too much: %d bytes", len(got))
	}
}
