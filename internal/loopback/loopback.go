// Package loopback finds free addresses on the loopback interface, for
// servers started a moment later (seqbench's and the torture harness's
// nodes, etcd members, tests).
//
// An address is free when it is handed out, not when it is bound: in
// between, anything on the machine may take its port. Ports the kernel
// picks itself (a listener on port 0, the local end of every outgoing
// connection) come from its ephemeral range, which every test process
// running beside this one draws from all the time; so these ports are
// drawn at random from outside that range, where only a caller of this
// package (or a server configured to) binds, and a port this process
// handed out is not handed out again while it runs.
package loopback

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
)

// FreeAddr is a loopback address nobody listens on now. Another process
// may take it before the caller binds it (seldom: see the package's
// comment); callers that can listen on port 0 instead should.
func FreeAddr() (string, error) {
	p, err := FreePort()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("127.0.0.1:%d", p), nil
}

var (
	mu     sync.Mutex
	given  = map[int]bool{}
	ranges [][2]int // where ports are drawn from, [lo, hi)
)

// FreePort is a loopback port nobody listens on now, as FreeAddr.
func FreePort() (int, error) {
	mu.Lock()
	defer mu.Unlock()
	if ranges == nil {
		ranges = outsideEphemeral(ephemeralRange())
	}
	size := 0
	for _, r := range ranges {
		size += r[1] - r[0]
	}
	for range 1000 {
		n := rand.IntN(size)
		port := 0
		for _, r := range ranges {
			if n < r[1]-r[0] {
				port = r[0] + n
				break
			}
			n -= r[1] - r[0]
		}
		if given[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue // taken
		}
		ln.Close()
		given[port] = true
		return port, nil
	}
	return 0, fmt.Errorf("loopback: no free port found outside the ephemeral range in 1000 tries")
}

// ephemeralRange is the kernel's range of ports it picks itself, Linux's
// default where it cannot be read.
func ephemeralRange() (lo, hi int) {
	lo, hi = 32768, 60999
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return lo, hi
	}
	var l, h int
	if _, err := fmt.Sscan(string(b), &l, &h); err == nil && 0 < l && l <= h && h <= 65535 {
		lo, hi = l, h
	}
	return lo, hi
}

// outsideEphemeral is what of [10000, 65536) lies outside [lo, hi], or
// the whole of it if too little does (a machine whose ephemeral range
// covers almost every port).
func outsideEphemeral(lo, hi int) [][2]int {
	var rs [][2]int
	if lo > 10000 {
		rs = append(rs, [2]int{10000, lo})
	}
	if hi < 65535 {
		rs = append(rs, [2]int{max(hi+1, 10000), 65536})
	}
	size := 0
	for _, r := range rs {
		size += r[1] - r[0]
	}
	if size < 1000 {
		return [][2]int{{10000, 65536}}
	}
	return rs
}
