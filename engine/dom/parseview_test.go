package dom

import (
	"bytes"
	"testing"

	"golang.org/x/net/html"
)

// ParseHTMLView answers as ParseHTML (the tree rendered the same, the same error), BOM and empty
// body included, and leaves the body as it was.
func TestParseHTMLView(t *testing.T) {
	for _, s := range []string{"", "\xef\xbb\xbf", "\xef\xbb\xbf<p>a", "<p>x<b>y</p>z", "<table><td>&amp;\x00\r\n" + "</table>",
		"<DIV CLASS=A>caf\u00e9</div>", string(bytes.Repeat([]byte("<div>"), 600))} {
		checkParseView(t, []byte(s))
	}
}

func checkParseView(t *testing.T, body []byte) {
	t.Helper()
	orig := bytes.Clone(body)
	want, wantErr := ParseHTML(body)
	got, gotErr := ParseHTMLView(body)
	if (wantErr == nil) != (gotErr == nil) || wantErr != nil && wantErr.Error() != gotErr.Error() {
		t.Fatalf("%.80q: error %v, want %v", body, gotErr, wantErr)
	}
	if !bytes.Equal(body, orig) {
		t.Fatalf("%.80q: body written", body)
	}
	if wantErr != nil {
		return
	}
	var w, g bytes.Buffer
	if err := html.Render(&w, want); err != nil {
		t.Fatal(err)
	}
	if err := html.Render(&g, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(w.Bytes(), g.Bytes()) {
		t.Fatalf("%.80q: view's tree %.200q, want %.200q", body, g.Bytes(), w.Bytes())
	}
}
