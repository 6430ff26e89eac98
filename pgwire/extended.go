// The extended query protocol: Parse, Bind, Describe, Execute, Close and
// Sync, over prepared statements and portals.

package pgwire

import (
	"context"
	"errors"

	"github.com/seqd/seqd/eval"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/seqd/seqd/executor"
	"github.com/seqd/seqd/frontend"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// extended runs one message of the extended protocol, a panic in it
// contained as an internal error. The defer is alone in a function of one
// return so that the compiler opens it inline: in the function of many
// returns below it was a deferred call record per message (2.5% of a
// pipelined nextval's CPU).
func (c *conn) extended(ctx context.Context, msg pgproto3.FrontendMessage) (err error) {
	defer frontend.Contain(c.srv.log, c.pid, &err)
	return c.extendedMessage(ctx, msg)
}

func (c *conn) extendedMessage(ctx context.Context, msg pgproto3.FrontendMessage) error {
	switch m := msg.(type) {
	case *pgproto3.Parse:
		return c.parseMessage(ctx, m)
	case *pgproto3.Bind:
		p := c.stmts[m.PreparedStatement]
		if p == nil {
			return sqlerr.Errorf(sqlerr.InvalidStatementName, "prepared statement \"%s\" does not exist", m.PreparedStatement)
		}
		params, err := c.decodeParams(m, p.p)
		if err != nil {
			return err
		}
		// A statement that returns no rows takes any result formats,
		// as PostgreSQL's (PortalSetResultFormat).
		if n := len(m.ResultFormatCodes); n > 1 && p.p != nil && p.p.Columns != nil && n != len(p.p.Columns) {
			return sqlerr.Errorf(sqlerr.ProtocolViolation, "bind message has %d result formats but query has %d columns", n, len(p.p.Columns))
		}
		pt := portal{p: p.p, params: params, formats: m.ResultFormatCodes, text: p.text}
		if name := m.DestinationPortal; named(name) {
			pt.cost = portalCost(p, params, m.ResultFormatCodes) + int64(len(name))
			if err := c.roomFor(name, pt.cost, c.portals[name]); err != nil {
				return err
			}
		}
		c.keepPortal(m.DestinationPortal, pt)
		c.send(&pgproto3.BindComplete{})
	case *pgproto3.Describe:
		return c.describe(m)
	case *pgproto3.Execute:
		pt := c.portals[m.Portal]
		c.executed = pt
		if pt == nil {
			pt = c.cursorPortal(m.Portal)
		}
		if pt == nil {
			return sqlerr.Errorf(sqlerr.InvalidCursorName, "portal \"%s\" does not exist", m.Portal)
		}
		if pt.p == nil {
			c.send(&pgproto3.EmptyQueryResponse{})
			return nil
		}
		if pt.res == nil {
			res, err := c.sess.Execute(ctx, pt.p, pt.params)
			if err != nil {
				return err
			}
			pt.res = res
			if err := c.complete(res); err != nil {
				return err
			}
			if res.Columns == nil {
				return nil
			}
		} else if pt.res.Columns == nil || pt.res.Rows == nil {
			c.commandComplete(append(c.tag[:0], pt.res.Tag...))
			return nil
		}
		err := c.sendRows(ctx, pt.res, pt.formats, int64(m.MaxRows))
		if errors.Is(err, errSuspended) {
			// What its rows keep stays the session's, counted against
			// its later statements, until the portal is dropped
			// (dropPortal, keepPortal: Session.Release) or read to its
			// end.
			if m := pt.res.Memory; m != nil {
				m.Keep()
			}
			c.send(&pgproto3.PortalSuspended{})
			return nil
		}
		if err == nil {
			pt.res.Rows = noRows{} // a further Execute completes with no rows
			if m := pt.res.Memory; m != nil {
				m.Release()
			}
		}
		return err
	case *pgproto3.Close:
		if m.ObjectType == 'S' {
			c.dropStatement(m.Name)
			c.sess.ForgetStatement(m.Name)
		} else {
			c.dropPortal(m.Name)
		}
		c.send(&pgproto3.CloseComplete{})
	}
	return nil
}

// cursorPortal is the portal of an SQL cursor (DECLARE), which the
// extended protocol may execute by name; nil if there is none.
func (c *conn) cursorPortal(name string) *portal {
	cols, rows, ok := c.sess.Cursor(name)
	if !ok {
		return nil
	}
	return &portal{p: &executor.Prepared{Columns: cols}, res: &executor.Result{Columns: cols, Rows: rows, Tag: "FETCH"}}
}

// parseNotices sends what parsing said.
func (c *conn) parseNotices(ns []pgsql.Notice) {
	for _, n := range ns {
		c.send(&pgproto3.NoticeResponse{Severity: "NOTICE", SeverityUnlocalized: "NOTICE", Code: sqlstate(n.Kind), Message: n.Msg})
	}
}

// noRows is an exhausted result.
type noRows struct{}

func (noRows) Next() ([]eval.Datum, bool, error) { return nil, false, nil }

// describe answers Describe without executing: the columns a statement
// will return are known from its plan.
func (c *conn) describe(m *pgproto3.Describe) error {
	var p *executor.Prepared
	var formats []int16
	if m.ObjectType == 'S' {
		ps := c.stmts[m.Name]
		if ps == nil {
			return sqlerr.Errorf(sqlerr.InvalidStatementName, "prepared statement \"%s\" does not exist", m.Name)
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: paramOIDs(ps.p)})
		p = ps.p
	} else {
		pt := c.portals[m.Name]
		if pt == nil {
			if cols, _, ok := c.sess.Cursor(m.Name); ok {
				c.send(c.rowDescription(cols, nil))
				return nil
			}
			return sqlerr.Errorf(sqlerr.InvalidCursorName, "portal \"%s\" does not exist", m.Name)
		}
		p, formats = pt.p, pt.formats
	}
	if p == nil || p.Columns == nil {
		c.send(&pgproto3.NoData{})
	} else {
		c.send(c.rowDescription(p.Columns, formats))
	}
	return nil
}

// parseMessage prepares the statement a Parse names (or the unnamed one).
func (c *conn) parseMessage(ctx context.Context, m *pgproto3.Parse) error {
	if panicHook != nil {
		panicHook(m.Query)
	}
	release, err := c.parseRoom(ctx, m.Query)
	if err != nil {
		return err
	}
	defer release()
	stmts, err := c.parse(m.Query)
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return sqlerr.Errorf(sqlerr.SyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	if len(stmts) == 1 {
		c.parseNotices(stmts[0].Notices)
	}
	if m.Name != "" && c.stmts[m.Name] != nil {
		return sqlerr.Errorf(sqlerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", m.Name)
	}
	p := &prepared{text: m.Query}
	var st *pgsql.Statement // nil for an empty query
	if len(stmts) == 1 {
		st = &stmts[0]
		if p.p, err = c.sess.Prepare(st, m.ParameterOIDs); err != nil {
			return err
		}
	}
	if named(m.Name) {
		// Its name counts too: a name may be as long as the
		// message that carries it.
		p.cost = statementCost(m.Query, st, p.p) + int64(len(m.Name))
		if err := c.roomFor(m.Name, p.cost, nil); err != nil {
			return err
		}
	} else {
		// Measured only if a named portal is bound from it: the
		// unnamed statement, replaced at every Parse of the
		// drivers that do not prepare, counts in no bound (4).
		p.st = st
	}
	c.keepStatement(m.Name, p)
	c.sess.NameStatement(m.Name, m.Query, p.p)
	c.send(&pgproto3.ParseComplete{})
	return nil
}
