package apicore

import (
	"context"
	"crypto/tls"
	"slices"

	"github.com/seqd/seqd/engine"
	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/sqlerr"
)

// Client is who a call comes from, as pg_stat_activity shows it.
type Client struct {
	Addr string
	TLS  *tls.ConnectionState
}

// Call is one authenticated call's session: a pooled session of its
// role on the engine serving now. End gives it back.
type Call struct {
	// Standby reports whether the engine serves as a standby.
	Standby bool
	ctx     context.Context
	sess    *session
	core    *Core
	user    string
	done    context.CancelFunc // the call's deadline's, when it has one
}

// Begin starts a call of user's from client: a pooled session of the
// role (a new one when none is idle: 53300 when the budget has no slot
// for it). The call's statements run under the session's context, which
// a cancel through the registry (pg_cancel_backend) ends, bounded by
// ctx's deadline; ctx's end (the caller gone or cancelling) ends them
// too once the call has run for a while (see sweep).
func (c *Core) Begin(ctx context.Context, user string, client Client) (*Call, error) {
	q := new(Call)
	if err := c.Start(ctx, q, user, client); err != nil {
		return nil, err
	}
	return q, nil
}

// Start is Begin into a Call the caller holds (one allocation less on
// the hot path).
func (c *Core) Start(ctx context.Context, q *Call, user string, client Client) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	eng, standby := c.Engine()
	sess, err := c.pool.get(user, eng, standby, func() (*session, error) { return c.newSession(user, eng, standby, client) })
	if err != nil {
		return err
	}
	*q = Call{Standby: standby, sess: sess, core: c, user: user}
	q.ctx = sess.begin(ctx)
	if d, ok := ctx.Deadline(); ok {
		q.ctx, q.done = context.WithDeadline(q.ctx, d)
	}
	return nil
}

// End ends the call: its session goes back to the pool, or is closed if
// a transaction is left open in it.
func (q *Call) End() {
	if q.done != nil {
		q.done()
	}
	q.sess.end()
	q.sess.Idle()
	if q.sess.TxStatus() == 'I' {
		q.core.pool.put(q.user, q.sess)
	} else {
		q.sess.close()
	}
}

// Fail is err as the call answers it: on a standby, 25006 says where
// writes go.
func (q *Call) Fail(err error) *Error {
	e := ErrorOf(err)
	if q.Standby && e.Kind == sqlerr.ReadOnlyTransaction {
		e = NewError(e.Kind, "this node is a standby: send writes to the leader")
	}
	return e
}

// newSession starts a session of user's for the pool.
func (c *Core) newSession(user string, eng *engine.Engine, standby bool, client Client) (*session, error) {
	sess := &session{eng: eng, standby: standby, reg: c.cfg.Registry, sw: &c.sweeper, auth: eng.AuthVersion()}
	if role, ok := eng.Role(user); ok { // read after auth: a change between them is seen at the next get
		sess.settings = slices.Clone(role.Settings)
	}
	// The session takes no place of its own: the connections of the
	// calls it serves hold theirs, counted from accept (a gRPC
	// connection's streams may each hold a session, and the pool keeps
	// idle ones; counted, they locked other roles out).
	id, ok := c.cfg.Registry.Track(sess.interrupt)
	if !ok {
		return nil, NewError(sqlerr.TooManyConnections, "sorry, too many clients already")
	}
	// The last places are superusers', as for the SQL front ends
	// (-superuser-reserved-connections): past the others, an ordinary
	// role's calls are refused.
	if role, isRole := eng.Role(user); !c.cfg.Registry.MayTrack(!isRole || role.Superuser) {
		c.cfg.Registry.Unregister(id)
		return nil, NewError(sqlerr.TooManyConnections, "remaining connection slots are reserved for roles with the SUPERUSER attribute")
	}
	app := c.cfg.AppName
	if app == "" {
		app = "seqd api"
	}
	es, err := executor.NewSession(executor.Config{Engine: eng, MaxBulkRows: c.cfg.MaxBulkRows, MaxStatementMemory: c.cfg.MaxStatementMemory,
		Defaults: c.cfg.SessionDefaults, Superuser: c.cfg.Superuser, User: user, Database: "seqd", Standby: standby, BackendPID: id,
		Params: map[string]string{"application_name": app}, Activity: c.cfg.Registry.Activity(), ClientAddr: client.Addr, TLS: client.TLS,
		Protocol: c.cfg.Protocol})
	if err != nil {
		c.cfg.Registry.Unregister(id)
		return nil, err
	}
	sess.id, sess.Session = id, es
	c.sweeper.add(sess)
	return sess, nil
}
