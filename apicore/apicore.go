// Package apicore is what seqd's driverless APIs share: the HTTP/JSON API
// (httpapi) and the gRPC service (grpcapi) authenticate a role the same
// way, run its calls in pooled executor sessions of that role, and take
// values, reserve and release ranges with the same statements. Each API
// is then only its transport: decoding a request, and answering a value
// or an Error (a SQLSTATE and a message) in its own terms.
//
// A call runs statements of the shared executor as the role it
// authenticated as, so privileges, limits, statement_timeout,
// pg_stat_activity and the engine's guarantees are the SQL front ends'.
// Names reach a statement only as escape string literals (E'...') or
// quoted identifiers, never as SQL text of their own.
package apicore

import (
	"sync/atomic"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/frontend"
)

// Authentication methods (Config.Auth).
const (
	// AuthTrust lets anyone in as the user the request names (the
	// bootstrap superuser without one), as PostgreSQL's trust.
	AuthTrust = "trust"
	// AuthPassword wants the credentials of a role that may log in,
	// checked against its stored verifier.
	AuthPassword = "password"
)

// MaxValues bounds the values one call takes (with -max-bulk-rows): an
// answer of them is held whole until sent. A larger batch is a range
// (Reserve), whose answer is three numbers however many values it holds.
const MaxValues = 100_000

// Config configures a Core.
type Config struct {
	// Engine serves the calls; Node, when set, is asked at each call
	// which engine serves it, and whether as a standby (which refuses
	// what writes: 25006).
	Engine *engine.Engine
	Node   func() (eng *engine.Engine, standby bool)
	// Registry is the connection budget and session IDs shared with the
	// other front ends: a pooled session holds a slot.
	Registry *frontend.Registry
	// Auth is AuthTrust or AuthPassword; the zero value is AuthTrust.
	Auth string
	// Superuser is the bootstrap superuser (executor.Config's): the user
	// of a call without credentials under trust.
	Superuser string
	// MaxBulkRows bounds the values one call takes; MaxStatementMemory
	// and SessionDefaults are the executor's, as the SQL front ends'.
	MaxBulkRows        int64
	MaxStatementMemory int64
	SessionDefaults    map[string]string
	// AppName is the sessions' application_name (pg_stat_activity).
	AppName string
	// Protocol names the API the sessions serve, "http" or "grpc"
	// (executor.Config's: the values they take are counted by it).
	Protocol string
	// AuthTimeout bounds a connection's time from accept until a request
	// on it authenticates (HTTP) or it makes its first call (gRPC): the
	// listener closes it then (frontend.ListenerConfig's). 0 is
	// frontend.DefaultAuthTimeout, 10 s; negative, no bound.
	AuthTimeout time.Duration
}

// Core authenticates calls and runs them in pooled sessions.
type Core struct {
	cfg   Config
	pool  sessionPool
	creds credentialCache
	// sweeper links long calls to their callers' contexts.
	sweeper sweeper
	auth    atomic.Pointer[string] // the method, read by every call
}

// New makes a Core.
func New(cfg Config) *Core {
	if cfg.Registry == nil {
		cfg.Registry = frontend.NewRegistry(10000, 3)
	}
	if cfg.Superuser == "" {
		cfg.Superuser = "seqd"
	}
	if cfg.MaxBulkRows <= 0 {
		cfg.MaxBulkRows = 1 << 20
	}
	c := &Core{cfg: cfg}
	c.auth.Store(&cfg.Auth)
	c.pool.byUser = map[string][]*session{}
	c.creds.ok = map[[32]byte]struct{ version uint64 }{}
	return c
}

// Registry is the connection budget the calls share.
func (c *Core) Registry() *frontend.Registry { return c.cfg.Registry }

// MaxCount is the most values one call may take.
func (c *Core) MaxCount() int64 { return min(c.cfg.MaxBulkRows, MaxValues) }

// SetAuth changes the authentication of new calls.
func (c *Core) SetAuth(method string) { c.auth.Store(&method) }

// AuthMethod is the authentication of new calls.
func (c *Core) AuthMethod() string { return *c.auth.Load() }

// Engine is the engine a call runs on, and whether as a standby.
func (c *Core) Engine() (*engine.Engine, bool) {
	if c.cfg.Node != nil {
		return c.cfg.Node()
	}
	return c.cfg.Engine, false
}

// Close closes the pooled sessions; a session in use is closed when its
// call ends.
func (c *Core) Close() {
	c.pool.closeAll()
	c.sweeper.stop()
}
