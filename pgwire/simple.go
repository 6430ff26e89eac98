// The simple query protocol: a Query message, its statements run in
// order in one implicit transaction.

package pgwire

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/pgsql"
)

func (c *conn) simpleQuery(ctx context.Context, q string) {
	release, err := c.parseRoom(ctx, q)
	if err != nil {
		c.sess.Abort()
		c.logFailure(err, q)
		c.send(toErrorResponse(err))
		return
	}
	if len(q) >= frontend.LongStatement {
		// While it holds the room, a write the client does not take
		// ends its connection after roomWriteWait (flush): a query of
		// several statements sends the rows of all but its last with
		// the room held.
		c.holdsRoom = true
		given := release
		release = func() { c.holdsRoom = false; given() }
	}
	defer release()
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
	for i, n := 0, len(stmts); i < n; i++ {
		began := c.now()
		c.sess.StartsAt(began)
		sctx, cancel := c.sess.StatementContext(ctx)
		st, text := &stmts[i], stmts[i].Text()
		if i == n-1 && len(q) >= frontend.LongStatement {
			// Once the last statement is built and under way, its rows
			// need its plan, not its parse tree: a client that does not
			// read them holds neither that nor the room it took, which
			// bounds parsing and building, as a Parse's does.
			c.ran = func() { stmts = nil; release() }
		}
		tag, err := c.simpleStatement(sctx, st)
		c.ran = nil
		cancel()
		c.sess.StartsAt(time.Time{})
		c.observe(tag, err, began)
		if err != nil {
			c.sess.Abort()
			c.sess.EndImplicit(ctx, false)
			c.logFailure(err, text)
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

func (c *conn) simpleStatement(ctx context.Context, st *pgsql.Statement) (tag string, err error) {
	defer frontend.Contain(c.srv.log, c.pid, &err)
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
	if c.ran != nil {
		c.ran()
	}
	defer c.sess.Release(res)
	if err := c.complete(res); err != nil {
		return res.Tag, err
	}
	if res.Columns == nil {
		return res.Tag, nil
	}
	var formats []int16
	if res.Binary {
		formats = binaryFormat
	}
	c.send(c.rowDescription(res.Columns, formats))
	return res.Tag, c.sendRows(ctx, res, formats, 0)
}

// binaryFormat is every column in binary.
var binaryFormat = []int16{1}

// parseRoom takes the room a statement of text q needs from the room
// long statements share while it is parsed and built (and run, a Query)
// (frontend.TakeParseRoom): nothing, for all but long ones. Its wait is
// the statement's, which a CancelRequest and statement_timeout end.
func (c *conn) parseRoom(ctx context.Context, q string) (release func(), err error) {
	if len(q) < frontend.LongStatement {
		return c.srv.reg.TakeParseRoom(ctx, len(q))
	}
	sctx, cancel := c.sess.StatementContext(ctx)
	defer cancel()
	return c.srv.reg.TakeParseRoom(sctx, len(q))
}

// parse parses a query string, containing a panic as contain does.
func (c *conn) parse(q string) (stmts []pgsql.Statement, err error) {
	defer frontend.Contain(c.srv.log, c.pid, &err)
	return pgsql.Parse(q)
}
