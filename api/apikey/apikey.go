package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"strings"
)

// Prefixes of live and sandbox keys. The service name comes first so secret scanners can tell our
// keys from other vendors' (sk_ is Stripe's).
const (
	LivePrefix = "asa_live_"
	TestPrefix = "asa_test_"
)

const (
	prefixLen   = len(LivePrefix) // the same for TestPrefix; checked at the end of the file
	randomLen   = 30              // ≈178 bits of entropy
	checksumLen = 6               // 62^6 > 2^32, so any CRC32 fits

	// Len is the length of every well-formed key.
	Len = prefixLen + randomLen + checksumLen
	// ShortLen is the length of the short prefix (spec 2.7): the characters after the key prefix
	// that identify a key in dashboards and logs. They are 12 of the 30 random characters, so a
	// short prefix leaks about 71 bits and leaves more than 100 secret.
	ShortLen = 12
)

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Errors returned by Parse. Both mean "not a key we could have issued"; a caller answers 401
// unauthorized to either, and never echoes the input.
var (
	ErrMalformed = errors.New("malformed api key")
	ErrChecksum  = errors.New("api key checksum mismatch")
)

// Key is a well-formed API key. The zero Key is not a valid key.
//
// Its String method returns the full secret. Never log it, put it in an error, a batch record or a
// webhook: hand the Key itself to slog (LogValue prints only the short prefix) or use Short.
type Key struct {
	s string
}

// Generate returns a new random key, a sandbox key if test is true. It fails only if the operating
// system's random source does.
func Generate(test bool) (Key, error) {
	prefix := LivePrefix
	if test {
		prefix = TestPrefix
	}
	b := make([]byte, Len)
	copy(b, prefix)
	if err := randomBase62(b[prefixLen : prefixLen+randomLen]); err != nil {
		return Key{}, fmt.Errorf("generating api key: %w", err)
	}
	putChecksum(b[prefixLen+randomLen:], checksum(string(b[:prefixLen+randomLen])))
	return Key{s: string(b)}, nil
}

// randomBase62 fills dst with uniformly distributed base62 characters. Bytes of 248 and above are
// rejected: 248 = 4*62, so keeping b%62 only for b < 248 gives every character the same odds, where
// a plain b%62 would favour the first 8 characters.
func randomBase62(dst []byte) error {
	var buf [64]byte
	n := 0
	for n < len(dst) {
		if _, err := rand.Read(buf[:]); err != nil {
			return err
		}
		for _, c := range buf {
			if c >= 248 {
				continue
			}
			dst[n] = alphabet[c%62]
			n++
			if n == len(dst) {
				break
			}
		}
	}
	return nil
}

var crcTable = crc32.MakeTable(crc32.IEEE)

// checksum is CRC32-IEEE over a string. hash/crc32 takes a []byte that escapes, which would cost
// an allocation per request; 39 bytes through the table loop is as fast.
func checksum(s string) uint32 {
	crc := ^uint32(0)
	for i := 0; i < len(s); i++ {
		crc = crcTable[byte(crc)^s[i]] ^ crc>>8
	}
	return ^crc
}

// putChecksum writes v in base62, most significant digit first, left-padded with '0'.
func putChecksum(dst []byte, v uint32) {
	for i := len(dst) - 1; i >= 0; i-- {
		dst[i] = alphabet[v%62]
		v /= 62
	}
}

// Parse checks that s has the shape of a key we could have issued: a known prefix, the exact
// length, base62 characters only, and a matching checksum. It does no I/O; a key that parses may
// still be unknown or revoked.
func Parse(s string) (Key, error) {
	if len(s) != Len {
		return Key{}, ErrMalformed
	}
	if !strings.HasPrefix(s, LivePrefix) && !strings.HasPrefix(s, TestPrefix) {
		return Key{}, ErrMalformed
	}
	for i := prefixLen; i < Len; i++ {
		if !isBase62(s[i]) {
			return Key{}, ErrMalformed
		}
	}
	var want [checksumLen]byte
	putChecksum(want[:], checksum(s[:prefixLen+randomLen]))
	if string(want[:]) != s[prefixLen+randomLen:] {
		return Key{}, ErrChecksum
	}
	return Key{s: s}, nil
}

func isBase62(c byte) bool {
	return '0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z'
}

// String returns the full key. It is a secret: show it once to its owner and nowhere else.
func (k Key) String() string { return k.s }

// GoString keeps %#v, which would otherwise print the unexported field, from leaking the key.
func (k Key) GoString() string { return "apikey.Key{" + k.Short() + "}" }

// Short returns the short prefix (spec 2.7), or "" for the zero Key.
func (k Key) Short() string {
	if len(k.s) != Len {
		return ""
	}
	return k.s[prefixLen : prefixLen+ShortLen]
}

// Test reports whether k is a sandbox key. The stored key record is the authority on the mode;
// a caller should refuse a key whose prefix and record disagree.
func (k Key) Test() bool { return strings.HasPrefix(k.s, TestPrefix) }

// Hash returns the SHA-256 of the full key, the only form in which a key is stored. A fast hash is
// enough: with 178 random bits there is nothing to brute-force, and a slow one would cost every
// request.
func (k Key) Hash() [32]byte {
	// An array rather than []byte(k.s): longer than 32 bytes, that conversion would allocate.
	var b [Len]byte
	n := copy(b[:], k.s)
	return sha256.Sum256(b[:n])
}

// HashHex returns Hash in lowercase hex, as stored.
func (k Key) HashHex() string {
	h := k.Hash()
	return hex.EncodeToString(h[:])
}

// LogValue makes a Key passed to slog print its short prefix only.
func (k Key) LogValue() slog.Value { return slog.StringValue(k.Short()) }

// Compile-time check that both prefixes have the same length, which the offsets above assume.
var (
	_ [len(LivePrefix) - len(TestPrefix)]struct{}
	_ [len(TestPrefix) - len(LivePrefix)]struct{}
)
