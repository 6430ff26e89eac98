// Package pgwire serves seqd over the PostgreSQL v3 wire protocol: startup,
// the simple and extended query protocols, and PostgreSQL's SQLSTATEs.
package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sql"
)

// Config configures a Server. Zero fields take the documented defaults.
type Config struct {
	Engine *engine.Engine
	// Node, when set, is asked at each connection's start which engine it
	// serves, and whether as a hot standby (cluster mode: a follower
	// serves the catalog read-only, as a standby does); Engine is then
	// not used. It is called under the server's lock: it must not call
	// back into the server.
	Node func() (eng *engine.Engine, standby bool)
	// MaxBulkRows bounds generate_series and seqd_reserve. Default 10M.
	MaxBulkRows int64
	// MaxMessage bounds one protocol message, and so a statement: a longer
	// one ends its connection with SQLSTATE 54000. Default 1 MiB.
	MaxMessage int
	// MaxStatementMemory bounds the memory one statement may keep: past
	// it the statement fails with 53200 (executor.Config). 0 takes
	// executor.DefaultMaxStatementMemory; negative means no limit.
	MaxStatementMemory int64
	// SessionDefaults are settings every session starts with unless its
	// startup message sets them (statement_timeout, lock_timeout,
	// idle_in_transaction_session_timeout, idle_session_timeout, ...), as
	// postgresql.conf sets PostgreSQL's.
	SessionDefaults map[string]string
	// MaxConns bounds connections, every one counted from the moment it
	// is accepted (those still starting, at most AuthTimeout each, too):
	// one more is refused with SQLSTATE 53300 at once, before it has sent
	// anything. Default 10000.
	MaxConns int
	// ReservedConns of the MaxConns sessions are for superusers only
	// (PostgreSQL's superuser_reserved_connections). Default 3; negative
	// none.
	ReservedConns int
	// AuthTimeout bounds a connection's startup: TLS, the startup message
	// and authentication (PostgreSQL's authentication_timeout). Default
	// 10 s.
	AuthTimeout time.Duration
	// IdleTimeout, when positive, ends a connection (SQLSTATE 57P05) that
	// sends nothing for that long between or within messages, or that
	// accepts none of the server's output for that long.
	IdleTimeout time.Duration
	// Logger receives connection errors; nil means the standard logger.
	Logger *log.Logger
	// OnStatement, if set, is told of every statement run (a simple-query
	// statement, an Execute): given its command tag ("" if it failed
	// before having one) and its SQLSTATE ("00000" on success), it returns
	// the function told how long the statement took. Each connection
	// keeps the function of its last (command, SQLSTATE) and calls it
	// again for the next statement with the same pair (a pipeline's), so
	// looking it up may cost more than calling it. Neither may block.
	OnStatement func(command, sqlstate string) func(d time.Duration)
	// TLS, if set, is offered to clients that ask (SSLRequest answered
	// 'S'); nil answers 'N', as a server without ssl does.
	TLS *tls.Config
	// Auth is how clients authenticate: AuthTrust (anyone, as any user),
	// AuthSCRAM (SCRAM-SHA-256 against the engine's roles; with TLS also
	// SCRAM-SHA-256-PLUS) or AuthCert (a client certificate). The zero
	// value is AuthTrust.
	Auth string
	// TLSRequired refuses connections that do not use TLS, as a
	// pg_hba.conf of hostssl lines only does (FATAL 28000).
	TLSRequired bool
}

// Authentication methods, named as in PostgreSQL's pg_hba.conf.
const (
	AuthTrust = "trust"
	AuthSCRAM = "scram-sha-256"
	// AuthCert: a client certificate that chains to the server's client
	// CA (-tls-ca) and whose common name is the user; TLS required.
	AuthCert = "cert"
)

// Server accepts PostgreSQL connections. It is safe for concurrent use.
type Server struct {
	cfg  Config
	log  *log.Logger
	auth atomic.Value // string: cfg.Auth, or what SetAuth set

	mu       sync.Mutex
	ln       []net.Listener
	conns    map[*conn]struct{}
	byPID    map[uint32]*conn // for CancelRequest
	shutdown bool
	wg       sync.WaitGroup
	// sweeping starts sweepAlive with the first Serve; stopSweep ends it
	// at Shutdown (alive.go).
	sweeping  sync.Once
	stopSweep chan struct{}
}

// SetAuth changes how connections that start from now on authenticate
// (AuthTrust or AuthSCRAM); connections already in are not affected.
func (s *Server) SetAuth(method string) { s.auth.Store(method) }

// NewServer returns a server for cfg.Engine.
func NewServer(cfg Config) *Server {
	if cfg.MaxBulkRows <= 0 {
		cfg.MaxBulkRows = 10_000_000
	}
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = 1 << 20
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 10_000
	}
	switch {
	case cfg.ReservedConns == 0:
		cfg.ReservedConns = 3
	case cfg.ReservedConns < 0:
		cfg.ReservedConns = 0
	}
	if cfg.ReservedConns >= cfg.MaxConns {
		cfg.ReservedConns = cfg.MaxConns - 1
	}
	if cfg.AuthTimeout <= 0 {
		cfg.AuthTimeout = 10 * time.Second
	}
	s := &Server{cfg: cfg, log: cfg.Logger, conns: map[*conn]struct{}{}, byPID: map[uint32]*conn{}, stopSweep: make(chan struct{})}
	if s.log == nil {
		s.log = log.Default()
	}
	s.auth.Store(cfg.Auth)
	return s
}

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return net.ErrClosed
	}
	s.ln = append(s.ln, ln)
	s.mu.Unlock()
	s.sweeping.Do(func() { go s.sweepAlive() })
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			down := s.shutdown
			s.mu.Unlock()
			if down {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Out of file descriptors (EMFILE, ENFILE), a connection
			// reset before it was accepted (ECONNABORTED), no buffers:
			// the listener itself is fine. Log, wait (5 ms doubling to
			// 1 s, as net/http does) and accept again; never stop
			// serving the connections already in.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Printf("pgwire: accept failed, retrying in %v: %v", backoff, err)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		c, down := s.track(nc)
		if down {
			return nil
		}
		if c == nil {
			continue // refused: too many connections
		}
		go s.serveConn(c)
	}
}

// track makes a connection of nc, counted until serveConn ends; nil (and
// nc closed) once the server is shutting down (down) or when MaxConns
// connections are open (told so first).
func (s *Server) track(nc net.Conn) (c *conn, down bool) {
	w := nc
	if s.cfg.IdleTimeout > 0 {
		w = writeTimeout{nc, s.cfg.IdleTimeout}
	}
	c = &conn{srv: s, nc: nc, be: pgproto3.NewBackend(nc, w), w: w}
	c.be.SetMaxBodyLen(s.cfg.MaxMessage)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		nc.Close()
		return nil, true
	}
	if len(s.conns) >= s.cfg.MaxConns {
		// Refused before anything is read: a flood of connections that
		// never start holds no more than this many descriptors.
		refused := c
		go func() {
			nc.SetWriteDeadline(time.Now().Add(time.Second))
			refused.fatal(sql.TooManyConnections, "sorry, too many clients already")
			nc.Close()
		}()
		return nil, false
	}
	s.conns[c] = struct{}{}
	s.wg.Add(1)
	return c, false
}

// serveConn serves c until it ends.
func (s *Server) serveConn(c *conn) {
	defer s.wg.Done()
	c.serve()
	if c.sess != nil {
		c.sess.Close() // its temporary sequences go
	}
	s.mu.Lock()
	delete(s.conns, c)
	if s.byPID[c.pid] == c {
		delete(s.byPID, c.pid)
	}
	s.mu.Unlock()
}

// Conns is how many client connections are open.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Shutdown stops accepting, lets every connection finish the messages it
// is executing, then ends the connections with 57P01. At ctx's deadline
// the statements still running stop and their clients are told 57P01
// too; connections whose clients read nothing more within a grace period
// are closed, and Shutdown then returns ErrConnectionsCut.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if !s.shutdown {
		close(s.stopSweep)
	}
	s.shutdown = true
	for _, ln := range s.ln {
		ln.Close()
	}
	for c := range s.conns {
		c.stop()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	// The deadline: every statement still running stops (a long stream
	// ends at its next batch of rows) and its client is told 57P01. A
	// client that reads nothing more within the grace period is cut off.
	s.mu.Lock()
	for c := range s.conns {
		c.mu.Lock()
		if c.busy && c.cancel != nil {
			c.cancel(errShutdown)
		}
		c.mu.Unlock()
	}
	s.mu.Unlock()
	select {
	case <-done:
		return nil
	case <-time.After(shutdownGrace):
	}
	s.mu.Lock()
	for c := range s.conns {
		c.mu.Lock()
		c.nc.Close()
		c.mu.Unlock()
	}
	s.mu.Unlock()
	<-done
	return ErrConnectionsCut
}

// StopEngine ends the connections that serve eng, as a shutdown ends
// them (57P01 once a request under way is answered): cluster mode calls
// it when the node's term ends, so that clients reconnect and find the
// leader.
func (s *Server) StopEngine(eng *engine.Engine) {
	for _, c := range s.connsOf(eng) {
		c.stop()
	}
}

// Uses reports whether a connection still serves eng.
func (s *Server) Uses(eng *engine.Engine) bool { return len(s.connsOf(eng)) > 0 }

// connsOf lists the connections that serve eng.
func (s *Server) connsOf(eng *engine.Engine) []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*conn
	for c := range s.conns {
		c.mu.Lock()
		if c.eng == eng {
			out = append(out, c)
		}
		c.mu.Unlock()
	}
	return out
}

// shutdownGrace is how long a shutdown waits, after its deadline, for
// clients to read the end of what they were sent and their 57P01.
const shutdownGrace = 5 * time.Second

// errShutdown cancels a statement at a shutdown's deadline.
var errShutdown = errors.New("seqd: shutting down")

// ErrConnectionsCut: a shutdown had to close connections whose clients
// stopped reading; the engine is unaffected.
var ErrConnectionsCut = errors.New("seqd: shutdown closed connections whose clients stopped reading")

// conn is one client connection, served by one goroutine.
type conn struct {
	srv *Server
	nc  net.Conn          // replaced, under mu, by the TLS connection after startTLS
	be  *pgproto3.Backend // reads messages; send and flush write them
	w   io.Writer         // where flush writes (the connection, with its write timeout)
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

	stmts   map[string]*prepared
	portals map[string]*portal
	failed  bool // an extended-protocol error: skip until Sync
	// idleArmed: a read deadline for idleness is set; idleKind says which
	// timeout it is (armIdle).
	idleArmed bool
	idleKind  sql.Kind
	// inRequest: extended-protocol messages arrived that their Sync has
	// not yet closed; shutdown lets the request finish.
	inRequest bool
	rows      encodedRows              // sendRows' scratch: DataRows in wire form
	rd        pgproto3.RowDescription  // rowDescription's scratch
	tag       []byte                   // the command tag's scratch
	cc        pgproto3.CommandComplete // commandComplete's reused message
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

// maxKeptWrite bounds the write buffer kept after a flush: a huge answer
// (a long result in the simple protocol) does not pin its memory.
const maxKeptWrite = 1 << 20

// flush writes the messages sent so far.
func (c *conn) flush() error {
	if err := c.encodeErr; err != nil {
		c.encodeErr = nil
		c.wbuf = c.wbuf[:0]
		return err
	}
	_, err := c.w.Write(c.wbuf)
	if cap(c.wbuf) > maxKeptWrite {
		c.wbuf = nil
	} else {
		c.wbuf = c.wbuf[:0]
	}
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

// cancelRequest cancels what the connection with that key is executing,
// if anything; PostgreSQL too makes no promise for a request that races
// with the statement's end.
func (s *Server) cancelRequest(pid uint32, secret []byte) {
	s.mu.Lock()
	c := s.byPID[pid]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare(secret, c.secret[:]) != 1 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy && c.cancel != nil {
		c.cancel(context.Canceled)
	}
}

func (c *conn) serve() {
	defer c.nc.Close()
	if !c.startup() {
		return
	}
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
		msg, err := c.be.Receive()
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
	d, kind := c.srv.cfg.IdleTimeout, sql.IdleSessionTimeout
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
		c.fatal(sql.ProgramLimitExceeded, fmt.Sprintf("statement too long: a message of %d bytes exceeds the limit of %d", tooLong.ActualBodyLen, tooLong.MaxExpectedBodyLen))
	case errors.As(err, &ne) && ne.Timeout() && c.idleKind == sql.IdleInTransactionTimeout:
		c.fatal(sql.IdleInTransactionTimeout, "terminating connection due to idle-in-transaction timeout")
	case errors.As(err, &ne) && ne.Timeout():
		c.fatal(sql.IdleSessionTimeout, "terminating connection due to idle-session timeout")
	default:
		c.fatal(sql.ProtocolViolation, "invalid frontend message: "+err.Error())
	}
	if tooLong != nil {
		// Read what the client is still sending, for a while, so that
		// closing does not reset the connection before it reads why.
		c.nc.SetReadDeadline(time.Now().Add(2 * time.Second))
		io.CopyN(io.Discard, c.nc, int64(tooLong.ActualBodyLen))
	}
}

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
func (c *conn) fatal(kind sql.Kind, msg string) {
	c.send(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: sqlstate(kind), Message: msg})
	c.flush()
}

func (c *conn) terminate() {
	c.fatal(sql.AdminShutdown, "terminating connection due to administrator command")
}

// startup answers SSL/GSS requests with 'N' and accepts any user and
// database.
func (c *conn) startup() bool {
	c.nc.SetDeadline(time.Now().Add(c.srv.cfg.AuthTimeout))
	defer c.nc.SetDeadline(time.Time{})
	for {
		msg, err := c.be.ReceiveStartupMessage()
		if err != nil {
			return false
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if c.srv.cfg.TLS == nil || c.tls {
				if _, err := c.nc.Write([]byte{'N'}); err != nil {
					return false
				}
				continue
			}
			if !c.startTLS() {
				return false
			}
			continue
		case *pgproto3.GSSEncRequest:
			if _, err := c.nc.Write([]byte{'N'}); err != nil {
				return false
			}
			continue
		case *pgproto3.CancelRequest:
			c.srv.cancelRequest(m.ProcessID, m.SecretKey)
			return false
		case *pgproto3.StartupMessage:
			return c.accept(m)
		default:
			return false
		}
	}
}

// startTLS answers an SSLRequest with 'S' and runs the TLS handshake; the
// connection then speaks the protocol over TLS. The client sends nothing
// before it reads 'S', so nothing is left buffered in the clear.
func (c *conn) startTLS() bool {
	if _, err := c.nc.Write([]byte{'S'}); err != nil {
		return false
	}
	cfg := handshakeConfig(c.srv.cfg.TLS)
	tc := tls.Server(c.nc, cfg)
	if err := tc.Handshake(); err != nil {
		c.srv.log.Printf("TLS handshake with %s failed: %v", c.nc.RemoteAddr(), err)
		return false
	}
	c.binding, c.certName = endPointBinding(cfg), clientCertName(tc)
	var w io.Writer = tc
	if c.srv.cfg.IdleTimeout > 0 {
		w = writeTimeout{tc, c.srv.cfg.IdleTimeout}
	}
	be := pgproto3.NewBackend(tc, w)
	be.SetMaxBodyLen(c.srv.cfg.MaxMessage)
	c.mu.Lock()
	c.nc, c.be, c.w, c.tls = tc, be, w, true
	c.mu.Unlock()
	return true
}

// accept registers a connection whose startup message arrived and sets up
// its session.
func (c *conn) accept(m *pgproto3.StartupMessage) bool {
	if !c.srv.register(c) {
		// As PostgreSQL at max_connections, before authentication; a
		// CancelRequest (startup) still reaches the connections that are in.
		c.fatal(sql.TooManyConnections, "sorry, too many clients already")
		return false
	}
	// Under the server's lock, so that Uses sees the engine as soon as
	// Node has handed it out.
	c.srv.mu.Lock()
	c.mu.Lock()
	c.eng = c.srv.cfg.Engine
	if c.srv.cfg.Node != nil {
		c.eng, c.standby = c.srv.cfg.Node()
	}
	c.mu.Unlock()
	c.srv.mu.Unlock()
	c.user = m.Parameters["user"]
	if (c.srv.cfg.TLSRequired || c.srv.auth.Load().(string) == AuthCert) && !c.tls {
		host, _, _ := net.SplitHostPort(c.nc.RemoteAddr().String())
		db := m.Parameters["database"]
		if db == "" {
			db = c.user
		}
		slog.Warn("connection refused: TLS required", "user", c.user, "from", c.nc.RemoteAddr().String())
		c.fatal(sql.InvalidAuthorization, fmt.Sprintf("no pg_hba.conf entry for host \"%s\", user \"%s\", database \"%s\", no encryption", host, c.user, db))
		return false
	}
	switch c.srv.auth.Load().(string) {
	case AuthSCRAM:
		if !c.authenticate(m.Parameters["user"]) {
			return false
		}
	case AuthCert:
		if !c.authenticateCert(m.Parameters["user"]) {
			return false
		}
	}
	if !c.srv.mayUseSlot(c, m.Parameters["user"]) {
		c.fatal(sql.TooManyConnections, "remaining connection slots are reserved for non-replication superuser connections")
		return false
	}
	params := map[string]string{}
	for k, v := range m.Parameters {
		if k != "user" && k != "database" && k != "replication" {
			params[k] = v
		}
	}
	sess, err := executor.NewSession(executor.Config{Engine: c.eng, MaxBulkRows: c.srv.cfg.MaxBulkRows, MaxStatementMemory: c.srv.cfg.MaxStatementMemory,
		Defaults: c.srv.cfg.SessionDefaults,
		User:     m.Parameters["user"], Database: m.Parameters["database"], Params: params, BackendPID: c.pid, Standby: c.standby})
	if err != nil {
		r := toErrorResponse(err)
		r.Severity, r.SeverityUnlocalized = "FATAL", "FATAL"
		c.send(r)
		c.flush()
		return false
	}
	c.sess = sess
	c.send(&pgproto3.AuthenticationOk{})
	for _, p := range sess.Reported() {
		c.send(&pgproto3.ParameterStatus{Name: p.Name, Value: p.Value})
	}
	c.send(&pgproto3.BackendKeyData{ProcessID: c.pid, SecretKey: c.secret[:]})
	c.send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	return c.flush() == nil
}

// authenticate runs SCRAM-SHA-256 for user. A role that does not exist,
// cannot log in or has no password fails exactly as a wrong password does
// (28P01), and the failure is logged with its reason.
func (c *conn) authenticate(user string) bool {
	var v *engine.Verifier
	reason := "no such role"
	if role, ok := c.eng.Role(user); ok {
		switch {
		case !role.Login:
			reason = "role cannot log in"
		case role.Verifier == nil:
			reason = "role has no password"
		default:
			v, reason = role.Verifier, "wrong password"
		}
	}
	fail := func(why string) bool {
		slog.Warn("authentication failed", "user", user, "from", c.nc.RemoteAddr().String(), "reason", why)
		c.fatal(sql.InvalidPassword, fmt.Sprintf("password authentication failed for user \"%s\"", user))
		return false
	}
	conv := auth.Conversation(v, user, c.eng.Secret(), c.binding)
	mechanisms := []string{"SCRAM-SHA-256"}
	if c.binding != nil {
		mechanisms = []string{"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"}
	}
	c.send(&pgproto3.AuthenticationSASL{AuthMechanisms: mechanisms})
	if err := c.flush(); err != nil {
		return false
	}
	for _, step := range []uint32{pgproto3.AuthTypeSASL, pgproto3.AuthTypeSASLContinue} {
		if err := c.be.SetAuthType(step); err != nil {
			return false
		}
		msg, err := c.be.Receive()
		if err != nil {
			return false // the client went away
		}
		var data []byte
		switch m := msg.(type) {
		case *pgproto3.SASLInitialResponse:
			switch {
			case m.AuthMechanism == "SCRAM-SHA-256":
			case m.AuthMechanism == "SCRAM-SHA-256-PLUS" && c.binding != nil:
				// PLUS means binding to the channel: "p=..." first.
				if !strings.HasPrefix(string(m.Data), "p=") {
					return fail("SCRAM-SHA-256-PLUS without channel binding")
				}
			default:
				return fail("mechanism " + m.AuthMechanism)
			}
			data = m.Data
		case *pgproto3.SASLResponse:
			data = m.Data
		default:
			c.fatal(sql.ProtocolViolation, fmt.Sprintf("expected SASL response, got message type %c", msgType(msg)))
			return false
		}
		resp, err := conv.Step(string(data))
		if err != nil {
			return fail(reason)
		}
		if conv.Done() {
			if !conv.Valid() {
				return fail(reason)
			}
			c.send(&pgproto3.AuthenticationSASLFinal{Data: []byte(resp)})
			return true
		}
		c.send(&pgproto3.AuthenticationSASLContinue{Data: []byte(resp)})
		if err := c.flush(); err != nil {
			return false
		}
	}
	return fail(reason)
}

// authenticateCert is PostgreSQL's cert method: the TLS handshake
// verified a client certificate against the client CA, and its common
// name is the user, which is a role that may log in.
func (c *conn) authenticateCert(user string) bool {
	if c.certName == "" {
		slog.Warn("authentication failed", "user", user, "from", c.nc.RemoteAddr().String(), "reason", "no client certificate")
		c.fatal(sql.InvalidAuthorization, "connection requires a valid client certificate")
		return false
	}
	role, ok := c.eng.Role(user)
	if c.certName != user || !ok || !role.Login {
		slog.Warn("authentication failed", "user", user, "from", c.nc.RemoteAddr().String(), "reason", "certificate for \""+c.certName+"\"")
		c.fatal(sql.InvalidAuthorization, fmt.Sprintf("certificate authentication failed for user \"%s\"", user))
		return false
	}
	return true
}

// msgType is a frontend message's type byte, for errors.
func msgType(msg pgproto3.FrontendMessage) byte {
	b, err := msg.Encode(nil)
	if err != nil || len(b) == 0 {
		return '?'
	}
	return b[0]
}

// mayUseSlot reports whether user may have a session beyond the
// MaxConns-ReservedConns that any role may: only a superuser (or, under
// trust, a name that is no role) may take the reserved ones. As in
// PostgreSQL, it is decided after authentication.
func (s *Server) mayUseSlot(c *conn, user string) bool {
	s.mu.Lock()
	n := len(s.byPID)
	s.mu.Unlock()
	if n <= s.cfg.MaxConns-s.cfg.ReservedConns {
		return true
	}
	r, ok := c.eng.Role(user)
	return !ok || r.Superuser
}

// register gives c a process ID and secret key of its own for
// CancelRequest, unless MaxConns connections are already in: then false.
func (s *Server) register(c *conn) bool {
	rand.Read(c.secret[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.byPID) >= s.cfg.MaxConns {
		return false
	}
	for {
		var b [4]byte
		rand.Read(b[:])
		c.pid = binary.BigEndian.Uint32(b[:]) >> 1
		if c.pid != 0 && s.byPID[c.pid] == nil {
			s.byPID[c.pid] = c
			return true
		}
	}
}

// handle processes one message; false ends the connection.
func (c *conn) handle(ctx context.Context, msg pgproto3.FrontendMessage) bool {
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
		c.send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
		return c.flush() == nil
	case *pgproto3.Sync:
		// The messages since the last Sync were one implicit
		// transaction: its DDL commits now, or is undone after an error.
		if err := c.sess.EndImplicit(ctx, !c.failed); err != nil {
			c.send(toErrorResponse(err))
		}
		c.failed = false
		c.send(&pgproto3.ReadyForQuery{TxStatus: c.sess.TxStatus()})
		return c.flush() == nil
	case *pgproto3.Flush:
		return c.flush() == nil
	case *pgproto3.Terminate:
		return false
	case *pgproto3.Parse, *pgproto3.Bind, *pgproto3.Describe, *pgproto3.Execute, *pgproto3.Close:
		if c.failed {
			return true // discarded until Sync, as PostgreSQL does
		}
		// Only an Execute is timed (a pipeline's other messages cost two
		// clock reads each for nothing); a failed message before one (a
		// Parse that does not parse, a Bind that does not bind) counts
		// with the time of its own handling, read only then.
		c.sess.BeginImplicit(false)
		var began time.Time
		execute, isExecute := msg.(*pgproto3.Execute)
		if c.srv.cfg.OnStatement != nil && isExecute {
			began = time.Now()
		}
		sctx, cancel := ctx, noCancel
		if isExecute {
			sctx, cancel = c.statementContext(ctx)
		}
		err := c.extended(sctx, msg)
		cancel()
		if c.srv.cfg.OnStatement != nil {
			if isExecute {
				tag := ""
				if pt := c.portals[execute.Portal]; pt != nil && pt.res != nil {
					tag = pt.res.Tag
				}
				c.observe(tag, err, began)
			} else if err != nil {
				c.observe("", err, time.Now()) // its handling's time is not known: 0
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
		return true
	default:
		c.fatal(sql.ProtocolViolation, "unsupported frontend message")
		return false
	}
}

func (c *conn) simpleQuery(ctx context.Context, q string) {
	stmts, err := c.parse(q)
	if err != nil {
		c.sess.Abort()
		c.logFailure(err, q)
		c.send(toErrorResponse(err))
		return
	}
	if len(stmts) == 0 {
		c.send(&pgproto3.EmptyQueryResponse{})
		return
	}
	c.parseNotices(stmts[0].Notices)
	if len(stmts) > 1 {
		// Several statements are one implicit transaction, as in
		// PostgreSQL: an error undoes the DDL of those before it.
		c.sess.BeginImplicit(true)
	}
	for i := range stmts {
		var began time.Time
		if c.srv.cfg.OnStatement != nil {
			began = time.Now()
		}
		sctx, cancel := c.statementContext(ctx)
		tag, err := c.simpleStatement(sctx, &stmts[i])
		cancel()
		c.observe(tag, err, began)
		if err != nil {
			c.sess.Abort()
			c.sess.EndImplicit(ctx, false)
			c.logFailure(err, stmts[i].Text())
			if !errors.Is(context.Cause(ctx), errShutdown) { // serve sends 57P01 instead
				c.send(toErrorResponse(err))
			}
			return
		}
	}
	if err := c.sess.EndImplicit(ctx, true); err != nil {
		c.send(toErrorResponse(err))
	}
}

func (c *conn) simpleStatement(ctx context.Context, st *sql.Statement) (tag string, err error) {
	defer c.contain(&err)
	if panicHook != nil {
		panicHook(st.Text())
	}
	p, err := c.sess.PrepareCached(st)
	if err != nil {
		return "", err
	}
	res, err := c.sess.Execute(ctx, p, nil)
	if err != nil {
		return "", err
	}
	defer c.sess.Release(res)
	if err := c.complete(res); err != nil {
		return res.Tag, err
	}
	if res.Columns == nil {
		return res.Tag, nil
	}
	c.send(c.rowDescription(res.Columns, nil))
	return res.Tag, c.sendRows(ctx, res, nil, 0)
}

// statementContext is ctx bounded by the session's statement_timeout:
// past it the statement's context ends with executor.ErrStatementTimeout
// as its cause, and the statement with 57014.
func (c *conn) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if d := c.sess.StatementTimeout(); d > 0 {
		return context.WithTimeoutCause(ctx, d, executor.ErrStatementTimeout)
	}
	return ctx, noCancel
}

func noCancel() {}

// maxLoggedStatement bounds a failed statement's text in the log.
const maxLoggedStatement = 1024

// logFailure logs a statement that failed, as PostgreSQL's
// log_min_error_statement = error does: the error with its SQLSTATE, who
// sent it on which connection, and the statement's text (its first
// maxLoggedStatement bytes, cut where a character begins).
func (c *conn) logFailure(err error, text string) {
	if errors.Is(err, errSuspended) {
		return
	}
	r := toErrorResponse(err)
	if len(text) > maxLoggedStatement {
		cut := maxLoggedStatement
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "..."
	}
	c.srv.log.Printf("ERROR %s %s (user %q, connection %d) STATEMENT: %s", r.Code, r.Message, c.user, c.pid, text)
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

// parse parses a query string, containing a panic as contain does.
func (c *conn) parse(q string) (stmts []sql.Statement, err error) {
	defer c.contain(&err)
	return sql.Parse(q)
}

// panicHook, when a test sets it, is called with each simple-query
// statement's text before it runs (to prove that a panic is contained).
var panicHook func(text string)

// contain turns a panic of the statement being handled into its error
// (XX000), logged with its stack: one session's failure ends that
// statement, never the process and the other sessions. Deferred by every
// path that parses or runs a client's statement.
func (c *conn) contain(err *error) {
	r := recover()
	if r == nil {
		return
	}
	c.srv.log.Printf("pgwire: a statement panicked (connection %d): %v\n%s", c.pid, r, debug.Stack())
	*err = sql.Errorf(sql.InternalError, "internal error: %v", r)
}

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
	o.f(time.Since(began))
}

func (c *conn) extended(ctx context.Context, msg pgproto3.FrontendMessage) (err error) {
	defer c.contain(&err)
	switch m := msg.(type) {
	case *pgproto3.Parse:
		stmts, err := c.parse(m.Query)
		if err != nil {
			return err
		}
		if len(stmts) > 1 {
			return sql.Errorf(sql.SyntaxError, "cannot insert multiple commands into a prepared statement")
		}
		if len(stmts) == 1 {
			c.parseNotices(stmts[0].Notices)
		}
		if m.Name != "" && c.stmts[m.Name] != nil {
			return sql.Errorf(sql.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", m.Name)
		}
		p := &prepared{text: m.Query}
		if len(stmts) == 1 {
			if p.p, err = c.sess.Prepare(&stmts[0], m.ParameterOIDs); err != nil {
				return err
			}
		}
		c.stmts[m.Name] = p
		c.send(&pgproto3.ParseComplete{})
	case *pgproto3.Bind:
		p := c.stmts[m.PreparedStatement]
		if p == nil {
			return sql.Errorf(sql.InvalidStatementName, "prepared statement \"%s\" does not exist", m.PreparedStatement)
		}
		params, err := c.decodeParams(m, p.p)
		if err != nil {
			return err
		}
		pt := c.portals[m.DestinationPortal]
		if pt != nil {
			c.sess.Release(pt.res) // the portal it replaces is gone
		}
		if pt == nil || m.DestinationPortal != "" {
			// A named portal is a new object each time; the unnamed one,
			// rebound on every request of most drivers, is reused.
			pt = &portal{}
			c.portals[m.DestinationPortal] = pt
		}
		*pt = portal{p: p.p, params: params, formats: m.ResultFormatCodes, text: p.text}
		c.send(&pgproto3.BindComplete{})
	case *pgproto3.Describe:
		return c.describe(m)
	case *pgproto3.Execute:
		pt := c.portals[m.Portal]
		if pt == nil {
			pt = c.cursorPortal(m.Portal)
		}
		if pt == nil {
			return sql.Errorf(sql.InvalidCursorName, "portal \"%s\" does not exist", m.Portal)
		}
		if pt.p == nil {
			c.send(&pgproto3.EmptyQueryResponse{})
			return nil
		}
		if pt.res == nil {
			res, err := c.sess.Execute(ctx, pt.p, pt.params)
			if err != nil {
				return err
			}
			pt.res = res
			if err := c.complete(res); err != nil {
				return err
			}
			if res.Columns == nil {
				return nil
			}
		} else if pt.res.Columns == nil || pt.res.Rows == nil {
			c.commandComplete(append(c.tag[:0], pt.res.Tag...))
			return nil
		}
		err := c.sendRows(ctx, pt.res, pt.formats, int64(m.MaxRows))
		if errors.Is(err, errSuspended) {
			c.send(&pgproto3.PortalSuspended{})
			return nil
		}
		if err == nil {
			pt.res.Rows = noRows{} // a further Execute completes with no rows
		}
		return err
	case *pgproto3.Close:
		if m.ObjectType == 'S' {
			delete(c.stmts, m.Name)
		} else {
			if pt := c.portals[m.Name]; pt != nil {
				c.sess.Release(pt.res)
			}
			delete(c.portals, m.Name)
		}
		c.send(&pgproto3.CloseComplete{})
	}
	return nil
}

// cursorPortal is the portal of an SQL cursor (DECLARE), which the
// extended protocol may execute by name; nil if there is none.
func (c *conn) cursorPortal(name string) *portal {
	cols, rows, ok := c.sess.Cursor(name)
	if !ok {
		return nil
	}
	return &portal{p: &executor.Prepared{Columns: cols}, res: &executor.Result{Columns: cols, Rows: rows, Tag: "FETCH"}}
}

// parseNotices sends what parsing said.
func (c *conn) parseNotices(ns []sql.Notice) {
	for _, n := range ns {
		c.send(&pgproto3.NoticeResponse{Severity: "NOTICE", SeverityUnlocalized: "NOTICE", Code: sqlstate(n.Kind), Message: n.Msg})
	}
}

// noRows is an exhausted result.
type noRows struct{}

func (noRows) Next() ([]executor.Datum, bool, error) { return nil, false, nil }

// describe answers Describe without executing: the columns a statement
// will return are known from its plan.
func (c *conn) describe(m *pgproto3.Describe) error {
	var p *executor.Prepared
	var formats []int16
	if m.ObjectType == 'S' {
		ps := c.stmts[m.Name]
		if ps == nil {
			return sql.Errorf(sql.InvalidStatementName, "prepared statement \"%s\" does not exist", m.Name)
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: paramOIDs(ps.p)})
		p = ps.p
	} else {
		pt := c.portals[m.Name]
		if pt == nil {
			if cols, _, ok := c.sess.Cursor(m.Name); ok {
				c.send(c.rowDescription(cols, nil))
				return nil
			}
			return sql.Errorf(sql.InvalidCursorName, "portal \"%s\" does not exist", m.Name)
		}
		p, formats = pt.p, pt.formats
	}
	if p == nil || p.Columns == nil {
		c.send(&pgproto3.NoData{})
	} else {
		c.send(c.rowDescription(p.Columns, formats))
	}
	return nil
}
