package mysqlwire

import (
	"crypto/rsa"
	"crypto/tls"
	"fmt"
	"log"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seqd/seqd/internal/vitess/mysql"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
)

// ServerVersion is the version the handshake announces: MariaDB's form
// ("5.5.5-" before the version is how MariaDB tells MySQL's clients it
// is MariaDB), the MariaDB release whose behaviour seqd follows.
const ServerVersion = "5.5.5-" + Version

// Version is what VERSION() and @@version answer once connected: the
// version without the handshake's "5.5.5-", as MariaDB answers them
// (SQLAlchemy's MariaDB dialect reads a version from VERSION(), and
// with "5.5.5-" would take the server for 5.5.5, which has no sequences).
const Version = "10.11.99-MariaDB-seqd"

// Authentication methods (Config.Auth), as pgwire's.
const (
	AuthTrust    = "trust"
	AuthPassword = "password"
)

// defaultMaxMessage is Config.MaxMessage's default, 1 MiB.
const defaultMaxMessage = 1 << 20

// Config configures a Server.
type Config struct {
	// Engine serves the connections; Node, when set, is asked at each
	// session's start which engine it serves, and whether as a standby.
	// In cluster mode only the leader serves MySQL's protocol: a
	// standby refuses a connection in place of the handshake (1053,
	// 08S01), which MySQL's and MariaDB's drivers take as the host being
	// down and move on to the next host they list (MySQL's drivers have
	// no target_session_attrs to pass over a read-only server); StopEngine
	// ends the connections of a leader whose term ended.
	Engine *engine.Engine
	Node   func() (eng *engine.Engine, standby bool)
	// Registry is the connection budget and session IDs shared with the
	// other front ends.
	Registry *frontend.Registry
	// Auth is AuthTrust (anyone, as any user) or AuthPassword
	// (mysql_native_password and caching_sha2_password against the
	// engine's roles); SetAuth changes it. The zero value is AuthTrust.
	Auth string
	// DefaultAuth is the authentication plugin the handshake announces,
	// which clients answer with unless told otherwise:
	// "mysql_native_password" (the default: MariaDB's, which MariaDB's
	// clients expect) or "caching_sha2_password" (MySQL 8's). Its full
	// authentication sends the password itself: over TLS as it is,
	// without TLS encrypted with RSAKey.
	DefaultAuth string
	// RSAKey is the key caching_sha2_password's full authentication
	// without TLS encrypts the password with (the client asks for its
	// public half, or was given it). Nil: one generated when a client
	// first needs it, new with each start.
	RSAKey *rsa.PrivateKey
	// TLS, if set, is offered to clients; TLSRequired refuses those that
	// do not use it.
	TLS         *tls.Config
	TLSRequired bool
	// Database is the name current_database() shows (a MySQL database
	// is a seqd schema).
	Database string
	// MaxBulkRows, MaxStatementMemory, SessionDefaults and Superuser
	// are the executor's, as pgwire's. MaxStatementMemory (0:
	// executor.DefaultMaxStatementMemory; negative, no bound) also bounds
	// the long data of all of one prepared statement's parameters
	// together: past it the EXECUTE fails as past MaxMessage.
	MaxBulkRows        int64
	MaxStatementMemory int64
	SessionDefaults    map[string]string
	Superuser          string
	// MaxRows bounds a result sent over MySQL's protocol, which is built
	// whole before it is sent. Default 100000.
	MaxRows int
	// MaxMessage bounds what an authenticated client may send between
	// two of the server's answers (a command, with its continuation
	// packets or long data): past it the client gets 1153 and the
	// connection ends, as MySQL ends one past max_allowed_packet, which
	// shows this value. Before it authenticated, each packet is bounded
	// by mysql.MaxHandshakePacket (16 KiB) too, past which it gets 1043. It bounds each
	// parameter's long data (COM_STMT_SEND_LONG_DATA) too, whatever the
	// client sends in between: past it the statement's EXECUTE fails
	// (1105, MariaDB's words) and the data is dropped. Default 1 MiB, as
	// pgwire's (defaultMaxMessage).
	MaxMessage int
	// MaxPreparedStatements is MariaDB's max_prepared_stmt_count: the
	// prepared statements of all connections at once; one more is 1461.
	// Default 16382, MariaDB's; negative, no bound.
	MaxPreparedStatements int
	// MaxPreparedMemory bounds the memory one connection's prepared
	// statements hold, as estimated from their text, parse trees and
	// columns (preparedCost): one more past it is 1041. Default 16 MiB;
	// negative, no bound.
	MaxPreparedMemory int64
	// MaxUserVariableMemory bounds the memory one connection's user
	// variables (SET @v = ...) hold, their names' and values' bytes: a
	// SET past it is 1041 (uservars.go). Default
	// DefaultMaxUserVariableMemory; negative, no bound.
	MaxUserVariableMemory int64
	// AuthTimeout bounds a connection's time from accept until its
	// client authenticated (TLS and handshake included): the connection
	// is closed then. 0 is frontend.DefaultAuthTimeout; negative, no
	// bound.
	AuthTimeout time.Duration
	// IdleTimeout, when positive, ends a connection idle that long.
	IdleTimeout time.Duration
	// Logger receives failures; nil means the standard logger.
	Logger *log.Logger
	// OnStatement, if set, is told of every statement run, as pgwire's
	// (the server's metrics): each of a COM_QUERY's statements, a
	// COM_STMT_EXECUTE, a COM_INIT_DB (as USE), and a COM_QUERY or
	// COM_STMT_PREPARE that failed before it had a statement. Given its
	// command (PostgreSQL's tag's words: "SELECT", "CREATE SEQUENCE",
	// "SET", ...; "" if it failed before having one) and its SQLSTATE
	// ("00000" on success; else its error kind's in sqlerr's table, as
	// PostgreSQL's protocol and the APIs report it, not MariaDB's its
	// client was sent: HY000 for most of MariaDB's own errors, such as
	// a sequence run out, which is 2200H here), it returns the
	// function told how long the statement took, its answer sent. Each
	// connection keeps the function of its last (command, SQLSTATE) and
	// calls it again for the next statement with the same pair, so
	// looking it up may cost more than calling it. Neither may block.
	OnStatement func(command, sqlstate string) func(d time.Duration)
}

// Server serves MySQL's protocol on one listener. It is safe for
// concurrent use.
type Server struct {
	cfg      Config
	log      *log.Logger
	failures frontend.FailureLog // failed statements, bounded per code
	l        *mysql.Listener
	trust    atomic.Bool
	// dummy and dummyFast are what a name that is no role's (or a
	// role's that may not log in) is checked against: a verifier and a
	// fast path hash no password matches (passwordServer).
	dummy     *engine.Verifier
	dummyFast []byte
	// prepared counts the prepared statements of all connections
	// (MaxPreparedStatements).
	prepared atomic.Int64

	rsaOnce sync.Once
	rsaErr  error

	mu   sync.Mutex
	fast map[string]fastEntry // by user, after a full authentication
	// conns are the connections from accept to close, by the thread ID
	// their handshake announced, their session ID once authenticated.
	conns map[uint32]*conn
}

// fastEntry is caching_sha2_password's cache of a role: SHA256(SHA256(
// password)), and the SCRAM verifier it was checked against (a password
// set since makes the entry stale, as MySQL drops its cache entry).
type fastEntry struct {
	hash, storedKey []byte
}

// NewServer serves ln.
func NewServer(cfg Config, ln net.Listener) (*Server, error) {
	if cfg.Registry == nil {
		cfg.Registry = frontend.NewRegistry(10000, 3)
	}
	if cfg.MaxRows <= 0 {
		cfg.MaxRows = 100000
	}
	if cfg.Database == "" {
		cfg.Database = "seqd"
	}
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = defaultMaxMessage
	}
	if cfg.AuthTimeout == 0 {
		cfg.AuthTimeout = frontend.DefaultAuthTimeout
	}
	if cfg.MaxPreparedStatements == 0 {
		cfg.MaxPreparedStatements = DefaultMaxPreparedStatements
	}
	if cfg.MaxPreparedMemory == 0 {
		cfg.MaxPreparedMemory = DefaultMaxPreparedMemory
	}
	if cfg.MaxUserVariableMemory == 0 {
		cfg.MaxUserVariableMemory = DefaultMaxUserVariableMemory
	}
	longDataStatement := cfg.MaxStatementMemory
	switch {
	case longDataStatement == 0:
		longDataStatement = executor.DefaultMaxStatementMemory
	case longDataStatement < 0:
		longDataStatement = 0 // none
	}
	switch cfg.DefaultAuth {
	case "":
		cfg.DefaultAuth = string(mysql.MysqlNativePassword)
	case string(mysql.MysqlNativePassword), string(mysql.CachingSha2Password):
	default:
		return nil, fmt.Errorf("seqd: MySQL authentication plugin %q: want mysql_native_password or caching_sha2_password", cfg.DefaultAuth)
	}
	dummy, dummyFast, err := newDummy()
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, dummy: dummy, dummyFast: dummyFast, fast: map[string]fastEntry{},
		conns: map[uint32]*conn{}}
	if s.log == nil {
		s.log = log.Default()
	}
	s.failures.Logger = s.log
	routeLibraryLog(s.log)
	s.SetAuth(cfg.Auth)
	l, err := mysql.NewListenerWithConfig(mysql.ListenerConfig{Listener: s.listen(ln), AuthServer: &passwordServer{srv: s}, Handler: handler{srv: s},
		ConnReadTimeout: cfg.IdleTimeout, ConnWriteTimeout: cfg.IdleTimeout,
		// Without a read buffer the listener cannot switch a connection
		// to TLS (it resets the buffer onto the TLS connection).
		ConnReadBufferSize: mysql.DefaultConnBufferSize})
	if err != nil {
		return nil, err
	}
	l.ServerVersion = ServerVersion
	if cfg.TLS != nil {
		l.TLSConfig = cfg.TLS
	}
	l.RequireSecureTransport = cfg.TLSRequired
	l.MaxPacket = cfg.MaxMessage
	l.ChangeUserFailedDelay = time.Second // MariaDB's wait after a refused COM_CHANGE_USER
	l.MaxLongData, l.MaxLongDataStatement = int64(cfg.MaxMessage), longDataStatement
	s.l = l
	return s, nil
}

// SetAuth changes the authentication of new connections.
func (s *Server) SetAuth(method string) { s.trust.Store(method != AuthPassword) }

// Serve accepts connections until Close.
func (s *Server) Serve() { s.l.Accept() }

// Addr is the listener's address.
func (s *Server) Addr() net.Addr { return s.l.Addr() }

// Close stops accepting and ends every connection (a running statement
// is cancelled first).
func (s *Server) Close() {
	s.l.Close()
	s.mu.Lock()
	conns := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.cancelStatement()
		c.c.Close()
	}
}

// kill is KILL [QUERY | CONNECTION] id from the connection by: the
// statement the connection runs is cancelled (1317 for its client), and
// for KILL CONNECTION the connection ends. id is the session's ID
// (CONNECTION_ID(), pg_stat_activity's pid, the thread ID its handshake
// announced, which the mysql client's ^C and Connector/J's
// Statement.cancel send); a connection not yet authenticated has no
// session to KILL. A role may kill its own connections; a superuser any.
func (s *Server) kill(by *conn, id uint32, query bool) error {
	s.mu.Lock()
	target := s.conns[id]
	if target != nil && target.id == 0 {
		target = nil
	}
	var owner string
	if target != nil {
		owner = target.c.User // under s.mu, as COM_CHANGE_USER changes it (become)
	}
	s.mu.Unlock()
	if target == nil {
		return mysql.NewSQLError(1094, "HY000", "Unknown thread id: %d", id)
	}
	if owner != by.c.User {
		r, ok := s.role(by.c.User)
		if !ok || !r.Superuser {
			return mysql.NewSQLError(1095, "HY000", "You are not owner of thread %d", id)
		}
	}
	target.cancelStatement()
	if !query {
		target.c.Close()
	}
	return nil
}

// logFailure logs a failed statement, as pgwire logs one: with the
// number and message its client was sent.
func (s *Server) logFailure(c *mysql.Conn, err error, text string) {
	e := toSQLError(err)
	s.failures.Log(strconv.Itoa(e.Number()), e.Message, c.User, c.ConnectionID, text)
}

// engine is the engine a new session serves.
func (s *Server) engine() (*engine.Engine, bool) {
	if s.cfg.Node != nil {
		return s.cfg.Node()
	}
	return s.cfg.Engine, false
}

// standby reports whether this node is a cluster's standby now.
func (s *Server) standby() bool {
	_, standby := s.engine()
	return standby
}

// errStandby is a standby's refusal: MySQL's clients are served by the
// leader only.
var errStandby = mysql.NewSQLError(mysql.ERServerShutdown, "08S01",
	"seqd: this node is a standby in a cluster; MySQL clients are served by the leader only (list every node in the driver's hosts)")

// StopEngine ends the connections whose sessions serve eng (a statement
// under way is cancelled first): cluster mode calls it when the node's
// term ends, so that clients reconnect and find the leader.
func (s *Server) StopEngine(eng *engine.Engine) {
	for _, c := range s.connsOf(eng) {
		c.cancelStatement()
		c.c.Close()
	}
}

// Uses reports whether a connection's session still serves eng.
func (s *Server) Uses(eng *engine.Engine) bool { return len(s.connsOf(eng)) > 0 }

// connsOf lists the connections whose sessions serve eng.
func (s *Server) connsOf(eng *engine.Engine) []*conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*conn
	for _, c := range s.conns {
		c.mu.Lock()
		if c.eng == eng {
			out = append(out, c)
		}
		c.mu.Unlock()
	}
	return out
}

// role is user's role when it may log in.
func (s *Server) role(user string) (engine.Role, bool) {
	eng, _ := s.engine()
	r, ok := eng.Role(user)
	return r, ok && r.Login
}
