// One client connection: its read loop, the output buffer, idle and
// liveness timers, each statement's context and limits, and the logging
// of failed statements.

package pgwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
)

// conn is one client connection, served by one goroutine.
type conn struct {
	srv *Server
	nc  net.Conn // replaced, under mu, by the TLS connection after startTLS
	// admitted is the connection as accepted, counted in the budget.
	admitted *frontend.Conn
	recv     *receiver // reads messages; send and flush write them
	w        io.Writer // where flush writes (the connection, with its write timeout)
	// wbuf holds the messages sent and not yet flushed. It keeps its
	// capacity across flushes, where pgproto3's Backend shrinks its own
	// to 1 KiB after each, so a pipeline's answer would grow it afresh
	// every time.
	wbuf      []byte
	encodeErr error
	tls       bool              // the connection speaks TLS
	binding   []byte            // with TLS: the tls-server-end-point channel binding (tlsauth.go)
	certName  string            // with TLS: the verified client certificate's common name
	sess      *executor.Session // set by startup
	eng       *engine.Engine    // the engine it serves, set by startup
	user      string            // the startup message's, for the log
	standby   bool

	pid    uint32 // BackendKeyData: what a CancelRequest names
	secret [4]byte

	mu   sync.Mutex
	busy bool // executing a message: shutdown waits for it
	// statement: the message executing runs a statement; runs counts
	// them, seenRuns is the count at the liveness sweep's last look
	// (alive.go).
	statement      bool
	runs, seenRuns uint64
	stopping       bool
	ctx            context.Context // the running message's; canceled by a CancelRequest or a shutdown's deadline
	cancel         context.CancelCauseFunc

	// stmts and portals are the extended protocol's, by name;
	// preparedBytes is what the named ones hold, as estimated, bounded
	// with their count (prepared.go).
	stmts         map[string]*prepared
	portals       map[string]*portal
	preparedBytes int64

	failed bool // an extended-protocol error: skip until Sync
	// ran, while a long simple query's last statement runs, is called
	// once it is under way, before its rows are sent (simpleQuery);
	// holdsRoom: the query holds room long statements share, so a write
	// must be taken within roomWriteWait.
	ran       func()
	holdsRoom bool
	// idleArmed: a read deadline for idleness is set; idleKind says which
	// timeout it is (armIdle).
	idleArmed bool
	idleKind  sqlerr.Kind
	// inRequest: extended-protocol messages arrived that their Sync has
	// not yet closed; shutdown lets the request finish.
	inRequest bool
	rows      encodedRows              // sendRows' scratch: DataRows in wire form
	rd        pgproto3.RowDescription  // rowDescription's scratch
	tag       []byte                   // the command tag's scratch
	cc        pgproto3.CommandComplete // commandComplete's reused message
	// wallAt is the wall clock as now last read it, in this answer (zero:
	// not yet; flush clears it).
	wallAt time.Time
	// endedAt is when the last Execute ended, as observe read it, and
	// endedReads the receiver's reads then (clock).
	endedAt    time.Time
	endedReads uint64
	// executed is the portal the last Execute ran, for its command tag
	// (nil: none, or an SQL cursor's).
	executed *portal
	// observed is OnStatement's answer for the last (tag, code).
	observed struct {
		tag, code string
		f         func(time.Duration)
	}
}

// send encodes msg into the write buffer.
func (c *conn) send(msg pgproto3.BackendMessage) {
	b, err := msg.Encode(c.wbuf)
	if err != nil {
		c.encodeErr = err
		return
	}
	c.wbuf = b
}

// sendReady sends ReadyForQuery with the session's transaction status,
// encoded in place: the message of every answer, which send would
// allocate (a pointer to it escapes through the interface).
func (c *conn) sendReady() {
	c.wbuf = append(c.wbuf, 'Z', 0, 0, 0, 5, c.sess.TxStatus())
}

// maxPendingWrite is how much of a request's answers is held before its
// Sync: past it, what it holds is written (a client that does not read
// then holds the connection's write, not the server's memory), as
// PostgreSQL writes its 8 KiB send buffer whenever it fills.
const maxPendingWrite = 64 << 10

// maxKeptWrite bounds the write buffer kept after a flush: a huge answer
// (a long result in the simple protocol) does not pin its memory.
const maxKeptWrite = 1 << 20

// now is the time, for a statement's metrics and pg_stat_activity: the
// wall clock is read once per answer (flush clears it), and later times
// are that reading advanced by the monotonic clock, one clock read where
// time.Now makes two (the pipelined path read the clock five times per
// statement: a tenth of its CPU). A step of the wall clock shows from the
// next answer on.
func (c *conn) now() time.Time {
	if c.wallAt.IsZero() {
		c.wallAt = time.Now()
		return c.wallAt
	}
	return c.wallAt.Add(time.Since(c.wallAt))
}

// clock is the time an Execute starts, or the session goes idle. The
// clock is read once per statement, not twice: where the last
// statement's end was read (observe) and every message since was already
// buffered, in a pipeline, the end of one statement is the start of the
// next, whose Bind it then counts (as PostgreSQL's statement time starts
// at the Bind), and the time its Sync makes the session idle. A read of
// the connection since, or a write (flush), reads the clock again, so no
// wait for the client counts in a statement's time.
func (c *conn) clock() time.Time {
	if !c.endedAt.IsZero() && c.endedReads == c.recv.reads() {
		return c.endedAt
	}
	return c.now()
}

// flush writes the messages sent so far.
func (c *conn) flush() error {
	c.wallAt, c.endedAt = time.Time{}, time.Time{}
	if err := c.encodeErr; err != nil {
		c.encodeErr = nil
		c.wbuf = c.wbuf[:0]
		return err
	}
	err := c.write(c.wbuf)
	if cap(c.wbuf) > maxKeptWrite {
		c.wbuf = nil
	} else {
		c.wbuf = c.wbuf[:0]
	}
	return err
}

// write writes b to the client: within roomWriteWait while the query
// holds room long statements share and no -idle-timeout bounds writes.
func (c *conn) write(b []byte) error {
	if c.holdsRoom && c.srv.cfg.IdleTimeout <= 0 {
		c.nc.SetWriteDeadline(time.Now().Add(roomWriteWait))
		defer c.nc.SetWriteDeadline(time.Time{})
	}
	_, err := c.w.Write(b)
	return err
}

// stop asks the connection to end after what it is executing; an idle
// connection's pending read is interrupted at once.
func (c *conn) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopping = true
	if !c.busy {
		c.nc.SetReadDeadline(time.Now())
	}
}

// begin marks the connection busy with a message and returns the context
// it runs under: the connection's, until a CancelRequest cancels it, then a
// new one. Both happen under one lock, so a cancel that finds the
// connection busy always reaches the context the message uses. stopping
// reports a shutdown.
func (c *conn) begin(statement bool) (ctx context.Context, stopping bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = true
	if c.ctx == nil || done(c.ctx) {
		c.ctx, c.cancel = context.WithCancelCause(context.Background())
	}
	c.statement = statement
	if statement {
		c.runs++
	}
	return c.ctx, c.stopping
}

// runsStatement reports whether msg runs a statement, which may run long
// enough for its client to leave (alive.go): a Query or an Execute.
func runsStatement(msg pgproto3.FrontendMessage) bool {
	switch msg.(type) {
	case *pgproto3.Query, *pgproto3.Execute:
		return true
	}
	return false
}

// done reports whether ctx is cancelled, without the lock ctx.Err takes.
func done(ctx context.Context) bool {
	select {
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// end marks the connection idle; stopping reports a shutdown.
func (c *conn) end() (stopping bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = false
	return c.stopping
}

func (c *conn) serve() {
	defer c.nc.Close()
	if !c.startup() {
		return
	}
	// A shutdown's stop during the startup set a read deadline that the
	// startup's own deadline, cleared as it returned, wiped out: the
	// connection would wait for its client's next message for good, and
	// Shutdown for it. So it is set again.
	c.mu.Lock()
	if c.stopping {
		c.nc.SetReadDeadline(time.Now())
	}
	c.mu.Unlock()
	c.stmts = map[string]*prepared{}
	c.portals = map[string]*portal{}
	defer func() {
		c.mu.Lock()
		if c.cancel != nil {
			c.cancel(context.Canceled)
		}
		c.mu.Unlock()
	}()
	for {
		c.armIdle()
		msg, err := c.recv.receive()
		// Shutting down: a request under way (extended-protocol messages
		// up to their Sync) is finished; no new one is started.
		ctx, stopping := c.begin(runsStatement(msg))
		if stopping && (err != nil || !c.inRequest) {
			c.terminate()
			return
		}
		if err != nil {
			c.receiveFailed(err)
			return
		}
		if !c.handle(ctx, msg) {
			return
		}
		if errors.Is(context.Cause(ctx), errShutdown) {
			// The shutdown's deadline stopped what this connection ran:
			// it ends with 57P01 after the rows it already sent.
			c.terminate()
			return
		}
		if c.end() && !c.inRequest {
			c.terminate()
			return
		}
	}
}

// armIdle sets the deadline for the next message: the shorter of
// IdleTimeout and the session's idle_session_timeout, or, inside a
// transaction block, its idle_in_transaction_session_timeout; a
// shutdown's deadline (stop) is left alone.
func (c *conn) armIdle() {
	d, kind := c.srv.cfg.IdleTimeout, sqlerr.IdleSessionTimeout
	if sd, sk := c.sess.IdleTimeout(); sd > 0 && (d <= 0 || sd < d) {
		d, kind = sd, sk
	}
	if d <= 0 && !c.idleArmed {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping {
		return
	}
	c.idleKind, c.idleArmed = kind, d > 0
	if d <= 0 {
		c.nc.SetReadDeadline(time.Time{})
		return
	}
	c.nc.SetReadDeadline(time.Now().Add(d))
}

// receiveFailed tells a client whose message could not be read why its
// connection ends, if it still listens. Only this connection ends.
func (c *conn) receiveFailed(err error) {
	var tooLong *pgproto3.ExceededMaxBodyLenErr
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return // the client went away
	case errors.As(err, &tooLong):
		c.fatal(sqlerr.ProgramLimitExceeded, fmt.Sprintf("statement too long: a message of %d bytes exceeds the limit of %d", tooLong.ActualBodyLen, tooLong.MaxExpectedBodyLen))
	case errors.As(err, &ne) && ne.Timeout() && c.idleKind == sqlerr.IdleInTransactionTimeout:
		c.fatal(sqlerr.IdleInTransactionTimeout, "terminating connection due to idle-in-transaction timeout")
	case errors.As(err, &ne) && ne.Timeout():
		c.fatal(sqlerr.IdleSessionTimeout, "terminating connection due to idle-session timeout")
	default:
		c.fatal(sqlerr.ProtocolViolation, "invalid frontend message: "+err.Error())
	}
	if tooLong != nil {
		// Read what the client is still sending, for a while, so that
		// closing does not reset the connection before it reads why.
		c.nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.CopyN(io.Discard, c.nc, int64(tooLong.ActualBodyLen))
	}
}

// roomWriteWait bounds a write a client does not take while its query
// holds room long statements share (frontend.TakeParseRoom), when no
// -idle-timeout bounds every write: past it the connection ends, and
// the room is given back, as a MariaDB connection ends past
// net_write_timeout. Tests shorten it.
var roomWriteWait = frontend.ParseRoomWait

// writeTimeout bounds each write to the client, so that a client that
// stops reading loses its connection instead of holding it forever.
type writeTimeout struct {
	net.Conn
	d time.Duration
}

func (w writeTimeout) Write(p []byte) (int, error) {
	w.Conn.SetWriteDeadline(time.Now().Add(w.d))
	return w.Conn.Write(p)
}

// fatal tells the client why its connection ends.
func (c *conn) fatal(kind sqlerr.Kind, msg string) {
	c.send(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: sqlstate(kind), Message: msg})
	c.flush()
}

func (c *conn) terminate() {
	c.fatal(sqlerr.AdminShutdown, "terminating connection due to administrator command")
}

// msgType is a frontend message's type byte, for errors.
func msgType(msg pgproto3.FrontendMessage) byte {
	b, err := msg.Encode(nil)
	if err != nil || len(b) == 0 {
		return '?'
	}
	return b[0]
}

// follow moves a standby's session, between transactions, to the node's
// newest snapshot (executor.Session.Move), under the server's lock as a
// connection takes its first, so that Uses sees it at once.
func (c *conn) follow() {
	if !c.standby || c.srv.cfg.Node == nil || c.sess == nil || c.sess.TxStatus() != 'I' {
		return
	}
	if eng, _ := c.srv.cfg.Node(); eng == c.eng {
		return // the common case, without the server's lock
	}
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	eng, standby := c.srv.cfg.Node()
	if !standby || eng == c.eng || !c.sess.Move(eng) {
		return
	}
	c.mu.Lock()
	c.eng = eng
	c.mu.Unlock()
}

// handle processes one message; false ends the connection.
func (c *conn) handle(ctx context.Context, msg pgproto3.FrontendMessage) bool {
	if _, query := msg.(*pgproto3.Query); query || !c.inRequest {
		c.follow()
	}
	switch msg.(type) {
	case *pgproto3.Query, *pgproto3.Sync, *pgproto3.Terminate:
		c.inRequest = false
	default:
		c.inRequest = true
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		c.simpleQuery(ctx, m.String)
		if errors.Is(context.Cause(ctx), errShutdown) {
			return true // serve ends the connection with 57P01
		}
		c.sess.IdleAt(c.clock())
		c.sendReady()
		return c.flush() == nil
	case *pgproto3.Sync:
		// The messages since the last Sync were one implicit
		// transaction: its DDL commits now, or is undone after an error.
		if err := c.sess.EndImplicit(ctx, !c.failed); err != nil {
			c.send(toErrorResponse(err))
		}
		c.failed = false
		c.sess.IdleAt(c.clock())
		c.sendReady()
		return c.flush() == nil
	case *pgproto3.Flush:
		return c.flush() == nil
	case *pgproto3.Terminate:
		return false
	case *pgproto3.Parse, *pgproto3.Bind, *pgproto3.Describe, *pgproto3.Execute, *pgproto3.Close:
		if c.failed {
			return true // discarded until Sync, as PostgreSQL does
		}
		// Only an Execute is timed (a pipeline's other messages cost a
		// clock read each for nothing), with one clock read that the
		// session's pg_stat_activity shares (StartsAt); a failed message
		// before one (a Parse that does not parse, a Bind that does not
		// bind) counts with the time of its own handling, read only then.
		c.sess.BeginImplicit(false)
		var began time.Time
		_, isExecute := msg.(*pgproto3.Execute)
		var executed *portal
		var err error
		if isExecute {
			began = c.clock()
			c.sess.StartsAt(began)
			sctx, cancel := c.sess.StatementContext(ctx)
			err = c.extended(sctx, msg)
			cancel()
			c.sess.StartsAt(time.Time{})
			executed, c.executed = c.executed, nil // not kept past its statement
		} else {
			err = c.extended(ctx, msg)
		}
		if c.srv.cfg.OnStatement != nil {
			if isExecute {
				tag := ""
				if executed != nil && executed.res != nil {
					tag = executed.res.Tag
				}
				c.observe(tag, err, began)
			} else if err != nil {
				c.observe("", err, time.Time{}) // its handling's time is not known: 0
			}
		}
		if err != nil {
			c.failed = true
			c.sess.Abort()
			c.logFailure(err, c.failedText(msg))
			if !errors.Is(context.Cause(ctx), errShutdown) { // serve sends 57P01 instead
				c.send(toErrorResponse(err))
			}
		}
		// The answers of a request are sent at its Sync, but not
		// only then: a client that pipelines many messages before it
		// (small ones with large answers, a Describe of many columns)
		// would grow the write buffer without bound.
		return len(c.wbuf) < maxPendingWrite || c.flush() == nil
	default:
		c.fatal(sqlerr.ProtocolViolation, "unsupported frontend message")
		return false
	}
}

// logFailure logs a statement that failed (frontend.LogFailure), unless
// the portal was only suspended.
func (c *conn) logFailure(err error, text string) {
	if errors.Is(err, errSuspended) {
		return
	}
	r := toErrorResponse(err)
	c.srv.failures.Log(r.Code, r.Message, c.user, c.pid, text)
}

// failedText is the query an extended-protocol message that failed
// belongs to.
func (c *conn) failedText(msg pgproto3.FrontendMessage) string {
	switch m := msg.(type) {
	case *pgproto3.Parse:
		return m.Query
	case *pgproto3.Bind:
		if p := c.stmts[m.PreparedStatement]; p != nil {
			return p.text
		}
	case *pgproto3.Execute:
		if pt := c.portals[m.Portal]; pt != nil {
			return pt.text
		}
	case *pgproto3.Describe:
		if p := c.stmts[m.Name]; m.ObjectType == 'S' && p != nil {
			return p.text
		}
		if pt := c.portals[m.Name]; m.ObjectType == 'P' && pt != nil {
			return pt.text
		}
	}
	return ""
}

// panicHook, when a test sets it, is called with each simple-query
// statement's text before it runs, and each Parse message's (to prove
// that a panic is contained).
var panicHook func(text string)

// observe reports a statement to OnStatement.
func (c *conn) observe(tag string, err error, began time.Time) {
	if c.srv.cfg.OnStatement == nil {
		return
	}
	code := "00000"
	if err != nil && !errors.Is(err, errSuspended) {
		code = toErrorResponse(err).Code
	}
	o := &c.observed
	if o.f == nil || o.tag != tag || o.code != code {
		o.tag, o.code, o.f = tag, code, c.srv.cfg.OnStatement(tag, code)
	}
	var d time.Duration
	if !began.IsZero() {
		end := c.now()
		d = end.Sub(began)
		c.endedAt, c.endedReads = end, c.recv.reads()
	}
	o.f(d)
}
