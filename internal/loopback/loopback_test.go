package loopback

import (
	"net"
	"slices"
	"strconv"
	"testing"
)

// TestFreePortOutsideEphemeral: ports come from outside the kernel's
// ephemeral range, are never handed out twice, and can be bound.
func TestFreePortOutsideEphemeral(t *testing.T) {
	lo, hi := ephemeralRange()
	seen := map[int]bool{}
	for range 200 {
		p, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if lo <= p && p <= hi {
			t.Fatalf("port %d is in the ephemeral range [%d, %d]", p, lo, hi)
		}
		if seen[p] {
			t.Fatalf("port %d handed out twice", p)
		}
		seen[p] = true
	}
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	if p, _ := strconv.Atoi(port); seen[p] {
		t.Fatalf("FreeAddr handed out port %d again", p)
	}
}

func TestOutsideEphemeral(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int
		want   [][2]int
	}{
		{32768, 60999, [][2]int{{10000, 32768}, {61000, 65536}}},
		{1024, 65535, [][2]int{{10000, 65536}}}, // nothing left outside: anywhere
		{10000, 64000, [][2]int{{64001, 65536}}},
		{10000, 65000, [][2]int{{10000, 65536}}}, // too few above it
		{40000, 65535, [][2]int{{10000, 40000}}},
	} {
		if got := outsideEphemeral(tc.lo, tc.hi); !slices.Equal(got, tc.want) {
			t.Errorf("outsideEphemeral(%d, %d) = %v, want %v", tc.lo, tc.hi, got, tc.want)
		}
	}
}
