package frontend

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// ListenerConfig configures a front end's Listener.
type ListenerConfig struct {
	// Registry is the budget the connections are counted in.
	Registry *Registry
	// Refuse, when set, answers a connection the budget has no room for
	// in its protocol's words ("too many connections"), bounded in time;
	// the Listener closes it after. It runs on a goroutine of its own.
	Refuse func(net.Conn)
	// AuthTimeout bounds a connection's time before its front end calls
	// Authenticated: the Listener closes it then, whatever the front end
	// is waiting for. 0 is the default, 10 s; negative, no bound.
	AuthTimeout time.Duration
	// Name names the listener in the log ("pgwire", "mysql", ...).
	Name string
	// Logger receives the accept failures (Warn's rule).
	Logger *log.Logger
}

// DefaultAuthTimeout is ListenerConfig.AuthTimeout's default.
const DefaultAuthTimeout = 10 * time.Second

// Listener is what every front end accepts its connections through, so
// that each inherits the same defences:
//
//  1. every connection is counted in the Registry's budget from accept
//     until it is closed, whatever its protocol;
//  2. a connection the budget has no room for first takes the place of
//     the oldest one that is still evictable (not yet authenticated, or
//     idle between requests: Conn.SetIdle), so a flood of silent or idle
//     connections cannot lock out a client that authenticates; only
//     when none is evictable is it refused (Refuse);
//  3. a connection not authenticated within AuthTimeout is closed;
//  4. a failed accept (out of descriptors, EMFILE or ENFILE; a
//     connection reset before it was accepted; no buffers) is logged and
//     retried after a backoff (5 ms doubling to 1 s, as net/http's), and
//     never ends the listener: only closing it does.
//
// It is safe for concurrent use.
type Listener struct {
	net.Listener
	cfg ListenerConfig

	mu       sync.Mutex
	failures int       // accept failures since the last success
	logged   time.Time // when a failure was last logged
}

// Listen wraps ln.
func Listen(ln net.Listener, cfg ListenerConfig) *Listener {
	if cfg.AuthTimeout == 0 {
		cfg.AuthTimeout = DefaultAuthTimeout
	}
	if cfg.Name == "" {
		cfg.Name = "listener"
	}
	return &Listener{Listener: ln, cfg: cfg}
}

// Accept returns the next admitted connection, a *Conn; it fails only
// when the listener is closed.
func (l *Listener) Accept() (net.Conn, error) {
	var backoff time.Duration
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil, err
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			l.failed(err, backoff)
			time.Sleep(backoff)
			continue
		}
		if backoff > 0 {
			l.recovered()
			backoff = 0
		}
		if c := l.cfg.Registry.admitConn(nc, l.cfg.AuthTimeout, l.cfg.Name); c != nil {
			return c, nil
		}
		go func() {
			if l.cfg.Refuse != nil {
				nc.SetDeadline(time.Now().Add(time.Second))
				l.cfg.Refuse(nc)
			}
			nc.Close()
		}()
	}
}

// failed logs an accept failure: the first of a run, then at most one a
// minute, with the count, so that a long flood neither floods the log nor
// goes unseen.
func (l *Listener) failed(err error, backoff time.Duration) {
	l.mu.Lock()
	l.failures++
	n, now := l.failures, time.Now()
	quiet := n > 1 && now.Sub(l.logged) < time.Minute
	if !quiet {
		l.logged = now
	}
	l.mu.Unlock()
	if !quiet {
		Warn(l.cfg.Logger, "%s: accept failed (%d in a row), retrying in %v: %v", l.cfg.Name, n, backoff, err)
	}
}

// recovered logs the end of a run of accept failures.
func (l *Listener) recovered() {
	l.mu.Lock()
	n := l.failures
	l.failures = 0
	l.mu.Unlock()
	Warn(l.cfg.Logger, "%s: accepting again after %d failed accepts", l.cfg.Name, n)
}

// Conn is an admitted connection. Its front end calls Authenticated once
// the client proved who it is (and SetIdle around requests where a
// connection carries many); Close leaves the budget, once.
type Conn struct {
	net.Conn
	reg      *Registry
	listener string // its Listener's name (Registry.AdmittedBy)
	left     atomic.Bool
	// evictable is the connection's place in the Registry's list while
	// it may be evicted; nil otherwise. Guarded by reg.mu.
	evictable *list.Element
	authTimer *time.Timer // nil once authenticated
}

// Authenticated marks c as a client's that proved who it is: the
// authentication timeout no longer applies, and it is no longer
// evictable.
func (c *Conn) Authenticated() {
	c.reg.mu.Lock()
	t := c.authTimer
	c.authTimer = nil
	c.reg.unlistLocked(c)
	c.reg.mu.Unlock()
	if t != nil {
		t.Stop()
	}
}

// SetIdle marks an authenticated connection idle (between requests, as
// an HTTP keep-alive waits for the next) or busy. An idle connection
// gives its place to a new one when the budget is full.
func (c *Conn) SetIdle(idle bool) {
	c.reg.mu.Lock()
	defer c.reg.mu.Unlock()
	if c.left.Load() {
		return
	}
	if idle && c.evictable == nil {
		c.evictable = c.reg.evictable.PushBack(c)
	} else if !idle {
		c.reg.unlistLocked(c)
	}
}

// NetConn is the connection as accepted (as tls.Conn's NetConn), for
// what needs its descriptor.
func (c *Conn) NetConn() net.Conn { return c.Conn }

// Close closes the connection and leaves the budget (once).
func (c *Conn) Close() error {
	c.leave()
	return c.Conn.Close()
}

// leave takes c out of the budget, once.
func (c *Conn) leave() {
	if !c.left.CompareAndSwap(false, true) {
		return
	}
	c.reg.mu.Lock()
	c.reg.admitted--
	c.reg.byName[c.listener]--
	c.reg.unlistLocked(c)
	t := c.authTimer
	c.authTimer = nil
	c.reg.mu.Unlock()
	if t != nil {
		t.Stop()
	}
}

// Warn logs a warning (Logf's rule).
func Warn(logger *log.Logger, format string, args ...any) {
	Logf(logger, slog.LevelWarn, format, args...)
}

// Logf logs a line at level: through log/slog's default handler when
// logger is nil or the standard logger (seqd's binary, whose log lines
// slog shows at INFO), else to logger (a test's).
func Logf(logger *log.Logger, level slog.Level, format string, args ...any) {
	if logger == nil || logger == log.Default() {
		slog.Log(context.Background(), level, fmt.Sprintf(format, args...))
		return
	}
	logger.Printf(format, args...)
}

// HTTPConnState is an http.Server's ConnState for connections accepted
// through a Listener: the first request ends a connection's
// unauthenticated time (the requests authenticate themselves), and a
// connection is evictable while idle between requests.
func HTTPConnState(nc net.Conn, st http.ConnState) {
	for {
		if c, ok := nc.(*Conn); ok {
			switch st {
			case http.StateActive:
				c.Authenticated()
			case http.StateIdle:
				c.SetIdle(true)
			}
			return
		}
		w, ok := nc.(interface{ NetConn() net.Conn })
		if !ok {
			return
		}
		nc = w.NetConn()
	}
}
