package api

import (
	"regexp"
	"testing"
	"time"
)

// TestRequestIDsGrowWithTime: request ids keep their format, sort in the order they were made
// (so the ledger's and the request log's unique indexes grow at one edge), and ids made in the
// same millisecond still differ.
func TestRequestIDsGrowWithTime(t *testing.T) {
	format := regexp.MustCompile(`^req_[0-9a-f]{24}$`)
	prev := newRequestID()
	seen := map[string]bool{prev: true}
	for range 5 {
		time.Sleep(2 * time.Millisecond)
		id := newRequestID()
		if !format.MatchString(id) {
			t.Fatalf("request id %q", id)
		}
		if id <= prev {
			t.Errorf("%s made after %s sorts before it", id, prev)
		}
		prev = id
	}
	for range 10000 {
		id := newRequestID()
		if seen[id] {
			t.Fatalf("request id %s made twice", id)
		}
		seen[id] = true
	}
}
