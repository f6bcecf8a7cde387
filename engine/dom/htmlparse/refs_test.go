package htmlparse

import (
	"slices"
	"strings"
	"testing"
)

// TestAlnumEntities requires alnumEntities to name every named reference whose text has an ASCII
// letter or digit, so that RefsMayYieldAlnum's answer stays exact if the table changes.
func TestAlnumEntities(t *testing.T) {
	var want []string
	for name, r := range entity {
		if isASCIIAlnum(r) {
			want = append(want, name)
		}
	}
	for name, rs := range entity2 {
		if isASCIIAlnum(rs[0]) || isASCIIAlnum(rs[1]) {
			want = append(want, name)
		}
	}
	var got []string
	for _, n := range alnumEntities {
		got = append(got, string(n))
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("alnumEntities %q, the table's %q", got, want)
	}
}

func TestRefsMayYieldAlnum(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{``, false},
		{`<a href="/x?a=1&amp;b=2">&lt;&gt;&nbsp;&copy;</a>`, false},
		{`&#39; &#x27; &#8217; &#0; &#xFFFFFFFF; &#128;`, false},
		{`&`, false},
		{`&#`, false},
		{`a&#65;`, true},
		{`&#x41`, true},
		{`&#X6a;`, true},
		{`&#00000000048;`, true},
		{`&#122`, true},
		{`&#123;`, false},
		{`&#47;&#58;`, false},
		{`&fjlig;`, true},
		{`&fjlig`, false},
		{`&amp;fjlig;`, false},
	} {
		if got := RefsMayYieldAlnum([]byte(c.s)); got != c.want {
			t.Errorf("RefsMayYieldAlnum(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// FuzzRefsMayYieldAlnum checks RefsMayYieldAlnum against the parser: when it says no reference
// stands for an ASCII letter or digit, every run of letters and digits of an attribute value
// occurs in the page as it is.
func FuzzRefsMayYieldAlnum(f *testing.F) {
	for _, s := range []string{`&#65;`, `&fjlig;`, `&amp;x`, `&#x3a;b`, `&#0065`, `a&b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		page := `<div title="` + v + `">`
		if RefsMayYieldAlnum([]byte(page)) {
			return
		}
		_, elems, err := ParseStringElements(page)
		if err != nil {
			return
		}
		for _, e := range elems {
			for _, a := range e.Attr {
				for _, run := range alnumRuns(a.Val) {
					if !strings.Contains(page, run) {
						t.Fatalf("%q: the value %q has the run %q, the page has not", page, a.Val, run)
					}
				}
			}
		}
	})
}

// alnumRuns is s's maximal runs of ASCII letters and digits.
func alnumRuns(s string) []string {
	var runs []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isASCIIAlnum(rune(s[i])) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			runs = append(runs, s[start:i])
			start = -1
		}
	}
	return runs
}
