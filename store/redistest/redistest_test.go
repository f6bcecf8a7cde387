package redistest_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"asa/store/redistest"
)

// TestStartStop: a server answers on its loopback port until Stop, and Stop frees the port.
func TestStartStop(t *testing.T) {
	s, err := redistest.Start(context.Background())
	if errors.Is(err, redistest.ErrMissing) && !redistest.InCI() {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		t.Fatalf("not listening: %v", err)
	}
	c.Close()
	s.Stop()
	s.Stop() // twice is harmless
	if c, err := net.DialTimeout("tcp", s.Addr, time.Second); err == nil {
		c.Close()
		t.Fatal("still listening after Stop")
	}
}
