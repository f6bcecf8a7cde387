package nearest

import "testing"

func TestName(t *testing.T) {
	names := []string{"amazon", "amazon.product", "amazon.search", "ebay", "etsy"}
	for _, tc := range []struct{ in, want string }{
		{"amzon", "amazon"},  // one deletion
		{"amazno", "amazon"}, // a swap is two edits
		{"amazon.prodct", "amazon.product"},
		{"etsi", "etsy"}, // the first of the closest: ebay and etsy are 2 and 1 away
		{"ebya", "ebay"},
		{"walmart", ""}, // three or more edits from every name
		{"", ""},
	} {
		if got := Name(tc.in, names); got != tc.want {
			t.Errorf("Name(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
