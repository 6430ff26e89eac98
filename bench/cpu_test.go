package bench

import (
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	pid, ppid, times, ok := parseStat("1234 (a (b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 7 3 2 1 20 0 1 0 100 0 0")
	if !ok || pid != 1234 || ppid != 1 || times != [4]int64{7, 3, 2, 1} {
		t.Fatalf("got %d %d %v %v", pid, ppid, times, ok)
	}
	if _, _, _, ok := parseStat("garbage"); ok {
		t.Fatal("garbage parsed")
	}
}

// TestCPUProbe finds this process by a port it listens on and sees its
// CPU time grow while it computes.
func TestCPUProbe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	if pid := listenerPID(port); pid != os.Getpid() {
		t.Fatalf("listener of port %d: pid %d, want %d", port, pid, os.Getpid())
	}
	if p := probeFor(Target{DSN: "postgres://x@" + ln.Addr().String() + "/db"}); p != nil {
		t.Fatal("a server inside seqbench itself must not be measured")
	}
	p := &cpuProbe{pid: os.Getpid()}
	before, err := p.read()
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for start := time.Now(); time.Since(start) < 300*time.Millisecond; {
		x++
	}
	after, err := p.read()
	if err != nil {
		t.Fatal(err)
	}
	if after <= before {
		t.Fatalf("CPU time did not grow over 300ms of work (%d iterations): %v then %v", x, before, after)
	}
	// System time: it grows with system calls, and is part of the total.
	total0, sys0, err := p.readSplit()
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for start := time.Now(); time.Since(start) < 300*time.Millisecond; calls++ {
		syscall.Getppid()
		os.Stat("/proc/self/stat")
	}
	total1, sys1, err := p.readSplit()
	if err != nil {
		t.Fatal(err)
	}
	if sys1 <= sys0 || sys1 > total1 || sys1-sys0 > total1-total0 {
		t.Fatalf("system time over 300ms of system calls (%d): %v then %v, of totals %v then %v", calls, sys0, sys1, total0, total1)
	}
	for dsn, want := range map[string]int{
		"u:p@tcp(127.0.0.1:3306)/db":                     3306,
		"seqbench@tcp(127.0.0.1:3307)/public":            3307, // no password: one colon
		"postgres://u@127.0.0.1:6543/db?sslmode=disable": 6543,
		"127.0.0.1:9090":                                 9090, // gRPC
		"http://127.0.0.1:8080":                          8080,
		"host=/tmp dbname=x":                             0,
	} {
		if got := dsnPort(Target{DSN: dsn}); got != want {
			t.Errorf("dsnPort(%q) = %d, want %d", dsn, got, want)
		}
	}
}
