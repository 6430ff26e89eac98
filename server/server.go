// Package server wires seqd together: it opens the store and the engine,
// serves the PostgreSQL protocol, and shuts down cleanly.
package server

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/seqd/seqd/auth"
	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/grpcapi"
	"github.com/seqd/seqd/httpapi"
	"github.com/seqd/seqd/mysqlwire"
	"github.com/seqd/seqd/pgwire"
	"github.com/seqd/seqd/storage"
	"github.com/seqd/seqd/storage/embedded"
)

// Config is seqd's configuration. The zero value is not valid; see
// cmd/seqd for the defaults.
type Config struct {
	DataDir string // the embedded store's directory
	Listen  string // host:port for the PostgreSQL protocol
	// MySQLListen, when set, is host:port for MySQL's protocol, on the
	// same engine, roles and connection budget (mysqlwire).
	MySQLListen string
	// APIListen, when set, is host:port for the HTTP/JSON API (httpapi),
	// on the same engine, roles and connection budget; off loopback it
	// needs TLS (-tls-cert) unless APIInsecure.
	APIListen string
	// GRPCListen, when set, is host:port for the gRPC service (grpcapi),
	// under the same rules as APIListen (APIInsecure waives TLS for
	// both).
	GRPCListen  string
	APIInsecure bool
	// MySQLDefaultAuth is the authentication plugin MySQL's handshake
	// announces (mysqlwire.Config.DefaultAuth).
	MySQLDefaultAuth string
	// MySQLRSAKey, when set, is a PEM file of the RSA private key
	// caching_sha2_password's full authentication without TLS uses
	// (mysqlwire.Config.RSAKey); unset, one is generated when needed.
	MySQLRSAKey string
	MaxBulkRows int64
	// MaxTxnLocks bounds the sequences and names one transaction locks
	// (engine.Config.MaxTxnLocks: 0 its default, negative none).
	MaxTxnLocks int
	// NodeID is this server's node part in SNOWFLAKE sequences' ids (its
	// low NODE_BITS bits): which server handed an id out. Default 0.
	NodeID int64
	// WallClock is the clock SNOWFLAKE sequences, seqd_tso and
	// seqd_uuidv7 follow; nil: the system's. The torture harness's build
	// steps it (internal/faultclock).
	WallClock func() time.Time
	// MaxConns bounds the clients' connections, every protocol's
	// together (0: DefaultMaxConns); MaxMessage one protocol message, and
	// so a statement, in bytes (0: 1 MiB). Validate gives their ranges,
	// and the others'.
	MaxConns   int
	MaxMessage int
	// MaxStatementMemory bounds the memory one statement keeps (53200
	// past it); 0: the executor's default, negative: none.
	MaxStatementMemory int64
	// MaxParseMemory bounds the memory the statements of 16 KiB and
	// more take while parsed and built (and run, sent to run at once), server-wide, counted at
	// 1 KiB per byte of text (frontend.LongStatement); 0:
	// frontend.DefaultParseRoom, negative: none.
	MaxParseMemory int64
	// ReservedConns and AuthTimeout: pgwire.Config's (superuser slots,
	// 0 DefaultReservedConns and negative none; the bound on a
	// connection's startup, 0 10 s), on every front end.
	ReservedConns int
	AuthTimeout   time.Duration
	// SessionDefaults are settings every session starts with
	// (statement_timeout, lock_timeout, idle_in_transaction_session_timeout,
	// idle_session_timeout), as postgresql.conf's.
	SessionDefaults map[string]string
	IdleTimeout     time.Duration // 0: none
	Logger          *log.Logger
	// FS, when set, is the file system the embedded store uses (tests and
	// fault injection); nil is the operating system's.
	FS vfs.FS
	// Store, when set, is used instead of the embedded store in DataDir
	// (another storage.Store: in memory, or a distributed one).
	Store storage.Store
	// AdoptStore is the operator's statement that DataDir now holds the
	// only copy of its store (after moving or restoring it): a store
	// created in another place is opened instead of refused.
	AdoptStore bool
	// MinFreeSpace is the room the embedded store keeps on its file
	// system (embedded.Options.MinFreeBytes).
	MinFreeSpace int64
	// Auth is "trust", "scram-sha-256" or "cert"; empty chooses safely:
	// trust on a loopback address only, SCRAM on any other.
	Auth string
	// TLSRequired refuses connections without TLS (FATAL 28000, as a
	// pg_hba.conf of hostssl lines only).
	TLSRequired bool
	// Superuser is the role the first start creates under SCRAM
	// (default "seqd"), with Password (never from the command line).
	Superuser string
	Password  string
	// TLSCert and TLSKey, when set, offer TLS (sslmode=require,
	// verify-full); TLSClientCA checks client certificates that are
	// given. Reload reads them again.
	TLSCert, TLSKey, TLSClientCA string
	// HTTP, when set, is the address of the HTTP listener: Prometheus
	// metrics on /metrics, /healthz and /readyz.
	HTTP string
	// ExhaustionHorizon: a sequence projected to reach its limit within
	// it, at its current rate, is logged once a day. Default 30 days.
	ExhaustionHorizon time.Duration
	// Etcd, when set, runs cluster mode on these etcd endpoints instead
	// of the embedded store: the nodes elect a leader, which serves; the
	// others serve as read-only standbys. EtcdPrefix (default "/seqd/")
	// is the cluster's place in etcd, NodeName (default the listen
	// address) how this node is named, LeaseTTL (default 5 s) the
	// leader's lease.
	Etcd       []string
	EtcdPrefix string
	// EtcdSecurity: TLS and a user for a secured etcd.
	EtcdSecurity EtcdSecurity
	NodeName     string
	LeaseTTL     time.Duration
}

// AuthFor is the authentication a listen address gets when none is asked
// for: trust on loopback, where only this machine's users reach seqd, and
// SCRAM-SHA-256 anywhere else (Redis's protected mode is the model).
func AuthFor(listen string) string {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return pgwire.AuthSCRAM
	}
	if host == "localhost" {
		return pgwire.AuthTrust
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return pgwire.AuthTrust
	}
	return pgwire.AuthSCRAM
}

// Server is a running seqd.
type Server struct {
	cfg     Config // as started (bootstrap's settings for SetAuth)
	metrics *metrics
	watch   *exhaustionWatch
	stop    chan struct{} // ends the watch
	httpSrv *http.Server  // nil without -http
	httpLn  net.Listener
	tls     *tlsFiles // nil without TLS
	log     *log.Logger
	eng     *engine.Engine // single-node mode
	node    *node          // cluster mode
	pg      *pgwire.Server
	my      *mysqlwire.Server // nil without -mysql-listen
	api     *httpapi.Server   // nil without -api-listen
	apiLn   net.Listener
	grpc    *grpcapi.Server // nil without -grpc-listen
	grpcLn  net.Listener
	// others are the protocols' servers besides PostgreSQL's, in the
	// order they started: SetAuth, Shutdown and a failed start walk them.
	others []door
	ln     net.Listener
	done   chan error
	// storeErr is why the embedded store failed while serving (its
	// directory removed or replaced, damage found): /readyz fails and
	// the server stops.
	storeErr atomic.Pointer[error]
}

// Start opens the data directory, recovers every sequence and starts
// listening. A limit out of its range (Validate) is refused first.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = log.Default()
	}
	if cfg.HTTP != "" {
		cfg.Logger = logFailures(cfg.Logger) // the console's recent failures
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Etcd) > 0 {
		return startCluster(ctx, cfg)
	}
	st := cfg.Store
	storeFailed := make(chan error, 1)
	if st == nil {
		if cfg.FS == nil {
			if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
				return nil, err
			}
		}
		var err error
		opts := embedded.Options{FS: cfg.FS, Adopt: cfg.AdoptStore, MinFreeBytes: cfg.MinFreeSpace, OnFailure: func(err error) {
			select {
			case storeFailed <- err:
			default:
			}
		}}
		if st, err = embedded.Open(cfg.DataDir, opts); err != nil {
			return nil, err
		}
		if cfg.AdoptStore {
			cfg.Logger.Printf("adopted the store in %s as the only copy of store %s", cfg.DataDir, st.(*embedded.Store).ID())
		}
	}
	if cfg.ExhaustionHorizon <= 0 {
		cfg.ExhaustionHorizon = 30 * 24 * time.Hour
	}
	s := &Server{log: cfg.Logger, done: make(chan error, 1), watch: newExhaustionWatch(cfg.ExhaustionHorizon, exhaustionPeriod), stop: make(chan struct{})}
	s.metrics = newMetrics(s.engine, s.admitted, cfg.maxConns(), s.watch.Near)
	opened := time.Now()
	eng, err := engine.Open(ctx, engine.Config{Store: st, OnCommit: s.metrics.onCommit, MaxTxnLocks: cfg.MaxTxnLocks, NodeID: cfg.NodeID, WallClock: cfg.WallClock,
		OnClockBehind: logClockBehind(s.log)})
	if err != nil {
		st.Close()
		return nil, err
	}
	recovery := time.Since(opened)
	if cfg.Auth == "" {
		cfg.Auth = AuthFor(cfg.Listen)
	}
	if err := bootstrap(ctx, eng, &cfg); err != nil {
		eng.Close()
		return nil, err
	}
	s.cfg, s.eng = cfg, eng
	// What was opened is logged before the server answers anyone.
	if cfg.FS == nil && cfg.Store == nil {
		dir, _ := filepath.Abs(cfg.DataDir)
		if eng.Fresh() {
			cfg.Logger.Printf("created a new store in %s", dir)
		} else {
			cfg.Logger.Printf("recovered %d sequences in %d schemas from %s in %v", eng.Count(), len(eng.Schemas()), dir, recovery.Round(time.Millisecond))
		}
	}
	if err := s.listen(cfg, pgwire.Config{Engine: eng}); err != nil {
		eng.Close()
		return nil, err
	}
	go s.watch.run(func() (*engine.Engine, bool) { return eng, true }, s.stop)
	go func() {
		select {
		case err := <-storeFailed:
			s.storeErr.Store(&err)
			frontend.Logf(cfg.Logger, slog.LevelError, "%v; stopping", err)
			select {
			case s.done <- err:
			default:
			}
		case <-s.stop:
		}
	}()
	cfg.Logger.Printf("seqd listening on %s, authentication %s, TLS %v", s.ln.Addr(), cfg.Auth, s.tls != nil)
	return s, nil
}

// listen loads the TLS files, listens for the protocol (pc says which
// engine the connections serve) and for HTTP, and starts serving. On
// error nothing is left listening.
func (s *Server) listen(cfg Config, pc pgwire.Config) error {
	if cfg.TLSCert != "" || cfg.TLSKey != "" {
		s.tls = &tlsFiles{cert: cfg.TLSCert, key: cfg.TLSKey, ca: cfg.TLSClientCA}
		if err := s.tls.load(); err != nil {
			return err
		}
		pc.TLS = s.tls.config()
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("seqd: listen: %w", err)
	}
	s.ln = ln
	pc.MaxBulkRows, pc.MaxConns, pc.MaxMessage, pc.IdleTimeout = cfg.MaxBulkRows, cfg.MaxConns, cfg.MaxMessage, cfg.IdleTimeout
	pc.MaxStatementMemory, pc.SessionDefaults, pc.Superuser = cfg.MaxStatementMemory, cfg.SessionDefaults, cfg.Superuser
	pc.ReservedConns, pc.AuthTimeout, pc.TLSRequired = cfg.ReservedConns, cfg.AuthTimeout, cfg.TLSRequired
	pc.Logger, pc.Auth, pc.OnStatement = cfg.Logger, cfg.Auth, s.metrics.onStatement
	s.pg = pgwire.NewServer(pc)
	if cfg.MaxParseMemory != 0 {
		s.pg.Registry().SetParseRoom(cfg.MaxParseMemory)
	}
	if cfg.MySQLListen != "" {
		ml, err := net.Listen("tcp", cfg.MySQLListen)
		if err != nil {
			ln.Close()
			return fmt.Errorf("seqd: mysql listen: %w", err)
		}
		var key *rsa.PrivateKey
		if cfg.MySQLRSAKey != "" {
			if key, err = loadRSAKey(cfg.MySQLRSAKey); err != nil {
				ml.Close()
				ln.Close()
				return err
			}
		}
		s.my, err = mysqlwire.NewServer(mysqlwire.Config{Engine: pc.Engine, Node: pc.Node, Registry: s.pg.Registry(),
			Auth: mysqlAuth(cfg.Auth, cfg.MySQLListen), DefaultAuth: cfg.MySQLDefaultAuth, RSAKey: key, TLS: pc.TLS, TLSRequired: cfg.TLSRequired, MaxBulkRows: cfg.MaxBulkRows, MaxStatementMemory: cfg.MaxStatementMemory,
			SessionDefaults: cfg.SessionDefaults, Superuser: cfg.Superuser, IdleTimeout: cfg.IdleTimeout, MaxMessage: cfg.MaxMessage, AuthTimeout: cfg.AuthTimeout, Logger: cfg.Logger,
			OnStatement: s.metrics.onMySQLStatement}, ml)
		if err != nil {
			ml.Close()
			ln.Close()
			return err
		}
		my := s.my
		s.others = append(s.others, door{
			setAuth: func(method string) { my.SetAuth(mysqlAuth(method, cfg.MySQLListen)) },
			stop:    func(context.Context) { my.Close() },
		})
		go my.Serve()
		cfg.Logger.Printf("MySQL protocol on %s, authentication %s", ml.Addr(), mysqlAuth(cfg.Auth, cfg.MySQLListen))
	}
	if err := s.listenAPIs(cfg, pc); err != nil {
		ln.Close()
		s.stopOthers(context.Background())
		return err
	}
	if cfg.HTTP != "" {
		hl, err := net.Listen("tcp", cfg.HTTP)
		if err != nil {
			ln.Close()
			s.stopOthers(context.Background())
			return fmt.Errorf("seqd: http listen: %w", err)
		}
		s.httpLn = hl
		s.serveHTTP(hl)
		cfg.Logger.Printf("metrics and health on http://%s", hl.Addr())
	}
	go func() { s.done <- s.pg.Serve(ln) }()
	return nil
}

// GRPCAddr is the gRPC service's listener's address, nil without one.
func (s *Server) GRPCAddr() net.Addr {
	if s.grpcLn == nil {
		return nil
	}
	return s.grpcLn.Addr()
}

// APIAddr is the HTTP API's listener's address, nil without one.
func (s *Server) APIAddr() net.Addr {
	if s.apiLn == nil {
		return nil
	}
	return s.apiLn.Addr()
}

// checkAuth checks that the authentication asked for can work: a known
// method, and for cert a client CA to verify certificates against.
func checkAuth(cfg Config) error {
	switch cfg.Auth {
	case pgwire.AuthTrust, pgwire.AuthSCRAM:
	case pgwire.AuthCert:
		if cfg.TLSClientCA == "" || cfg.TLSCert == "" {
			return fmt.Errorf("seqd: -auth cert needs TLS (-tls-cert, -tls-key) and a client CA (-tls-ca) to verify certificates against")
		}
	default:
		return fmt.Errorf("seqd: unknown authentication %q (want trust, scram-sha-256 or cert)", cfg.Auth)
	}
	if cfg.TLSRequired && cfg.TLSCert == "" {
		return fmt.Errorf("seqd: -tls-required needs -tls-cert and -tls-key")
	}
	return nil
}

// mysqlAuth is MySQL's protocol's authentication under -auth method:
// trust when trusted, passwords against the roles' verifiers otherwise.
func mysqlAuth(method, listen string) string {
	if trusted(method, listen) {
		return mysqlwire.AuthTrust
	}
	return mysqlwire.AuthPassword
}

// trusted reports whether a front end other than PostgreSQL's listening
// on listen lets anyone in: only where -auth is trust and its address
// is loopback too.
func trusted(method, listen string) bool {
	return method == pgwire.AuthTrust && AuthFor(listen) == pgwire.AuthTrust
}

// bootstrap checks the authentication settings and, under SCRAM, makes
// sure the superuser exists: the first start creates it with the
// configured password.
func bootstrap(ctx context.Context, eng *engine.Engine, cfg *Config) error {
	if err := checkAuth(*cfg); err != nil {
		return err
	}
	if cfg.Superuser == "" {
		cfg.Superuser = "seqd" // under trust too: the catalog's OID 10
	}
	if cfg.Auth == pgwire.AuthTrust {
		if AuthFor(cfg.Listen) != pgwire.AuthTrust {
			slog.Warn("authentication is trust off loopback: anyone who reaches seqd can do anything", "listen", cfg.Listen)
		}
		return nil
	}
	if _, ok := eng.Role(cfg.Superuser); ok {
		return nil
	}
	if cfg.Auth == pgwire.AuthCert && cfg.Password == "" {
		// Its certificate (common name the superuser's) lets it in.
		if err := eng.PutRole(ctx, engine.Role{Name: cfg.Superuser, Superuser: true, Login: true, CreateRole: true}, true); err != nil {
			return err
		}
		cfg.Logger.Printf("created the superuser %q (no password: it logs in with a client certificate)", cfg.Superuser)
		return nil
	}
	if cfg.Password == "" {
		return fmt.Errorf("seqd: authentication is scram-sha-256 (the default off loopback) and the superuser %q does not exist yet: "+
			"give its password in SEQD_PASSWORD or -password-file, or ask for -auth trust", cfg.Superuser)
	}
	v, err := auth.NewVerifier(cfg.Password)
	if err != nil {
		return err
	}
	if err := eng.PutRole(ctx, engine.Role{Name: cfg.Superuser, Superuser: true, Login: true, CreateRole: true, Verifier: v}, true); err != nil {
		return err
	}
	cfg.Logger.Printf("created the superuser %q", cfg.Superuser)
	return nil
}

// SetAuth changes the authentication of new connections (a reload): the
// same checks as at start apply (under scram-sha-256 the superuser must
// exist, or its password have been given). On error nothing changes.
func (s *Server) SetAuth(ctx context.Context, method string) error {
	cfg := s.cfg
	cfg.Auth = method
	if err := bootstrap(ctx, s.engine(), &cfg); err != nil {
		return err
	}
	s.pg.SetAuth(method)
	for _, d := range s.others {
		d.setAuth(method)
	}
	s.cfg.Auth = method
	s.log.Printf("authentication of new connections: %s", method)
	return nil
}

// Reload reads the configuration files again (SIGHUP): the TLS
// certificate, key and client CA. On failure the old ones stay in use.
func (s *Server) Reload() error {
	if s.tls == nil {
		return nil
	}
	if err := s.tls.load(); err != nil {
		return err
	}
	s.log.Printf("reloaded TLS files")
	return nil
}

// admitted is how many client connections are open, of every protocol,
// as the budget they share counts them (from accept).
func (s *Server) admitted() int { return s.pg.Registry().Admitted() }

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Done reports a listener failure.
func (s *Server) Done() <-chan error { return s.done }

// door is a protocol's server, other than PostgreSQL's, as Server drives
// it once it listens.
type door struct {
	setAuth func(method string) // the method as this listener takes it
	stop    func(ctx context.Context)
}

// stopOthers stops the servers of the protocols besides PostgreSQL's.
func (s *Server) stopOthers(ctx context.Context) {
	for _, d := range s.others {
		d.stop(ctx)
	}
}

// frontEnds are the protocols' servers running.
func (s *Server) frontEnds() []frontEnd {
	if s.my != nil {
		return []frontEnd{s.pg, s.my}
	}
	return []frontEnd{s.pg}
}

// MySQLAddr is MySQL's protocol's listener's address, nil without one.
func (s *Server) MySQLAddr() net.Addr {
	if s.my == nil {
		return nil
	}
	return s.my.Addr()
}

// HTTPAddr is the HTTP listener's address, nil without one.
func (s *Server) HTTPAddr() net.Addr {
	if s.httpLn == nil {
		return nil
	}
	return s.httpLn.Addr()
}

// Shutdown stops accepting, finishes in-flight requests, writes the
// clean-shutdown record of every sequence and closes the store.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopOthers(ctx)
	err := s.pg.Shutdown(ctx)
	close(s.stop)
	if s.httpSrv != nil {
		s.httpSrv.Close()
	}
	if s.node != nil {
		return errors.Join(err, s.node.close())
	}
	return errors.Join(err, s.eng.Close())
}

// engine is the engine new connections serve.
func (s *Server) engine() *engine.Engine {
	if s.node != nil {
		eng, _ := s.node.current()
		return eng
	}
	return s.eng
}

// startCluster is Start in cluster mode: the node serves a snapshot as a
// standby until it is elected, then the store as the leader.
func startCluster(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.EtcdPrefix == "" {
		cfg.EtcdPrefix = "/seqd/"
	}
	if cfg.NodeName == "" {
		cfg.NodeName = cfg.Listen
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 5 * time.Second
	}
	if cfg.Auth == "" {
		cfg.Auth = AuthFor(cfg.Listen)
	}
	if cfg.Superuser == "" {
		cfg.Superuser = "seqd" // as bootstrap sets it
	}
	if err := checkAuth(cfg); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, done: make(chan error, 1), watch: newExhaustionWatch(cfg.ExhaustionHorizon, exhaustionPeriod), stop: make(chan struct{})}
	s.metrics = newMetrics(s.engine, s.admitted, cfg.maxConns(), s.watch.Near)
	n, err := startNode(ctx, cfg, s.frontEnds)
	if err != nil {
		return nil, err
	}
	s.node = n
	n.metrics = s.metrics.registerCluster(n.leading, n.ranges)
	if err := s.listen(cfg, pgwire.Config{Node: n.current}); err != nil {
		n.discard()
		return nil, err
	}
	if n.cfg.NodeName == cfg.Listen {
		n.mu.Lock()                           // /readyz may read it already
		n.cfg.NodeName = s.ln.Addr().String() // a port chosen at listen
		n.mu.Unlock()
	}
	if s.apiLn != nil || s.grpcLn != nil {
		var a apiAddrs
		if s.apiLn != nil {
			scheme := "http://"
			if s.tls != nil {
				scheme = "https://"
			}
			a.HTTP = scheme + advertised(s.apiLn.Addr(), n.cfg.NodeName)
		}
		if s.grpcLn != nil {
			a.GRPC = advertised(s.grpcLn.Addr(), n.cfg.NodeName)
		}
		// Without it, this node's APIs answer a standby's 503 instead of
		// forwarding while it follows.
		if err := n.publishAPIs(a); err != nil {
			cfg.Logger.Printf("cluster: could not record this node's API addresses in etcd (followers answer 503 for the leader's requests): %v", err)
		}
	}
	go n.lead(s.metrics.onCommit)
	go s.watch.run(func() (*engine.Engine, bool) {
		if !n.leading() {
			return nil, false
		}
		eng, _ := n.current()
		return eng, true
	}, s.stop)
	cfg.Logger.Printf("seqd cluster node %s listening on %s (etcd %v, prefix %s), authentication %s, TLS %v",
		n.cfg.NodeName, s.ln.Addr(), cfg.Etcd, cfg.EtcdPrefix, cfg.Auth, s.tls != nil)
	return s, nil
}
