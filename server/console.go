// The operator console on the -http listener (package console): what it
// reads of the server, and the predefined role its users are granted.

package server

import (
	"context"
	"errors"
	"time"

	"github.com/seqd/seqd/apicore"
	"github.com/seqd/seqd/console"
	"github.com/seqd/seqd/engine"
)

// newConsole is the console of s, authenticating as the driverless APIs
// would on the -http address (trust only where -auth is trust and the
// address is loopback). It is closed with the other front ends.
// REQUIRES: s.cfg, s.pg and s.watch are set.
func (s *Server) newConsole() *console.Console {
	cc := apicore.Config{Node: func() (*engine.Engine, bool) { return s.engine(), false }, Registry: s.pg.Registry(),
		Auth: apiAuth(s.cfg.Auth, s.cfg.HTTP), Superuser: s.cfg.Superuser, AppName: "seqd console"}
	core := apicore.New(cc)
	view := &clusterView{}
	ccfg := console.Config{Engine: s.engine, Authenticate: core.Authenticate, Superuser: s.cfg.Superuser,
		Plaintext: s.cfg.APIInsecure, Projection: s.watch.projection, Cluster: func() console.Cluster { return s.consoleCluster(view) }}
	if n := s.node; n != nil {
		ccfg.NoOrderBlock, ccfg.Node = n.ranges.BlockOf, n.cfg.NodeName
	}
	if f := failuresOf(s.log); f != nil {
		ccfg.Failures = f.Recent
	}
	c := console.New(ccfg)
	addr := s.cfg.HTTP
	s.others = append(s.others, door{
		setAuth: func(method string) { core.SetAuth(apiAuth(method, addr)) },
		stop:    func(context.Context) { c.Close(); core.Close() },
	})
	if s.node == nil {
		s.ensureMonitorRole(context.Background(), s.eng)
	} else {
		go s.ensureMonitorRoleWhenLeading()
		go s.watchFailovers(&view.failovers)
	}
	return c
}

// ensureMonitorRoleWhenLeading makes pg_monitor where it is missing, in
// cluster mode: a standby's snapshot cannot be written, so the node
// looks every monitorRoleCheck while it runs and makes it when it leads.
func (s *Server) ensureMonitorRoleWhenLeading() {
	t := time.NewTicker(monitorRoleCheck)
	defer t.Stop()
	for {
		if eng, standby := s.node.current(); !standby {
			s.ensureMonitorRole(s.node.ctx, eng)
		}
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
	}
}

const monitorRoleCheck = 10 * time.Second

// ensureMonitorRole creates the predefined role pg_monitor (NOLOGIN, no
// privilege of its own) where the store lacks it, as PostgreSQL 15 has
// it in every cluster: GRANT pg_monitor TO a role lets it use the
// console. CREATE ROLE refuses the name (pg_ is reserved), so it is made
// here.
func (s *Server) ensureMonitorRole(ctx context.Context, eng *engine.Engine) {
	if _, ok := eng.Role(console.MonitorRole); ok {
		return
	}
	err := eng.PutRole(ctx, engine.Role{Name: console.MonitorRole}, true)
	if err != nil && !errors.Is(err, engine.ErrRoleExists) {
		s.log.Printf("could not create the predefined role %s: %v", console.MonitorRole, err)
	}
}

// projection is the watch's projection of the sequence of ID id, now at
// used of total: at its rate since the watch's last check, if it was
// sampled then and reaches its limit within the horizon.
func (w *exhaustionWatch) projection(id uint64, used, total float64) (console.Projection, bool) {
	w.mu.Lock()
	prev, ok := w.last[id]
	ok = ok && prev.gen == w.gen
	at, horizon := w.at, w.horizon
	w.mu.Unlock()
	window := time.Since(at).Seconds()
	if !ok || used <= prev.used || window < 1 {
		return console.Projection{}, false
	}
	rate := (used - prev.used) / window
	seconds := (total - used) / rate
	if seconds > horizon.Seconds() {
		return console.Projection{}, false
	}
	return console.Projection{Seconds: seconds, PerSecond: rate, Window: window}, true
}
