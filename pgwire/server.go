// Package pgwire serves seqd over the PostgreSQL v3 wire protocol: startup,
// the simple and extended query protocols, and PostgreSQL's SQLSTATEs.
//
// The files follow a connection's life:
//
//	server.go    the listener, connection slots, cancel keys, shutdown
//	conn.go      one connection: its loop, output buffer, idle and
//	             liveness timers, statement limits, failure logging
//	startup.go   the startup message, TLS, authentication (SCRAM, cert)
//	simple.go    the simple query protocol (Query)
//	extended.go  the extended protocol (Parse, Bind, Describe, Execute)
//	prepared.go  its prepared statements and portals, and their bounds
//	encode.go    rows and parameters in text and binary formats
//	errors.go    the one table from error kinds to SQLSTATEs
//
// Everything a statement means is the executor's, and what every front
// end shares (the connection budget, session IDs and cancel keys, a
// failed or panicking statement's handling) is package frontend's, whose
// doc says what a front end implements: pgwire owns only PostgreSQL's
// protocol.
package pgwire

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/sqlerr"
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
	// MaxPrepared bounds the extended protocol's named prepared
	// statements and named portals one connection holds at once: a
	// Parse or Bind of one more fails with 54000, and closing one
	// (Close, DEALLOCATE, DISCARD ALL) makes room (prepared.go). Default
	// DefaultMaxPrepared (16382); negative, no bound.
	MaxPrepared int
	// MaxPreparedMemory bounds the memory those statements and portals
	// hold, as estimated from their text, parse trees, parameter types
	// and bound values (statementCost, portalCost): one more past it
	// fails as past MaxPrepared. Default DefaultMaxPreparedMemory
	// (64 MiB); negative, no bound.
	MaxPreparedMemory int64
	// MaxStatementMemory bounds the memory one statement may keep: past
	// it the statement fails with 53200 (executor.Config). 0 takes
	// executor.DefaultMaxStatementMemory; negative means no limit.
	MaxStatementMemory int64
	// SessionDefaults are settings every session starts with unless its
	// startup message sets them (statement_timeout, lock_timeout,
	// idle_in_transaction_session_timeout, idle_session_timeout, ...), as
	// postgresql.conf sets PostgreSQL's.
	SessionDefaults map[string]string
	// Superuser is the bootstrap superuser's name (executor.Config's).
	Superuser string
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
	// Registry is the connection budget and the session IDs this server
	// shares with the server's other front ends; nil: one of its own,
	// of MaxConns connections with ReservedConns reserved.
	Registry *frontend.Registry
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
	cfg      Config
	log      *log.Logger
	failures frontend.FailureLog // failed statements, bounded per code
	auth     atomic.Value        // string: cfg.Auth, or what SetAuth set

	mu       sync.Mutex
	ln       []net.Listener
	conns    map[*conn]struct{}
	reg      *frontend.Registry // slots, session IDs, cancel keys
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
	switch {
	case cfg.MaxPrepared == 0:
		cfg.MaxPrepared = DefaultMaxPrepared
	case cfg.MaxPrepared < 0:
		cfg.MaxPrepared = 0
	}
	switch {
	case cfg.MaxPreparedMemory == 0:
		cfg.MaxPreparedMemory = DefaultMaxPreparedMemory
	case cfg.MaxPreparedMemory < 0:
		cfg.MaxPreparedMemory = 0
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
	s := &Server{cfg: cfg, log: cfg.Logger, conns: map[*conn]struct{}{}, reg: cfg.Registry, stopSweep: make(chan struct{})}
	if s.log == nil {
		s.log = log.Default()
	}
	s.failures.Logger = s.log
	if s.reg == nil {
		s.reg = frontend.NewRegistry(cfg.MaxConns, cfg.ReservedConns)
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
	// Counted from accept, evicted while unauthenticated when the budget
	// is full, ended at AuthTimeout, accept failures retried: the
	// Listener's rules, as every front end's.
	fl := frontend.Listen(ln, frontend.ListenerConfig{Registry: s.reg, AuthTimeout: s.cfg.AuthTimeout, Name: "pgwire", Logger: s.log,
		Refuse: func(nc net.Conn) {
			(&conn{srv: s, nc: nc, w: nc}).fatal(sqlerr.TooManyConnections, "sorry, too many clients already")
		}})
	for {
		nc, err := fl.Accept()
		if err != nil {
			s.mu.Lock()
			down := s.shutdown
			s.mu.Unlock()
			if down {
				return nil
			}
			return err // closed
		}
		c, down := s.track(nc.(*frontend.Conn))
		if down {
			return nil
		}
		go s.serveConn(c)
	}
}

// track makes a connection of nc, counted until serveConn ends; nil (and
// nc closed) once the server is shutting down.
func (s *Server) track(nc *frontend.Conn) (c *conn, down bool) {
	var w io.Writer = nc
	if s.cfg.IdleTimeout > 0 {
		w = writeTimeout{nc, s.cfg.IdleTimeout}
	}
	c = &conn{srv: s, nc: nc, admitted: nc, recv: newReceiver(nc, s.cfg.MaxMessage), w: w}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown {
		nc.Close()
		return nil, true
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
	s.mu.Unlock()
	if c.pid != 0 {
		s.reg.Unregister(c.pid)
	}
	c.admitted.Close() // leaves the budget
}

// Registry is the connection budget and session IDs this server counts
// in, for another front end of the same server to share.
func (s *Server) Registry() *frontend.Registry { return s.reg }

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

// mayUseSlot reports whether user may keep a session beyond the
// MaxConns-ReservedConns that any role may: only a superuser (or, under
// trust, a name that is no role) may take the reserved ones.
func (s *Server) mayUseSlot(c *conn, user string) bool {
	r, ok := c.eng.Role(user)
	return s.reg.MayUseSlot(!ok || r.Superuser)
}

// register gives c a process ID and secret key of its own for
// CancelRequest, unless MaxConns sessions are already in: then false.
func (s *Server) register(c *conn) bool {
	pid, key, ok := s.reg.Register(c.cancelRunning)
	c.pid, c.secret = pid, key
	return ok
}

// cancelRunning cancels what c is executing, if anything.
func (c *conn) cancelRunning() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy && c.cancel != nil {
		c.cancel(context.Canceled)
	}
}
