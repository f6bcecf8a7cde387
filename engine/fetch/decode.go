package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// AcceptEncoding is what we decode, sent by default.
const AcceptEncoding = "gzip, deflate, br, zstd"

// zstdMaxWindow bounds the zstd window a target may ask for (the format allows far more).
const zstdMaxWindow = 8 << 20

// Reading a body into a buffer that starts small and doubles left about twice the page in garbage
// (4.2 MB for a 1.5 MB page) and copied it a dozen times. A body that is not encoded and declares
// its length (Content-Length) is read into a buffer of that size. A target may declare more than
// it sends, so the size taken on its word is capped at presizeMax: no more than an ordinary big
// page ever costs; past it the buffer grows as before. Any other body (chunked, or encoded, whose
// decoded length no header tells) is read in pieces and copied once into a slice of its length
// (readChunked).
const presizeMax = 2 << 20

// presize is the buffer size readBody starts with for an unencoded body of the declared length
// (-1 unknown; 0: read in pieces).
func presize(declared int64, max int64) int {
	if declared <= 0 {
		return 0
	}
	return int(min(declared, max, presizeMax)) + bytes.MinRead
}

// readBody reads body, undoing a single Content-Encoding layer, into memory. Both the wire bytes
// and the decoded bytes are capped at max; over either: ErrTooLarge (or, with truncate, the first
// max decoded bytes and truncated=true). Memory stays near max plus the decoder's window.
// declared is the length the answer declares (-1 when it does not), which sizes the buffer.
func readBody(body io.Reader, contentEncoding string, max int64, truncate bool, declared int64, chunks *chunkPool) (out []byte, truncated bool, err error) {
	codings := parseCodings(contentEncoding)
	if len(codings) > 1 {
		return nil, false, fmt.Errorf("%w: %q (one layer at most)", ErrUnsupportedEncoding, contentEncoding)
	}
	wire := &capReader{r: body, left: max + 1}
	var r io.Reader = wire
	if len(codings) == 1 {
		br := bufio.NewReaderSize(wire, 512)
		if _, err := br.Peek(1); err == io.EOF {
			return []byte{}, false, nil // an empty body needs no decoder (HEAD, 204, 304)
		}
		switch codings[0] {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(br)
			if err != nil {
				return nil, false, fmt.Errorf("gzip: %w", err)
			}
			defer zr.Close()
			r = zr
		case "deflate":
			// RFC 9110 deflate is zlib-wrapped; some servers send raw deflate, as browsers accept.
			hdr, _ := br.Peek(2)
			if len(hdr) == 2 && hdr[0]&0x0f == 8 && (uint16(hdr[0])<<8|uint16(hdr[1]))%31 == 0 {
				zr, err := zlib.NewReader(br)
				if err != nil {
					return nil, false, fmt.Errorf("deflate: %w", err)
				}
				defer zr.Close()
				r = zr
			} else {
				fr := flate.NewReader(br)
				defer fr.Close()
				r = fr
			}
		case "br":
			r = brotli.NewReader(br)
		case "zstd":
			zr, err := zstd.NewReader(br,
				zstd.WithDecoderConcurrency(1),
				zstd.WithDecoderLowmem(true),
				zstd.WithDecoderMaxWindow(zstdMaxWindow),
				zstd.WithDecoderMaxMemory(uint64(max)+1))
			if err != nil {
				return nil, false, fmt.Errorf("zstd: %w", err)
			}
			defer zr.Close()
			r = zr
		default:
			return nil, false, fmt.Errorf("%w: %q", ErrUnsupportedEncoding, codings[0])
		}
	}
	var buf []byte
	var n int64
	if size := presize(declared, max); size > 0 && len(codings) == 0 {
		var b bytes.Buffer
		b.Grow(size)
		n, err = io.Copy(&b, io.LimitReader(r, max+1))
		buf = b.Bytes()
		if cap(buf)-len(buf) > len(buf)+4096 {
			// far less than declared (a HEAD or a 304 with the length of what it stands for, or a
			// target that said more than it sent): not kept for the run's whole life
			buf = bytes.Clone(buf)
		}
	} else {
		buf, err = readChunked(io.LimitReader(r, max+1), chunks)
		n = int64(len(buf))
	}
	if wire.over() {
		if truncate {
			return buf[:min(n, max)], true, nil
		}
		return nil, false, fmt.Errorf("%w: more than %d bytes on the wire", ErrTooLarge, max)
	}
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			if truncate {
				return buf[:min(n, max)], true, nil
			}
			return nil, false, fmt.Errorf("%w: %v", ErrTooLarge, err)
		}
		return nil, false, err
	}
	if n > max {
		if truncate {
			return buf[:max], true, nil
		}
		return nil, false, fmt.Errorf("%w: more than %d bytes decoded", ErrTooLarge, max)
	}
	return buf, false, nil
}

// chunkSize is the piece a body of unknown length is read in.
const chunkSize = 32 << 10

// chunkPool lends the pieces readChunked reads into; nil allocates them.
type chunkPool struct{ p sync.Pool }

func (cp *chunkPool) get() *[chunkSize]byte {
	if cp != nil {
		if c, ok := cp.p.Get().(*[chunkSize]byte); ok {
			return c
		}
	}
	return new([chunkSize]byte)
}

func (cp *chunkPool) put(c *[chunkSize]byte) {
	if cp != nil {
		cp.p.Put(c)
	}
}

// readChunked reads r to its end into pieces from cp, then copies them into one slice of exactly
// the length read, which it returns with the error that ended the read (nil at EOF). Most answers
// declare no length that fits the decoded body (chunked, or encoded), and a buffer doubling to fit
// left up to twice the body in garbage per page: 65 KB for the load test's 22 KB page.
func readChunked(r io.Reader, cp *chunkPool) ([]byte, error) {
	var pieces []*[chunkSize]byte
	defer func() {
		for _, c := range pieces {
			cp.put(c)
		}
	}()
	last, total := chunkSize, 0 // bytes in the last piece, in all
	var err error
	for {
		if last == chunkSize {
			pieces = append(pieces, cp.get())
			last = 0
		}
		var m int
		m, err = r.Read(pieces[len(pieces)-1][last:])
		last += m
		total += m
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			break
		}
	}
	out := make([]byte, total)
	off := 0
	for _, c := range pieces {
		off += copy(out[off:], c[:min(chunkSize, total-off)])
	}
	return out, err
}

// parseCodings lists the Content-Encoding layers, lower-case, without identity.
func parseCodings(h string) []string {
	var out []string
	for _, c := range strings.Split(h, ",") {
		c = strings.ToLower(strings.TrimSpace(c))
		if c == "" || c == "identity" {
			continue
		}
		out = append(out, c)
	}
	return out
}

// capReader reads at most left bytes (the cap plus one); over reports that the cap was passed.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

func (c *capReader) over() bool { return c.left <= 0 }
