package fetch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"testing"
)

func TestPresize(t *testing.T) {
	const max = 10 << 20
	for _, c := range []struct {
		declared int64
		encoded  bool
		max      int64
		want     int
	}{
		{-1, false, max, 0},
		{0, false, max, 0},
		{1000, false, max, 1000 + bytes.MinRead},
		{1000, true, max, 4000 + bytes.MinRead},
		{1 << 30, false, max, presizeMax + bytes.MinRead}, // a length claimed, not yet sent
		{1 << 20, true, max, presizeMax + bytes.MinRead},
		{1000, false, 100, 100 + bytes.MinRead},
	} {
		if got := presize(c.declared, c.encoded, c.max); got != c.want {
			t.Errorf("presize(%d, %v, %d) = %d, want %d", c.declared, c.encoded, c.max, got, c.want)
		}
	}
}

// TestReadBodyDeclaredLength: a body of the length it declares is read into one buffer of that
// size (a doubling buffer ends well past it), whatever the declared length, the bytes are the
// body's, and a declared length never lifts the cap.
func TestReadBodyDeclaredLength(t *testing.T) {
	page := bytes.Repeat([]byte("<p>0123456789</p>\n"), 100000/18)
	for _, declared := range []int64{-1, int64(len(page)), 10, 1 << 30} {
		out, truncated, err := readBody(bytes.NewReader(page), "", 10<<20, false, declared)
		if err != nil || truncated || !bytes.Equal(out, page) {
			t.Fatalf("declared %d: %d bytes, truncated %v, err %v", declared, len(out), truncated, err)
		}
		if declared == int64(len(page)) && cap(out) > len(page)+bytes.MinRead+8192 {
			t.Errorf("declared %d: a buffer of %d bytes for %d", declared, cap(out), len(page))
		}
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(page)
	w.Close()
	out, _, err := readBody(bytes.NewReader(gz.Bytes()), "gzip", 10<<20, false, int64(gz.Len()))
	if err != nil || !bytes.Equal(out, page) {
		t.Fatalf("gzip: %d bytes, err %v", len(out), err)
	}
	// a body far shorter than declared (a HEAD's, a 304's) keeps no buffer of the declared size
	if out, _, err := readBody(bytes.NewReader(nil), "", 10<<20, false, 1<<20); err != nil || cap(out) > 4096 {
		t.Fatalf("empty body declared 1 MiB: cap %d, err %v", cap(out), err)
	}
	if _, _, err := readBody(bytes.NewReader(page), "", 1000, false, 500); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap with a short declared length: err %v", err)
	}
}
