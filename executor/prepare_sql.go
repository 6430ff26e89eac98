package executor

import (
	"context"
	"fmt"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/seqd/seqd/eval"
	"github.com/seqd/seqd/pgsql"
	"github.com/seqd/seqd/sqlerr"
)

// SQL-level prepared statements: PREPARE name [(type, ...)] AS statement,
// EXECUTE name [(value, ...)], DEALLOCATE [PREPARE] name | ALL, kept for
// the session (the extended protocol's named statements are the front
// end's). The statement is compiled at PREPARE, as PostgreSQL compiles
// it, and run by EXECUTE with the values as its parameters.

// maxSQLPrepared bounds the statements one session keeps (each holds a
// compiled plan).
const maxSQLPrepared = 1000

// parseTreeVersion is the version of the parser's trees, which Deparse
// wants told (the library exports no constant for it).
var parseTreeVersion = sync.OnceValue(func() int32 {
	r, err := pg.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return r.Version
})

// prepare is PREPARE.
func (c *planner) prepare(n *pg.PrepareStmt) (*Prepared, error) {
	s := c.s
	var oids []uint32
	for _, a := range n.Argtypes {
		t, err := c.TypeName(a.GetTypeName())
		if err != nil {
			return nil, err
		}
		oids = append(oids, t.OID())
	}
	text, err := pg.Deparse(&pg.ParseResult{Version: parseTreeVersion(), Stmts: []*pg.RawStmt{{Stmt: n.Query}}})
	if err != nil {
		return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd cannot prepare this statement: %v", err)
	}
	name, source := n.Name, c.SQL
	return command(func(context.Context) (*Result, error) {
		if _, ok := s.sqlPrepared[name]; ok {
			return nil, sqlerr.Errorf(sqlerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", name)
		}
		if len(s.sqlPrepared) >= maxSQLPrepared {
			return nil, sqlerr.Errorf(sqlerr.ProgramLimitExceeded, "a session may hold at most %d prepared statements", maxSQLPrepared)
		}
		stmts, err := pgsql.Parse(text)
		if err != nil {
			return nil, err
		}
		if len(stmts) != 1 {
			return nil, sqlerr.Errorf(sqlerr.FeatureNotSupported, "seqd cannot prepare this statement")
		}
		p, err := s.Prepare(&stmts[0], oids)
		if err != nil {
			return nil, err
		}
		if s.sqlPrepared == nil {
			s.sqlPrepared = map[string]*Prepared{}
		}
		s.sqlPrepared[name] = p
		s.listStatement(name, source, p, true)
		s.pathVersion++ // plans of EXECUTE name are for the statement it named
		return commandResult("PREPARE"), nil
	}), nil
}

// execute is EXECUTE: the values compiled as the statement's parameter
// types, then the statement run with them.
func (c *planner) execute(n *pg.ExecuteStmt) (*Prepared, error) {
	s := c.s
	p, ok := s.sqlPrepared[n.Name]
	if !ok {
		return nil, sqlerr.Errorf(sqlerr.InvalidStatementName, "prepared statement \"%s\" does not exist", n.Name)
	}
	if len(n.Params) != len(p.ParamTypes) {
		return nil, sqlerr.Errorf(sqlerr.SyntaxError, "wrong number of parameters for prepared statement \"%s\"", n.Name).
			WithDetail(fmt.Sprintf("Expected %d parameters but got %d.", len(p.ParamTypes), len(n.Params)))
	}
	vals := make([]eval.Expr, len(n.Params))
	for i, a := range n.Params {
		x, err := c.Expr(&eval.Scope{}, a)
		if err != nil {
			return nil, err
		}
		if vals[i], err = c.Coerce(x, p.ParamTypes[i], eval.Location(a), "EXECUTE parameter"); err != nil {
			return nil, err
		}
	}
	return &Prepared{Columns: p.Columns, txEnd: p.txEnd, run: func(ctx context.Context, params []eval.Datum) (*Result, error) {
		args := make([]eval.Datum, len(vals))
		env := &eval.Env{Ctx: ctx, Session: (*evalView)(s)}
		for i, v := range vals {
			var err error
			if args[i], err = v.Eval(env); err != nil {
				return nil, err
			}
		}
		p.runs++
		return p.run(ctx, args)
	}}, nil
}

// deallocate is DEALLOCATE of a statement PREPARE made (all of them for
// ALL); false when name is none of them, for the front end's named
// statements.
func (s *Session) deallocate(name string, all bool) bool {
	if all {
		clear(s.sqlPrepared)
		clear(s.statements)
		s.pathVersion++
		return false
	}
	delete(s.statements, name)
	if _, ok := s.sqlPrepared[name]; ok {
		delete(s.sqlPrepared, name)
		s.pathVersion++
		return true
	}
	return false
}
