package pgwire

import (
	"errors"
	"net"
	"syscall"
	"time"

	"github.com/seqd/seqd/frontend"
)

// A client that goes away while its statement runs should not leave the
// statement running: PostgreSQL 14's client_connection_check_interval
// looks at the socket now and then, and so does seqd. Once every
// aliveInterval one goroutine of the server (sweepAlive) looks at every
// connection; one still running the same statement (a Query or an
// Execute) as at its last look has run for at least aliveInterval, and
// its socket is peeked at (without reading: MSG_PEEK, MSG_DONTWAIT). A
// socket closed by its peer cancels the statement's context with
// errClientGone, so the statement stops at its next check (budget.go in
// the executor), between one and two intervals after the client left.
// A statement costs one increment under the lock begin takes anyway.

const aliveInterval = time.Second

var errClientGone = errors.New("the client closed its connection")

// sweepAlive checks the connections' clients every aliveInterval until
// the server shuts down.
func (s *Server) sweepAlive() {
	frontend.Sweep(aliveInterval, s.stopSweep, &s.mu, s.conns, func(c *conn) {
		if nc, long := c.runningLong(); long && peerClosed(nc) {
			c.mu.Lock()
			if c.busy && c.statement && c.ctx != nil {
				c.cancel(errClientGone)
			}
			c.mu.Unlock()
		}
	})
}

// runningLong reports whether c has run the same statement since the
// sweeper's last look, with its connection, and notes what it runs now.
func (c *conn) runningLong() (net.Conn, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	long := c.busy && c.statement && c.runs == c.seenRuns && c.ctx != nil && !done(c.ctx)
	c.seenRuns = c.runs
	return c.nc, long
}

// peerClosed reports whether nc's peer closed it: a read would return
// end of file at once. Data waiting (a pipelined message) means it is
// there; anything unknown counts as there.
func peerClosed(nc net.Conn) bool {
	for { // a TLS connection's, an admitted connection's
		w, ok := nc.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		nc = w.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var b [1]byte
	rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && err == nil
		return true
	})
	return closed
}
