package bench

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Server CPU per operation: the CPU time (user + system) of the server's
// process tree during a point, divided by the point's operations. On a
// machine where the clients share the cores it is the figure that
// predicts throughput on a dedicated server. The server is found by the
// port it listens on (/proc/net/tcp and the processes' sockets); the tree
// is the process and its children (PostgreSQL's backends), exited ones
// counted by the kernel in their parent's cutime and cstime. A server
// running inside seqbench itself (the in-process no-op responder) cannot
// be told from the clients, and is not measured.

// clockTick is USER_HZ, the unit of /proc/*/stat's times; Linux fixes it
// at 100 for user space.
const clockTick = 10 * time.Millisecond

// cpuProbe reads a server's CPU time; nil when the server is not known.
type cpuProbe struct{ pid int }

// probeFor finds t's server process, or returns nil.
func probeFor(t Target) *cpuProbe {
	port := dsnPort(t)
	if port == 0 {
		return nil
	}
	pid := listenerPID(port)
	if pid == 0 || pid == os.Getpid() {
		return nil
	}
	return &cpuProbe{pid: pid}
}

// dsnPort is the TCP port of a target's DSN (a URL or a go-sql-driver DSN
// with tcp(host:port)).
func dsnPort(t Target) int {
	// A go-sql-driver DSN first: one without a password
	// ("user@tcp(127.0.0.1:3306)/db") has a single colon, and would
	// otherwise read as a gRPC target's host:port.
	hostport := ""
	if i := strings.Index(t.DSN, "tcp("); i >= 0 {
		rest := t.DSN[i+4:]
		if j := strings.IndexByte(rest, ')'); j >= 0 {
			hostport = rest[:j]
		}
	} else if u, err := url.Parse(t.DSN); err == nil && u.Host != "" {
		hostport = u.Host
	} else {
		hostport = t.DSN // a gRPC target's host:port
	}
	_, p, err := net.SplitHostPort(hostport)
	if err != nil {
		return 0
	}
	port, _ := strconv.Atoi(p)
	return port
}

// listenerPID is the process listening on a local TCP port, 0 if none is
// found.
func listenerPID(port int) int {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// local_address is HEX_IP:HEX_PORT; state 0A is LISTEN.
			if len(fields) < 10 || fields[3] != "0A" {
				continue
			}
			if i := strings.LastIndexByte(fields[1], ':'); i >= 0 {
				if p, err := strconv.ParseInt(fields[1][i+1:], 16, 32); err == nil && int(p) == port {
					inodes["socket:["+fields[9]+"]"] = true
				}
			}
		}
		fh.Close()
	}
	if len(inodes) == 0 {
		return 0
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && inodes[target] {
			pid, _ := strconv.Atoi(strings.Split(fd, "/")[2])
			return pid
		}
	}
	return 0
}

// read is the CPU time the server's process tree has used so far.
func (p *cpuProbe) read() (time.Duration, error) {
	total, _, err := p.readSplit()
	return total, err
}

// readSplit is read, and of it the time spent in the kernel (system
// time): a round trip's system calls, which no server on this machine
// can do without.
func (p *cpuProbe) readSplit() (total, system time.Duration, err error) {
	children := map[int][]int{}
	stats := map[int][4]int64{}
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // exited meanwhile
		}
		pid, ppid, times, ok := parseStat(string(b))
		if !ok {
			continue
		}
		stats[pid] = times
		children[ppid] = append(children[ppid], pid)
	}
	if _, ok := stats[p.pid]; !ok {
		return 0, 0, fmt.Errorf("server process %d is gone", p.pid)
	}
	var ticks, sys int64
	var walk func(pid int)
	walk = func(pid int) {
		t := stats[pid]
		ticks += t[0] + t[1] + t[2] + t[3]
		sys += t[1] + t[3]
		for _, c := range children[pid] {
			walk(c)
		}
	}
	walk(p.pid)
	return time.Duration(ticks) * clockTick, time.Duration(sys) * clockTick, nil
}

// parseStat reads pid, ppid and utime, stime, cutime, cstime from a
// /proc/PID/stat line; the command name, in parentheses, may hold spaces.
func parseStat(s string) (pid, ppid int, times [4]int64, ok bool) {
	open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || close < open {
		return 0, 0, times, false
	}
	pid, _ = strconv.Atoi(strings.TrimSpace(s[:open]))
	f := strings.Fields(s[close+1:])
	// After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
	if len(f) < 15 {
		return 0, 0, times, false
	}
	ppid, _ = strconv.Atoi(f[1])
	for i := range times {
		times[i], _ = strconv.ParseInt(f[11+i], 10, 64)
	}
	return pid, ppid, times, true
}
