package fetch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

func TestPresize(t *testing.T) {
	const max = 10 << 20
	for _, c := range []struct {
		declared int64
		max      int64
		want     int
	}{
		{-1, max, 0},
		{0, max, 0},
		{1000, max, 1000 + bytes.MinRead},
		{1 << 30, max, presizeMax + bytes.MinRead}, // a length claimed, not yet sent
		{1000, 100, 100 + bytes.MinRead},
	} {
		if got := presize(c.declared, c.max); got != c.want {
			t.Errorf("presize(%d, %d) = %d, want %d", c.declared, c.max, got, c.want)
		}
	}
}

// TestReadBodyDeclaredLength: a body of the length it declares is read into one buffer of that
// size (a doubling buffer ends well past it), whatever the declared length, the bytes are the
// body's, and a declared length never lifts the cap.
func TestReadBodyDeclaredLength(t *testing.T) {
	page := bytes.Repeat([]byte("<p>0123456789</p>\n"), 100000/18)
	for _, declared := range []int64{-1, int64(len(page)), 10, 1 << 30} {
		out, truncated, err := readBody(bytes.NewReader(page), "", 10<<20, false, declared, nil)
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
	out, _, err := readBody(bytes.NewReader(gz.Bytes()), "gzip", 10<<20, false, int64(gz.Len()), nil)
	if err != nil || !bytes.Equal(out, page) || cap(out) != len(page) {
		t.Fatalf("gzip: %d bytes in a buffer of %d, err %v", len(out), cap(out), err)
	}
	// a body far shorter than declared (a HEAD's, a 304's) keeps no buffer of the declared size
	if out, _, err := readBody(bytes.NewReader(nil), "", 10<<20, false, 1<<20, nil); err != nil || cap(out) > 4096 {
		t.Fatalf("empty body declared 1 MiB: cap %d, err %v", cap(out), err)
	}
	if _, _, err := readBody(bytes.NewReader(page), "", 1000, false, 500, nil); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap with a short declared length: err %v", err)
	}
}

// TestReadChunked: a body of unknown length comes out whole, in a slice of exactly its length,
// whatever its size against the pieces and however the reader splits it; a read error ends it with
// what came before.
func TestReadChunked(t *testing.T) {
	var pool chunkPool
	for _, n := range []int{0, 1, chunkSize - 1, chunkSize, chunkSize + 1, 3*chunkSize + 17} {
		body := make([]byte, n)
		for i := range body {
			body[i] = byte(i*7 + i/chunkSize)
		}
		for name, r := range map[string]func() io.Reader{
			"whole":    func() io.Reader { return bytes.NewReader(body) },
			"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(body)) },
			"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(body)) },
			"data+EOF": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(body)) },
		} {
			for _, cp := range []*chunkPool{nil, &pool} {
				out, err := readChunked(r(), cp)
				if err != nil || !bytes.Equal(out, body) || cap(out) != n {
					t.Fatalf("%d bytes, %s, pool %v: %d bytes (cap %d), equal %v, err %v", n, name, cp != nil, len(out), cap(out), bytes.Equal(out, body), err)
				}
			}
		}
		boom := errors.New("boom")
		out, err := readChunked(io.MultiReader(bytes.NewReader(body), iotest.ErrReader(boom)), &pool)
		if !errors.Is(err, boom) || !bytes.Equal(out, body) {
			t.Fatalf("%d bytes then an error: %d bytes, err %v", n, len(out), err)
		}
	}
}

// BenchmarkReadBody: the bytes allocated per body (B/op) for a gzipped 100 KB page and a chunked
// (undeclared) one, both read through the client's piece pool: about the page's size once.
func BenchmarkReadBody(b *testing.B) {
	page := bytes.Repeat([]byte("<div class=\"s-result-item\"><a href=\"/dp/B0TEST1234\">Product</a></div>\n"), 100000/70)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(page)
	w.Close()
	var pool chunkPool
	for _, bc := range []struct {
		name     string
		body     []byte
		encoding string
		declared int64
	}{
		{"gzip", gz.Bytes(), "gzip", int64(gz.Len())},
		{"chunked", page, "", -1},
		{"declared", page, "", int64(len(page))},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				out, _, err := readBody(bytes.NewReader(bc.body), bc.encoding, 10<<20, false, bc.declared, &pool)
				if err != nil || len(out) != len(page) {
					b.Fatal(len(out), err)
				}
			}
		})
	}
}
