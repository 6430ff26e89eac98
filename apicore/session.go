package apicore

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
)

// session is a pooled session: its ID in the registry (its
// pg_backend_pid in pg_stat_activity; a cancel through the registry ends
// the call under way, as the caller's going away does) and the engine it
// serves.
type session struct {
	*executor.Session
	id      uint32
	eng     *engine.Engine
	standby bool
	// auth is the engine's AuthVersion when settings were last seen to
	// be the role's (ALTER ROLE ... SET), which the session took at its
	// start: a session whose role's settings changed is not reused, as
	// a new connection has the new ones.
	auth     uint64
	settings []engine.Setting
	reg      *frontend.Registry
	sw       *sweeper
	mu       sync.Mutex
	// ctx is what the session's statements run under, cancel its
	// cancel: made once and used by call after call until a cancel ends
	// it (then a new one), so that a call costs no context of its own.
	ctx    context.Context
	cancel context.CancelFunc
	// call is the caller's context of the call under way (nil between
	// calls), calls counts the calls begun, seen is calls as the sweeper
	// last saw it, and unlink undoes the link the sweeper made from
	// call's end to cancel.
	call   context.Context
	calls  uint64
	seen   uint64
	unlink func() bool
}

// begin makes call the call under way and returns the context its
// statements run under.
func (s *session) begin(call context.Context) context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx == nil || s.ctx.Err() != nil {
		s.ctx, s.cancel = context.WithCancel(context.Background())
	}
	s.call = call
	s.calls++
	return s.ctx
}

// end ends the call under way.
func (s *session) end() {
	s.mu.Lock()
	unlink := s.unlink
	s.call, s.unlink = nil, nil
	s.mu.Unlock()
	if unlink != nil {
		unlink()
	}
}

// interrupt cancels the call under way, if any.
func (s *session) interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call != nil {
		s.cancel()
	}
}

// sweep links the end of the caller's context to the session's cancel
// for a call that was under way at the last sweep too.
func (s *session) sweep() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.call != nil && s.calls == s.seen && s.unlink == nil {
		call := s.calls
		s.unlink = context.AfterFunc(s.call, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.calls == call && s.call != nil { // still that call
				s.cancel()
			}
		})
	}
	s.seen = s.calls
}

func (s *session) close() {
	s.Session.Close()
	s.reg.Unregister(s.id)
	s.sw.remove(s)
}

// A call whose caller goes away or cancels should stop, but a context
// derived from the caller's for each call costs more than the rest of a
// call's own work (allocations, and a map in the caller's context), for
// the rare call that lasts. So the calls run under their sessions'
// contexts, and once every sweepInterval one goroutine of the Core looks
// at every session: a call under way at its last look too (it has run
// for at least sweepInterval) gets its caller's context linked to its
// session's cancel (context.AfterFunc), and from then on ends as soon as
// its caller does. A deadline is applied to each call exactly (Start).
const sweepInterval = 250 * time.Millisecond

// sweeper is the Core's sessions and the goroutine that sweeps them,
// started with the first session.
type sweeper struct {
	mu       sync.Mutex
	sessions map[*session]struct{}
	quit     chan struct{}
	stopped  bool
}

func (w *sweeper) add(s *session) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sessions == nil {
		w.sessions = map[*session]struct{}{}
	}
	w.sessions[s] = struct{}{}
	if w.quit == nil && !w.stopped {
		w.quit = make(chan struct{})
		go w.run(w.quit)
	}
}

func (w *sweeper) remove(s *session) {
	w.mu.Lock()
	delete(w.sessions, s)
	w.mu.Unlock()
}

func (w *sweeper) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped && w.quit != nil {
		close(w.quit)
	}
	w.stopped = true
}

func (w *sweeper) run(quit chan struct{}) {
	frontend.Sweep(sweepInterval, quit, &w.mu, w.sessions, (*session).sweep)
}

// sessionPool keeps idle sessions per role, so that a call does not pay
// a session's start; a session of an engine no longer serving (a new
// term), or made while the node was a standby and it leads now (or the
// other way), is closed instead of reused.
type sessionPool struct {
	mu     sync.Mutex
	byUser map[string][]*session
	closed bool
}

// maxIdlePerUser bounds the idle sessions kept of a role: each holds one
// of the server's connection slots (-max-conns) while it waits.
const maxIdlePerUser = 8

func (p *sessionPool) get(user string, eng *engine.Engine, standby bool, make func() (*session, error)) (*session, error) {
	var stale []*session
	defer func() {
		for _, s := range stale {
			s.close()
		}
	}()
	p.mu.Lock()
	for list := p.byUser[user]; len(list) > 0; list = p.byUser[user] {
		s := list[len(list)-1]
		p.byUser[user] = list[:len(list)-1]
		if s.eng == eng && s.standby == standby && s.current(user) {
			p.mu.Unlock()
			return s, nil
		}
		stale = append(stale, s)
	}
	p.mu.Unlock()
	return make()
}

// current reports whether the session still has its role's settings
// (ALTER ROLE ... SET): looked at only once the roles changed.
func (s *session) current(user string) bool {
	v := s.eng.AuthVersion()
	if v == s.auth {
		return true
	}
	role, _ := s.eng.Role(user)
	if !slices.Equal(role.Settings, s.settings) {
		return false
	}
	s.auth = v
	return true
}

func (p *sessionPool) put(user string, s *session) {
	p.mu.Lock()
	if p.closed || len(p.byUser[user]) >= maxIdlePerUser {
		p.mu.Unlock()
		s.close()
		return
	}
	p.byUser[user] = append(p.byUser[user], s)
	p.mu.Unlock()
}

func (p *sessionPool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, list := range p.byUser {
		for _, s := range list {
			s.close()
		}
	}
	p.byUser = map[string][]*session{}
}
