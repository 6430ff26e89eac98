// Package frontend is what seqd's protocol front ends share, so that each
// front end is a small room: PostgreSQL's protocol (pgwire), MySQL's
// (mysqlwire), the HTTP API (httpapi) and gRPC (grpcapi).
//
// Everything a statement means is the executor's (executor.Session).
// A front end implements:
//
//   - its connection loop: reading its protocol's messages within its
//     size limit, answering with executor results in its wire format,
//     and ending idle or departed connections;
//   - authentication of a role against the engine's roles (auth for
//     SCRAM; a new method keeps only verifiers, never passwords);
//   - the mapping of executor error kinds (sqlerr.Kind) to its protocol's
//     codes, in one table, as pgwire/errors.go is;
//   - cancellation: a context per statement, cancelled through the
//     Registry by its protocol's cancel request;
//
// and it uses from here the connection budget every front end shares
// (Registry: -max-connections counted from accept, the slots reserved
// for superusers, session IDs and cancel keys), the accept loop that
// counts, evicts, times out and retries (Listener), the kind of an error of
// any layer (KindOf, which its table maps), and the handling of a failed
// or panicking statement (Contain, LogFailure).
//
// Every listener passes the conformance suite in frontend/frontendtest.
package frontend

import (
	"container/list"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/binary"
	"log"
	"net"
	"runtime/debug"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sqlerr"
)

// Registry holds the connections of every front end of one server: the
// budget they share and the sessions' IDs, which cancel them (PostgreSQL's
// CancelRequest names one with its key; MySQL's KILL QUERY n, and
// pg_backend_pid, show one) and what each runs (Activity, which
// pg_stat_activity lists). It is safe for concurrent use.
type Registry struct {
	max, reserved int
	activity      *executor.Activity
	parse         *parseRoom // long statements' (parseroom.go)

	mu        sync.Mutex
	admitted  int               // connections accepted and not yet ended
	byName    map[string]int    // admitted, by the name of the Listener that accepted them
	byID      map[uint32]*entry // sessions, and IDs reserved (ReserveID)
	sessions  int               // the entries of byID that are sessions counted
	tracked   int               // the entries of byID that Track made
	evictable list.List         // of *Conn: not yet authenticated, or idle; oldest first
}

// entry is a session's, or an ID reserved for one (cancel nil).
type entry struct {
	key    [4]byte
	cancel func()
	// counted: the session counts in sessions (Register, RegisterID);
	// tracked: in tracked (Track).
	counted, tracked bool
}

// NewRegistry is a registry of at most max connections at once, the last
// reserved of which only superusers may keep once authenticated.
func NewRegistry(max, reserved int) *Registry {
	return &Registry{max: max, reserved: reserved, byID: map[uint32]*entry{}, byName: map[string]int{}, activity: executor.NewActivity(), parse: newParseRoom(DefaultParseRoom)}
}

// Activity is the sessions of every front end, for their
// executor.Config.
func (r *Registry) Activity() *executor.Activity { return r.activity }

// Admit counts a connection from the moment it is accepted (before it
// sends anything, so that a flood of connections that never start holds
// no more than max descriptors); false when max are in, and the front end
// refuses it at once with its "too many connections" error. Every
// admitted connection calls Leave when it ends.
func (r *Registry) Admit() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.admitted >= r.max {
		return false
	}
	r.admitted++
	return true
}

// admitConn admits nc as a Conn, in the place of the oldest evictable
// connection when the budget is full (which it closes); nil when none is
// evictable. A Conn not authenticated within authTimeout (if positive)
// is closed. name is its Listener's (AdmittedBy).
func (r *Registry) admitConn(nc net.Conn, authTimeout time.Duration, name string) *Conn {
	c := &Conn{Conn: nc, reg: r, listener: name}
	r.mu.Lock()
	var evicted *Conn
	var stop *time.Timer
	if r.admitted >= r.max {
		e := r.evictable.Front()
		if e == nil {
			r.mu.Unlock()
			return nil
		}
		evicted = e.Value.(*Conn)
		evicted.left.Store(true) // its slot is the new one's
		r.admitted--
		r.byName[evicted.listener]--
		r.unlistLocked(evicted)
		stop, evicted.authTimer = evicted.authTimer, nil
	}
	r.admitted++
	r.byName[name]++
	c.evictable = r.evictable.PushBack(c)
	if authTimeout > 0 {
		c.authTimer = time.AfterFunc(authTimeout, func() { c.Close() })
	}
	r.mu.Unlock()
	if stop != nil {
		stop.Stop()
	}
	if evicted != nil {
		evicted.Conn.Close()
	}
	return c
}

// unlistLocked takes c out of the evictable list. REQUIRES: r.mu held.
func (r *Registry) unlistLocked(c *Conn) {
	if c.evictable != nil {
		r.evictable.Remove(c.evictable)
		c.evictable = nil
	}
}

// Admitted is how many connections are counted now.
func (r *Registry) Admitted() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.admitted
}

// Evictable is how many of the connections counted now a new one may
// take the place of: not yet authenticated, or idle between requests.
func (r *Registry) Evictable() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.evictable.Len()
}

// AdmittedBy is how many of the connections counted now the Listener
// named name accepted (ListenerConfig.Name: "pgwire", "mysql", "http",
// "grpc").
func (r *Registry) AdmittedBy(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byName[name]
}

// Leave ends an admitted connection.
func (r *Registry) Leave() {
	r.mu.Lock()
	r.admitted--
	r.mu.Unlock()
}

// Register gives a session an ID of its own and a key that cancel
// requests must show, and the function that cancels what it runs; ok is
// false when max sessions are registered already.
func (r *Registry) Register(cancel func()) (id uint32, key [4]byte, ok bool) {
	rand.Read(key[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessions >= r.max {
		return 0, key, false
	}
	if cancel == nil {
		cancel = func() {}
	}
	id = r.newIDLocked()
	r.byID[id] = &entry{key: key, cancel: cancel, counted: true}
	r.sessions++
	return id, key, true
}

// Track registers a session that takes no place of its own: one of the
// HTTP API's and gRPC's pooled sessions, whose clients' connections
// hold their places (a gRPC connection's streams may each hold a
// session, and a pool keeps idle ones). It has an ID and a key, for
// pg_stat_activity and a cancel, but is not counted (MayUseSlot). At
// most as many as the budget's connections are tracked at once (each
// is a session's memory): past that, false. Unregister forgets it.
func (r *Registry) Track(cancel func()) (id uint32, ok bool) {
	if cancel == nil {
		cancel = func() {}
	}
	var key [4]byte
	rand.Read(key[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tracked >= r.max {
		return 0, false
	}
	id = r.newIDLocked()
	r.byID[id] = &entry{key: key, cancel: cancel, tracked: true}
	r.tracked++
	return id, true
}

// ReserveID takes an ID no session has for a connection that must name
// itself before it authenticates (MySQL's handshake announces its thread
// ID, which CONNECTION_ID() shows after): not a session, so not counted
// (MayUseSlot) and cancelling nothing, until RegisterID makes it one.
// Unregister gives it back.
func (r *Registry) ReserveID() uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.newIDLocked()
	r.byID[id] = &entry{}
	return id
}

// RegisterID registers the session of an ID ReserveID gave, as Register
// does a new one.
func (r *Registry) RegisterID(id uint32, cancel func()) (key [4]byte, ok bool) {
	rand.Read(key[:])
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.byID[id]
	if e == nil || e.cancel != nil || r.sessions >= r.max {
		return key, false
	}
	if cancel == nil {
		cancel = func() {}
	}
	e.key, e.cancel, e.counted = key, cancel, true
	r.sessions++
	return key, true
}

// newIDLocked is an ID no session or reservation has. REQUIRES: r.mu
// held.
func (r *Registry) newIDLocked() uint32 {
	for {
		var b [4]byte
		rand.Read(b[:])
		id := binary.BigEndian.Uint32(b[:]) >> 1 // positive as a PostgreSQL pid
		if id != 0 && r.byID[id] == nil {
			return id
		}
	}
}

// Unregister forgets a session (its connection ended), or an ID
// reserved.
func (r *Registry) Unregister(id uint32) {
	r.mu.Lock()
	if e := r.byID[id]; e != nil {
		if e.counted {
			r.sessions--
		}
		if e.tracked {
			r.tracked--
		}
		delete(r.byID, id)
	}
	r.mu.Unlock()
}

// MayUseSlot reports whether a session that just authenticated may stay:
// beyond max-reserved sessions, only a superuser (PostgreSQL's
// superuser_reserved_connections, decided after authentication).
func (r *Registry) MayUseSlot(superuser bool) bool {
	r.mu.Lock()
	n := r.sessions
	r.mu.Unlock()
	return n <= r.max-r.reserved || superuser
}

// MayTrack reports whether a session Track registers may be made
// for a role (a superuser or not): while the sessions counted hold every
// place any role may take, only a superuser's.
func (r *Registry) MayTrack(superuser bool) bool {
	r.mu.Lock()
	n := r.sessions
	r.mu.Unlock()
	return n < r.max-r.reserved || superuser
}

// Cancel cancels what session id is running, if anything, when key is
// its key (compared in constant time); PostgreSQL too makes no promise
// for a request that races with the statement's end.
func (r *Registry) Cancel(id uint32, key []byte) bool {
	r.mu.Lock()
	var cancel func()
	var want [4]byte
	if e := r.byID[id]; e != nil {
		cancel, want = e.cancel, e.key
	}
	r.mu.Unlock()
	if cancel == nil || subtle.ConstantTimeCompare(key, want[:]) != 1 {
		return false
	}
	cancel()
	return true
}

// Contain ends a panicking statement with an internal error (XX000 in
// PostgreSQL's terms) instead of the process, logging the stack: deferred
// around each statement, with the statement's error.
func Contain(logger *log.Logger, conn uint32, err *error) {
	r := recover()
	if r == nil {
		return
	}
	logger.Printf("a statement panicked (connection %d): %v\n%s", conn, r, debug.Stack())
	*err = sqlerr.Errorf(sqlerr.InternalError, "internal error: %v", r)
}

// MaxLoggedStatement bounds a failed statement's text in the log.
const MaxLoggedStatement = 1024

// LogFailure logs a statement that failed, as PostgreSQL's
// log_min_error_statement = error does: its error code (the protocol's)
// and message, who sent it on which connection, and its text (its first
// MaxLoggedStatement bytes, cut where a character begins).
func LogFailure(logger *log.Logger, code, msg, user string, conn uint32, text string) {
	if len(text) > MaxLoggedStatement {
		cut := MaxLoggedStatement
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "..."
	}
	logger.Printf("ERROR %s %s (user %q, connection %d) STATEMENT: %s", code, msg, user, conn, text)
}

// TLSState is nc's TLS state (pg_stat_ssl's), nil without TLS.
func TLSState(nc net.Conn) *tls.ConnectionState {
	if tc, ok := nc.(*tls.Conn); ok {
		st := tc.ConnectionState()
		return &st
	}
	return nil
}
