package frontend

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/seqd/seqd/sqlerr"
)

// A statement's text costs far more memory once parsed and built than
// it takes as text: a node for each literal, name and argument, each of
// a few hundred bytes. Measured over the shapes that cost most (a list
// of 20,000 literals, names, markers or arguments, long CASEs, stacked
// statements; TestParseCostBound), MySQL's parser and the translation
// after it take up to about 730 bytes per byte of text and PostgreSQL's
// up to about 400: the 1 MiB a message may be (-max-statement-bytes)
// becomes up to 730 MB. Bounded per connection only, a few connections
// sending such statements at once would take the server's memory.
//
// Most of that is garbage once the statement is built: what a prepared
// statement keeps is a few times its text, and is bounded per
// connection. So the text of a long statement, LongStatement bytes or
// more, is charged ParseCostPerByte bytes per byte to one room every
// front end's connections share (-max-parse-memory) while its statement
// is parsed and built (PostgreSQL's Parse, MySQL's COM_STMT_PREPARE) or,
// sent to run at once, parsed, built and put under way (a Query, until
// its last statement's rows begin) or run (COM_QUERY, the execution of a
// MySQL statement built again with its values, whose parse trees the
// run reads), and not while its last result is sent. A query of several
// statements holds it while the results of all but its last are sent
// (the parse trees of those after are still needed): each write must
// then be taken within ParseRoomWait where -idle-timeout does not bound
// writes, or the connection ends, as a MariaDB connection does past
// net_write_timeout, so that a client that does not read holds the room
// no longer. One that finds no room waits for it, while its client
// waits anyway, for up to ParseRoomWait, then fails with 53200 (MySQL's
// 1041) and the connection goes on. A statement whose cost is more than
// the whole room is charged the whole room: it runs alone. Shorter
// statements, whatever an application sends to take values, take nothing
// from the room and no lock: each connection's cost below LongStatement
// is at most LongStatement×ParseCostPerByte (16 MiB), a bound per
// connection like the others (docs/limits.md).
const (
	LongStatement    = 16 << 10
	ParseCostPerByte = 1024
	// DefaultParseRoom is -max-parse-memory's default: one statement
	// of 1 MiB, or 64 of 16 KiB, at once.
	DefaultParseRoom = 1 << 30
	ParseRoomWait    = 30 * time.Second
)

// parseRoom is the room long statements share (LongStatement).
type parseRoom struct {
	size int64 // ≤ 0: no bound
	sem  *semaphore.Weighted
	wait time.Duration
}

func newParseRoom(size int64) *parseRoom {
	r := &parseRoom{size: size, wait: ParseRoomWait}
	if size > 0 {
		r.sem = semaphore.NewWeighted(size)
	}
	return r
}

// noRoom gives nothing back: what a short statement takes.
func noRoom() {}

// SetParseRoom makes the room long statements share size bytes (≤ 0: no
// bound; DefaultParseRoom until set). It is set before the server
// serves.
func (r *Registry) SetParseRoom(size int64) { r.parse = newParseRoom(size) }

// TakeParseRoom takes the room a statement of n bytes of text needs
// (LongStatement), waiting for it up to
// ParseRoomWait or until ctx ends; release gives it back, once however
// often it is called. A statement shorter than LongStatement takes
// nothing and costs a comparison.
func (r *Registry) TakeParseRoom(ctx context.Context, n int) (release func(), err error) {
	p := r.parse
	if n < LongStatement || p.sem == nil {
		return noRoom, nil
	}
	cost := min(int64(n)*ParseCostPerByte, p.size)
	wctx, cancel := context.WithTimeout(ctx, p.wait)
	err = p.sem.Acquire(wctx, cost)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // cancelled, or its connection ended: each front end words it
		}
		return nil, sqlerr.Errorf(sqlerr.OutOfMemory,
			"the server is parsing other long statements and has no room for this one (%d bytes of text, counted as %d bytes of memory, of -max-parse-memory's %d) after %v; try again",
			n, cost, p.size, p.wait)
	}
	var once sync.Once
	return func() { once.Do(func() { p.sem.Release(cost) }) }, nil
}
