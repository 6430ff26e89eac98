package pgwire

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
	"time"
)

// A client that goes away while its statement runs should not leave the
// statement running: PostgreSQL 14's client_connection_check_interval
// looks at the socket now and then, and so does seqd. While a message
// has been executing for aliveInterval, a timer peeks at the socket
// (without reading: MSG_PEEK, MSG_DONTWAIT); a socket closed by its peer
// cancels the message's context with errClientGone, so the statement
// stops at its next check (budget.go in the executor). One timer per
// connection, reset for each message that runs a statement (a Query, an
// Execute): an ordinary statement that ends sooner costs a reset and a
// stop; the protocol's other messages cost nothing.

const aliveInterval = time.Second

var errClientGone = errors.New("the client closed its connection")

// watchAlive arms the liveness check for the message begun under ctx.
// REQUIRES: c.mu held.
func (c *conn) watchAliveLocked() {
	if c.alive == nil {
		c.alive = time.AfterFunc(aliveInterval, c.checkAlive)
		return
	}
	c.alive.Reset(aliveInterval)
}

// checkAlive cancels the running message if the client has gone, or looks
// again later.
func (c *conn) checkAlive() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.busy || c.ctx == nil || done(c.ctx) {
		return
	}
	if peerClosed(c.nc) {
		c.cancel(errClientGone)
		return
	}
	c.alive.Reset(aliveInterval)
}

// peerClosed reports whether nc's peer closed it: a read would return
// end of file at once. Data waiting (a pipelined message) means it is
// there; anything unknown counts as there.
func peerClosed(nc net.Conn) bool {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
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

// stopAlive disarms the check when a message ends.
// REQUIRES: c.mu held.
func (c *conn) stopAliveLocked() {
	if c.alive != nil {
		c.alive.Stop()
	}
}
